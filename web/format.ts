export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : 'never');
export const pct = (p: number | null | undefined): string => (p === null || p === undefined ? '–' : `${(p * 100).toFixed(1)}%`);

/** A notification's headline, whatever its kind (price, event status, digest, health). */
export function headline(payload: Record<string, unknown>): string {
  const s = (k: string) => (typeof payload[k] === 'string' ? (payload[k] as string) : undefined);
  const rule = payload.subscriptionTypeConfig as { type?: string } | undefined;
  const subject = s('marketQuestion') ?? s('eventTitle') ?? s('title') ?? s('message') ?? s('type') ?? 'Notification';
  const value = typeof payload.detectedValue === 'number' ? ` at ${pct(payload.detectedValue)}` : '';
  return rule?.type ? `${rule.type}${value}: ${subject}` : subject;
}
