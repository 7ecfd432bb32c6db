import { z } from 'zod';
import {
  CATALOG_RULE_TYPE,
  CHANNEL_TYPES,
  CLOSING_SOON_HOURS,
  CLOSING_SOON_TYPE,
  isPriceRuleType,
  LARGE_TRADE_TYPE,
  MIN_VOLUME_SPIKE_MULTIPLE,
  MOVE_RULE_TYPES,
  MOVE_WINDOWS,
  PRICE_RULE_TYPES,
  RESOLUTION_TYPE,
  SUBSCRIPTION_TYPES,
  TRADE_SIDES,
  VOLUME_SPIKE_TYPE,
  SUBSCRIPTION_SCOPES,
  TRIGGER_INTERVALS,
  TRIGGER_TYPES,
} from '../../domain/enums.js';
import { thresholdFraction } from '../../engine/rules.js';
import { MIN_STEP } from '../../engine/step-levels.js';
import { futureDate, Id, isSafeText, UNSAFE_TEXT_MESSAGE } from '../schemas.js';

// The engine's smallest step as the percentage a user writes (0.01).
const MIN_STEP_PERCENT = Number((MIN_STEP * 100).toPrecision(12));

/** A price rule's threshold, a percentage strictly between these bounds (chat parsers read them too). */
export const THRESHOLD_PERCENT = { above: 0, below: 100 } as const;

const ThresholdPercent = z
  .number({ error: 'threshold_percent must be a number' })
  .gt(THRESHOLD_PERCENT.above, `threshold_percent must be greater than ${THRESHOLD_PERCENT.above}`)
  .lt(THRESHOLD_PERCENT.below, `threshold_percent must be less than ${THRESHOLD_PERCENT.below}`);

const PriceTypeConfig = z.strictObject({
  type: z.enum(PRICE_RULE_TYPES),
  config: z.strictObject({ params: z.strictObject({ threshold_percent: ThresholdPercent }) }),
});
const CatalogTypeConfig = z.strictObject({
  type: z.literal(CATALOG_RULE_TYPE),
  config: z.strictObject({ params: z.strictObject({}) }).default({ params: {} }),
});

// Our extension types (docs/alerts.md "Richer triggers").
const MoveTypeConfig = z.strictObject({
  type: z.enum(MOVE_RULE_TYPES),
  config: z.strictObject({
    params: z.strictObject({
      threshold_percent: ThresholdPercent,
      window: z.enum(MOVE_WINDOWS, { error: `window must be one of: ${MOVE_WINDOWS.join(', ')}` }),
    }),
  }),
});
/** The largest trade value a rule may ask for: beyond any trade the venue has seen. */
export const MAX_TRADE_USD = 1_000_000_000;
const LargeTradeTypeConfig = z.strictObject({
  type: z.literal(LARGE_TRADE_TYPE),
  config: z.strictObject({
    params: z.strictObject({
      min_usd: z
        .number({ error: 'min_usd must be a number of dollars' })
        .positive('min_usd must be greater than 0')
        .max(MAX_TRADE_USD, `min_usd must be at most ${MAX_TRADE_USD}`),
      side: z.enum(TRADE_SIDES, { error: `side must be one of: ${TRADE_SIDES.join(', ')}` }).optional(),
    }),
  }),
});
const MAX_VOLUME_SPIKE_MULTIPLE = 1000;
const VolumeSpikeTypeConfig = z.strictObject({
  type: z.literal(VOLUME_SPIKE_TYPE),
  config: z.strictObject({
    params: z.strictObject({
      multiple: z
        .number({ error: 'multiple must be a number' })
        .min(MIN_VOLUME_SPIKE_MULTIPLE, `multiple must be at least ${MIN_VOLUME_SPIKE_MULTIPLE}`)
        .max(MAX_VOLUME_SPIKE_MULTIPLE, `multiple must be at most ${MAX_VOLUME_SPIKE_MULTIPLE}`),
    }),
  }),
});
const ResolutionTypeConfig = z.strictObject({
  type: z.literal(RESOLUTION_TYPE),
  config: z.strictObject({ params: z.strictObject({}) }).default({ params: {} }),
});
const ClosingSoonTypeConfig = z.strictObject({
  type: z.literal(CLOSING_SOON_TYPE),
  config: z.strictObject({
    params: z.strictObject({
      hours_before: z.literal(CLOSING_SOON_HOURS, { error: `hours_before must be one of: ${CLOSING_SOON_HOURS.join(', ')}` }),
    }),
  }),
});

const MAX_STEP_PERCENT = 50;

export const SubscriptionTypeConfig = z
  .discriminatedUnion(
    'type',
    [
      PriceTypeConfig,
      CatalogTypeConfig,
      MoveTypeConfig,
      LargeTradeTypeConfig,
      VolumeSpikeTypeConfig,
      ResolutionTypeConfig,
      ClosingSoonTypeConfig,
    ],
    { error: `subscriptionTypeConfig.type must be one of: ${SUBSCRIPTION_TYPES.join(', ')}` },
  )
  .refine((c) => c.type !== 'Crossing Step' || c.config.params.threshold_percent <= MAX_STEP_PERCENT, {
    message: `a Crossing Step threshold_percent must be at most ${MAX_STEP_PERCENT}`,
    path: ['config', 'params', 'threshold_percent'],
    params: { code: 'step_too_big', bound: MAX_STEP_PERCENT },
  })
  // Judged as the engine sees the step (the same rounding and bound), so what is accepted can fire.
  .refine((c) => c.type !== 'Crossing Step' || thresholdFraction(c.config.params.threshold_percent) >= MIN_STEP, {
    message: `a Crossing Step threshold_percent must be at least ${MIN_STEP_PERCENT}`,
    path: ['config', 'params', 'threshold_percent'],
    params: { code: 'step_too_small', bound: MIN_STEP_PERCENT },
  });
export type SubscriptionTypeConfig = z.output<typeof SubscriptionTypeConfig>;
type PriceTypeConfig = z.output<typeof PriceTypeConfig>;
/** A type config of one of the spec's price rules, which the rule index evaluates on every price. */
export const isPriceTypeConfig = (c: SubscriptionTypeConfig): c is PriceTypeConfig => isPriceRuleType(c.type);

const HttpUrl = (field: string) =>
  z
    .url({ protocol: /^https?$/, error: `${field} must be an http or https URL` })
    .max(2048, `${field} is too long`)
    .refine(isSafeText, UNSAFE_TEXT_MESSAGE);

// Each channel type carries exactly its own setting (API.md); the spec lists no others.
export const Channel = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('In App'), settings: z.strictObject({}).optional() }),
    z.strictObject({ type: z.literal('Webhook'), settings: z.strictObject({ webhookUrl: HttpUrl('webhookUrl') }) }),
    z.strictObject({
      type: z.literal('Discord'),
      settings: z.strictObject({ discordWebhookUrl: HttpUrl('discordWebhookUrl') }),
    }),
    z.strictObject({
      type: z.literal('Telegram'),
      settings: z.strictObject({
        telegramChatId: z.number().int('telegramChatId must be an integer').refine((n) => n !== 0, 'telegramChatId must not be 0'),
      }),
    }),
  ],
  { error: `channel type must be one of: ${CHANNEL_TYPES.join(', ')}` },
);
export type Channel = z.output<typeof Channel>;

/**
 * Our extension (docs/decisions.md): a Discord direct message, which has no webhook, is posted to
 * by the bot itself in its DM channel with the user. Only the bots make it, for the chat they were
 * asked in; the REST API refuses it (a token holder must not steer the bot into other channels)
 * and shows it as a bare `Discord` channel (the spec allows no other setting).
 */
const DiscordDm = z.strictObject({
  type: z.literal('Discord'),
  // Discord's ids are digits; the id goes into a URL path, so nothing but id characters.
  settings: z.strictObject({ discordChannelId: z.string().regex(/^[\w-]{1,64}$/, 'discordChannelId must be a Discord channel id') }),
});
export const ChatChannel = z.union([Channel, DiscordDm]);
export type ChatChannel = z.output<typeof ChatChannel>;

const channelList = <C extends z.ZodType>(channel: C) => z.array(channel).min(1, 'give at least one channel');
const Channels = channelList(Channel);
const TriggerType = z.enum(TRIGGER_TYPES, { error: `triggerType must be one of: ${TRIGGER_TYPES.join(', ')}` });
const TriggerInterval = z.enum(TRIGGER_INTERVALS, {
  error: `triggerInterval must be one of: ${TRIGGER_INTERVALS.join(', ')}`,
});
const ExpiresAt = futureDate('expiresAt').nullable();

const subscriptionBody = <C extends z.ZodType>(channel: C) =>
  z.strictObject({
    watchlistId: Id,
    subscriptionScope: z.enum(SUBSCRIPTION_SCOPES, {
      error: `subscriptionScope must be one of: ${SUBSCRIPTION_SCOPES.join(', ')}`,
    }),
    eventId: Id.optional(),
    marketId: Id.optional(),
    subscriptionTypeConfig: SubscriptionTypeConfig,
    triggerType: TriggerType.default('Recurring'),
    triggerInterval: TriggerInterval.optional(),
    channels: channelList(channel),
    expiresAt: ExpiresAt.optional(),
  });

export const CreateSubscriptionInput = subscriptionBody(Channel);
/** What the bots create: CreateSubscriptionInput whose channels may also be a chat's own (ChatChannel). */
export const ChatSubscriptionInput = subscriptionBody(ChatChannel);
export type ChatSubscriptionInput = z.input<typeof ChatSubscriptionInput>;
export type CreateSubscriptionInput = z.input<typeof CreateSubscriptionInput>;

export const UpdateSubscriptionInput = z
  .strictObject({
    subscriptionTypeConfig: SubscriptionTypeConfig.optional(),
    triggerType: TriggerType.optional(),
    triggerInterval: TriggerInterval.optional(),
    channels: Channels.optional(),
    expiresAt: ExpiresAt.optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), {
    message: 'give at least one of subscriptionTypeConfig, triggerType, triggerInterval, channels, expiresAt',
  });
export type UpdateSubscriptionInput = z.input<typeof UpdateSubscriptionInput>;

export const SubscriptionIdInput = z.object({ subscriptionId: Id });
export type SubscriptionIdInput = z.input<typeof SubscriptionIdInput>;

// An alert on one market, as chat asks for it: any rule type as `subscriptionTypeConfig`, or a
// price rule as `type` + `thresholdPercent` (the guided alert's shorthand). The rule's bounds are
// CreateSubscriptionInput's, checked when it is stored, so chat and REST refuse the same values.
const marketAlertFields = {
  marketId: z.string(),
  triggerType: TriggerType.default('Recurring'),
  triggerInterval: TriggerInterval.optional(),
  channel: ChatChannel,
};
export type SubscriptionTypeConfigInput = z.input<typeof SubscriptionTypeConfig>;
export const CreateMarketAlertInput = z.union([
  z.strictObject({
    ...marketAlertFields,
    subscriptionTypeConfig: z.custom<SubscriptionTypeConfigInput>((v) => typeof v === 'object' && v !== null, 'subscriptionTypeConfig must be an object'),
  }),
  z.strictObject({
    ...marketAlertFields,
    type: z.enum(PRICE_RULE_TYPES, { error: `type must be one of: ${PRICE_RULE_TYPES.join(', ')}` }),
    thresholdPercent: z.number({ error: 'thresholdPercent must be a number' }),
  }),
]);
export type CreateMarketAlertInput = z.input<typeof CreateMarketAlertInput>;

/** A channel of a subscription by its 0-based index in the subscription's `channels`. */
export const ChannelPositionInput = z.object({
  subscriptionId: Id,
  // A path segment from HTTP, a number from a bot's button: both read as the same digits.
  position: z.preprocess(
    (v) => (typeof v === 'number' ? String(v) : v),
    z
      .string({ error: "position must be a whole number: the channel's 0-based index in the subscription's channels" })
      .regex(/^\d{1,4}$/, "position must be a whole number: the channel's 0-based index in the subscription's channels")
      .transform(Number),
  ),
});
export type ChannelPositionInput = z.input<typeof ChannelPositionInput>;
