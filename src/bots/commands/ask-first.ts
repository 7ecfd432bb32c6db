import type { BotReply } from './types.js';
import { encodeButton } from '../../domain/button-actions.js';

/**
 * The question before a removal: what goes, with Confirm and Cancel buttons. Nothing has changed
 * yet; Confirm runs the command again with the go-ahead (`confirm` data), Cancel changes nothing.
 */
export function askFirst(question: string, confirm: string | undefined): BotReply {
  const text = `${question}\nNothing changes until you confirm.`;
  return { text, buttons: confirm ? [[{ label: '🗑 Yes, delete', action: confirm }, { label: 'Cancel', action: encodeButton('cancel')! }]] : [] };
}
