import { z } from 'zod';
import { futureDate, Id } from '../schemas.js';

export const CreateTokenInput = z.strictObject({
  name: z.string().trim().min(1, 'name must not be empty').max(100, 'name is at most 100 characters'),
  expiresAt: futureDate('expiresAt').optional(),
});
export type CreateTokenInput = z.input<typeof CreateTokenInput>;

export const TokenIdInput = z.object({ tokenId: Id });
export type TokenIdInput = z.input<typeof TokenIdInput>;
