import { listSubscriptionHistory } from '../../services/inbox/index.js';
import {
  deleteSubscription,
  listSubscriptions,
  pauseSubscription,
  restartSubscription,
} from '../../services/subscriptions/index.js';
import { describeHistory, HISTORY_SHOWN } from './alert-history.js';
import { alertIdParam, textOf } from './params.js';
import { alertButtons, describeSubscription } from './shared.js';
import type { Command } from './types.js';

export const alertsCommand: Command = {
  name: 'alerts',
  personal: true,
  params: [alertIdParam("An alert: its last 5 firings and how each was delivered", true)],
  summary: "Your alerts with their ids and status, or one alert's last 5 firings and deliveries",
  async run({ ctx, values }) {
    const subscriptionId = textOf(values, 'id');
    if (subscriptionId !== undefined) {
      const page = await listSubscriptionHistory({ ctx, input: { subscriptionId, limit: HISTORY_SHOWN } });
      return { text: describeHistory(subscriptionId, page) };
    }
    const all = await listSubscriptions({ ctx, input: {} });
    if (all.length === 0) return { text: 'You have no alerts. Create one with /alert.' };
    return { text: `Your alerts:\n${all.map(describeSubscription).join('\n')}` };
  },
};

const ID = [alertIdParam('The alert (type to pick one)')];

export const pauseCommand: Command = {
  name: 'pause',
  params: ID,
  summary: 'Pause an alert',
  async run({ ctx, values }) {
    const view = await pauseSubscription({ ctx, input: { subscriptionId: textOf(values, 'id')! } });
    return { text: `Paused:\n${describeSubscription(view)}`, buttons: alertButtons(view.subscriptionId, 'Resume') };
  },
};

export const resumeCommand: Command = {
  name: 'resume',
  params: ID,
  summary: 'Restart a paused alert',
  async run({ ctx, values }) {
    const view = await restartSubscription({ ctx, input: { subscriptionId: textOf(values, 'id')! } });
    return { text: `Resumed:\n${describeSubscription(view)}`, buttons: alertButtons(view.subscriptionId, 'Pause') };
  },
};

export const deleteCommand: Command = {
  name: 'delete',
  params: ID,
  summary: 'Delete an alert',
  async run({ ctx, values }) {
    const id = textOf(values, 'id')!;
    await deleteSubscription({ ctx, input: { subscriptionId: id } });
    return { text: `Deleted alert ${id}.` };
  },
};
