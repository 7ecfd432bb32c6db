import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client.js';
import type { ChannelSettings } from '../db/schema/index.js';
import type { ChannelStatus, ChannelType } from '../domain/enums.js';

// A subscription's channel shows the status of its latest delivery: the delivery, for that
// channel, of the subscription's latest notification. It is read from the deliveries rather than
// copied onto the channel, so neither the engine nor the delivery worker writes channel rows on
// the hot path (those writes contended for the same rows, once per firing and once per send).

export interface LatestDelivery {
  position: number;
  type: ChannelType;
  settings: ChannelSettings | null;
  status: ChannelStatus;
}

/** The deliveries of each subscription's latest notification, by subscription id. */
export async function latestDeliveries(on: Queryable, subscriptionIds: readonly string[]): Promise<Map<string, LatestDelivery[]>> {
  const bySubscription = new Map<string, LatestDelivery[]>();
  if (subscriptionIds.length === 0) return bySubscription;
  const ids = sql.join(
    subscriptionIds.map((id) => sql`(${id})`),
    sql`, `,
  );
  const rows = await queryRows<LatestDelivery & { subscriptionId: string } & Record<string, unknown>>(
    on,
    sql`
    select s.id as "subscriptionId", d.position, d.channel_type as "type", d.settings, d.status
    from (values ${ids}) as s(id)
    cross join lateral (select n.id from notifications n where n.subscription_id = s.id order by n.id desc limit 1) latest
    join deliveries d on d.notification_id = latest.id
    order by s.id, d.position`,
  );
  for (const { subscriptionId, position, type, settings, status } of rows) {
    let list = bySubscription.get(subscriptionId);
    if (!list) bySubscription.set(subscriptionId, (list = []));
    list.push({ position, type, settings, status });
  }
  return bySubscription;
}

const channelKey = (type: ChannelType, settings: ChannelSettings | null | undefined) => JSON.stringify([type, settings ?? {}]);

/**
 * The status a channel shows: its delivery in the latest notification. Channels edited since keep
 * their status when their type and settings are unchanged, wherever they moved; new ones have none.
 */
export function channelStatus(
  channel: { position: number; type: ChannelType; settings: ChannelSettings | null | undefined },
  latest: readonly LatestDelivery[] | undefined,
): ChannelStatus | undefined {
  if (!latest) return undefined;
  const key = channelKey(channel.type, channel.settings);
  const same = (d: LatestDelivery) => channelKey(d.type, d.settings) === key;
  return (latest.find((d) => d.position === channel.position && same(d)) ?? latest.find(same))?.status;
}
