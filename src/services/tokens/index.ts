export { authenticateBearer } from './authenticate.js';
export { startTokenCheckCache } from './check-cache.js';
export { createToken, insertToken } from './issue.js';
export { listTokens, type TokenSummary } from './list.js';
export { revokeToken } from './revoke.js';
export { liveTokenIds } from './live.js';
