import type { RuleIndex } from '../engine/index.js';
import type { Firing } from '../engine/rules.js';

/**
 * Which price each token's rules compare the next one with. A token whose known price the rules
 * may not compare with (it was just followed, or another engine evaluated it until now) awaits a
 * reference: its next price only sets it, and fires no crossing.
 */
export class PriceReferences {
  private readonly awaiting = new Set<string>();

  constructor(private readonly index: RuleIndex) {}

  /** A new price: evaluated against the reference, or taken as the reference when one is awaited. */
  price(token: string, price: number, nowMs: number): readonly Firing[] {
    return this.awaiting.delete(token) ? this.index.setPrice(token, price, nowMs) : this.index.tick(token, price, nowMs);
  }

  /** The known price is forgotten; the next one only sets the reference. */
  await(token: string): void {
    this.index.forgetPrice(token);
    this.awaiting.add(token);
  }

  awaits(token: string): boolean {
    return this.awaiting.has(token);
  }

  /** Takes a price another engine evaluated as the reference (level rules may still fire on it). */
  adopt(token: string, price: number, nowMs: number): readonly Firing[] {
    this.awaiting.delete(token);
    return this.index.setPrice(token, price, nowMs);
  }

  /** No rule follows the token any more: its price must not become a later rule's reference. */
  forget(token: string): void {
    this.index.forgetPrice(token);
    this.awaiting.delete(token);
  }
}
