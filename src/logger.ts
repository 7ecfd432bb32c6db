import { pino, type Logger } from 'pino';

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
  'webhookUrl',
  '*.webhookUrl',
  'discordWebhookUrl',
  '*.discordWebhookUrl',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'oddswatch' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
