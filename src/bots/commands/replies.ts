import type { Logger } from '../../logger.js';
import { isServiceError, type ServiceErrorKind } from '../../services/errors.js';
import { UsageError, type BotReply, type Command } from './types.js';

export const GENERIC_FAILURE = 'Something went wrong; try again';

const PREFIX: Record<ServiceErrorKind, string> = {
  validation: '',
  not_found: 'Not found: ',
  conflict: '',
  limit_exceeded: 'Limit reached: ',
  unauthorized: 'Not allowed: ',
  forbidden: 'Not allowed: ',
};

/** The one place that turns a failure into a chat reply. Unexpected errors are logged here, once. */
export function errorReply(err: unknown, command: Command | undefined, logger: Logger): BotReply {
  const usage = command ? `\nUsage: /${command.usage}` : '';
  if (err instanceof UsageError) return { text: `${err.message ? `${err.message}\n` : ''}Usage: /${command?.usage ?? 'help'}` };
  if (isServiceError(err)) {
    const withUsage = err.kind === 'validation' ? usage : '';
    return { text: `${PREFIX[err.kind]}${err.message}${withUsage}` };
  }
  logger.error({ err, command: command?.name }, 'bot command failed');
  return { text: GENERIC_FAILURE };
}
