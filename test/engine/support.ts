import { RuleIndex } from '../../src/engine/index.js';
import { ReferenceEvaluator } from '../../src/engine/reference.js';
import type { AlertEvaluator, CompiledRule, Firing } from '../../src/engine/rules.js';

export const implementations: Array<[string, () => AlertEvaluator]> = [
  ['RuleIndex', () => new RuleIndex()],
  ['ReferenceEvaluator', () => new ReferenceEvaluator()],
];

let nextId = 0;

export function rule(fields: Partial<CompiledRule> & Pick<CompiledRule, 'type' | 'threshold'>): CompiledRule {
  const ruleId = fields.ruleId ?? nextId++ % 1000;
  return {
    ruleId,
    subscriptionId: `sub-${ruleId}`,
    marketId: 'market-1',
    token: 'yes-1',
    oneTime: false,
    intervalMs: 0,
    expiresAtMs: null,
    enabled: true,
    ...fields,
  };
}

/** Comparable form: sorted by rule, `levels` copied and absent when not a step firing. */
export function normalize(firings: readonly Firing[]): Firing[] {
  return firings
    .map((f) => {
      const { levels, ...rest } = f;
      return levels === undefined ? rest : { ...rest, levels: [...levels] };
    })
    .sort((a, b) => a.ruleId - b.ruleId || a.subscriptionId.localeCompare(b.subscriptionId) || a.marketId.localeCompare(b.marketId));
}
