import type { Firing } from '../engine/rules.js';
import type { MarketMessage } from '../venue/clob/messages.js';
import type { FiringWriter } from './firing-writer.js';
import { sourceEventOf } from './prices-from-stream.js';
import type { PriceReferences } from './references.js';
import type { TokenRecord } from './token-records.js';

/**
 * The engine's hot path for one displayed price: noted for saving, evaluated against the rules,
 * its firings handed to the writer, each reached through the token's record (no lookup by id).
 * Shared by the engine runner and the ingest bench.
 */
export class PriceIntake {
  constructor(
    private readonly references: PriceReferences,
    private readonly writer: FiringWriter,
    private readonly now: () => number,
  ) {}

  price(record: TokenRecord, price: number, receivedAtMs: number, sourceEvent?: unknown, sourceTimestampMs?: number): void {
    const firings = this.evaluate(record, price);
    if (firings.length > 0) this.hand(firings, receivedAtMs, sourceEvent, sourceTimestampMs);
  }

  /** A price a venue message changed: its source event is built only when a rule fires. */
  fromMessage(record: TokenRecord, price: number, receivedAtMs: number, msg: MarketMessage): void {
    const firings = this.evaluate(record, price);
    if (firings.length > 0) this.hand(firings, receivedAtMs, sourceEventOf(msg), msg.timestampMs || undefined);
  }

  private hand(firings: readonly Firing[], receivedAtMs: number, sourceEvent: unknown, sourceTimestampMs: number | undefined): void {
    this.writer.add(firings, {
      receivedAtMs,
      ...(sourceEvent !== undefined ? { sourceEvent } : {}),
      ...(sourceTimestampMs !== undefined ? { sourceTimestampMs } : {}),
    });
  }

  private evaluate(record: TokenRecord, price: number): readonly Firing[] {
    if (!Number.isFinite(price)) return [];
    const nowMs = this.now();
    this.writer.notePrice(record, price, nowMs);
    return this.references.price(record, price, nowMs);
  }
}
