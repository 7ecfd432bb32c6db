import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { BOT_STATES, type BotStatus } from '../bots/supervisor.js';
import type { FeedLag } from '../runner/role.js';

export interface HttpMetrics {
  registry: Registry;
  middleware: RequestHandler;
}

export interface MetricSources {
  /** The chat bots' connection states, read at each scrape. */
  bots?: () => BotStatus[];
  /** The engine's market connections' lag, read at each scrape (engine role in this process). */
  feed?: () => FeedLag[];
}

/** One registry per app, so several apps in one process (tests) do not collide. */
export function createHttpMetrics(sources: MetricSources = {}): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'oddswatch_' });
  if (sources.bots) botMetrics(registry, sources.bots);
  if (sources.feed) feedMetrics(registry, sources.feed);
  const requests = new Counter({
    name: 'oddswatch_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'oddswatch_http_request_duration_seconds',
    help: 'HTTP request duration by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const middleware: RequestHandler = (req, res, next) => {
    const end = duration.startTimer();
    res.on('finish', () => {
      // The matched route pattern, not the raw path, so ids do not explode the label set.
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      requests.inc({ method: req.method, route, status: String(res.statusCode) });
      end({ method: req.method, route });
    });
    next();
  };
  return { registry, middleware };
}

/** One series per platform and state, 1 for the current one: alert on `state="backoff"` or `"disabled"`. */
function botMetrics(registry: Registry, bots: () => BotStatus[]) {
  new Gauge({
    name: 'oddswatch_bot_state',
    help: 'Chat bot connection state per platform: 1 for the current state, 0 for the others',
    labelNames: ['platform', 'mode', 'state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const bot of bots()) for (const state of BOT_STATES) this.set({ platform: bot.platform, mode: bot.mode, state }, bot.state === state ? 1 : 0);
    },
  });
  new Gauge({
    name: 'oddswatch_bot_connect_failures',
    help: 'Failed connection attempts per chat platform since its last successful connect',
    labelNames: ['platform'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const bot of bots()) this.set({ platform: bot.platform }, bot.failures);
    },
  });
}

/** Alert on `oddswatch_feed_lag_seconds > FEED_STALE_AFTER_MS / 1000`: that connection's prices are not arriving. */
function feedMetrics(registry: Registry, feed: () => FeedLag[]) {
  new Gauge({
    name: 'oddswatch_feed_lag_seconds',
    help: 'Seconds since the last frame on each venue market WebSocket connection of the engine',
    labelNames: ['connection'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const c of feed()) this.set({ connection: String(c.connection) }, c.lagSeconds);
    },
  });
}
