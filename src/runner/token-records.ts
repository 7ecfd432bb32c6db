import { TokenBook } from '../engine/displayed-price.js';
import type { MinuteSample, SampleSlot } from './price-samples.js';
import type { PriceSlot } from './token-prices.js';

/**
 * Everything the price path keeps per token, in one object: the book (the displayed-price rule),
 * the rule index's dense index, whether its next price only sets the reference, its unsaved price
 * and its open minute of history. The feed resolves a token once per message; the book, the
 * writer's notes, the references and the rule index are then reached through the record, with
 * no further lookup by the token's 77-character id (docs/engine.md "Token records").
 */
export class TokenRecord extends TokenBook implements PriceSlot, SampleSlot {
  /** `RuleIndex.tokenIndex` of the token, -1 until the engine first evaluates a price of it. */
  index = -1;
  /** The next price only sets the crossing reference (references.ts). */
  awaiting = false;
  /** Price rules follow the token (the rule loader says so). */
  followed = false;
  /** The market stream carries the token (the role says so). */
  watched = false;
  savePrice = NaN;
  saveSeq = 0;
  saveQueued = false;
  sample: MinuteSample | undefined = undefined;
  /**
   * The records that keep it, until it is dropped: a record handed out earlier (the market stream's
   * tag of its token) is the token's current one exactly while this is those records.
   */
  keptBy: TokenRecords | undefined = undefined;

  constructor(readonly token: string) {
    super();
  }
}

/**
 * The token records by id. A record lives while price rules follow its token or the stream carries
 * it; then it is dropped (and `onDrop` frees what the engine kept for it), so a long run whose
 * tokens come and go keeps only the records of the tokens of now.
 */
export class TokenRecords {
  private readonly byToken = new Map<string, TokenRecord>();

  constructor(private readonly onDrop: (record: TokenRecord) => void = () => {}) {}

  get size(): number {
    return this.byToken.size;
  }

  /** The token's record, if it is kept. */
  get(token: string): TokenRecord | undefined {
    return this.byToken.get(token);
  }

  /**
   * The token's record, from `tag` when that is a record these still keep (the market stream's tag,
   * `MarketStreamOptions.tagOf` = `get`, asked for this very token: no lookup), else by id;
   * `undefined` when none is kept. A tag taken before its record was dropped, or none, falls back
   * to the lookup, so the answer is always `get(token)`'s.
   */
  fromTag(tag: unknown, token: string): TokenRecord | undefined {
    return tag instanceof TokenRecord && tag.keptBy === this ? tag : this.byToken.get(token);
  }

  /** The token's record, created if none is kept (the caller follows, watches or `release`s it). */
  resolve(token: string): TokenRecord {
    let record = this.byToken.get(token);
    if (record === undefined) {
      record = new TokenRecord(token);
      record.keptBy = this;
      this.byToken.set(token, record);
    }
    return record;
  }

  follow(token: string): TokenRecord {
    const record = this.resolve(token);
    record.followed = true;
    return record;
  }

  unfollow(token: string): void {
    const record = this.byToken.get(token);
    if (record === undefined) return;
    record.followed = false;
    this.release(record);
  }

  watch(token: string): void {
    this.resolve(token).watched = true;
  }

  /** The stream no longer carries the token: its book is forgotten (a later snapshot starts it again). */
  unwatch(token: string): void {
    const record = this.byToken.get(token);
    if (record === undefined) return;
    record.watched = false;
    record.clearBook();
    this.release(record);
  }

  /** Drops the record unless rules follow its token or the stream carries it. */
  release(record: TokenRecord): void {
    if (record.followed || record.watched || this.byToken.get(record.token) !== record) return;
    this.byToken.delete(record.token);
    record.keptBy = undefined;
    this.onDrop(record);
  }
}
