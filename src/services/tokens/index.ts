export { authenticateBearer, type Authenticated } from './authenticate.js';
export { createToken, insertToken, type IssuedToken } from './issue.js';
export { listTokens, type TokenSummary } from './list.js';
export { revokeToken } from './revoke.js';
export { TOKEN_PREFIX, hashToken } from './token-format.js';
export { liveTokenIds } from './live.js';
