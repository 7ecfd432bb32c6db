import { expect } from 'vitest';
import type { TestAccount, TestEnv } from './context.js';

export interface SubOptions {
  scope?: 'Market' | 'Event' | 'Watchlist';
  type?: string;
  threshold?: number;
  triggerType?: 'One Time' | 'Recurring';
  triggerInterval?: string;
  eventId?: string;
  marketId?: string;
  channels?: unknown[];
}

/** Creates a subscription through the REST API (201 expected) and answers its id. */
export async function subscribe(env: TestEnv, a: Pick<TestAccount, 'auth'>, watchlistId: string, o: SubOptions): Promise<string> {
  const scope = o.scope ?? 'Market';
  const type = o.type ?? 'Crossing Up';
  const body: Record<string, unknown> = {
    watchlistId,
    subscriptionScope: scope,
    subscriptionTypeConfig:
      type === 'New or closed events and markets'
        ? { type, config: { params: {} } }
        : { type, config: { params: { threshold_percent: o.threshold ?? 60 } } },
    triggerType: o.triggerType ?? 'Recurring',
    channels: o.channels ?? [{ type: 'In App' }],
  };
  if (o.triggerInterval) body.triggerInterval = o.triggerInterval;
  if (o.eventId) body.eventId = o.eventId;
  if (o.marketId) body.marketId = o.marketId;
  const res = await env.http.post('/subscriptions').set(a.auth).send(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.subscription.subscriptionId as string;
}

