import type { Logger } from '../../logger.js';
import { isServiceError, type ServiceError, type ServiceErrorKind } from '../../services/errors.js';
import { conflictWords, limitWords, notFoundWords, validationWords } from './chat-words.js';
import { usage, type Platform } from './params.js';
import { ChatRefusal, UsageError, type BotReply, type Command } from './types.js';

export const GENERIC_FAILURE = 'Something went wrong; try again';

const WORDS: Record<ServiceErrorKind, (err: ServiceError) => string> = {
  validation: validationWords,
  not_found: notFoundWords,
  limit_exceeded: limitWords,
  conflict: conflictWords,
  unauthorized: () => 'You are not allowed to do that.',
  forbidden: () => 'You are not allowed to do that.',
};

/** The one place that turns a failure into a chat reply. Unexpected errors are logged here, once. */
export function errorReply(err: unknown, command: Command | undefined, platform: Platform, logger: Logger): BotReply {
  const usageLine = `Usage: ${command ? usage(command, platform) : '/help'}`;
  if (err instanceof UsageError) return { text: err.message ? `${err.message}\n${usageLine}` : usageLine, failed: true };
  if (err instanceof ChatRefusal) return { text: err.message, failed: true };
  if (isServiceError(err)) {
    const words = WORDS[err.kind](err);
    return { text: err.kind === 'validation' && command ? `${words}\n${usageLine}` : words, failed: true };
  }
  logger.error({ err, command: command?.name }, 'bot command failed');
  return { text: GENERIC_FAILURE, failed: true };
}
