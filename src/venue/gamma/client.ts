import type { Logger } from '../../logger.js';
import { HttpError, requestJson, type FetchFn, type RetryPolicy } from '../http.js';
import { ArrayPageSchema, EventsKeysetPageSchema } from './schemas.js';
import { toVenueEvent, toVenueMarket, toVenueTag, type SkipReporter, type VenueEvent, type VenueMarket, type VenueTag } from './types.js';

export interface GammaClientOptions {
  baseUrl: string;
  logger: Logger;
  timeoutMs: number;
  fetch?: FetchFn;
  retry?: RetryPolicy;
  /** Page size of the keyset walk (the venue caps it at 500). */
  keysetLimit?: number;
  /** Page size of the offset fallback. */
  offsetLimit?: number;
  /** Aborts requests in flight and their retries: the sync stops without waiting on the venue. */
  signal?: AbortSignal;
}

export interface GammaClient {
  /** Pages of open events; every event appears once even when the walk falls back to offsets. */
  fetchOpenEvents(): AsyncIterable<VenueEvent[]>;
  getEvent(id: string): Promise<VenueEvent | null>;
  getMarket(id: string): Promise<VenueMarket | null>;
  listTags(): Promise<VenueTag[]>;
}

// The venue refuses offsets above this; the offset fallback cannot read further.
const MAX_OFFSET = 10_000;

export function createGammaClient(options: GammaClientOptions): GammaClient {
  const { logger, timeoutMs } = options;
  const fetchFn = options.fetch ?? globalThis.fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  const keysetLimit = Math.min(options.keysetLimit ?? 500, 500);
  const offsetLimit = options.offsetLimit ?? 100;
  const onSkip: SkipReporter = (kind, id, reason) => logger.debug({ kind, id, reason }, 'venue record skipped');

  const get = (path: string) =>
    requestJson({
      fetch: fetchFn,
      url: base + path,
      logger,
      timeoutMs,
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });

  async function getOrNull(path: string): Promise<unknown> {
    try {
      return await get(path);
    } catch (err) {
      if (err instanceof HttpError && err.status === 404) return null;
      throw err;
    }
  }

  const toEvents = (raws: unknown[]) => raws.map((r) => toVenueEvent(r, onSkip)).filter((e): e is VenueEvent => e !== null);

  async function* keysetPages(): AsyncGenerator<VenueEvent[]> {
    let cursor: string | null = null;
    do {
      const qs = new URLSearchParams({ closed: 'false', limit: String(keysetLimit) });
      if (cursor !== null) qs.set('after_cursor', cursor);
      const page = EventsKeysetPageSchema.parse(await get(`/events/keyset?${qs}`));
      yield toEvents(page.events);
      cursor = page.next_cursor ? page.next_cursor : null;
    } while (cursor !== null);
  }

  // Pages overlap by a few rows so an event that closes between two requests (shifting every later
  // row back) cannot push an open event across a page boundary unseen.
  async function* offsetPages(): AsyncGenerator<VenueEvent[]> {
    const overlap = Math.max(1, Math.floor(offsetLimit / 10));
    for (let offset = 0; offset <= MAX_OFFSET; offset += offsetLimit - overlap) {
      const qs = new URLSearchParams({
        closed: 'false',
        limit: String(offsetLimit),
        offset: String(offset),
        order: 'id',
        ascending: 'true',
      });
      const raws = ArrayPageSchema.parse(await get(`/events?${qs}`));
      yield toEvents(raws);
      if (raws.length < offsetLimit) return;
    }
    logger.warn({ maxOffset: MAX_OFFSET }, 'offset paging reached the venue limit; catalog is incomplete');
  }

  async function* fetchOpenEvents(): AsyncGenerator<VenueEvent[]> {
    const seen = new Set<string>();
    const fresh = (events: VenueEvent[]) => events.filter((e) => !seen.has(e.id) && seen.add(e.id));
    try {
      for await (const page of keysetPages()) {
        const events = fresh(page);
        if (events.length > 0) yield events;
      }
      return;
    } catch (err) {
      if (!(err instanceof HttpError && err.status === 404)) throw err;
      logger.info('events keyset paging not served (404); falling back to offset paging');
    }
    for await (const page of offsetPages()) {
      const events = fresh(page);
      if (events.length > 0) yield events;
    }
  }

  return {
    fetchOpenEvents,
    async getEvent(id) {
      const raw = await getOrNull(`/events/${encodeURIComponent(id)}`);
      return raw === null ? null : toVenueEvent(raw, onSkip);
    },
    async getMarket(id) {
      const raw = await getOrNull(`/markets/${encodeURIComponent(id)}`);
      return raw === null ? null : toVenueMarket(raw, onSkip);
    },
    async listTags() {
      const raws = ArrayPageSchema.parse(await get('/tags'));
      return raws.map((t) => toVenueTag(t, onSkip)).filter((t): t is VenueTag => t !== null);
    },
  };
}
