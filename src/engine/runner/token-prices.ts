import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { tokenPrices } from '../../db/schema/index.js';

/** Last displayed price per token, saved in batches so a restart knows where prices stood. */
export class TokenPriceStore {
  private dirty = new Map<string, number>();
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly database: Database) {}

  async loadAll(): Promise<{ tokenId: string; price: number }[]> {
    return this.database.db.select({ tokenId: tokenPrices.tokenId, price: tokenPrices.price }).from(tokenPrices);
  }

  set(token: string, price: number): void {
    this.dirty.set(token, price);
  }

  /** The prices changed since the last call, taken now; `save` writes them later. */
  takeChanged(): [string, number][] {
    const batch = [...this.dirty];
    this.dirty = new Map();
    return batch;
  }

  /** Writes a taken batch (one statement per 500 tokens), after any earlier save. */
  save(batch: [string, number][]): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      for (let i = 0; i < batch.length; i += 500) {
        const rows = batch.slice(i, i + 500).map(([tokenId, price]) => ({ tokenId, price, updatedAt: new Date() }));
        await this.database.db
          .insert(tokenPrices)
          .values(rows)
          .onConflictDoUpdate({ target: tokenPrices.tokenId, set: { price: sql`excluded.price`, updatedAt: sql`excluded.updated_at` } });
      }
    });
    return this.flushing;
  }

  flush(): Promise<void> {
    return this.save(this.takeChanged());
  }
}
