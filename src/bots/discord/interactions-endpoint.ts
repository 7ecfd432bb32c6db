import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../../logger.js';
import type { DiscordBot, RawInteraction } from './bot.js';

/** Where Discord POSTs interactions when the portal's Interactions Endpoint URL points here. */
export const DISCORD_INTERACTIONS_PATH = '/discord/interactions';
const PING = 1;
const PONG = 1;

/** DISCORD_PUBLIC_KEY (the portal's 64 hex characters) as a key node:crypto verifies with. */
export function discordPublicKey(hex: string): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(hex, 'hex').toString('base64url') }, format: 'jwk' });
}

/** How far a request's signed timestamp may be from our clock: older ones could be replays. */
const MAX_CLOCK_SKEW_S = 5 * 60;

/**
 * Discord signs the timestamp header (Unix seconds) followed by the raw body with the
 * application's Ed25519 key. A valid signature on a stale timestamp is refused too, so a captured
 * request (a `/delete`, say) cannot be played again later.
 */
export function verifyDiscordSignature(
  key: KeyObject,
  signature: string | undefined,
  timestamp: string | undefined,
  body: Buffer,
  nowMs = Date.now(),
): boolean {
  if (!signature || !timestamp || !/^[0-9a-f]{128}$/i.test(signature) || !/^\d{1,12}$/.test(timestamp)) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > MAX_CLOCK_SKEW_S) return false;
  return verify(null, Buffer.concat([Buffer.from(timestamp, 'utf8'), body]), key, Buffer.from(signature, 'hex'));
}

export interface InteractionsEndpoint {
  path: string;
  /** Needs the body as received (a Buffer): the signature covers the exact bytes. */
  rawBody: true;
  handler: RequestHandler;
}

/**
 * The HTTP way to receive interactions, instead of (or besides) the gateway: checks Discord's
 * signature, answers PING, and hands everything else to the same `handleInteraction`, whose first
 * answer becomes the HTTP response.
 */
export function discordInteractionsEndpoint(publicKey: string, bot: Pick<DiscordBot, 'handleInteraction'>, logger: Logger): InteractionsEndpoint {
  const key = discordPublicKey(publicKey);
  const handler = async (req: Request, res: Response): Promise<void> => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!verifyDiscordSignature(key, req.header('x-signature-ed25519'), req.header('x-signature-timestamp'), body)) {
      res.status(401).json({ error: 'Invalid request signature' });
      return;
    }
    let interaction: RawInteraction;
    try {
      interaction = JSON.parse(body.toString('utf8')) as RawInteraction;
    } catch {
      res.status(400).json({ error: 'The body is not JSON' });
      return;
    }
    if (typeof interaction !== 'object' || interaction === null) {
      res.status(400).json({ error: 'The body is not an interaction object' });
      return;
    }
    if (interaction.type === PING) {
      res.json({ type: PONG });
      return;
    }
    await bot.handleInteraction(interaction, async (answer) => {
      // handleInteraction answers once; a second first-answer (a retry after a failure) cannot be sent.
      if (res.headersSent) throw new Error('the interaction was already answered');
      res.json(answer);
    });
    if (!res.headersSent) {
      logger.debug({ type: interaction.type }, 'discord interaction over HTTP left unanswered');
      res.status(400).json({ error: 'Interaction not handled' });
    }
  };
  return { path: DISCORD_INTERACTIONS_PATH, rawBody: true, handler };
}
