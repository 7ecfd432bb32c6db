import { STATUS_REASON, type StatusReason, type TriggerType } from './enums.js';

// The one place that decides a subscription's `enabled` flag and `statusReason` (spec: Subscription
// status). Pure, so it sits in src/domain beside the enums: the services, the engine's firing
// writes, the catalog consumer and the event removal all ask it and write what it answers.

export interface SubscriptionStatus {
  enabled: boolean;
  reason: StatusReason;
}

export type StatusEvent =
  /** A PATCH: the rule's fields changed; `enabled` is kept (a paused rule stays paused). */
  | { kind: 'updated' }
  | { kind: 'paused by user' }
  /** Refused while the rule's event is out of its watchlist, as creating it would be. */
  | { kind: 'restarted by user'; eventStillWatched: boolean }
  /** A price rule fired: a One Time rule is spent, a Recurring one stays armed. */
  | { kind: 'price fired'; triggerType: TriggerType }
  /** A catalog rule reported a change: it reports every change, so it stays armed. */
  | { kind: 'catalog notified' }
  | { kind: 'market closed' }
  | { kind: 'event closed' }
  /** Its event (or its market) was taken out of the watchlist. */
  | { kind: 'removed from watchlist' };

export type StatusTransition =
  | { kind: 'change'; status: SubscriptionStatus }
  /** Nothing to write: the event does not apply to a rule in this state. */
  | { kind: 'unchanged' }
  | { kind: 'refused'; why: 'event not watched' };

/** The status a new subscription starts in. */
export const CREATED: SubscriptionStatus = { enabled: true, reason: STATUS_REASON.created };

const to = (enabled: boolean, reason: StatusReason): StatusTransition => ({ kind: 'change', status: { enabled, reason } });
const UNCHANGED: StatusTransition = { kind: 'unchanged' };

/**
 * The status after `event` of a rule now in `current`. Firings, closings and removals touch armed
 * rules only: one already off (paused, a spent One Time rule) keeps its reason.
 */
export function transition(current: SubscriptionStatus, event: StatusEvent): StatusTransition {
  switch (event.kind) {
    case 'updated':
      return to(current.enabled, STATUS_REASON.updated);
    case 'paused by user':
      return to(false, STATUS_REASON.pausedByUser);
    case 'restarted by user':
      return event.eventStillWatched ? to(true, STATUS_REASON.restartedByUser) : { kind: 'refused', why: 'event not watched' };
    case 'price fired':
      return current.enabled ? to(event.triggerType === 'Recurring', STATUS_REASON.triggered) : UNCHANGED;
    case 'catalog notified':
      return current.enabled ? to(true, STATUS_REASON.triggered) : UNCHANGED;
    case 'market closed':
      return current.enabled ? to(false, STATUS_REASON.marketClosed) : UNCHANGED;
    case 'event closed':
      return current.enabled ? to(false, STATUS_REASON.eventClosed) : UNCHANGED;
    case 'removed from watchlist':
      // The removal is the user's own act, and the spec's reasons are a closed set (docs/decisions.md).
      return current.enabled ? to(false, STATUS_REASON.pausedByUser) : UNCHANGED;
  }
}

/**
 * The status a batched write sets on the armed rows it selects. Its SQL keeps `enabled` in the
 * filter: `transition` leaves rows already off unchanged, so they are not selected.
 */
export function armedOutcome(event: StatusEvent): SubscriptionStatus {
  const next = transition({ enabled: true, reason: CREATED.reason }, event);
  if (next.kind !== 'change') throw new Error(`${event.kind} changes no armed subscription`);
  return next.status;
}

/** A stored subscription's status (the row's `enabled` and `statusReason`). */
export const statusOf = (row: { enabled: boolean; statusReason: StatusReason }): SubscriptionStatus => ({
  enabled: row.enabled,
  reason: row.statusReason,
});

/** The row fields that store a status. */
export const statusColumns = (status: SubscriptionStatus) => ({ enabled: status.enabled, statusReason: status.reason });
