import type { ServiceContext } from '../../services/context.js';
import { notFound } from '../../services/errors.js';
import { createWatchlist, listWatchlists, WATCHLIST_NOT_FOUND, type WatchlistView } from '../../services/watchlists/index.js';
import type { SubscriptionView } from '../../services/subscriptions/index.js';

export const DEFAULT_WATCHLIST = 'My watchlist';

/** The user's watchlist by id or (case-insensitive) name. */
export async function findWatchlist(ctx: ServiceContext, ref: string): Promise<WatchlistView> {
  const all = await listWatchlists({ ctx, input: {} });
  const lower = ref.trim().toLowerCase();
  const found = all.find((w) => w.id === ref.trim()) ?? all.find((w) => w.name.toLowerCase() === lower);
  if (!found) throw notFound(WATCHLIST_NOT_FOUND);
  return found;
}

/** The watchlist named, or the user's default one (created as "My watchlist" when they have none). */
export async function targetWatchlist(ctx: ServiceContext, ref?: string): Promise<WatchlistView> {
  if (ref) return findWatchlist(ctx, ref);
  const all = await listWatchlists({ ctx, input: {} });
  const named = all.find((w) => w.name === DEFAULT_WATCHLIST);
  if (named) return named;
  if (all.length > 0) return all[all.length - 1]!; // the oldest
  return createWatchlist({ ctx, input: { name: DEFAULT_WATCHLIST } });
}

export function describeWatchlist(w: WatchlistView): string {
  const n = Object.keys(w.events).length;
  return `• ${w.name} — ${n} event${n === 1 ? '' : 's'} (id ${w.id})`;
}

export function describeSubscription(s: SubscriptionView): string {
  const params = 'params' in s.rule ? s.rule.params : undefined;
  const what = s.marketQuestion ?? s.eventTitle ?? s.watchlistName;
  const rule = params ? `${s.rule.type} ${params.thresholdPercent}%` : s.rule.type;
  const when = s.triggerType === 'One Time' ? 'once' : `every ${s.triggerInterval ?? '30m'}`;
  const status = s.status.enabled ? 'active' : `paused (${s.status.reason})`;
  return `• ${s.subscriptionId}: ${rule} on "${what}", ${when} — ${status}`;
}
