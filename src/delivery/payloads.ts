import type { catalogEvents, catalogMarkets, ChannelSettings, subscriptions } from '../db/schema/index.js';
import { NOTIFICATION_TYPE, type ChannelType, type EventStatusScope, type EventStatusTrigger } from '../domain/enums.js';
import { venueEncodedOutcomes } from '../domain/outcomes.js';
import { storedParams } from '../domain/rule-params.js';
import type { Firing } from '../engine/rules.js';

// The spec's notification payloads (price_notification, event_status_notification), built here
// only: the engine's firings, the catalog consumer and the demo fan-out ask for them, and the
// outbox stores and sends them as given. Key order is the wire order, so it is kept as built.
// The health notices are ours and shaped differently (delivery/health-notice.ts, runner/feed-health.ts).

type SubscriptionRow = typeof subscriptions.$inferSelect;
export type MarketRow = typeof catalogMarkets.$inferSelect;
type EventRow = typeof catalogEvents.$inferSelect;

/** One of a subscription's channels, as a payload lists it and the outbox copies it. */
export interface ChannelRow {
  position: number;
  type: ChannelType;
  settings: ChannelSettings | null;
}

/** The payload's `channels`: each channel's type and settings, as the subscription lists them. */
function payloadChannels(channels: readonly ChannelRow[]) {
  return channels.map((c) => ({
    type: c.type,
    ...(c.settings && Object.keys(c.settings).length > 0 ? { settings: c.settings } : {}),
  }));
}

/** Where a firing happened: the catalog fields a price payload names, and the watchlist's name. */
export interface FiringPlace {
  market: { id: string; question: string };
  event: { id: string; title: string; slug: string };
  watchlistName: string;
}

/** What the venue told us about a price move (the runner's FiringContext). */
interface PriceSource {
  receivedAtMs: number;
  sourceEvent?: unknown;
  sourceTimestampMs?: number;
}

/** The spec's `price_notification` payload of one firing. */
export function pricePayload(
  sub: Pick<SubscriptionRow, 'id' | 'accountId' | 'watchlistId' | 'scope' | 'type' | 'thresholdPercent' | 'ruleParams' | 'triggerType'>,
  where: FiringPlace,
  channels: readonly ChannelRow[],
  firing: Firing,
  source: PriceSource,
): Record<string, unknown> {
  return {
    type: NOTIFICATION_TYPE.price,
    userId: sub.accountId,
    createdAt: new Date().toISOString(),
    subscriptionId: sub.id,
    watchlistId: sub.watchlistId,
    watchlistName: where.watchlistName,
    eventId: where.event.id,
    eventTitle: where.event.title,
    marketId: where.market.id,
    marketQuestion: where.market.question,
    polymarketSlug: where.event.slug,
    clobTokenId: firing.token,
    subscriptionScope: sub.scope,
    subscriptionTypeConfig: { type: sub.type, config: { params: storedParams(sub) } },
    triggerType: sub.triggerType,
    detectedValue: firing.price,
    detectedAt: new Date(firing.atMs).toISOString(),
    detectedAtMs: firing.atMs,
    sentFromPolymarketAtMs: source.receivedAtMs,
    channels: payloadChannels(channels),
    detectionDetails: {
      detectedValue: firing.price,
      detectedTimeMs: firing.atMs,
      priceChangeTimeMs: String(source.sourceTimestampMs ?? source.receivedAtMs),
      ...(firing.previousPrice !== null ? { previousValue: firing.previousPrice } : {}),
      ...(firing.levels ? { levels: [...firing.levels] } : {}),
      ...firing.details,
    },
    ...(source.sourceEvent !== undefined ? { polymarketSourceEvent: source.sourceEvent } : {}),
  };
}

/** One event status notice of a catalog change: a market opened or closed, or the event closed. */
export interface StatusNotice {
  scope: EventStatusScope;
  trigger: EventStatusTrigger;
  market: MarketRow | undefined;
}

/** The event status payload's parts that do not depend on who receives it. */
export interface StatusPayloadBase {
  type: typeof NOTIFICATION_TYPE.eventStatus;
  eventStatusScope: EventStatusScope;
  triggerType: EventStatusTrigger;
  createdAt: string;
  fields: { eventId: string; marketId?: string; [key: string]: unknown };
}

export function statusPayloadBase(event: EventRow, notice: StatusNotice, detectedAt: Date): StatusPayloadBase {
  const m = notice.market;
  return {
    type: NOTIFICATION_TYPE.eventStatus,
    eventStatusScope: notice.scope,
    triggerType: notice.trigger,
    createdAt: new Date().toISOString(),
    fields: {
      eventId: event.id,
      eventTitle: event.title,
      ...(m
        ? {
            marketId: m.id,
            marketQuestion: m.question,
            ...venueEncodedOutcomes(m),
          }
        : {}),
      polymarketSlug: event.slug,
      detectedAt: detectedAt.toISOString(),
      detectedAtMs: detectedAt.getTime(),
    },
  };
}

/** The spec's `event_status_notification` to a catalog rule's owner. */
export function subscriptionStatusPayload(
  base: StatusPayloadBase,
  sub: Pick<SubscriptionRow, 'id' | 'accountId' | 'watchlistId'>,
  watchlistName: string,
  channels: readonly ChannelRow[],
): Record<string, unknown> {
  return {
    type: base.type,
    userId: sub.accountId,
    eventStatusScope: base.eventStatusScope,
    triggerType: base.triggerType,
    createdAt: base.createdAt,
    subscriptionId: sub.id,
    watchlistId: sub.watchlistId,
    watchlistName,
    ...base.fields,
    channels: payloadChannels(channels),
  };
}

/** The same notice to a demo webhook: no subscription or watchlist fields, one Webhook channel. */
export function demoStatusPayload(base: StatusPayloadBase, accountId: string): Record<string, unknown> {
  return {
    type: base.type,
    userId: accountId,
    eventStatusScope: base.eventStatusScope,
    triggerType: base.triggerType,
    createdAt: base.createdAt,
    ...base.fields,
    channels: [{ type: 'Webhook' }],
  };
}

/** What a notice is about, for dedupe keys: its market, or the event when it names none. */
export const noticeSubject = (base: StatusPayloadBase) => `${base.eventStatusScope}:${base.triggerType}:${base.fields.marketId ?? base.fields.eventId}`;

/**
 * Our `Resolution` and `Closing Soon` notices: the event status payload to the rule's owner, with
 * the rule (`subscriptionTypeConfig`) and what was seen (`detectionDetails`) after its channels.
 */
export function lifecyclePayload(
  base: StatusPayloadBase,
  sub: Pick<SubscriptionRow, 'id' | 'accountId' | 'watchlistId' | 'type' | 'thresholdPercent' | 'ruleParams'>,
  watchlistName: string,
  channels: readonly ChannelRow[],
  details: Record<string, unknown>,
): Record<string, unknown> {
  return {
    ...subscriptionStatusPayload(base, sub, watchlistName, channels),
    subscriptionTypeConfig: { type: sub.type, config: { params: storedParams(sub) } },
    detectionDetails: details,
  };
}
