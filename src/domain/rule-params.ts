import type { ClosingSoonHours, MoveWindow, TradeSide } from './enums.js';

/**
 * The parameters of our extension rule types beyond `threshold_percent` (which keeps its column:
 * a `Moves … By` rule's points live there too), as the REST API names them. Stored in
 * `subscriptions.rule_params`.
 */
export interface ExtraRuleParams {
  window?: MoveWindow;
  min_usd?: number;
  side?: TradeSide;
  multiple?: number;
  hours_before?: ClosingSoonHours;
}

/** A rule's `subscriptionTypeConfig.config.params`: `threshold_percent` (when it has one) beside its extra params. */
export function storedParams(row: { thresholdPercent: number | null; ruleParams: ExtraRuleParams | null }): { threshold_percent?: number } & ExtraRuleParams {
  return { ...(row.thresholdPercent !== null ? { threshold_percent: row.thresholdPercent } : {}), ...(row.ruleParams ?? {}) };
}
