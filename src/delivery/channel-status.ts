import type { ChannelSettings } from '../db/schema/index.js';
import type { ChannelStatus, ChannelType } from '../domain/enums.js';

// A subscription's channel shows the status of its latest delivery: the delivery, for that
// channel, of the subscription's latest notification. It is read from the deliveries rather than
// copied onto the channel, so neither the engine nor the delivery worker writes channel rows on
// the hot path (those writes contended for the same rows, once per firing and once per send).
// The listing reads them in its own query (src/services/subscriptions/view.ts).

export interface LatestDelivery {
  position: number;
  type: ChannelType;
  settings: ChannelSettings | null;
  status: ChannelStatus;
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
