import { inArray, sql } from 'drizzle-orm';
import type { Database, Queryable } from '../db/client.js';
import { tokenPrices } from '../db/schema/index.js';

/** A taken batch: a token's last evaluated price, or null when no rule follows it any more. */
export type PriceBatch = [string, number | null][];

/**
 * Last evaluated price per token, saved in batches so a restart, or another engine taking the
 * token over, knows the price the rules last saw. A token no rule follows has no row: its old price
 * must never become the crossing reference of a rule created later.
 */
export class TokenPriceStore {
  private dirty = new Map<string, number | null>();

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

  set(token: string, price: number): void {
    this.dirty.set(token, price);
  }

  /** The token is followed no more: its row goes with the next save. */
  remove(token: string): void {
    this.dirty.set(token, null);
  }

  get hasChanges(): boolean {
    return this.dirty.size > 0;
  }

  /** The prices changed since the last call, taken now; `saveIn` writes them later. */
  takeChanged(): PriceBatch {
    const batch = [...this.dirty];
    this.dirty = new Map();
    return batch;
  }

  /** Writes a taken batch inside the caller's transaction (with the firings those prices caused). */
  saveIn(on: Queryable, batch: PriceBatch): Promise<void> {
    return TokenPriceStore.write(on, batch);
  }

  /** One statement per 500 tokens upserted, one for the tokens removed. */
  private static async write(on: Queryable, batch: PriceBatch): Promise<void> {
    const kept = batch.filter((e): e is [string, number] => e[1] !== null);
    const removed = batch.filter(([, price]) => price === null).map(([token]) => token);
    for (let i = 0; i < kept.length; i += 500) {
      const rows = kept.slice(i, i + 500).map(([tokenId, price]) => ({ tokenId, price, updatedAt: new Date() }));
      await on
        .insert(tokenPrices)
        .values(rows)
        .onConflictDoUpdate({ target: tokenPrices.tokenId, set: { price: sql`excluded.price`, updatedAt: sql`excluded.updated_at` } });
    }
    for (let i = 0; i < removed.length; i += 500) {
      await on.delete(tokenPrices).where(inArray(tokenPrices.tokenId, removed.slice(i, i + 500)));
    }
  }
}
