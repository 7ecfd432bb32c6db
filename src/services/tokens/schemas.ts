import { z } from 'zod';
import { futureDate, Id, text } from '../schemas.js';

const TokenName = text().trim().min(1, 'name must not be empty').max(100, 'name is at most 100 characters');

export const CreateTokenInput = z.strictObject({
  name: TokenName,
  expiresAt: futureDate('expiresAt').optional(),
});
export type CreateTokenInput = z.input<typeof CreateTokenInput>;

export const TokenIdInput = z.object({ tokenId: Id });
export type TokenIdInput = z.input<typeof TokenIdInput>;

/** The operator's `tokens create --user <id> [--name <name>]`. */
export const OperatorTokenInput = z.object({ userId: Id, name: TokenName.nullish().transform((name) => name ?? 'cli') });
export type OperatorTokenInput = z.input<typeof OperatorTokenInput>;
