export { authenticateSession, CSRF_HEADER } from './authenticate.js';
export { createSession } from './create.js';
export { issueLoginCode } from './login-codes.js';
export { CreateSessionInput } from './schemas.js';
export { endCurrentSession } from './end.js';
