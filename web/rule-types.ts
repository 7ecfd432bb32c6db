// Every rule type the console offers and its parameters, in one place: the rule builder's form,
// the chart's lines and the rules page's wording all read this list.

export type Param =
  | { name: string; label: string; kind: 'percent'; min: number; max: number; step: number; charted?: boolean }
  | { name: string; label: string; kind: 'number'; min: number; step: number; unit?: string }
  | { name: string; label: string; kind: 'choice'; options: readonly string[]; optional?: boolean };

export interface RuleType {
  type: string;
  /** What it fires on, in a sentence. */
  help: string;
  params: readonly Param[];
  /** Watches one market's price: the builder asks for a market and shows the chart. */
  priced: boolean;
}

const level: Param = { name: 'threshold_percent', label: 'Threshold (price, %)', kind: 'percent', min: 0.1, max: 99.9, step: 0.1, charted: true };
const move: Param = { name: 'threshold_percent', label: 'Move (percentage points)', kind: 'percent', min: 0.1, max: 99.9, step: 0.1 };
const window: Param = { name: 'window', label: 'Within', kind: 'choice', options: ['5m', '15m', '1h', '4h', '24h'] };

export const RULE_TYPES: readonly RuleType[] = [
  { type: 'Crossing Up', help: 'the price rises through the threshold', params: [level], priced: true },
  { type: 'Crossing Down', help: 'the price falls through the threshold', params: [level], priced: true },
  { type: 'Crossing', help: 'the price crosses the threshold either way', params: [level], priced: true },
  { type: 'Greater Than', help: 'the price is above the threshold', params: [level], priced: true },
  { type: 'Less Than', help: 'the price is below the threshold', params: [level], priced: true },
  {
    type: 'Crossing Step',
    help: 'the price crosses any multiple of the step',
    params: [{ name: 'threshold_percent', label: 'Step (percentage points)', kind: 'percent', min: 0.01, max: 50, step: 0.01, charted: true }],
    priced: true,
  },
  { type: 'Moves Up By', help: 'the price rises by at least this much within the window', params: [move, window], priced: true },
  { type: 'Moves Down By', help: 'the price falls by at least this much within the window', params: [move, window], priced: true },
  { type: 'Moves By', help: 'the price moves by at least this much either way within the window', params: [move, window], priced: true },
  {
    type: 'Large Trade',
    help: 'a single trade of at least this size',
    params: [
      { name: 'min_usd', label: 'Minimum size', kind: 'number', min: 1, step: 1, unit: 'USD' },
      { name: 'side', label: 'Side', kind: 'choice', options: ['BUY', 'SELL'], optional: true },
    ],
    priced: true,
  },
  {
    type: 'Volume Spike',
    help: 'volume runs at this multiple of its usual pace',
    params: [{ name: 'multiple', label: 'Multiple', kind: 'number', min: 1.5, step: 0.1, unit: '×' }],
    priced: true,
  },
  { type: 'Resolution', help: 'the market is proposed, disputed or resolved', params: [], priced: true },
  {
    type: 'Closing Soon',
    help: 'the market is about to close',
    params: [{ name: 'hours_before', label: 'Hours before', kind: 'choice', options: ['1', '6', '24', '72'] }],
    priced: true,
  },
  { type: 'New or closed events and markets', help: 'events and markets of the watchlist open or close', params: [], priced: false },
];

export const ruleType = (type: string): RuleType => RULE_TYPES.find((r) => r.type === type) ?? RULE_TYPES[0]!;

export const defaultParams = (rule: RuleType, current: number | null): Record<string, string> =>
  Object.fromEntries(
    rule.params.map((p) => [
      p.name,
      p.kind === 'percent'
        ? p.charted && rule.type !== 'Crossing Step'
          ? String(Math.min(99, Math.max(1, Math.round(((current ?? 0.5) * 100 + 5) * 10) / 10)))
          : '5'
        : p.kind === 'number'
          ? String(p.min === 1 ? 1000 : 2)
          : p.optional
            ? ''
            : p.options[0]!,
    ]),
  );

/** The params as the API takes them: numbers as numbers, an empty optional choice left out. */
export function paramsBody(rule: RuleType, values: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of rule.params) {
    const v = values[p.name] ?? '';
    if (p.kind === 'choice') {
      if (v === '' && p.optional) continue;
      out[p.name] = p.name === 'hours_before' ? Number(v) : v;
    } else out[p.name] = v === '' ? NaN : Number(v);
  }
  return out;
}

/** Price levels (0..1) to draw on the chart for these params, nearest the current price. */
export function chartLevels(rule: RuleType, values: Record<string, string>, current: number | null): number[] {
  const p = Number(values.threshold_percent) / 100;
  if (!Number.isFinite(p) || p <= 0 || !rule.params.some((x) => x.kind === 'percent' && x.charted)) return [];
  if (rule.type !== 'Crossing Step') return [p];
  const at = current ?? 0.5;
  const below = Math.floor(at / p) * p;
  return [below, below + p].filter((l) => l > 0 && l < 1);
}

/** How far the price is from firing, in words ("needs +4.2 pts"), for the charted types. */
export function distanceText(rule: RuleType, values: Record<string, string>, current: number | null): string | null {
  const levels = chartLevels(rule, values, current);
  if (current === null || levels.length === 0) return null;
  const pts = (l: number) => `${l > current ? '+' : '−'}${Math.abs((l - current) * 100).toFixed(1)} pts`;
  if (rule.type === 'Greater Than' && current > levels[0]!) return 'already above the threshold: fires at once';
  if (rule.type === 'Less Than' && current < levels[0]!) return 'already below the threshold: fires at once';
  if (rule.type === 'Crossing Up' && current >= levels[0]!) return `above already: fires after a fall and a new rise through it (${pts(levels[0]!)})`;
  if (rule.type === 'Crossing Down' && current <= levels[0]!) return `below already: fires after a rise and a new fall through it (${pts(levels[0]!)})`;
  return `needs ${levels.map(pts).join(' or ')} from ${(current * 100).toFixed(1)}%`;
}

/** A stored rule's type and parameters in a few words ("Crossing Up 50%", "Large Trade ≥ 1000 USD, BUY"). */
export function ruleLabel(type: string, params: Record<string, unknown>): string {
  const rule = RULE_TYPES.find((r) => r.type === type);
  const words = (rule?.params ?? []).flatMap((p) => {
    const v = params[p.name];
    if (v === undefined || v === null || v === '') return [];
    if (p.kind === 'percent') return [rule!.type.startsWith('Moves') || rule!.type === 'Crossing Step' ? `${v} pts` : `${v}%`];
    if (p.kind === 'number') return [`≥ ${v}${p.unit ? ` ${p.unit}` : ''}`];
    return [p.name === 'window' ? `within ${v}` : p.name === 'hours_before' ? `${v}h before` : String(v)];
  });
  return [type, ...words].join(' ');
}
