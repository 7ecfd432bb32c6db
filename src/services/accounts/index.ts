export { createAccount, insertAccountWithToken, CreateAccountInput } from './create.js';
export { getMe } from './me.js';
export { bootstrapFirstAccount, createAccountAsOperator, createTokenAsOperator } from './operator.js';
export { getWebhookSecret, rotateWebhookSecret } from './webhook-secret.js';
export { findOrCreateChatAccount } from './link.js';
export { AccountPreferencesInput, changeAccountPreferences, getAccountPreferences, putAccountPreferences, type AccountPreferencesView } from './preferences.js';
export { createLinkCode, redeemLinkCode, unlinkChat, LINK_CODE_TTL_MS, type LinkOutcome } from './link-codes.js';
