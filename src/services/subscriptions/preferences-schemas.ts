import { z } from 'zod';
import { DELIVERY_MODES } from '../../domain/enums.js';
import { futureDate, IsoDateTime } from '../schemas.js';

/** The widest re-arm band: past it a crossing rule could never fire again on a 0–100 % price. */
export const MAX_REARM_POINTS = 50;

/** The snooze lengths offered by REST and the chat buttons. */
export const SNOOZE_SPANS_MS = {
  '1h': 3_600_000,
  '8h': 8 * 3_600_000,
  '24h': 24 * 3_600_000,
  '1w': 7 * 24 * 3_600_000,
} as const;
export type SnoozeSpan = keyof typeof SNOOZE_SPANS_MS;
export const SNOOZE_SPANS = Object.keys(SNOOZE_SPANS_MS) as SnoozeSpan[];

/** `PUT /subscription/{id}/preferences`: the whole object; a field left out takes its default. */
export const PreferencesInput = z.strictObject({
  snoozedUntil: IsoDateTime.transform((v) => new Date(v)).nullable().optional(),
  delivery: z.enum(DELIVERY_MODES, { error: `delivery must be one of: ${DELIVERY_MODES.join(', ')}` }).optional(),
  rearmPoints: z
    .number({ error: 'rearmPoints must be a number' })
    .min(0, 'rearmPoints must be at least 0')
    .max(MAX_REARM_POINTS, `rearmPoints must be at most ${MAX_REARM_POINTS}`)
    .optional(),
});
export type PreferencesInput = z.input<typeof PreferencesInput>;

/** `POST /subscription/{id}/snooze`: for one of the spans, or until a time to come. */
export const SnoozeInput = z
  .strictObject({
    for: z.enum(SNOOZE_SPANS, { error: `for must be one of: ${SNOOZE_SPANS.join(', ')}` }).optional(),
    until: futureDate('until').optional(),
  })
  .refine((b) => (b.for === undefined) !== (b.until === undefined), { message: 'give exactly one of for, until' })
  .meta({ description: 'Exactly one of `for` (a span from now) or `until` (an ISO 8601 time to come)' });
export type SnoozeInput = z.input<typeof SnoozeInput>;
