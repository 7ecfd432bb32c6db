import { headlineOf, humanUtc, percentOfFraction } from '../../delivery/message/facts.js';
import { listNotifications, markNotificationRead, type NotificationView } from '../../services/inbox/index.js';
import { listPage } from './list-reply.js';
import type { Command } from './types.js';

/** How far back /inbox pages: the newest notifications, this many at most. */
const INBOX_SHOWN = 50;
const NOTIFICATIONS_PER_PAGE = 10;

const text = (value: unknown): string | undefined => (typeof value === 'string' && value ? value : undefined);

/** What kind of notification, in words: "Price alert", "Market closed", "Test". */
function kindWords(p: Record<string, unknown>): string {
  if (p.type === 'price_notification') return 'Price alert';
  if (p.type === 'event_status_notification') {
    // Our Resolution and Closing Soon notices say what they are as their chat alerts do.
    if (p.triggerType === 'Resolution' || p.triggerType === 'Closing Soon') return headlineOf(p).headline;
    const scope = text(p.eventStatusScope) ?? 'Event';
    return `${scope} ${p.triggerType === 'Open' ? 'opened' : 'closed'}`;
  }
  return text(p.title) ?? text(p.type)?.replace(/_/g, ' ') ?? 'Notification';
}

/** `2026-11-20 14:03:00 UTC · Price alert · "Will X?" · 62 % (new)` */
function notificationLine(n: NotificationView): string {
  const p = n.payload;
  const about = text(p.marketQuestion) ?? text(p.eventTitle) ?? text(p.message);
  const price = typeof p.detectedValue === 'number' ? percentOfFraction(p.detectedValue) : undefined;
  const parts = [humanUtc(n.createdAt), kindWords(p), about ? `"${about}"` : undefined, price].filter((x) => x !== undefined);
  return `• ${parts.join(' · ')}${n.readAt ? '' : ' (new)'}`;
}

export const inboxCommand: Command = {
  name: 'inbox',
  personal: true,
  summary: 'Your notifications, newest first, a page at a time',
  async run({ ctx, chat, page }) {
    const { notifications } = await listNotifications({ ctx, input: { limit: String(INBOX_SHOWN) } });
    if (notifications.length === 0) return { text: 'Your inbox is empty.' };
    const { reply, shown } = listPage({
      chat,
      header: 'Your notifications, newest first:',
      entries: notifications,
      line: notificationLine,
      perPage: NOTIFICATIONS_PER_PAGE,
      page,
      command: 'inbox',
    });
    // Shown is read: the entries on this page lose "(new)" from the next look on, as the REST read mark does.
    for (const n of shown) if (n.readAt === null) await markNotificationRead({ ctx, input: { notificationId: n.id } });
    return reply;
  },
};
