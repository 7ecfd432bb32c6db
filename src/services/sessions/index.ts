export { authenticateSession, CSRF_HEADER } from './authenticate.js';
export { createSession, type NewSession } from './create.js';
export { issueLoginCode, LOGIN_CODE_TTL_MS } from './login-codes.js';
export { CreateSessionInput } from './schemas.js';
export { endCurrentSession } from './end.js';
