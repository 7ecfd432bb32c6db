import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MOVE_RULE_TYPES, MOVE_WINDOWS, PRICE_RULE_TYPES, TRIGGER_INTERVAL_MS, TRIGGER_INTERVALS, isMoveRuleType } from '../../src/domain/enums.js';
import { RuleIndex } from '../../src/engine/index.js';
import { ReferenceEvaluator } from '../../src/engine/reference.js';
import { CROSSING_STEP, thresholdFraction, type CompiledRule, type Firing } from '../../src/engine/rules.js';
import { normalize } from './support.js';

const TOKENS = ['yes-a', 'yes-b', 'yes-c'];
const MIN = 60_000;

const gridFraction = fc.integer({ min: 1, max: 99 }).map(thresholdFraction);
const anyFraction = fc.double({ min: 0, max: 1, noNaN: true });
const threshold = fc.oneof(gridFraction, anyFraction, fc.constantFrom(0.1 * 3, 0.3, 0.25, 0.5, 0.7));
// Window moves: mostly a few points on the grid (so ticks reach them), sometimes any fraction.
const movePoints = fc.oneof(
  { arbitrary: fc.integer({ min: 1, max: 30 }).map(thresholdFraction), weight: 4 },
  { arbitrary: anyFraction, weight: 1 },
);
const step = fc.constantFrom(0.05, 0.1, 0.25, 0.5, 0.2, 0.3, 0.07, 1 / 3, 0.01);
const price = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 20 }).map((i) => i / 20), weight: 3 },
  { arbitrary: fc.integer({ min: 0, max: 100 }).map(thresholdFraction), weight: 3 },
  { arbitrary: anyFraction, weight: 1 },
  { arbitrary: fc.constantFrom(0.1 * 3, 0.3, 0.30000000000000004, 0, 1), weight: 1 },
);

// rearmPoints as PUT /subscription/{id}/preferences takes it (0–50): mostly none, often small bands
// on the price grid, sometimes any number.
const rearmPoints = fc.oneof(
  { arbitrary: fc.constant(0), weight: 2 },
  { arbitrary: fc.constantFrom(0.5, 1, 2, 2.5, 5, 10, 50), weight: 3 },
  { arbitrary: fc.double({ min: 0, max: 50, noNaN: true }), weight: 1 },
);

const ruleSpec = (maxRules: number, types: readonly CompiledRule['type'][] = [...PRICE_RULE_TYPES, ...MOVE_RULE_TYPES]) => fc.record({
  ruleId: fc.integer({ min: 0, max: maxRules - 1 }),
  subscriptionId: fc.constantFrom('s1', 's2', 's3'),
  marketId: fc.constantFrom('m1', 'm2'),
  token: fc.constantFrom(...TOKENS),
  type: fc.constantFrom(...types),
  threshold,
  step,
  movePoints,
  window: fc.constantFrom(...MOVE_WINDOWS),
  oneTime: fc.boolean(),
  interval: fc.constantFrom(...TRIGGER_INTERVALS),
  expiresInMs: fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: fc.integer({ min: 0, max: 48 * 60 * MIN }), weight: 1 }),
  enabled: fc.oneof({ arbitrary: fc.constant(true), weight: 5 }, { arbitrary: fc.constant(false), weight: 1 }),
  firedAgoMs: fc.oneof({ arbitrary: fc.constant(null), weight: 4 }, { arbitrary: fc.integer({ min: 0, max: 24 * 60 * MIN }), weight: 1 }),
  rearmPoints: rearmPoints,
  rearmAfter: fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, { arbitrary: fc.constantFrom('up' as const, 'down' as const), weight: 1 }),
  moveHolding: fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, { arbitrary: fc.constant(true), weight: 1 }),
});
type RuleSpec = ReturnType<typeof ruleSpec> extends fc.Arbitrary<infer T> ? T : never;

function compile(spec: RuleSpec, nowMs: number): CompiledRule {
  return {
    ruleId: spec.ruleId,
    subscriptionId: spec.subscriptionId,
    marketId: spec.marketId,
    token: spec.token,
    type: spec.type,
    threshold: spec.type === CROSSING_STEP ? spec.step : isMoveRuleType(spec.type) ? spec.movePoints : spec.threshold,
    ...(isMoveRuleType(spec.type) ? { window: spec.window, moveHolding: spec.moveHolding } : {}),
    oneTime: spec.oneTime,
    intervalMs: TRIGGER_INTERVAL_MS[spec.interval],
    expiresAtMs: spec.expiresInMs === null ? null : nowMs + spec.expiresInMs,
    enabled: spec.enabled,
    lastFiredAtMs: spec.firedAgoMs === null ? null : nowMs - spec.firedAgoMs,
    rearmBand: thresholdFraction(spec.rearmPoints),
    rearmAfter: spec.rearmAfter,
  };
}

// A run of prices on one token, each a small step from the last (on the 0.001 grid, ties included)
// some time after it (0: the same millisecond; whole minutes: window starts met exactly), so the
// window-move deques grow past their first size, drop what every window has left, and move heads.
const walk = fc.record({
  op: fc.constant('walk' as const),
  token: fc.constantFrom(...TOKENS),
  steps: fc.array(
    fc.record({ delta: fc.integer({ min: -12, max: 12 }), ms: fc.constantFrom(0, 1, 1000, 20_000, MIN, 5 * MIN, 15 * MIN) }),
    { minLength: 1, maxLength: 60 },
  ),
});

// A monotone run on one token (steps of 0 to 6 thousandths one way, ties and equal times included),
// so most of its prices are new lows or highs of the shorter windows, or of all of them: with few
// rules these are quiet new extremes, with a rule holding they re-arm it.
const trend = fc.record({
  op: fc.constant('walk' as const),
  token: fc.constantFrom(...TOKENS),
  steps: fc.tuple(fc.constantFrom(-1, 1), fc.array(
    fc.record({ delta: fc.integer({ min: 0, max: 6 }), ms: fc.constantFrom(0, 1, 1000, 20_000, MIN, 5 * MIN) }),
    { minLength: 1, maxLength: 40 },
  )).map(([sign, steps]) => steps.map((s) => ({ delta: sign * s.delta, ms: s.ms }))),
});

// A jump, then a long run of small steps around the new level, minutes apart: the jump's extremes
// leave the shorter windows while the prices after it stay inside the quiet band, which outlives
// the expiry where no rule holds (the heads catch up on the next full look) and ends on it where one does.
const plateau = fc.record({
  op: fc.constant('walk' as const),
  token: fc.constantFrom(...TOKENS),
  steps: fc.tuple(fc.integer({ min: -300, max: 300 }), fc.array(
    fc.record({ delta: fc.integer({ min: -3, max: 3 }), ms: fc.constantFrom(1, 1000, 20_000, MIN, 2 * MIN, 5 * MIN) }),
    { minLength: 10, maxLength: 60 },
  )).map(([jump, steps]) => [{ delta: jump, ms: 1000 }, ...steps]),
});

const operation = (maxRules: number, types?: readonly CompiledRule['type'][], walkWeight = 0, trendWeight = 0, plateauWeight = 0) => fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('tick' as const), token: fc.constantFrom(...TOKENS), price }), weight: 16 },
  { arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.constantFrom(0, 1, 1000, MIN, 5 * MIN, 10 * MIN, 30 * MIN, 6 * 60 * MIN) }), weight: 5 },
  { arbitrary: fc.record({ op: fc.constant('add' as const), rule: ruleSpec(maxRules, types) }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('remove' as const), ruleId: fc.integer({ min: 0, max: maxRules - 1 }) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('enable' as const), ruleId: fc.integer({ min: 0, max: maxRules - 1 }), enabled: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('set' as const), token: fc.constantFrom(...TOKENS), price }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('forget' as const), token: fc.constantFrom(...TOKENS) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('sweep' as const) }), weight: 1 },
  {
    arbitrary: fc.record({ op: fc.constant('restoreBand' as const), ruleId: fc.integer({ min: 0, max: maxRules - 1 }), side: fc.constantFrom('up' as const, 'down' as const, null) }),
    weight: 1,
  },
  { arbitrary: fc.record({ op: fc.constant('settle' as const) }), weight: 1 },
  { arbitrary: walk, weight: walkWeight },
  { arbitrary: trend, weight: trendWeight },
  { arbitrary: plateau, weight: plateauWeight },
);
type Operation = ReturnType<typeof operation> extends fc.Arbitrary<infer T> ? T : never;

function apply(e: RuleIndex | ReferenceEvaluator, op: Operation, nowMs: number): readonly Firing[] {
  switch (op.op) {
    case 'tick': return e.tick(op.token, op.price, nowMs);
    case 'add': return e.add(compile(op.rule, nowMs), nowMs);
    case 'set': return e.setPrice(op.token, op.price, nowMs);
    case 'forget': e.forgetPrice(op.token); return [];
    case 'remove': e.remove(op.ruleId); return [];
    case 'enable': return e.setEnabled(op.ruleId, op.enabled, nowMs);
    case 'sweep': return e.sweep(nowMs);
    case 'restoreBand': e.restoreBand(op.ruleId, op.side); return [];
    case 'settle': if (e instanceof RuleIndex) e.settleAll(); return [];
    case 'advance': return [];
    case 'walk': return []; // run by `run`, which moves the time
  }
}

/** Applies an operation at `now`; answers its firings and the time after it (a walk moves it). */
function run(e: RuleIndex | ReferenceEvaluator, op: Operation, now: number): { firings: Firing[]; now: number } {
  if (op.op !== 'walk') return { firings: normalize(apply(e, op, now)), now };
  const firings: Firing[] = [];
  let price = e.lastPrice(op.token) ?? 0.5;
  for (const step of op.steps) {
    now += step.ms;
    price = Math.min(1, Math.max(0, Math.round(price * 1000 + step.delta) / 1000));
    firings.push(...normalize(e.tick(op.token, price, now)));
  }
  return { firings, now };
}

/** Runs random rule sets and operation sequences on both; returns how many firings were compared. */
function compareRuns(maxRules: number, numRuns: number, types?: readonly CompiledRule['type'][], walkWeight = 0, trendWeight = 0, plateauWeight = 0): number {
  let fired = 0;
  fc.assert(
    fc.property(
      fc.array(ruleSpec(maxRules, types), { minLength: 4, maxLength: maxRules, size: 'max' }),
      fc.array(operation(maxRules, types, walkWeight, trendWeight, plateauWeight), { minLength: 1, maxLength: 120, size: 'max' }),
      (initial, ops) => {
        const index = new RuleIndex();
        const reference = new ReferenceEvaluator();
        let now = 1_000_000;
        for (const spec of initial) {
          expect(normalize(index.add(compile(spec, now), now))).toEqual(normalize(reference.add(compile(spec, now), now)));
        }
        for (const op of ops) {
          if (op.op === 'advance') now += op.ms;
          const expected = run(reference, op, now);
          expect(run(index, op, now).firings).toEqual(expected.firings);
          now = expected.now;
          fired += expected.firings.length;
          for (const token of TOKENS) expect(index.lastPrice(token)).toBe(reference.lastPrice(token));
        }
      },
    ),
    { numRuns },
  );
  return fired;
}

describe('RuleIndex against the reference evaluator', () => {
  it('fires exactly the same firings after every operation (small rule sets)', () => {
    expect(compareRuns(24, 1000)).toBeGreaterThan(1000); // the runs exercise firings, not only silence
  });

  it('fires exactly the same firings with hundreds of rules per token', () => {
    expect(compareRuns(400, 100)).toBeGreaterThan(1000);
  });

  it('fires exactly the same window moves (move rules only, with their details)', () => {
    expect(compareRuns(24, 1000, MOVE_RULE_TYPES)).toBeGreaterThan(1000);
  });

  it('fires exactly the same window moves with hundreds of move rules per token', () => {
    expect(compareRuns(400, 60, MOVE_RULE_TYPES)).toBeGreaterThan(1000);
  });

  it('fires exactly the same window moves over long runs of small steps (deques grow, shrink, are reused)', () => {
    // Few rules, often removed, and forgotten prices: a token's deques go back to the pool and
    // another token's take them over.
    expect(compareRuns(8, 300, MOVE_RULE_TYPES, 6)).toBeGreaterThan(1000);
  });

  it('fires exactly the same window moves over long monotone runs (new extremes with and without holding rules)', () => {
    // Few rules: most new lows and highs fire and re-arm nothing, and enter without a full look.
    expect(compareRuns(6, 400, MOVE_RULE_TYPES, 2, 6)).toBeGreaterThan(500);
    expect(compareRuns(24, 200, MOVE_RULE_TYPES, 2, 6)).toBeGreaterThan(1000);
    // Moves By alone: a rule holding from one side while the price makes new extremes on the other.
    expect(compareRuns(4, 400, [MOVE_RULE_TYPES[2]], 2, 6)).toBeGreaterThan(300);
  });

  it('fires exactly the same window moves when extremes leave their windows during quiet runs', () => {
    // Few rules, many of them holding after a jump: a band without holding rules outlives its
    // extremes, one with them ends when they leave.
    expect(compareRuns(6, 300, MOVE_RULE_TYPES, 1, 0, 6)).toBeGreaterThan(300);
    expect(compareRuns(24, 150, MOVE_RULE_TYPES, 1, 0, 6)).toBeGreaterThan(1000);
  });

  it('fires exactly the same window moves and prices in long runs mixed with every rule type', () => {
    expect(compareRuns(24, 200, undefined, 4)).toBeGreaterThan(1000);
  });
});
