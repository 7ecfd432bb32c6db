import { encodeButton } from '../../domain/button-actions.js';
import { listSubscriptionHistory } from '../../services/inbox/index.js';
import { deleteSubscription, getAlertSettings, getSubscription, listAlertSettings, setAlertActive, type SubscriptionView } from '../../services/subscriptions/index.js';
import { describeHistory, HISTORY_SHOWN } from './alert-history.js';
import { alertLine, numberedAlertButtons } from './alert-lines.js';
import { askFirst } from './ask-first.js';
import { listReply } from './list-reply.js';
import { noiseSuffix, settingsButtons, settingsLines } from './noise.js';
import { alertIdParam, textOf } from './params.js';
import type { BotButton, BotReply, Command } from './types.js';

/** Alerts on one page: two buttons each (toggle, delete), so 8 keep a page within Discord's 5 rows. */
const ALERTS_PER_PAGE = 8;

export const alertsCommand: Command = {
  name: 'alerts',
  personal: true,
  params: [alertIdParam("An alert: its last 5 firings and how each was delivered", true)],
  summary: "Your alerts with pause, resume and delete buttons; with id: one alert's last firings",
  async run({ ctx, chat, values, page }) {
    const subscriptionId = textOf(values, 'id');
    if (subscriptionId !== undefined) {
      const history = await listSubscriptionHistory({ ctx, input: { subscriptionId, limit: HISTORY_SHOWN } });
      const settings = await getAlertSettings({ ctx, input: { subscriptionId } });
      const lines = settingsLines(settings, settings.timezone, ctx.config.DIGEST_HOUR);
      return { text: [describeHistory(subscriptionId, history), '', ...lines].join('\n'), buttons: settingsButtons(settings) };
    }
    const { alerts: all, timezone } = await listAlertSettings({ ctx });
    if (all.length === 0) return { text: 'You have no alerts. Create one with /alert.' };
    return listReply({
      chat,
      header: `Your alerts (${all.length}):`,
      entries: all,
      line: (a) => `${alertLine(a.subscription)}${noiseSuffix(a.preferences, timezone)}`,
      buttons: (a, n) => numberedAlertButtons(a.subscription, n),
      perPage: ALERTS_PER_PAGE,
      page,
      command: 'alerts',
    });
  },
};

/** The buttons under one alert's card: its toggle as it now stands, and Delete. */
function cardButtons(view: SubscriptionView): BotButton[][] {
  const toggle = view.status.enabled ? { label: '⏸ Pause', action: encodeButton('pause', view.subscriptionId) } : { label: '▶ Resume', action: encodeButton('resume', view.subscriptionId) };
  const row = [toggle, { label: '🗑 Delete', action: encodeButton('delete', view.subscriptionId) }];
  return row.every((b): b is BotButton => b.action !== undefined) ? [row] : [];
}

/** Pause or Resume: the card says what happened; an alert already as asked changes nothing and gets no message. */
async function toggle(input: Parameters<Command['run']>[0], active: boolean): Promise<BotReply> {
  const { view, changed } = await setAlertActive({ ctx: input.ctx, input: { subscriptionId: textOf(input.values, 'id')! }, active });
  if (!changed) return { text: `This alert is already ${active ? 'active' : 'paused'}.`, tapperOnly: true };
  return { text: `${active ? 'Resumed ✓' : 'Paused ✓'}\n${alertLine(view)}`, buttons: cardButtons(view) };
}

const ID = [alertIdParam('The alert (type to pick one)')];

export const pauseCommand: Command = {
  name: 'pause',
  params: ID,
  summary: 'Pause an alert',
  run: (input) => toggle(input, false),
};

export const resumeCommand: Command = {
  name: 'resume',
  params: ID,
  summary: 'Restart a paused alert',
  run: (input) => toggle(input, true),
};

export const deleteCommand: Command = {
  name: 'delete',
  params: ID,
  summary: 'Delete an alert (asks first)',
  async run({ ctx, values, confirmed }) {
    const subscriptionId = textOf(values, 'id')!;
    const view = await getSubscription({ ctx, input: { subscriptionId } });
    if (!confirmed) return askFirst(`Delete this alert and its history?\n${alertLine(view)}`, encodeButton('confirm', 'delete', subscriptionId));
    await deleteSubscription({ ctx, input: { subscriptionId } });
    return { text: `Deleted ✓\n${alertLine(view)}` };
  },
};
