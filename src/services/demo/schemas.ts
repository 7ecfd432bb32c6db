import { z } from 'zod';
import { Id, text } from '../schemas.js';

export const CreateDemoWebhookInput = z.strictObject({ url: text().trim().min(1, 'must not be empty').max(2000) });
export type CreateDemoWebhookInput = z.input<typeof CreateDemoWebhookInput>;

export const DemoWebhookIdInput = z.object({ id: Id });
export type DemoWebhookIdInput = z.input<typeof DemoWebhookIdInput>;

const intParam = (min: number, max: number, fallback: number) =>
  text()
    .optional()
    .transform((v, c) => {
    if (v === undefined) return fallback;
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      c.addIssue({ code: 'custom', message: `must be an integer from ${min} to ${max}` });
      return z.NEVER;
    }
    return n;
  });

export const DemoEventsInput = z.object({
  page: intParam(1, 1_000_000, 1),
  limit: intParam(1, 500, 500),
});
export type DemoEventsInput = z.input<typeof DemoEventsInput>;

export const VolumeStatsInput = z.object({ marketId: Id });
export type VolumeStatsInput = z.input<typeof VolumeStatsInput>;
