import { MOVE_RULE_TYPES, MOVE_WINDOWS, PRICE_RULE_TYPES, TRIGGER_INTERVAL_MS, type MoveWindow, type TriggerInterval } from '../src/domain/enums.js';
import { RuleIndex } from '../src/engine/index.js';
import { ReferenceEvaluator } from '../src/engine/reference.js';
import {
  CROSSING_STEP, isLevelRule, takesRearmBand, thresholdFraction, type AlertEvaluator, type CompiledRule,
} from '../src/engine/rules.js';
import { fmt, gcFunction, machine, mb, percentile, printTable, prng } from './support.js';

export interface EngineBenchOptions {
  rules: number;
  tokens: number;
  ticks: number;
  referenceTicks: number;
  seed: number;
  /** 1 lets level rules draw the 0m interval too (they then fire on every tick while they hold). */
  zeroIntervalLevels: number;
  /** Share (0..1) of the Recurring Crossing, Crossing Up and Crossing Down rules given a re-arm band. */
  rearmShare: number;
  /** Window-move rules added to the same rules for a pass of their own (0: no such pass). */
  moveRules: number;
}

const DEFAULTS: EngineBenchOptions = {
  rules: 1_000_000, tokens: 10_000, ticks: 2_000_000, referenceTicks: 200, seed: 42, zeroIntervalLevels: 0, rearmShare: 0, moveRules: 200_000,
};
/** Windows of the move rules: the short ones expire and refill during a run (1 ms of simulated time a tick). */
const MOVE_WINDOW_MIX: Array<[MoveWindow, number]> = [['5m', 25], ['15m', 25], ['1h', 25], ['4h', 15], ['24h', 10]];
/** rearmPoints drawn for the rules given a band; the ticks' typical move is ±0.5 points. */
const REARM_POINTS: Array<[number, number]> = [[1, 30], [2, 40], [5, 20], [10, 10]];
const SAMPLE_EVERY = 16;
const TICK_MS = 1; // simulated time per tick, so 5m and 30m pauses end and re-arm during the run
const INTERVALS: Array<[TriggerInterval, number]> = [['0m', 5], ['5m', 15], ['30m', 40], ['60m', 15], ['6h', 10], ['12h', 5], ['24h', 10]];
// A 0m level rule fires on every tick while it holds (a notification per price change), so the mix
// gives 0m to crossing rules only; otherwise firings, not the index, would be what is measured.
const LEVEL_INTERVALS = INTERVALS.filter(([name]) => TRIGGER_INTERVAL_MS[name] > 0);
const STEPS = [0.05, 0.1, 0.25, 0.5];

export function engineBenchOptions(args: string[]): EngineBenchOptions {
  const options = { ...DEFAULTS };
  for (const arg of args) {
    const [key, value] = arg.replace(/^--/, '').split('=');
    if (key !== undefined && key in options && value !== undefined) options[key as keyof EngineBenchOptions] = Number(value);
  }
  return options;
}

function weighted<T>(random: () => number, choices: Array<[T, number]>): T {
  let pick = random() * choices.reduce((sum, [, w]) => sum + w, 0);
  for (const [value, weight] of choices) if ((pick -= weight) < 0) return value;
  return choices[choices.length - 1][0];
}

/** A flat 36-character id: crypto.randomUUID() builds cons strings that cost ~500 bytes each. */
function subscriptionUuid(random: () => number): string {
  const hex = Buffer.alloc(36);
  for (let i = 0; i < 36; i++) hex[i] = i === 8 || i === 13 || i === 18 || i === 23 ? 45 : '0123456789abcdef'.charCodeAt(Math.floor(random() * 16));
  return hex.toString('latin1');
}

/** The same rule set every time for a seed: mixed types, mostly Recurring, some One Time. */
function* generateRules(o: EngineBenchOptions, tokens: string[]): Generator<CompiledRule> {
  const random = prng(o.seed);
  // Bands draw from a generator of their own, so the rules are the same with or without them.
  const bandRandom = prng(o.seed + 4);
  for (let ruleId = 0; ruleId < o.rules; ruleId++) {
    const tokenIndex = Math.floor(random() * o.tokens);
    const type = PRICE_RULE_TYPES[Math.floor(random() * PRICE_RULE_TYPES.length)];
    const onGrid = random() < 0.7;
    const threshold = type === CROSSING_STEP ? STEPS[Math.floor(random() * STEPS.length)]
      : onGrid ? thresholdFraction(1 + Math.floor(random() * 99)) : 0.01 + random() * 0.98;
    const oneTime = random() < 0.15;
    const banded = takesRearmBand(type) && !oneTime && bandRandom() < o.rearmShare;
    yield {
      ruleId, subscriptionId: subscriptionUuid(random), marketId: String(500_000 + tokenIndex), token: tokens[tokenIndex], type, threshold,
      oneTime, intervalMs: TRIGGER_INTERVAL_MS[weighted(random, isLevelRule(type) && o.zeroIntervalLevels === 0 ? LEVEL_INTERVALS : INTERVALS)], expiresAtMs: random() < 0.1 ? random() * o.ticks * TICK_MS : null, enabled: true,
      ...(banded ? { rearmBand: thresholdFraction(weighted(bandRandom, REARM_POINTS)) } : {}),
    };
  }
}

/** Window-move rules after the price rules' ids: the three types evenly, 1–20 points, the same intervals. */
function* generateMoveRules(o: EngineBenchOptions, tokens: string[]): Generator<CompiledRule> {
  const random = prng(o.seed + 5);
  for (let i = 0; i < o.moveRules; i++) {
    const tokenIndex = Math.floor(random() * o.tokens);
    const oneTime = random() < 0.15;
    yield {
      ruleId: o.rules + i, subscriptionId: subscriptionUuid(random), marketId: String(500_000 + tokenIndex), token: tokens[tokenIndex],
      type: MOVE_RULE_TYPES[Math.floor(random() * MOVE_RULE_TYPES.length)], threshold: thresholdFraction(1 + Math.floor(random() * 20)),
      window: weighted(random, MOVE_WINDOW_MIX), oneTime, intervalMs: TRIGGER_INTERVAL_MS[weighted(random, INTERVALS)],
      expiresAtMs: random() < 0.1 ? random() * o.ticks * TICK_MS : null, enabled: true,
    };
  }
}

function buildTokens(o: EngineBenchOptions): { names: string[]; prices: Float64Array } {
  const random = prng(o.seed + 1);
  const names = Array.from({ length: o.tokens }, () => Array.from({ length: 77 }, (_, i) => Math.floor(random() * (i === 0 ? 9 : 10)) + (i === 0 ? 1 : 0)).join(''));
  return { names, prices: Float64Array.from(names, () => Math.round((0.05 + random() * 0.9) * 1e4) / 1e4) };
}

/** A random walk per token: ±0.005 typical moves, a jump once in a thousand ticks. */
function buildTicks(o: EngineBenchOptions, start: Float64Array, count: number, seed: number): { token: Int32Array; price: Float64Array } {
  const random = prng(seed);
  const current = start.slice();
  const token = new Int32Array(count);
  const price = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const t = Math.floor(random() * o.tokens);
    const next = random() < 0.001 ? random() : current[t] + (random() - 0.5) * 0.01;
    current[t] = Math.round(Math.min(0.999, Math.max(0.001, next)) * 1e4) / 1e4;
    token[i] = t;
    price[i] = current[t];
  }
  return { token, price };
}

function load(e: AlertEvaluator, o: EngineBenchOptions, names: string[], prices: Float64Array, moves = false): number {
  names.forEach((name, i) => e.tick(name, prices[i], 0));
  let firings = 0;
  for (const rule of generateRules(o, names)) firings += e.add(rule, 0).length;
  if (moves) for (const rule of generateMoveRules(o, names)) firings += e.add(rule, 0).length;
  return firings;
}

interface Pass { ticksPerSecond: number; p50: number; p99: number; firings: number; firingTicks: number }

function measure(count: number, tick: (i: number) => number): Pass {
  const samples = new Float64Array(Math.ceil(count / SAMPLE_EVERY));
  let firings = 0;
  let firingTicks = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    let fired: number;
    if (i % SAMPLE_EVERY !== 0) {
      fired = tick(i);
    } else {
      const t0 = process.hrtime.bigint();
      fired = tick(i);
      samples[i / SAMPLE_EVERY] = Number(process.hrtime.bigint() - t0);
    }
    firings += fired;
    if (fired !== 0) firingTicks++;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  samples.sort();
  return { ticksPerSecond: count / seconds, p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), firings, firingTicks: firingTicks / count };
}

/** The scanning evaluator on the same rules, over a few ticks (each one scans every rule). */
function measureReference(o: EngineBenchOptions, names: string[], prices: Float64Array, ticks: { token: Int32Array; price: Float64Array }, moves = false): Pass {
  if (o.referenceTicks === 0) return { ticksPerSecond: NaN, p50: NaN, p99: NaN, firings: 0, firingTicks: 0 };
  const reference = new ReferenceEvaluator();
  load(reference, o, names, prices, moves);
  return measure(o.referenceTicks, (i) => reference.tick(names[ticks.token[i]], ticks.price[i], (i + 1) * TICK_MS).length);
}

function timerOverheadNs(): number {
  const samples = new Float64Array(10_000);
  for (let i = 0; i < samples.length; i++) {
    const t0 = process.hrtime.bigint();
    samples[i] = Number(process.hrtime.bigint() - t0);
  }
  return percentile(samples.sort(), 0.5);
}

/** Which row the targets read, and why: the engine is fed by dense index since the token records. */
const PRODUCTION_PATH =
  'production path: the feed resolves each token once per message to its record (src/runner/token-records.ts), which carries the dense index: the engine ticks by tickIndex. The id lookup it replaces is in the ingest bench, which measures the whole path.';

export async function runEngineBench(options: Partial<EngineBenchOptions> = {}): Promise<void> {
  const o = { ...DEFAULTS, ...options };
  const gc = gcFunction();
  const { names, prices } = buildTokens(o);
  gc();
  const before = process.memoryUsage();

  // Let go before the window pass builds an index of its own.
  let index: RuleIndex | null = new RuleIndex();
  const buildStart = process.hrtime.bigint();
  const addFirings = load(index, o, names, prices);
  index.settleAll();
  const buildSeconds = Number(process.hrtime.bigint() - buildStart) / 1e9;
  gc();
  const after = process.memoryUsage();

  const stream = buildTicks(o, prices, o.ticks * 2, o.seed + 2);
  const referenceStream = buildTicks(o, prices, o.referenceTicks, o.seed + 3);
  const referencePass = measureReference(o, names, prices, referenceStream);
  gc();

  const byName = measure(o.ticks, (i) => index!.tick(names[stream.token[i]], stream.price[i], (i + 1) * TICK_MS).length);
  const byIndex = measure(o.ticks, (j) => {
    const i = j + o.ticks;
    return index!.tickIndex(stream.token[i], stream.price[i], (i + 1) * TICK_MS).length;
  });

  console.log(`\nAlert engine: ${fmt(o.rules)} rules over ${fmt(o.tokens)} tokens, ${fmt(o.ticks)} ticks per pass, re-arm bands on ${fmt(o.rearmShare * 100)}% of Recurring crossing rules`);
  console.log(`machine: ${machine()}`);
  console.log(`build: ${buildSeconds.toFixed(2)} s (${fmt(addFirings)} level rules fired at add)`);
  console.log(`memory: RSS ${mb(after.rss)} (${mb(after.rss - before.rss)} for the index), heap used ${mb(after.heapUsed)} (${mb(after.heapUsed - before.heapUsed)} for the index), array buffers ${mb(after.arrayBuffers)}\n`);
  const row = (name: string, pass: Pass): string[] => [
    name, fmt(pass.ticksPerSecond), `${fmt(pass.p50 / 1000, 2)} µs`, `${fmt(pass.p99 / 1000, 2)} µs`, fmt(pass.firings), `${fmt(pass.firingTicks * 100, 1)}%`,
    `${fmt(pass.ticksPerSecond / referencePass.ticksPerSecond)}x`,
  ];
  printTable(['evaluator', 'ticks/s', 'p50 tick', 'p99 tick', 'firings', 'ticks that fire', 'vs scanner'], [
    row('RuleIndex.tick (token id string)', byName),
    row('RuleIndex.tickIndex (dense index; production path)', byIndex),
    row(`ReferenceEvaluator (scan, ${fmt(o.referenceTicks)} ticks)`, referencePass),
  ]);
  gc();
  console.log(`\nafter both passes: RSS ${mb(process.memoryUsage().rss)}, heap used ${mb(process.memoryUsage().heapUsed)}`);
  console.log(`p50/p99: every ${SAMPLE_EVERY}th tick timed alone with process.hrtime.bigint; a timer read costs ~${fmt(timerOverheadNs())} ns (not subtracted).`);
  console.log(PRODUCTION_PATH);
  const target = (ok: boolean) => (ok ? 'met' : 'MISSED');
  console.log(`targets (production path, by dense index): >= 1,000,000 ticks/s ${target(byIndex.ticksPerSecond >= 1e6)}; >= 100x the scanner ${target(byIndex.ticksPerSecond >= 100 * referencePass.ticksPerSecond)}; index < 400 MB RSS ${target(after.rss < 400 * 1024 * 1024)}`);
  index = null;
  if (o.moveRules > 0) runWindowPass(o, names, prices, stream, referenceStream, { byName, byIndex });
}

/**
 * The same rules plus `moveRules` window-move rules, in an index of their own built after the
 * first one is let go, over the same ticks: the window rules' own figure beside the price rules'.
 */
function runWindowPass(
  o: EngineBenchOptions, names: string[], prices: Float64Array, stream: { token: Int32Array; price: Float64Array },
  referenceStream: { token: Int32Array; price: Float64Array }, priceOnly: { byName: Pass; byIndex: Pass },
): void {
  const gc = gcFunction();
  gc();
  const before = process.memoryUsage();
  const index = new RuleIndex();
  const buildStart = process.hrtime.bigint();
  load(index, o, names, prices, true);
  index.settleAll();
  const buildSeconds = Number(process.hrtime.bigint() - buildStart) / 1e9;
  gc();
  const after = process.memoryUsage();
  const referencePass = measureReference(o, names, prices, referenceStream, true);
  gc();
  const byName = measure(o.ticks, (i) => index.tick(names[stream.token[i]], stream.price[i], (i + 1) * TICK_MS).length);
  const byIndex = measure(o.ticks, (j) => {
    const i = j + o.ticks;
    return index.tickIndex(stream.token[i], stream.price[i], (i + 1) * TICK_MS).length;
  });
  console.log(`\nWith window moves: the same rules plus ${fmt(o.moveRules)} Moves Up By / Moves Down By / Moves By rules (1–20 points; windows 5m 25%, 15m 25%, 1h 25%, 4h 15%, 24h 10%)`);
  console.log(`build: ${buildSeconds.toFixed(2)} s; memory: RSS ${mb(after.rss)} (${mb(after.rss - before.rss)} more than before the build), heap used ${mb(after.heapUsed)}\n`);
  printTable(['evaluator', 'ticks/s', 'p50 tick', 'p99 tick', 'firings', 'ticks that fire', 'vs scanner'], [
    [
      'RuleIndex.tick with window rules', fmt(byName.ticksPerSecond), `${fmt(byName.p50 / 1000, 2)} µs`, `${fmt(byName.p99 / 1000, 2)} µs`, fmt(byName.firings),
      `${fmt(byName.firingTicks * 100, 1)}%`, `${fmt(byName.ticksPerSecond / referencePass.ticksPerSecond)}x`,
    ],
    [
      'RuleIndex.tickIndex with window rules (production path)', fmt(byIndex.ticksPerSecond), `${fmt(byIndex.p50 / 1000, 2)} µs`, `${fmt(byIndex.p99 / 1000, 2)} µs`, fmt(byIndex.firings),
      `${fmt(byIndex.firingTicks * 100, 1)}%`, `${fmt(byIndex.ticksPerSecond / referencePass.ticksPerSecond)}x`,
    ],
    [`ReferenceEvaluator with window rules (${fmt(o.referenceTicks)} ticks)`, fmt(referencePass.ticksPerSecond), `${fmt(referencePass.p50 / 1000, 2)} µs`, `${fmt(referencePass.p99 / 1000, 2)} µs`, fmt(referencePass.firings), `${fmt(referencePass.firingTicks * 100, 1)}%`, '1x'],
  ]);
  const target = (ok: boolean) => (ok ? 'met' : 'MISSED');
  // The same ticks in the same process: the ratio holds on a loaded machine where ticks/s do not.
  const cost = (price: Pass, windows: Pass) => `${(price.ticksPerSecond / windows.ticksPerSecond).toFixed(2)}x (p50 ${(windows.p50 / price.p50).toFixed(2)}x)`;
  console.log(`cost of a tick with window rules / price rules only (same run): by dense index ${cost(priceOnly.byIndex, byIndex)}, by token id ${cost(priceOnly.byName, byName)}`);
  console.log(PRODUCTION_PATH);
  console.log(`targets with window rules (production path, by dense index): >= 1,000,000 ticks/s ${target(byIndex.ticksPerSecond >= 1e6)}; >= 100x the scanner ${target(byIndex.ticksPerSecond >= 100 * referencePass.ticksPerSecond)}`);
}
