import type { FiringWriter } from './firing-writer.js';
import type { PriceReferences } from './references.js';

/**
 * The engine's hot path for one displayed price: noted for saving, evaluated against the rules,
 * its firings handed to the writer. Shared by the engine runner and the ingest bench.
 */
export class PriceIntake {
  constructor(
    private readonly references: PriceReferences,
    private readonly writer: FiringWriter,
    private readonly now: () => number,
  ) {}

  price(token: string, price: number, receivedAtMs: number, sourceEvent?: unknown, sourceTimestampMs?: number): void {
    if (!Number.isFinite(price)) return;
    this.writer.notePrice(token, price, this.now());
    const firings = this.references.price(token, price, this.now());
    if (firings.length > 0) {
      this.writer.add(firings, {
        receivedAtMs,
        ...(sourceEvent !== undefined ? { sourceEvent } : {}),
        ...(sourceTimestampMs !== undefined ? { sourceTimestampMs } : {}),
      });
    }
  }
}
