import { z } from 'zod';
import {
  CHANNEL_STATUSES,
  CHANNEL_TYPES,
  DELIVERY_MODES,
  MATCH_OPERATORS,
  MOVE_WINDOWS,
  STATUS_REASONS,
  SUBSCRIPTION_SCOPES,
  SUBSCRIPTION_TYPES,
  TOKEN_KINDS,
  TRADE_SIDES,
  TRIGGER_INTERVALS,
  TRIGGER_TYPES,
} from '../domain/enums.js';

// The answers' shapes, for the OpenAPI document and the contract tests. Strict objects: the
// spec says a subscription has no other properties than those listed.

/** `subscriptionTypeConfig.config.params` as stored: the spec's threshold, and our extension types' parameters. */
export const RuleParams = z
  .strictObject({
    threshold_percent: z.number().optional().meta({ description: 'The spec price rules; `Moves … By`: points within the window' }),
    window: z.enum(MOVE_WINDOWS).optional().meta({ description: '`Moves … By`' }),
    min_usd: z.number().optional().meta({ description: '`Large Trade`: size × price at least this' }),
    side: z.enum(TRADE_SIDES).optional().meta({ description: '`Large Trade`: only trades of this side' }),
    multiple: z.number().optional().meta({ description: "`Volume Spike`: the last hour's volume over the hourly average" }),
    hours_before: z.number().optional().meta({ description: "`Closing Soon`: hours before the market's endDate" }),
  })
  .meta({ id: 'RuleParams' });

export const ErrorBody = z.strictObject({ error: z.string() }).meta({ id: 'Error' });
export const Empty = z.strictObject({}).meta({ id: 'Empty' });

export const Watchlist = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    query: z.strictObject({
      keyphrases: z.array(z.strictObject({ text: z.string(), include: z.boolean() })),
      tags: z.array(z.strictObject({ tagSlug: z.string(), include: z.boolean() })),
      searchMatchOperator: z.enum(MATCH_OPERATORS),
      createdAt: z.string(),
    }),
    automaticallyAddMatchingEvents: z.boolean(),
    events: z.record(z.string(), z.strictObject({ autoFetch: z.boolean(), markets: z.array(z.string()) })),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Watchlist' });

export const WatchlistList = z.strictObject({ watchLists: z.array(Watchlist) });
export const WatchlistOne = z.strictObject({ watchList: Watchlist });

const ChannelOut = z
  .strictObject({
    type: z.enum(CHANNEL_TYPES),
    settings: z
      .strictObject({
        telegramChatId: z.number().optional(),
        webhookUrl: z.string().optional(),
        discordWebhookUrl: z.string().optional(),
      })
      .optional(),
    status: z.enum(CHANNEL_STATUSES).optional(),
  })
  .meta({ id: 'NotificationChannel' });

export const Subscription = z
  .strictObject({
    subscriptionId: z.string(),
    watchlistId: z.string(),
    watchlistName: z.string(),
    eventId: z.string().optional(),
    eventTitle: z.string().optional(),
    marketId: z.string().optional(),
    marketQuestion: z.string().optional(),
    subscriptionScope: z.enum(SUBSCRIPTION_SCOPES),
    subscriptionTypeConfig: z.strictObject({
      type: z.enum(SUBSCRIPTION_TYPES),
      config: z.strictObject({ params: RuleParams }),
    }),
    rule: z.union([
      z.strictObject({
        type: z.enum(SUBSCRIPTION_TYPES),
        params: z.strictObject({
          thresholdPercent: z.number().optional().meta({ description: 'Price rules and `Moves … By`: the percentage (points)' }),
          window: z.enum(MOVE_WINDOWS).optional(),
          minUsd: z.number().optional(),
          side: z.enum(TRADE_SIDES).optional(),
          multiple: z.number().optional(),
          hoursBefore: z.number().optional(),
          triggerType: z.enum(TRIGGER_TYPES),
          triggerInterval: z.enum(TRIGGER_INTERVALS).optional(),
        }),
      }),
      z.strictObject({ type: z.enum(SUBSCRIPTION_TYPES) }),
    ]),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
    updatedAt: z.string().nullable(),
    status: z.strictObject({ enabled: z.boolean(), reason: z.enum(STATUS_REASONS) }),
    triggerType: z.enum(TRIGGER_TYPES),
    triggerInterval: z.enum(TRIGGER_INTERVALS).optional(),
    triggerCount: z.number(),
    lastTriggeredAt: z.string().nullable(),
    channels: z.array(ChannelOut),
  })
  .meta({ id: 'Subscription' });

export const SubscriptionList = z.strictObject({ subscriptions: z.array(Subscription) });
export const SubscriptionOne = z.strictObject({ subscription: Subscription });

export const DryRun = z
  .strictObject({
    firings: z.array(
      z.strictObject({
        at: z.string(),
        price: z.number(),
        level: z.number(),
        levels: z.array(z.number()).optional(),
        marketId: z.string().optional(),
      }),
    ),
    count: z.number().int(),
    from: z.string(),
    to: z.string(),
  })
  .meta({ id: 'DryRun' });

export const Me = z.strictObject({
  userId: z.string(),
  createdAt: z.string(),
  links: z.strictObject({ discord: z.string().nullable(), telegram: z.string().nullable() }),
});

export const LinkCode = z.strictObject({
  code: z.string().meta({ description: 'Send `/link <code>` to the Telegram or Discord bot; used once' }),
  expiresAt: z.string(),
});

export const IssuedToken = z.strictObject({
  id: z.string(),
  token: z.string().meta({ description: 'Shown only in this answer' }),
  name: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
});

export const TokenList = z.strictObject({
  tokens: z.array(
    z.strictObject({
      id: z.string(),
      name: z.string(),
      prefix: z.string(),
      createdAt: z.string(),
      lastUsedAt: z.string().nullable(),
      expiresAt: z.string().nullable(),
      kind: z.enum(TOKEN_KINDS).meta({ description: '`session`: a web console sign-in; revoking it signs that browser out' }),
    }),
  ),
});

export const WebhookSecret = z.strictObject({ secret: z.string() });
export const NewAccount = z.strictObject({ userId: z.string(), token: z.string() });

export const TestSendResult = z
  .strictObject({ ok: z.boolean(), statusCode: z.number().nullable(), error: z.string().nullable(), durationMs: z.number() })
  .meta({ id: 'TestSendResult' });

/** A subscription channel's endpoint health (docs/delivery.md "Endpoint health"). */
export const ChannelHealth = z
  .strictObject({
    position: z.number().int(),
    type: z.enum(CHANNEL_TYPES),
    endpoint: z.string().meta({ description: "The channel without its secrets: a webhook URL's origin, or the type and position" }),
    state: z.enum(['healthy', 'failing', 'disabled']),
    failingSince: z.string().nullable().meta({ description: 'When the first of the current run of failed deliveries was due' }),
    failedNotifications: z.number().int().meta({ description: 'Notifications whose delivery failed since the last success' }),
    lastError: z.string().nullable(),
    disabledAt: z.string().nullable(),
    disabledReason: z.string().nullable(),
  })
  .meta({ id: 'ChannelHealth' });
export const ChannelHealthList = z.strictObject({ channels: z.array(ChannelHealth) });
export const ChannelHealthOne = z.strictObject({ channel: ChannelHealth });

export const SubscriptionPreferences = z
  .strictObject({
    snoozedUntil: z.iso
      .datetime()
      .nullable()
      .meta({ description: 'Until when only the In App inbox gets firings (the other channels are recorded unsent); null when not snoozed or once the snooze ran out' }),
    delivery: z.enum(DELIVERY_MODES).meta({
      description: 'instant: each firing at once; hourly/daily: collected and sent as one digest per channel at the top of the hour, or daily at DIGEST_HOUR in the account time zone',
    }),
    rearmPoints: z.number().meta({
      description: 'Re-arm band in percentage points: after a crossing rule fires at T, it fires again only once the price has gone back past T by this much; 0: off',
    }),
  })
  .meta({ id: 'SubscriptionPreferences' });

const WallTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/).meta({ description: 'Local wall time HH:MM in the account time zone' });

export const AccountPreferences = z
  .strictObject({
    timezone: z.string().meta({ description: 'IANA time zone name; UTC by default' }),
    quietHours: z
      .strictObject({
        start: WallTime,
        end: WallTime,
        channels: z.array(z.enum(CHANNEL_TYPES)).meta({ description: 'The channels held during quiet hours and sent one summary each when they end' }),
      })
      .nullable()
      .meta({ description: 'Daily quiet hours (start after end crosses midnight); null: none' }),
  })
  .meta({ id: 'AccountPreferences' });
