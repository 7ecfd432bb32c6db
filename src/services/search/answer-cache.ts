import type { Database } from '../../db/client.js';
import { CATALOG_CHANGED } from '../../db/coordination.js';
import { FollowedPerDatabase } from '../../db/followed.js';
import type { SearchResult } from './results.js';

// A bound on how long an answer can outlive a catalog write whose notice never arrived (a
// listening connection that dropped and reconnected, or rows written by hand): notices are the
// rule, this the safety net. A sync pass is every SYNC_INTERVAL_MS (default 60 s).
const MAX_AGE_MS = 10_000;
// Memory bound: at most this many answers, and this many result events across them (an event
// with its markets is ~1–2 KB in memory: ~20 MB at most).
const MAX_ENTRIES = 1_000;
const MAX_EVENTS = 10_000;

interface Entry {
  answer: SearchResult[];
  storedAt: number;
}

/**
 * Answers of the public search (POST /search, /search/tag-slugs) of one database, in memory, keyed
 * by the normalized request. The catalog they are read from changes only by a catalog sync pass,
 * whose CATALOG_CHANGED notices (sent in its change transaction and after its refresh, delivered on
 * commit) empty the cache in every process; a read that was running while a notice arrived is not kept (`generation`).
 * Concurrent misses of one request share one read. Oldest answers go first when full.
 */
export class SearchAnswerCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<SearchResult[]>>();
  private events = 0;
  /** Bumped by every catalog change: a read that started before one may hold the old catalog. */
  generation = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  answer(key: string, read: () => Promise<SearchResult[]>): Promise<SearchResult[]> {
    const hit = this.entries.get(key);
    if (hit) {
      if (this.now() - hit.storedAt <= MAX_AGE_MS) return Promise.resolve(hit.answer);
      this.remove(key, hit);
    }
    const running = this.pending.get(key);
    if (running) return running;
    const since = this.generation;
    const started = this.now();
    const reading = read().then(
      (answer) => {
        if (this.pending.get(key) === reading) this.pending.delete(key);
        if (since === this.generation) this.store(key, { answer, storedAt: started });
        return answer;
      },
      (err: unknown) => {
        if (this.pending.get(key) === reading) this.pending.delete(key);
        throw err;
      },
    );
    this.pending.set(key, reading);
    return reading;
  }

  forgetAll(): void {
    this.generation++;
    this.entries.clear();
    this.pending.clear();
    this.events = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  private store(key: string, entry: Entry): void {
    const old = this.entries.get(key);
    if (old) this.remove(key, old);
    if (entry.answer.length > MAX_EVENTS) return;
    while (this.entries.size >= MAX_ENTRIES || this.events + entry.answer.length > MAX_EVENTS) {
      const [oldestKey, oldest] = this.entries.entries().next().value!;
      this.remove(oldestKey, oldest);
    }
    this.entries.set(key, entry);
    this.events += entry.answer.length;
  }

  private remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.events -= entry.answer.length;
  }
}

const followed = new FollowedPerDatabase<SearchAnswerCache>();

/** The cache of a database whose catalog change notices are being followed, if any. */
export const searchAnswerCache = (database: Database): SearchAnswerCache | undefined => followed.of(database);

/**
 * Starts caching public search answers on this database, following CATALOG_CHANGED notices from
 * every process (the REST API calls it). Without it every search reads the database. Returns the stop.
 */
export function startSearchAnswerCache(database: Database): Promise<() => Promise<void>> {
  const cache = new SearchAnswerCache();
  return followed.start(database, CATALOG_CHANGED, cache, () => cache.forgetAll());
}
