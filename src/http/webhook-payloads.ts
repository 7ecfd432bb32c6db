import { z } from 'zod';
import {
  CHANNEL_TYPES,
  EVENT_STATUS_SCOPES,
  EVENT_STATUS_TRIGGERS,
  NOTIFICATION_TYPE,
  SUBSCRIPTION_SCOPES,
  MOVE_WINDOWS,
  SUBSCRIPTION_TYPES,
  TRADE_SIDES,
  TRIGGER_TYPES,
} from '../domain/enums.js';
import { RuleParams } from './response-schemas.js';
import { BATCH_KINDS } from '../delivery/batches.js';
import { DIGEST_NOTIFICATION } from '../delivery/senders/webhook-body.js';

// What a Webhook channel receives (spec: Events), for the OpenAPI document's `webhooks` section.
// Strict objects: a field the engine adds without describing it here fails the conformance test.

/** The rule's channels by type; only the receiver's own Webhook channel shows its URL (webhook-body.ts). */
const PayloadChannel = z.strictObject({
  type: z.enum(CHANNEL_TYPES),
  settings: z.strictObject({ webhookUrl: z.string() }).optional(),
});

export const PriceNotification = z
  .strictObject({
    type: z.literal(NOTIFICATION_TYPE.price),
    userId: z.string().meta({ description: 'Owner of the subscription' }),
    createdAt: z.iso.datetime(),
    subscriptionId: z.string(),
    watchlistId: z.string(),
    watchlistName: z.string(),
    eventId: z.string().meta({ description: 'Venue event id' }),
    eventTitle: z.string(),
    marketId: z.string().meta({ description: 'Venue market id' }),
    marketQuestion: z.string(),
    polymarketSlug: z.string().meta({ description: 'URL slug of the event at the venue' }),
    clobTokenId: z.string().meta({ description: 'Order-book token id' }),
    subscriptionScope: z.enum(SUBSCRIPTION_SCOPES),
    subscriptionTypeConfig: z.strictObject({
      type: z.enum(SUBSCRIPTION_TYPES),
      config: z.strictObject({ params: RuleParams }),
    }),
    triggerType: z.enum(TRIGGER_TYPES),
    detectedValue: z.number().meta({ description: 'The price, a fraction between 0 and 1' }),
    detectedAt: z.iso.datetime(),
    detectedAtMs: z.number(),
    sentFromPolymarketAtMs: z.number().meta({ description: 'When the venue data was received, in ms' }),
    channels: z.array(PayloadChannel),
    detectionDetails: z
      .strictObject({
        detectedValue: z.number(),
        detectedTimeMs: z.number(),
        priceChangeTimeMs: z.string(),
        previousValue: z.number().optional().meta({ description: 'The price before the move' }),
        levels: z.array(z.number()).optional().meta({ description: 'Crossing Step: the levels crossed' }),
        // Our extension types (docs/alerts.md "Richer triggers").
        window: z.enum(MOVE_WINDOWS).optional().meta({ description: '`Moves … By`: the window measured over' }),
        windowStartValue: z.number().optional().meta({ description: "`Moves … By`: the window's lowest (rise) or highest (fall) price, measured from" }),
        windowStartTimeMs: z.number().optional().meta({ description: '`Moves … By`: when the price was at windowStartValue' }),
        movePoints: z.number().optional().meta({ description: '`Moves … By`: the move in points (percent of 1), signed' }),
        tradePrice: z.number().optional().meta({ description: '`Large Trade`: the trade price' }),
        tradeSize: z.number().optional().meta({ description: '`Large Trade`: the trade size in shares' }),
        tradeSide: z.enum(TRADE_SIDES).optional().meta({ description: '`Large Trade`: BUY or SELL' }),
        tradeUsd: z.number().optional().meta({ description: '`Large Trade`: size × price' }),
        transactionHash: z.string().optional().meta({ description: '`Large Trade`: when the venue sent it' }),
        hourVolumeUsd: z.number().optional().meta({ description: "`Volume Spike`: the last hour's traded volume seen on the feed" }),
        baselineHourlyUsd: z.number().optional().meta({ description: '`Volume Spike`: the hourly average it is compared with' }),
        baselineSource: z.enum(['catalog', 'feed']).optional().meta({ description: "`Volume Spike`: the baseline from the catalog's volume24hr, or from 24 hours of the feed" }),
        volumeMultiple: z.number().optional().meta({ description: '`Volume Spike`: hourVolumeUsd / baselineHourlyUsd' }),
      })
      .optional(),
    polymarketSourceEvent: z.record(z.string(), z.unknown()).optional().meta({ description: 'The raw venue message' }),
  })
  .meta({ id: 'PriceNotification', description: 'Sent when a price rule fires' });

export const EventStatusNotification = z
  .strictObject({
    type: z.literal(NOTIFICATION_TYPE.eventStatus),
    userId: z.string(),
    eventStatusScope: z.enum(EVENT_STATUS_SCOPES),
    triggerType: z.enum(EVENT_STATUS_TRIGGERS).meta({ description: "The spec's Open and Closed; our Resolution and Closing Soon rules send their own names" }),
    createdAt: z.iso.datetime(),
    subscriptionId: z.string(),
    watchlistId: z.string(),
    watchlistName: z.string(),
    eventId: z.string(),
    eventTitle: z.string(),
    marketId: z.string().optional().meta({ description: 'Market-level changes, and a closed single-market event' }),
    marketQuestion: z.string().optional(),
    outcomes: z.string().optional().meta({ description: 'A JSON-encoded array inside a string' }),
    outcomePrices: z.string().optional().meta({ description: 'A JSON-encoded array inside a string' }),
    polymarketSlug: z.string(),
    detectedAt: z.iso.datetime(),
    detectedAtMs: z.number(),
    channels: z.array(PayloadChannel),
    // Our extension types `Resolution` and `Closing Soon` (docs/alerts.md "Richer triggers").
    subscriptionTypeConfig: z
      .strictObject({ type: z.enum(SUBSCRIPTION_TYPES), config: z.strictObject({ params: RuleParams }) })
      .optional()
      .meta({ description: 'Resolution and Closing Soon rules: the rule that fired' }),
    detectionDetails: z
      .strictObject({
        resolutionStatus: z.string().optional().meta({ description: "`Resolution`: the market's umaResolutionStatus now" }),
        previousResolutionStatus: z.string().optional().meta({ description: '`Resolution`: before the change (empty when none)' }),
        outcome: z.string().optional().meta({ description: '`Resolution`: the proposed or winning outcome, when the catalog has it' }),
        endDate: z.iso.datetime().optional().meta({ description: "`Closing Soon`: the market's endDate" }),
        hoursBefore: z.number().optional().meta({ description: '`Closing Soon`: the rule\'s hours_before' }),
      })
      .optional(),
  })
  .meta({
    id: 'EventStatusNotification',
    description:
      "Sent by 'New or closed events and markets' rules, and by our Resolution and Closing Soon rules (triggerType Resolution / Closing Soon, with subscriptionTypeConfig and detectionDetails). Demo webhooks receive the same shape without subscriptionId, watchlistId and watchlistName.",
  });

export const DigestNotification = z
  .strictObject({
    type: z.literal(DIGEST_NOTIFICATION),
    userId: z.string().meta({ description: 'The account, as each of its notifications names it' }),
    reason: z.enum(BATCH_KINDS).meta({
      description: 'Why these were sent together: quiet hours ended, an hourly or daily digest, or a burst',
    }),
    count: z.number().int().min(1),
    notifications: z.array(z.union([PriceNotification, EventStatusNotification])).min(1).meta({ description: 'In the order they fired' }),
  })
  .meta({
    id: 'DigestNotification',
    description:
      "Several notifications in one call: a subscription's hourly or daily digest, or what quiet hours held (when they list Webhook). webhook-id is the same on every attempt of the same batch.",
  });

/** The headers of every webhook call (Standard Webhooks signature, see docs/delivery.md). */
export const WebhookHeaders = z.object({
  'user-agent': z.string().meta({ description: '`Oddswatch-Webhook/1.0`' }),
  'webhook-id': z.string().meta({ description: 'The notification id: the same on every retry' }),
  'webhook-timestamp': z.string().meta({ description: 'Unix seconds' }),
  'webhook-signature': z
    .string()
    .optional()
    .meta({ description: '`v1,<base64 HMAC-SHA256>` with the account webhook secret (two while a rotated secret is honoured)' }),
});
