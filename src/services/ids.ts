import { randomBytes } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** Time-ordered ids: newest-first listings sort by id, and index locality stays good. */
export const newId = (): string => uuidv7();

/** A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
