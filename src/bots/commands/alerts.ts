import { listSubscriptionHistory } from '../../services/inbox/index.js';
import {
  deleteSubscription,
  listSubscriptions,
  pauseSubscription,
  restartSubscription,
} from '../../services/subscriptions/index.js';
import { describeHistory, HISTORY_SHOWN } from './alert-history.js';
import { describeSubscription } from './shared.js';
import { UsageError, type Command } from './types.js';

export const alertsCommand: Command = {
  name: 'alerts',
  usage: 'alerts [alert id]',
  summary: "Your alerts with their ids and status, or one alert's last 5 firings and deliveries",
  async run({ ctx, args }) {
    if (args.length > 1) throw new UsageError();
    if (args.length === 1) {
      const subscriptionId = args[0]!;
      const page = await listSubscriptionHistory({ ctx, input: { subscriptionId, limit: HISTORY_SHOWN } });
      return { text: describeHistory(subscriptionId, page) };
    }
    const all = await listSubscriptions({ ctx, input: {} });
    if (all.length === 0) return { text: 'You have no alerts. Create one with /alert.' };
    return { text: `Your alerts:\n${all.map(describeSubscription).join('\n')}` };
  },
};

function oneId(args: string[]): string {
  if (args.length !== 1) throw new UsageError();
  return args[0]!;
}

export const pauseCommand: Command = {
  name: 'pause',
  usage: 'pause <alert id>',
  summary: 'Pause an alert',
  async run({ ctx, args }) {
    const view = await pauseSubscription({ ctx, input: { subscriptionId: oneId(args) } });
    return {
      text: `Paused:\n${describeSubscription(view)}`,
      buttons: [[{ label: 'Resume', action: `resume:${view.subscriptionId}` }]],
    };
  },
};

export const resumeCommand: Command = {
  name: 'resume',
  usage: 'resume <alert id>',
  summary: 'Restart a paused alert',
  async run({ ctx, args }) {
    const view = await restartSubscription({ ctx, input: { subscriptionId: oneId(args) } });
    return {
      text: `Resumed:\n${describeSubscription(view)}`,
      buttons: [[{ label: 'Pause', action: `pause:${view.subscriptionId}` }]],
    };
  },
};

export const deleteCommand: Command = {
  name: 'delete',
  usage: 'delete <alert id>',
  summary: 'Delete an alert',
  async run({ ctx, args }) {
    const id = oneId(args);
    await deleteSubscription({ ctx, input: { subscriptionId: id } });
    return { text: `Deleted alert ${id}.` };
  },
};
