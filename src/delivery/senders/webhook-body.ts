/**
 * What one Webhook receiver is shown of a notification. The stored payload lists every channel
 * of the subscription with its settings, and one stored payload serves all of them; a third-party
 * receiver must not learn the others' credentials (a Discord webhook URL is one, a Telegram chat
 * id nearly), so each channel keeps only its `type`, and the receiving channel its own URL.
 */
export function webhookBody(payload: Record<string, unknown>, ownUrl: string): Record<string, unknown> {
  const { channels } = payload;
  if (!Array.isArray(channels)) return payload;
  return {
    ...payload,
    channels: channels.map((channel: unknown) => {
      const { type, settings } = (channel ?? {}) as { type?: unknown; settings?: { webhookUrl?: unknown } };
      const own = type === 'Webhook' && settings?.webhookUrl === ownUrl;
      return own ? { type, settings: { webhookUrl: ownUrl } } : { type };
    }),
  };
}
