import type { RuleIndex } from '../engine/index.js';
import type { Firing } from '../engine/rules.js';
import type { TokenRecord, TokenRecords } from './token-records.js';

/**
 * Which price each token's rules compare the next one with. A token whose known price the rules
 * may not compare with (it was just followed, or another engine evaluated it until now) awaits a
 * reference: its next price only sets it, and fires no crossing. The flag is kept on the token's
 * record, and the rule index reached by the record's dense index.
 */
export class PriceReferences {
  constructor(
    private readonly index: RuleIndex,
    private readonly records: TokenRecords,
  ) {}

  /** A new price: evaluated against the reference, or taken as the reference when one is awaited. */
  price(record: TokenRecord, price: number, nowMs: number): readonly Firing[] {
    const tokenIndex = record.index >= 0 ? record.index : (record.index = this.index.tokenIndex(record.token));
    if (!record.awaiting) return this.index.tickIndex(tokenIndex, price, nowMs);
    record.awaiting = false;
    return this.index.setPriceIndex(tokenIndex, price, nowMs);
  }

  /** The known price is forgotten; the next one only sets the reference. */
  await(token: string): void {
    this.index.forgetPrice(token);
    this.records.resolve(token).awaiting = true;
  }

  awaits(token: string): boolean {
    return this.records.get(token)?.awaiting ?? false;
  }

  /** Takes a price another engine evaluated as the reference (level rules may still fire on it). */
  adopt(token: string, price: number, nowMs: number): readonly Firing[] {
    this.awaitNoMore(token);
    return this.index.setPrice(token, price, nowMs);
  }

  /** No rule follows the token any more: its price must not become a later rule's reference. */
  forget(token: string): void {
    this.index.forgetPrice(token);
    this.awaitNoMore(token);
  }

  private awaitNoMore(token: string): void {
    const record = this.records.get(token);
    if (record !== undefined) record.awaiting = false;
  }
}
