import { z } from 'zod';

// Small shapes shared by several services' input schemas.

// PostgreSQL text cannot hold NUL, and an unpaired UTF-16 surrogate has no UTF-8 form (the driver
// would store U+FFFD or the server refuse the query). Both are refused where input is read.
const UNSAFE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
export const UNSAFE_TEXT_MESSAGE = 'must not contain NUL (\\u0000) or unpaired surrogate characters';

export const isSafeText = (value: string): boolean => !UNSAFE_TEXT.test(value);

/** Every string of every input schema starts here (REST, bots and CLI share the schemas). */
export const text = () => z.string().refine(isSafeText, { message: UNSAFE_TEXT_MESSAGE, abort: true });

export const Id = text().trim().min(1, 'must not be empty').max(200, 'is too long');
export const IsoDateTime = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' });

export function futureDate(field: string) {
  return IsoDateTime.transform((v) => new Date(v)).refine((d) => d.getTime() > Date.now(), {
    message: `${field} must be in the future`,
  });
}
