import {
  CATALOG_RULE_TYPE,
  DEFAULT_TRIGGER_INTERVAL,
  type SubscriptionType,
  type TriggerInterval,
  type TriggerType,
} from '../../domain/enums.js';
import { storedParams, type ExtraRuleParams } from '../../domain/rule-params.js';
import type { SubscriptionTypeConfig } from './schemas.js';

/**
 * The stored rule columns from a type config and trigger settings. Catalog rules are always
 * Recurring and fire on every change; a One Time rule has no interval; a Recurring one defaults to 30m.
 * `threshold_percent` keeps its column (the engine's index reads it); the extension types' other
 * parameters go to `rule_params` as the API names them.
 */
export function ruleColumns(
  typeConfig: SubscriptionTypeConfig,
  triggerType: TriggerType,
  triggerInterval: TriggerInterval | null | undefined,
) {
  if (typeConfig.type === CATALOG_RULE_TYPE) {
    return { type: typeConfig.type, thresholdPercent: null, ruleParams: null, triggerType: 'Recurring' as const, triggerInterval: null };
  }
  const { threshold_percent, ...extra } = typeConfig.config.params as { threshold_percent?: number } & ExtraRuleParams;
  return {
    type: typeConfig.type,
    thresholdPercent: threshold_percent ?? null,
    ruleParams: Object.keys(extra).length > 0 ? extra : null,
    triggerType,
    triggerInterval: triggerType === 'One Time' ? null : (triggerInterval ?? DEFAULT_TRIGGER_INTERVAL),
  };
}

/** The type config a stored row holds: the inverse of `ruleColumns`. */
export function storedTypeConfig(row: {
  type: SubscriptionType;
  thresholdPercent: number | null;
  ruleParams: ExtraRuleParams | null;
}): SubscriptionTypeConfig {
  return { type: row.type, config: { params: storedParams(row) } } as SubscriptionTypeConfig;
}
