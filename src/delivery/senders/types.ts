import type { ChannelSettings } from '../../db/schema/subscriptions.js';
import type { BatchKind } from '../batches.js';
import type { FiredAlert, RuleState } from '../message/facts.js';

export interface DeliveryJob {
  notificationId: string;
  /** 1-based number of this try. */
  attempt: number;
  /** The notification payload as stored: a price_notification or event_status_notification. */
  payload: Record<string, unknown>;
  settings: ChannelSettings;
  /** The account's Standard Webhooks secret (`whsec_…`). */
  signingSecret?: string;
  /** The secret replaced by a rotation, while its grace window lasts: it signs too. */
  previousSigningSecret?: string;
  links: { venueUrl: string; chartUrl?: string };
  /** A test send (POST /channels/test): marked as such, and without the rule's Pause and Delete buttons. */
  test?: boolean;
  /** The payload's rule as it is now (chat buttons): null when deleted, absent when not looked up. */
  rule?: RuleState | null;
  /** The name of the outcome a price rule watches ("Yes"), from the catalog. */
  outcomeName?: string;
  /**
   * Chat only: the other rules of the account that fired on the same market and move, told in the
   * same message. Webhooks get one body per notification.
   */
  alsoFired?: readonly FiredAlert[];
  /**
   * A batched send (quiet hours, a digest, a burst): every notification of the batch in one
   * summary message, or one signed `digest_notification` body for a webhook. `payload` is the first.
   */
  batch?: { kind: BatchKind; items: readonly BatchItem[] };
}

export interface BatchItem extends FiredAlert {
  notificationId: string;
}

/** The job's notification and those grouped with it, in order. */
export function firedOf(payload: Record<string, unknown>, job: Pick<DeliveryJob, 'rule' | 'alsoFired'>): FiredAlert[] {
  return [{ payload, ...(job.rule !== undefined ? { rule: job.rule } : {}) }, ...(job.alsoFired ?? [])];
}

/**
 * sent: delivered. retry: transient (timeout, network, 5xx, 429), the retry policy decides.
 * failed: permanent, retrying cannot help. blocked: the recipient blocked us (BLOCKED_BY_USER).
 */
export type SendOutcome = 'sent' | 'retry' | 'failed' | 'blocked';

export interface SendResult {
  outcome: SendOutcome;
  statusCode?: number;
  error?: string;
  durationMs: number;
  retryAfterMs?: number;
  /** Failed because the endpoint is gone for good (a deleted webhook, a closed DM): the reason to disable the channel now. */
  endpointGone?: string;
}

export interface ChannelSender {
  send(job: DeliveryJob): Promise<SendResult>;
}
