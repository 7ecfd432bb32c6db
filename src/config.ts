import { isIP } from 'node:net';
import { z } from 'zod';
import { ROLES, type Role } from './domain/enums.js';

// Every setting of the operating contract (API.md), parsed once at start. Modules receive the
// parsed object; none reads process.env on its own.

const bool = z
  .union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no'])])
  .transform((v) => v === true || v === 'true' || v === '1' || v === 'yes');

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const optionalText = z.string().trim().min(1).optional();
const url = z.url({ protocol: /^https?$/ });

const roles = z
  .string()
  .transform((v) => v.split(',').map((r) => r.trim()).filter(Boolean))
  .pipe(z.array(z.enum(ROLES)).min(1))
  .transform((list) => new Set<Role>(list));

// Which proxies' X-Forwarded-For to believe, as express's `trust proxy` takes it: a hop count, or
// addresses, subnets and the names loopback / linklocal / uniquelocal. Never "trust everyone":
// the left-most address is whatever the client wrote.
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);
const isProxyAddress = (entry: string) => {
  if (PROXY_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
};
const trustProxy = z
  .string()
  .trim()
  .transform((v, ctx): number | string[] => {
    if (/^\d+$/.test(v)) return Number(v);
    const entries = v.split(',').map((e) => e.trim()).filter(Boolean);
    const bad = entries.filter((e) => !isProxyAddress(e));
    if (entries.length === 0 || bad.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a number of proxy hops, or proxy addresses/subnets (or loopback, linklocal, uniquelocal) separated by commas; not understood: ${bad.join(', ') || v}`,
      });
      return z.NEVER;
    }
    return entries;
  });

/**
 * A bot allowlist: platform user or server ids separated by commas, as a set. Unset is "open to
 * everyone" (undefined); a set list admits only its ids (docs/bots.md, "Who may use the bots").
 */
const idList = (what: string, pattern: RegExp, example: string) =>
  z
    .string()
    .transform((v, ctx): ReadonlySet<string> => {
      const ids = v.split(',').map((e) => e.trim()).filter(Boolean);
      const bad = ids.filter((id) => !pattern.test(id));
      if (ids.length === 0 || bad.length > 0) {
        ctx.addIssue({ code: 'custom', message: `must be ${what} separated by commas (like ${example}); not understood: ${bad.join(', ') || v}` });
        return z.NEVER;
      }
      return new Set(ids);
    })
    .optional();
// Telegram user ids are positive integers; Discord ids are snowflakes (17 to 20 digits).
const telegramUserIds = idList('Telegram user ids (numbers)', /^[1-9]\d{0,15}$/, '123456789,987654321');
const discordIds = (what: string) => idList(what, /^[1-9]\d{16,19}$/, '123456789012345678');

/** Outbox writers that are given no settings (tests, notices) use it too. */
export const DEFAULT_DIGEST_HOUR = 9;

export const ConfigSchema = z.object({
  PORT: int(0, 65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  ROLES: roles.default(new Set<Role>(ROLES)),
  VENUE: z.enum(['polymarket', 'simulator']).default('polymarket'),
  GAMMA_URL: url.default('https://gamma-api.polymarket.com'),
  CLOB_URL: url.default('https://clob.polymarket.com'),
  CLOB_WS_URL: z.url({ protocol: /^wss?$/ }).default('wss://ws-subscriptions-clob.polymarket.com/ws/market'),
  SIMULATOR_PORT: int(0, 65535).default(3100),
  SIMULATOR_SEED: int(0, 2 ** 31 - 1).default(1),
  SIMULATOR_SCENARIO: optionalText,
  SIMULATOR_RANDOM_WALK: bool.default(true),
  SYNC_INTERVAL_MS: int(1000, 86_400_000).default(60_000),
  /** How often the engine checks Closing Soon rules against the markets' end dates (src/runner/closing-soon.ts). */
  CLOSING_SOON_CHECK_MS: int(100, 3_600_000).default(30_000),
  ALLOW_PRIVATE_URLS: bool.default(false),
  WEBHOOK_TIMEOUT_MS: int(100, 120_000).default(5000),
  WEBHOOK_RETRY_DELAY_MS: int(0, 600_000).default(1000),
  /** Sends in flight per worker: slow receivers (up to the timeout each) must not hold up the rest. */
  DELIVERY_CONCURRENCY: int(1, 10_000).default(64),
  DISCORD_TOKEN: optionalText,
  DISCORD_APPLICATION_ID: optionalText,
  DISCORD_API_URL: url.optional(),
  DISCORD_GUILD_ID: optionalText,
  /** The application's Ed25519 public key: set, the API server receives interactions at POST /discord/interactions. */
  DISCORD_PUBLIC_KEY: z
    .string()
    .trim()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be the 64 hex characters of the application public key')
    .optional(),
  /** Unset: every Telegram user may use the bot. Set: only these user ids; nothing is stored for the rest. */
  BOT_ALLOWED_TELEGRAM_USERS: telegramUserIds,
  /** With either Discord list set, the bot answers in these servers, and these users anywhere (DMs too). */
  BOT_ALLOWED_DISCORD_GUILDS: discordIds('Discord server (guild) ids'),
  BOT_ALLOWED_DISCORD_USERS: discordIds('Discord user ids'),
  TELEGRAM_BOT_TOKEN: optionalText,
  TELEGRAM_API_URL: url.default('https://api.telegram.org'),
  TELEGRAM_WEBHOOK_URL: url.optional(),
  PUBLIC_URL: url.optional(),
  RATE_LIMIT_PER_MINUTE: int(1, 1_000_000).default(120),
  SEARCH_RATE_LIMIT_PER_MINUTE: int(1, 1_000_000).default(60),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BODY_LIMIT_BYTES: int(1024, 10_485_760).default(100_000),
  MAX_WATCHLISTS: int(1, 100_000).default(100),
  MAX_SUBSCRIPTIONS: int(1, 1_000_000).default(1000),
  MAX_QUERY_TERMS: int(1, 1000).default(50),
  MAX_EVENTS_PER_WATCHLIST: int(1, 100_000).default(500),
  MAX_CHANNELS_PER_SUBSCRIPTION: int(1, 100).default(8),
  MAX_TOKENS: int(1, 10_000).default(20),
  MAX_DEMO_WEBHOOKS: int(1, 10_000).default(10),
  /** Open `GET /notifications/stream` connections per account, per API process. */
  MAX_STREAMS_PER_ACCOUNT: int(1, 10_000).default(10),
  TRUST_PROXY: trustProxy.optional().transform((v) => v ?? false),
  /** After a rotation, deliveries are signed with the new and the previous secret for this long. */
  WEBHOOK_SECRET_GRACE_MS: int(0, 30 * 86_400_000).default(86_400_000),
  /** Endpoint health: a Webhook or Discord channel failing every delivery this long (and ... */
  ENDPOINT_DISABLE_AFTER_MS: int(100, 365 * 86_400_000).default(86_400_000),
  /** ... for at least this many notifications) is disabled; a warning goes out at half the span. */
  ENDPOINT_DISABLE_MIN_NOTIFICATIONS: int(1, 1_000_000).default(10),
  /** Feed health: a market feed connection silent this long while rules follow its tokens is an outage (accounts are told). */
  FEED_STALE_AFTER_MS: int(100, 86_400_000).default(60_000),
  /** Daily digests are sent at this hour (0-23) in each account's time zone. */
  DIGEST_HOUR: int(0, 23).default(DEFAULT_DIGEST_HOUR),
  /** Burst grouping: an account's firings to one chat beyond this many within BURST_WINDOW_MS go as one grouped message. */
  BURST_MAX: int(1, 1000).default(5),
  BURST_WINDOW_MS: int(100, 3_600_000).default(10_000),
  /** Feed health: the catalog sync failing every pass this long is an outage too. */
  SYNC_FAILING_AFTER_MS: int(100, 7 * 86_400_000).default(600_000),
});

export type Config = z.infer<typeof ConfigSchema>;

export class ConfigError extends Error {}

/** Parses settings; empty strings count as unset so `FOO=` in a .env file means "default". */
export function parseConfig(env: Record<string, string | undefined>): Config {
  const input: Record<string, string> = {};
  for (const key of Object.keys(ConfigSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value.trim() !== '') input[key] = value;
  }
  const parsed = ConfigSchema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = issue.path.join('.');
      return `  ${name}=${JSON.stringify(input[name] ?? '')}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid settings:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** The settings as kebab-case CLI flags (`--data-dir`), per the operating contract. */
export function settingFromFlag(flag: string): string | undefined {
  const key = flag.replace(/^--/, '').toUpperCase().replaceAll('-', '_');
  return key in ConfigSchema.shape ? key : undefined;
}
