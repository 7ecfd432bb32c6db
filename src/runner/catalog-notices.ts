import type { CatalogChangeDetails } from '../db/schema/index.js';
import type { CatalogChangeKind } from '../domain/enums.js';
import type { MarketRow, StatusNotice } from '../delivery/payloads.js';

// What a catalog change means, decided without I/O: the notices it announces, the rules it stops,
// and whether price rules of wide scopes must follow it. The consumer writes what this answers.

export interface CatalogChange {
  id: number;
  kind: CatalogChangeKind;
  eventId: string;
  marketId: string | null;
  detectedAt: Date;
  details?: CatalogChangeDetails | null;
}

/** What a change announces (spec: Events, event status notification kinds and rules). */
export function noticesFor(change: CatalogChange, markets: readonly MarketRow[]): StatusNotice[] {
  const market = markets.find((m) => m.id === change.marketId);
  switch (change.kind) {
    case 'new_event':
      return markets.map((m) => ({ scope: 'Market', trigger: 'Open', market: m }));
    case 'new_market':
      return market ? [{ scope: 'Market', trigger: 'Open', market }] : [];
    case 'closed_market':
      return market ? [{ scope: 'Market', trigger: 'Closed', market }] : [];
    case 'closed_event':
      return [{ scope: 'Event', trigger: 'Closed', market: markets.length === 1 ? markets[0] : undefined }];
    case 'resolution':
      // Told to Resolution rules only (runner/resolution.ts), not to catalog rules or demo webhooks.
      return [];
  }
}

/** The rules a change stops: an event closing stops its Event-scope rules, a market closing its Market-scope ones. */
export type Closing = { kind: 'event closed'; scope: 'Event'; eventId: string } | { kind: 'market closed'; scope: 'Market'; marketId: string };

export function closingOf(change: CatalogChange): Closing | undefined {
  if (change.kind === 'closed_event') return { kind: 'event closed', scope: 'Event', eventId: change.eventId };
  if (change.kind === 'closed_market' && change.marketId) return { kind: 'market closed', scope: 'Market', marketId: change.marketId };
  return undefined;
}

/** Price rules of Event and Watchlist scope follow the event's markets, unless the event is gone. */
export const changesEventMarkets = (change: CatalogChange): boolean => change.kind !== 'closed_event' && change.kind !== 'resolution';
