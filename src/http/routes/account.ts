import { unparsed } from '../../services/validate.js';
import * as accounts from '../../services/accounts/index.js';
import * as tokens from '../../services/tokens/index.js';
import { CreateTokenInput } from '../../services/tokens/schemas.js';
import { AccountPreferences, Empty, IssuedToken, LinkCode, Me, NewAccount, TokenList, WebhookSecret } from '../response-schemas.js';
import { defineRoutes } from '../route.js';

const tag = 'Account';

export const accountRoutes = defineRoutes([
  {
    method: 'get',
    path: '/preferences',
    summary: "The account's time zone and quiet hours (the defaults when never set)",
    tag,
    auth: 'bearer',
    response: AccountPreferences,
    handler: (ctx) => accounts.getAccountPreferences({ ctx }),
  },
  {
    method: 'put',
    path: '/preferences',
    summary: 'Replace the time zone and quiet hours (a field left out takes its default)',
    tag,
    auth: 'bearer',
    body: accounts.AccountPreferencesInput,
    response: AccountPreferences,
    errors: [400],
    handler: (ctx, { body }) => accounts.putAccountPreferences({ ctx, input: unparsed(body) }),
  },
  {
    method: 'get',
    path: '/me',
    summary: 'The calling account',
    tag,
    auth: 'bearer',
    response: Me,
    handler: (ctx) => accounts.getMe({ ctx }),
  },
  {
    method: 'post',
    path: '/links',
    summary: 'A one-time code (10 minutes) that links a Telegram or Discord user to this account with `/link <code>`; replaces an unused one',
    tag,
    auth: 'bearer',
    status: 201,
    response: LinkCode,
    handler: (ctx) => accounts.createLinkCode({ ctx }),
  },
  {
    method: 'delete',
    path: '/links/{platform}',
    summary: "Unlink the account's Telegram or Discord user (their next message starts an account of their own)",
    tag,
    auth: 'bearer',
    response: Empty,
    errors: [400, 404],
    handler: async (ctx, { params }) => {
      await accounts.unlinkChat({ ctx, input: unparsed(params) });
      return {};
    },
  },
  {
    method: 'post',
    path: '/tokens',
    summary: 'Create an API token (shown once)',
    tag,
    auth: 'bearer',
    body: CreateTokenInput,
    status: 201,
    response: IssuedToken,
    errors: [400, 403],
    handler: (ctx, { body }) => tokens.createToken({ ctx, input: unparsed(body) }),
  },
  {
    method: 'get',
    path: '/tokens',
    summary: "The account's tokens (never the token itself)",
    tag,
    auth: 'bearer',
    response: TokenList,
    handler: async (ctx) => ({ tokens: await tokens.listTokens({ ctx }) }),
  },
  {
    method: 'delete',
    path: '/tokens/{tokenId}',
    summary: 'Revoke a token',
    tag,
    auth: 'bearer',
    response: Empty,
    errors: [404],
    handler: async (ctx, { params }) => {
      await tokens.revokeToken({ ctx, input: unparsed(params) });
      return {};
    },
  },
  {
    method: 'get',
    path: '/webhook-secret',
    summary: 'The Standard Webhooks signing secret of this account',
    tag,
    auth: 'bearer',
    response: WebhookSecret,
    handler: (ctx) => accounts.getWebhookSecret({ ctx }),
  },
  {
    method: 'post',
    path: '/webhook-secret/rotate',
    summary: 'Replace the signing secret',
    tag,
    auth: 'bearer',
    response: WebhookSecret,
    handler: (ctx) => accounts.rotateWebhookSecret({ ctx }),
  },
  {
    method: 'post',
    path: '/admin/accounts',
    summary: 'Create an account with its first token (admin accounts only)',
    tag,
    auth: 'bearer',
    body: accounts.CreateAccountInput,
    status: 201,
    response: NewAccount,
    errors: [400, 403],
    handler: (ctx, { body }) => accounts.createAccount({ ctx, input: unparsed(body === undefined ? {} : body) }),
  },
]);
