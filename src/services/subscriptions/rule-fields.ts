import {
  CATALOG_RULE_TYPE,
  DEFAULT_TRIGGER_INTERVAL,
  type PriceRuleType,
  type SubscriptionType,
  type TriggerInterval,
  type TriggerType,
} from '../../domain/enums.js';
import type { SubscriptionTypeConfig } from './schemas.js';

/**
 * The stored rule columns from a type config and trigger settings. Catalog rules are always
 * Recurring and fire on every change; a One Time rule has no interval; a Recurring one defaults to 30m.
 */
export function ruleColumns(
  typeConfig: SubscriptionTypeConfig,
  triggerType: TriggerType,
  triggerInterval: TriggerInterval | null | undefined,
) {
  if (typeConfig.type === CATALOG_RULE_TYPE) {
    return { type: typeConfig.type, thresholdPercent: null, triggerType: 'Recurring' as const, triggerInterval: null };
  }
  return {
    type: typeConfig.type,
    thresholdPercent: typeConfig.config.params.threshold_percent,
    triggerType,
    triggerInterval: triggerType === 'One Time' ? null : (triggerInterval ?? DEFAULT_TRIGGER_INTERVAL),
  };
}

/** The type config a stored row holds: the inverse of `ruleColumns`. */
export function storedTypeConfig(row: { type: SubscriptionType; thresholdPercent: number | null }): SubscriptionTypeConfig {
  if (row.type === CATALOG_RULE_TYPE || row.thresholdPercent === null) {
    return { type: CATALOG_RULE_TYPE, config: { params: {} } };
  }
  return { type: row.type as PriceRuleType, config: { params: { threshold_percent: row.thresholdPercent } } };
}
