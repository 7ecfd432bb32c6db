import { sql } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { DAY_MS, keepDays } from '../db/day-partitions.js';
import { priceSamples } from '../db/schema/index.js';

export const MINUTE_MS = 60_000;
/** How long samples are kept: dry runs look back this far. */
export const PRICE_SAMPLE_RETENTION_MS = 7 * 24 * 60 * MINUTE_MS;
/** How often an engine drops the days of samples past the retention (and makes tomorrow's). */
const PRUNE_EVERY_MS = 60 * MINUTE_MS;

/** One token's last displayed price in one minute (`minuteMs` is the minute's start). */
export interface MinuteSample {
  token: string;
  minuteMs: number;
  price: number;
}

const minuteOf = (ms: number) => Math.floor(ms / MINUTE_MS) * MINUTE_MS;

/** Where a token's open minute is kept: on its record (token-records.ts), so a price needs no lookup. */
export interface SampleSlot {
  readonly token: string;
  sample: MinuteSample | undefined;
}

/**
 * Keeps each token's last price of the current minute in memory and hands a minute over only once
 * it has ended, so a token costs at most one row write per minute however often its price moves.
 */
export class MinuteSampler {
  /** The slots holding an open minute (each once). */
  private open: SampleSlot[] = [];
  private closed: MinuteSample[] = [];
  /** Start of the oldest minute still open; Infinity when none is. */
  private oldestOpen = Infinity;
  private lastPruneMs = -Infinity;

  note(slot: SampleSlot, price: number, atMs: number): void {
    const minuteMs = minuteOf(atMs);
    const current = slot.sample;
    // Most prices fall in the token's open minute: updated in place, no new sample.
    if (current !== undefined && current.minuteMs === minuteMs) {
      current.price = price;
      return;
    }
    if (current) this.closed.push(current);
    else this.open.push(slot);
    slot.sample = { token: slot.token, minuteMs, price };
    if (minuteMs < this.oldestOpen) this.oldestOpen = minuteMs;
  }

  /**
   * The slot is dropped (its token's record went): its open minute is handed over now, so it is
   * written before any minute of a later slot of the same token (the later write wins). The slot
   * stays listed as open without a sample until the next take; it is not noted again.
   */
  close(slot: SampleSlot): void {
    if (slot.sample === undefined) return;
    this.closed.push(slot.sample);
    slot.sample = undefined;
  }

  /** Whether a minute has ended and waits to be written, or pruning is due. */
  hasWork(nowMs: number): boolean {
    return this.closed.length > 0 || this.oldestOpen < minuteOf(nowMs) || this.pruneDue(nowMs);
  }

  /** The minutes that ended before `nowMs` (all of them, the open ones too, when `all`). */
  take(nowMs: number, all = false): MinuteSample[] {
    const current = minuteOf(nowMs);
    const batch = this.closed;
    this.closed = [];
    if (!all && this.oldestOpen >= current) return batch;
    this.oldestOpen = Infinity;
    const stillOpen: SampleSlot[] = [];
    for (const slot of this.open) {
      const sample = slot.sample;
      if (sample === undefined) continue; // closed when its record was dropped
      if (all || sample.minuteMs < current) {
        batch.push(sample);
        slot.sample = undefined;
      } else {
        stillOpen.push(slot);
        if (sample.minuteMs < this.oldestOpen) this.oldestOpen = sample.minuteMs;
      }
    }
    this.open = stillOpen;
    return batch;
  }

  /** Whether the hourly prune is due; answering true starts the next hour. */
  takePrune(nowMs: number): boolean {
    if (!this.pruneDue(nowMs)) return false;
    this.lastPruneMs = nowMs;
    return true;
  }

  private pruneDue(nowMs: number): boolean {
    return nowMs - this.lastPruneMs >= PRUNE_EVERY_MS;
  }
}

/**
 * Writes taken samples (one statement per 500), those within the retention at `nowMs` (a clock
 * stepped back may hand older ones, whose day is gone). Another engine may have written the same
 * minute of a token (both saw its price during a hand-over): the later write wins.
 */
export async function writeSamples(on: Db, taken: readonly MinuteSample[], nowMs: number): Promise<void> {
  const oldest = nowMs - PRICE_SAMPLE_RETENTION_MS;
  // A clock stepped back can close the same minute twice; one statement must not upsert a row twice.
  const samples = [...new Map(taken.filter((s) => s.minuteMs >= oldest).map((s) => [`${s.token}@${s.minuteMs}`, s])).values()];
  if (samples.length === 0) return;
  // Usually today's partition, made a day ahead by the hourly prune: then only a catalog read.
  await keepDays(on, 'price_samples', { days: samples.map((s) => s.minuteMs), dropBeforeMs: -Infinity });
  for (let i = 0; i < samples.length; i += 500) {
    const rows = samples.slice(i, i + 500).map((s) => ({ tokenId: s.token, minute: new Date(s.minuteMs), price: s.price }));
    await on
      .insert(priceSamples)
      .values(rows)
      .onConflictDoUpdate({ target: [priceSamples.tokenId, priceSamples.minute], set: { price: sql`excluded.price` } });
  }
}

/**
 * Drops the days of samples wholly past the retention (a day's partition at a time, so up to a day
 * more stays: readers ask for their range) and makes today's and tomorrow's partitions.
 */
export async function pruneSamples(on: Db, nowMs: number): Promise<void> {
  await keepDays(on, 'price_samples', { days: [nowMs, nowMs + DAY_MS], dropBeforeMs: nowMs - PRICE_SAMPLE_RETENTION_MS });
}
