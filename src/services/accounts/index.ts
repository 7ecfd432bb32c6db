export { createAccount, insertAccountWithToken, CreateAccountInput, type NewAccount } from './create.js';
export { getMe, type Me } from './me.js';
export { bootstrapFirstAccount, createAccountAsOperator, createTokenAsOperator } from './operator.js';
export { getWebhookSecret, rotateWebhookSecret } from './webhook-secret.js';
export { findOrCreateChatAccount, type ChatKind } from './link.js';
