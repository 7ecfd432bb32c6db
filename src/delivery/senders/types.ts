import type { ChannelSettings } from '../../db/schema/subscriptions.js';

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
}

export interface ChannelSender {
  send(job: DeliveryJob): Promise<SendResult>;
}
