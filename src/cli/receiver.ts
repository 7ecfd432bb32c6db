import { parseArgs } from 'node:util';
import { startWebhookReceiver } from './webhook-receiver.js';

// `npm run receiver`: prints the verified webhook deliveries it receives (src/cli/webhook-receiver.ts).
const USAGE = `Usage: WEBHOOK_SECRET=whsec_… npm run -s receiver [-- --port 4000] [--host 127.0.0.1]

Receives a Webhook channel's deliveries on this machine and prints each one, verified against the
account's signing secret (GET /webhook-secret). Point the channel at the printed URL; the service
needs ALLOW_PRIVATE_URLS=true to send to 127.0.0.1. Verified deliveries go to stdout, one line each.`;

function fail(message: string): never {
  process.stderr.write(`error: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        port: { type: 'string', default: process.env.RECEIVER_PORT ?? '4000' },
        host: { type: 'string', default: '127.0.0.1' },
        secret: { type: 'string', default: process.env.WEBHOOK_SECRET },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    return fail((err as Error).message);
  }
})();
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number, not "${values.port}"`);
if (!values.secret) fail('the signing secret is missing: set WEBHOOK_SECRET (curl -s $OW/webhook-secret -H "$H") or pass --secret');

try {
  const receiver = await startWebhookReceiver({
    host: values.host,
    port,
    secret: values.secret,
    print: (line) => process.stdout.write(`${line}\n`),
  });
  process.stderr.write(`receiving webhooks at ${receiver.url}\n`);
  const stop = () => void receiver.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (err) {
  fail(`cannot listen on ${values.host}:${port}: ${(err as Error).message}`);
}
