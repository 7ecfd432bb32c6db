import { pino, type Logger } from 'pino';
import { logObjectWithoutSqlValues, redactSecrets, urlWithoutQuery } from './log-redaction.js';

export type { Logger };

// Secrets must never reach the logs: tokens, Authorization headers and webhook URLs are redacted
// wherever they appear in a logged object.
export const REDACT_PATHS = [
  'token',
  '*.token',
  'secret',
  '*.secret',
  'authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  // Telegram's webhook requests carry the shared secret in this header
  'req.headers["x-telegram-bot-api-secret-token"]',
  'req.url',
  'req.query',
  'webhookUrl',
  '*.webhookUrl',
  'discordWebhookUrl',
  '*.discordWebhookUrl',
];

const censor = (value: unknown, path: string[]) => (path.join('.') === 'req.url' ? urlWithoutQuery(value) : '[redacted]');

/**
 * Every line goes through three guards: known secret fields are censored (paths above; a request's
 * URL keeps its path), database errors lose their SQL parameters before they are serialized, and
 * the finished line is scrubbed of every known secret shape (see log-redaction.ts).
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor },
      formatters: { log: logObjectWithoutSqlValues },
      hooks: { streamWrite: redactSecrets },
      base: { service: 'oddswatch' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
