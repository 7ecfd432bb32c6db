import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STATUS_REASONS, TRIGGER_TYPES } from '../../src/domain/enums.js';
import {
  armedOutcome,
  CREATED,
  transition,
  type StatusEvent,
  type StatusTransition,
  type SubscriptionStatus,
} from '../../src/domain/subscription-status.js';

const armed: SubscriptionStatus = { enabled: true, reason: 'Triggered' };
const paused: SubscriptionStatus = { enabled: false, reason: 'Paused by user' };
const spent: SubscriptionStatus = { enabled: false, reason: 'Triggered' };
const change = (enabled: boolean, reason: SubscriptionStatus['reason']): StatusTransition => ({ kind: 'change', status: { enabled, reason } });
const unchanged: StatusTransition = { kind: 'unchanged' };

describe('subscription status transitions', () => {
  it('start a new subscription armed, as Created', () => {
    expect(CREATED).toEqual({ enabled: true, reason: 'Created' });
  });

  const table: [string, SubscriptionStatus, StatusEvent, StatusTransition][] = [
    ['an update keeps an armed rule armed', armed, { kind: 'updated' }, change(true, 'Updated')],
    ['an update keeps a paused rule paused', paused, { kind: 'updated' }, change(false, 'Updated')],
    ['an update keeps a spent One Time rule off', spent, { kind: 'updated' }, change(false, 'Updated')],
    ['the user pauses an armed rule', armed, { kind: 'paused by user' }, change(false, 'Paused by user')],
    ['pausing a paused rule says so again', paused, { kind: 'paused by user' }, change(false, 'Paused by user')],
    ['the user restarts a paused rule', paused, { kind: 'restarted by user', eventStillWatched: true }, change(true, 'Restarted by user')],
    ['the user restarts a spent rule', spent, { kind: 'restarted by user', eventStillWatched: true }, change(true, 'Restarted by user')],
    ['a restart is refused while the event is out of the watchlist', paused, { kind: 'restarted by user', eventStillWatched: false }, { kind: 'refused', why: 'event not watched' }],
    ['a Recurring price rule stays armed when it fires', armed, { kind: 'price fired', triggerType: 'Recurring' }, change(true, 'Triggered')],
    ['a One Time price rule is spent when it fires', armed, { kind: 'price fired', triggerType: 'One Time' }, change(false, 'Triggered')],
    ['a rule that is off does not fire', paused, { kind: 'price fired', triggerType: 'Recurring' }, unchanged],
    ['a spent One Time rule does not fire again', spent, { kind: 'price fired', triggerType: 'One Time' }, unchanged],
    ['a catalog rule stays armed when it reports a change', armed, { kind: 'catalog notified' }, change(true, 'Triggered')],
    ['a paused catalog rule reports nothing', paused, { kind: 'catalog notified' }, unchanged],
    ['a market closing stops an armed rule', armed, { kind: 'market closed' }, change(false, 'Market closed')],
    ['a market closing leaves a paused rule paused by the user', paused, { kind: 'market closed' }, unchanged],
    ['an event closing stops an armed rule', armed, { kind: 'event closed' }, change(false, 'Event closed')],
    ['an event closing leaves a spent rule as it was', spent, { kind: 'event closed' }, unchanged],
    ['taking the event out of the watchlist pauses an armed rule', armed, { kind: 'removed from watchlist' }, change(false, 'Paused by user')],
    ['taking the event out leaves a spent rule Triggered', spent, { kind: 'removed from watchlist' }, unchanged],
  ];
  it.each(table)('%s', (_name, current, event, expected) => {
    expect(transition(current, event)).toEqual(expected);
  });

  it('give batched writes the status of an armed rule after the event', () => {
    expect(armedOutcome({ kind: 'event closed' })).toEqual({ enabled: false, reason: 'Event closed' });
    expect(armedOutcome({ kind: 'market closed' })).toEqual({ enabled: false, reason: 'Market closed' });
    expect(armedOutcome({ kind: 'removed from watchlist' })).toEqual({ enabled: false, reason: 'Paused by user' });
    expect(() => armedOutcome({ kind: 'restarted by user', eventStillWatched: false })).toThrow();
  });

  const status = fc.record({ enabled: fc.boolean(), reason: fc.constantFrom(...STATUS_REASONS) });
  const event: fc.Arbitrary<StatusEvent> = fc.oneof(
    fc.constantFrom<StatusEvent>(
      { kind: 'updated' },
      { kind: 'paused by user' },
      { kind: 'catalog notified' },
      { kind: 'market closed' },
      { kind: 'event closed' },
      { kind: 'removed from watchlist' },
    ),
    fc.boolean().map((eventStillWatched): StatusEvent => ({ kind: 'restarted by user', eventStillWatched })),
    fc.constantFrom(...TRIGGER_TYPES).map((triggerType): StatusEvent => ({ kind: 'price fired', triggerType })),
  );

  it('never arm a rule except by a restart, and leave a rule that is off off unless the user acts', () => {
    fc.assert(
      fc.property(status, event, (current, e) => {
        const next = transition(current, e);
        const after = next.kind === 'change' ? next.status : current;
        if (!current.enabled && after.enabled) expect(e.kind).toBe('restarted by user');
        if (!current.enabled && !['updated', 'paused by user', 'restarted by user'].includes(e.kind)) expect(next).toEqual(unchanged);
      }),
    );
  });
});
