import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { Queryable } from '../../db/client.js';
import { channelStatus, latestDeliveries } from '../../delivery/channel-status.js';
import {
  catalogEvents,
  catalogMarkets,
  subscriptionChannels,
  subscriptions,
  watchlists,
  type ChannelSettings,
} from '../../db/schema/index.js';
import {
  CATALOG_RULE_TYPE,
  type ChannelStatus,
  type ChannelType,
  type StatusReason,
  type SubscriptionScope,
  type SubscriptionType,
  type TriggerInterval,
  type TriggerType,
} from '../../domain/enums.js';

/** A subscription answer with exactly the spec's properties (optional ones only when known). */
export interface SubscriptionView {
  subscriptionId: string;
  watchlistId: string;
  watchlistName: string;
  eventId?: string;
  eventTitle?: string;
  marketId?: string;
  marketQuestion?: string;
  subscriptionScope: SubscriptionScope;
  subscriptionTypeConfig: { type: SubscriptionType; config: { params: { threshold_percent?: number } } };
  rule:
    | { type: SubscriptionType; params: { thresholdPercent: number; triggerType: TriggerType; triggerInterval?: TriggerInterval } }
    | { type: SubscriptionType };
  createdAt: string;
  expiresAt: string | null;
  updatedAt: string | null;
  status: { enabled: boolean; reason: StatusReason };
  triggerType: TriggerType;
  triggerInterval?: TriggerInterval;
  triggerCount: number;
  lastTriggeredAt: string | null;
  channels: { type: ChannelType; settings?: ChannelSettings; status?: ChannelStatus }[];
}

type Filter = { accountId: string; subscriptionId?: string; watchlistId?: string };

export async function loadSubscriptionViews(on: Queryable, filter: Filter): Promise<SubscriptionView[]> {
  const conditions = [eq(subscriptions.accountId, filter.accountId)];
  if (filter.subscriptionId) conditions.push(eq(subscriptions.id, filter.subscriptionId));
  if (filter.watchlistId) conditions.push(eq(subscriptions.watchlistId, filter.watchlistId));
  const rows = await on
    .select({
      sub: subscriptions,
      watchlistName: watchlists.name,
      eventTitle: catalogEvents.title,
      marketQuestion: catalogMarkets.question,
    })
    .from(subscriptions)
    .innerJoin(watchlists, eq(watchlists.id, subscriptions.watchlistId))
    .leftJoin(catalogEvents, eq(catalogEvents.id, subscriptions.eventId))
    .leftJoin(catalogMarkets, eq(catalogMarkets.id, subscriptions.marketId))
    .where(and(...conditions))
    .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id));
  if (rows.length === 0) return [];
  const channels = await on
    .select()
    .from(subscriptionChannels)
    .where(inArray(subscriptionChannels.subscriptionId, rows.map((r) => r.sub.id)))
    .orderBy(asc(subscriptionChannels.position));
  const latest = await latestDeliveries(
    on,
    rows.map((r) => r.sub.id),
  );
  const channelsBySub = new Map<string, SubscriptionView['channels']>();
  for (const c of channels) {
    const list = channelsBySub.get(c.subscriptionId) ?? [];
    const status = channelStatus(c, latest.get(c.subscriptionId));
    const settings = shownSettings(c.settings);
    list.push({
      type: c.type,
      ...(settings ? { settings } : {}),
      ...(status ? { status } : {}),
    });
    channelsBySub.set(c.subscriptionId, list);
  }
  return rows.map((r) => toView(r, channelsBySub.get(r.sub.id) ?? []));
}

/**
 * A channel's settings as the API shows them: the spec's only. A Discord DM channel (our
 * `discordChannelId`, made by the bot) reads as a bare `Discord` channel.
 */
function shownSettings(settings: ChannelSettings | null): ChannelSettings | undefined {
  if (!settings) return undefined;
  const { discordChannelId: _dm, ...spec } = settings;
  return Object.keys(spec).length > 0 ? spec : undefined;
}

type Row = {
  sub: typeof subscriptions.$inferSelect;
  watchlistName: string;
  eventTitle: string | null;
  marketQuestion: string | null;
};

function toView({ sub, watchlistName, eventTitle, marketQuestion }: Row, channels: SubscriptionView['channels']): SubscriptionView {
  const isCatalog = sub.type === CATALOG_RULE_TYPE;
  const interval = sub.triggerInterval ?? undefined;
  return {
    subscriptionId: sub.id,
    watchlistId: sub.watchlistId,
    watchlistName,
    ...(sub.eventId ? { eventId: sub.eventId, ...(eventTitle !== null ? { eventTitle } : {}) } : {}),
    ...(sub.marketId ? { marketId: sub.marketId, ...(marketQuestion !== null ? { marketQuestion } : {}) } : {}),
    subscriptionScope: sub.scope,
    subscriptionTypeConfig: {
      type: sub.type,
      config: { params: isCatalog ? {} : { threshold_percent: sub.thresholdPercent! } },
    },
    rule: isCatalog
      ? { type: sub.type }
      : {
          type: sub.type,
          params: {
            thresholdPercent: sub.thresholdPercent!,
            triggerType: sub.triggerType,
            ...(interval ? { triggerInterval: interval } : {}),
          },
        },
    createdAt: sub.createdAt.toISOString(),
    expiresAt: sub.expiresAt?.toISOString() ?? null,
    updatedAt: sub.updatedAt?.toISOString() ?? null,
    status: { enabled: sub.enabled, reason: sub.statusReason },
    triggerType: sub.triggerType,
    ...(interval ? { triggerInterval: interval } : {}),
    triggerCount: sub.triggerCount,
    lastTriggeredAt: sub.lastTriggeredAt?.toISOString() ?? null,
    channels,
  };
}

export async function loadSubscriptionView(on: Queryable, accountId: string, subscriptionId: string) {
  const [view] = await loadSubscriptionViews(on, { accountId, subscriptionId });
  return view;
}
