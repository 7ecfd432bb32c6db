import type { ClaimedWithContext } from './outbox-store.js';

// The in-process hand-off (docs/delivery.md "Hand-off"): when the engine and a delivery worker run
// in one process, the firing write leases the new deliveries to that worker inside its own
// transaction and, once it has committed, gives them to the worker with their send context. The
// worker then sends without a wake-up by notice and without a claim statement. Durability is the
// claim's: the rows are committed (leased) before they are sent, and a crash after the commit leaves
// leases that run out and are claimed again by any worker, with the same delivery id.

/** The worker's side: slots reserved during a write, filled after its commit. */
export interface HandoffReceiver {
  /** How long a lease lasts (the worker's own claim lease). */
  readonly leaseMs: number;
  /** Reserves up to `wanted` free send slots; answers how many (0 while stopping or full). */
  reserve(wanted: number): number;
  /** Gives back reserved slots that no committed delivery fills. */
  unreserve(count: number): void;
  /** Committed, leased deliveries for slots reserved before; each fills one. */
  take(claims: readonly ClaimedWithContext[]): void;
}

/** Ids kept for notices not yet seen: beyond this, the oldest are forgotten (a notice lost, say). */
const MAX_HANDED_IDS = 10_000;

/** Joins the engine's writes to this process's worker; inert until a worker attaches. */
export class DeliveryHandoff {
  private receiver: HandoffReceiver | undefined;
  /**
   * Notifications whose every due delivery was handed off: their `delivery_due` notice need not
   * wake the worker (a claim would find nothing). Added before the commit, since the notice can
   * arrive before the transaction's promise settles.
   */
  private readonly handed = new Set<string>();

  attach(receiver: HandoffReceiver): () => void {
    this.receiver = receiver;
    return () => {
      if (this.receiver === receiver) this.receiver = undefined;
    };
  }

  /** One firing write's share of the hand-off; undefined when no worker takes deliveries now. */
  begin(): HandoffWrite | undefined {
    return this.receiver ? new HandoffWrite(this, this.receiver) : undefined;
  }

  /**
   * Whether a `delivery_due` notice names only notifications handed off (and forgets them): the
   * worker then skips the claim it would start.
   */
  covers(payload: string): boolean {
    let covered = true;
    // Each id's notice comes once: forgotten whether or not the whole notice is covered.
    for (const id of payload.split(',')) covered = this.handed.delete(id) && covered;
    return covered;
  }

  /** @internal HandoffWrite's bookkeeping. */
  noteHanded(ids: readonly string[]): void {
    for (const id of ids) this.handed.add(id);
    if (this.handed.size > MAX_HANDED_IDS) {
      const excess = this.handed.size - MAX_HANDED_IDS;
      let i = 0;
      for (const id of this.handed) {
        if (i++ >= excess) break;
        this.handed.delete(id);
      }
    }
  }

  /** @internal */
  forgetHanded(ids: readonly string[]): void {
    for (const id of ids) this.handed.delete(id);
  }
}

/**
 * One transaction's hand-off: `reserve` and `leased` inside the write, then exactly one of
 * `committed` (after COMMIT) or `aborted` (the transaction failed or rolled back). Reservations and
 * leased deliveries add up over the calls of the write, all kept or all given back at its end: a
 * statement retried inside the transaction would count twice, and none is (a failed statement
 * fails the transaction, and the one-at-a-time fallback is a new transaction without a hand-off).
 */
export class HandoffWrite {
  private reserved = 0;
  private readonly claims: ClaimedWithContext[] = [];
  private readonly notified: string[] = [];
  private done = false;

  constructor(
    private readonly owner: DeliveryHandoff,
    private readonly receiver: HandoffReceiver,
  ) {}

  get leaseMs(): number {
    return this.receiver.leaseMs;
  }

  /** Reserves slots for up to `wanted` deliveries of this write; answers how many may be leased. */
  reserve(wanted: number): number {
    if (this.done || wanted <= 0) return 0;
    const got = this.receiver.reserve(wanted);
    this.reserved += got;
    return got;
  }

  /**
   * The leased deliveries as written, and the notifications none of whose due deliveries is left
   * for a claim (their notice need not wake the worker).
   */
  leased(claims: readonly ClaimedWithContext[], fullyHanded: readonly string[]): void {
    this.claims.push(...claims);
    this.notified.push(...fullyHanded);
    this.owner.noteHanded(fullyHanded);
  }

  /** After COMMIT: the leased deliveries go to the worker, the unused reservations back. */
  committed(): void {
    if (this.done) return;
    this.done = true;
    const spare = this.reserved - this.claims.length;
    // Every reserved slot is settled even if giving the spare ones back throws.
    try {
      if (spare > 0) this.receiver.unreserve(spare);
    } finally {
      if (this.claims.length > 0) this.receiver.take(this.claims);
    }
  }

  /** Nothing was committed: the reservations go back, the notices will not come. */
  aborted(): void {
    if (this.done) return;
    this.done = true;
    this.owner.forgetHanded(this.notified);
    if (this.reserved > 0) this.receiver.unreserve(this.reserved);
  }
}
