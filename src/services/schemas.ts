import { z } from 'zod';

// Small shapes shared by several services' input schemas.

export const Id = z.string().trim().min(1, 'must not be empty').max(200, 'is too long');
export const IsoDateTime = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' });

export function futureDate(field: string) {
  return IsoDateTime.transform((v) => new Date(v)).refine((d) => d.getTime() > Date.now(), {
    message: `${field} must be in the future`,
  });
}
