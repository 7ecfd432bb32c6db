import type { Logger } from '../logger.js';
import type { VenueEvent } from '../venue/gamma/types.js';

/**
 * The fetched catalog with each market under one event only: the first event that lists it keeps
 * it. A market the venue lists under two events would open twice (two `new_market` changes), and
 * an upsert holding both copies fails ("cannot affect row a second time") at every pass, which
 * would stop every change the pass records.
 */
export function eachMarketOnce(fetched: VenueEvent[], logger: Logger): VenueEvent[] {
  const seen = new Set<string>();
  const repeated: { marketId: string; eventId: string }[] = [];
  const events = fetched.map((e) => {
    const markets = e.markets.filter((m) => {
      if (!seen.has(m.id)) return seen.add(m.id);
      repeated.push({ marketId: m.id, eventId: e.id });
      return false;
    });
    return markets.length === e.markets.length ? e : { ...e, markets };
  });
  if (repeated.length > 0) {
    logger.warn({ repeated: repeated.length, first: repeated[0] }, 'the venue lists markets under more than one event; each is kept under the first');
  }
  return events;
}
