import { inArray, sql } from 'drizzle-orm';
import { prepared, type Database, type Queryable } from '../db/client.js';
import { tokenPrices } from '../db/schema/index.js';

/** A taken batch: a token's last evaluated price, or null when no rule follows it any more. */
export type PriceBatch = [string, number | null][];

/**
 * Where a token's unsaved price is kept: on its record (token-records.ts), so noting a price needs
 * no lookup. `saveSeq` orders it against a removal of the same token.
 */
export interface PriceSlot {
  readonly token: string;
  savePrice: number;
  saveSeq: number;
  saveQueued: boolean;
}

/**
 * Last evaluated price per token, saved in batches so a restart, or another engine taking the
 * token over, knows the price the rules last saw. A token no rule follows has no row: its old price
 * must never become the crossing reference of a rule created later.
 */
export class TokenPriceStore {
  /** Slots with a price noted since the last take (each once). */
  private noted: PriceSlot[] = [];
  /** Tokens whose row goes, with the sequence number of the removal. */
  private removed = new Map<string, number>();
  /** Orders notes and removals: of a token's, the later one is what a take answers. */
  private seq = 0;

  constructor(private readonly database: Database) {}

  async loadAll(): Promise<{ tokenId: string; price: number }[]> {
    return this.database.db.select({ tokenId: tokenPrices.tokenId, price: tokenPrices.price }).from(tokenPrices);
  }

  /** The saved prices of these tokens (tokens without one are absent). */
  async load(tokens: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (let i = 0; i < tokens.length; i += 500) {
      const rows = await this.database.db
        .select({ tokenId: tokenPrices.tokenId, price: tokenPrices.price })
        .from(tokenPrices)
        .where(inArray(tokenPrices.tokenId, tokens.slice(i, i + 500)));
      for (const row of rows) found.set(row.tokenId, row.price);
    }
    return found;
  }

  /** A price to save (the latest noted before the next take is the one saved). */
  set(slot: PriceSlot, price: number): void {
    slot.savePrice = price;
    slot.saveSeq = ++this.seq;
    if (slot.saveQueued) return;
    slot.saveQueued = true;
    this.noted.push(slot);
  }

  /** The token is followed no more: its row goes with the next save. */
  remove(token: string): void {
    this.removed.set(token, ++this.seq);
  }

  get hasChanges(): boolean {
    return this.noted.length > 0 || this.removed.size > 0;
  }

  /**
   * The prices changed since the last call, taken now; `saveIn` writes them later. One entry per
   * token: a token dropped and followed again has had two slots, and the later note or removal wins.
   */
  takeChanged(): PriceBatch {
    const { noted, removed } = this;
    this.noted = [];
    this.removed = new Map();
    const latest = new Map<string, PriceSlot>();
    for (const slot of noted) {
      slot.saveQueued = false;
      const seen = latest.get(slot.token);
      if (seen === undefined || seen.saveSeq < slot.saveSeq) latest.set(slot.token, slot);
    }
    const batch: PriceBatch = [];
    for (const [token, slot] of latest) if (!(slot.saveSeq < (removed.get(token) ?? -1))) batch.push([token, slot.savePrice]);
    for (const [token, seq] of removed) if (!(seq < (latest.get(token)?.saveSeq ?? -1))) batch.push([token, null]);
    return batch;
  }

  /** Writes a taken batch inside the caller's transaction (with the firings those prices caused). */
  saveIn(on: Queryable, batch: PriceBatch): Promise<void> {
    return TokenPriceStore.write(on, batch);
  }

  /** One statement for the tokens upserted, one per 500 tokens removed. */
  private static async write(on: Queryable, batch: PriceBatch): Promise<void> {
    const kept = batch.filter((e): e is [string, number] => e[1] !== null);
    const removed = batch.filter(([, price]) => price === null).map(([token]) => token);
    if (kept.length > 0) {
      // The rows as one JSON parameter: one named statement whatever their number, in the firing
      // write's transaction (drizzle's insert was a new text per count, parsed and planned each time).
      await on.execute(
        prepared(sql`
        insert into token_prices (token_id, price, updated_at)
        select r.token_id, r.price, ${new Date().toISOString()}::timestamptz
        from jsonb_to_recordset(${JSON.stringify(kept.map(([token_id, price]) => ({ token_id, price })))}::jsonb) as r(token_id text, price float8)
        on conflict (token_id) do update set price = excluded.price, updated_at = excluded.updated_at`),
      );
    }
    for (let i = 0; i < removed.length; i += 500) {
      await on.delete(tokenPrices).where(inArray(tokenPrices.tokenId, removed.slice(i, i + 500)));
    }
  }
}
