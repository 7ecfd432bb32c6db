import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ZodError } from 'zod';
import type { Logger } from '../logger.js';
import { addEvent, buildCatalog, SimError } from './catalog.js';
import { clobRoutes } from './clob-routes.js';
import { controlRoutes } from './control-routes.js';
import { gammaRoutes, type GammaFault } from './gamma-routes.js';
import { createRng } from './prng.js';
import { startRandomWalk } from './random-walk.js';
import type { SimulatorScenario } from './schemas.js';
import { SimState } from './state.js';
import { WsHub } from './ws-hub.js';

const SIMULATOR_KEEP_ALIVE_MS = 65_000;

export interface SimulatorOptions {
  port: number;
  host?: string;
  seed: number;
  randomWalk: boolean;
  tickIntervalMs: number;
  scenario?: SimulatorScenario;
  logger: Logger;
  /** Answer the keyset endpoints with 404, like older deployments. */
  legacyOffsetOnly?: boolean;
  /** Send some `price_change` messages in the pre-Sept-2025 `changes` form. */
  legacyPriceChange?: boolean;
  /** Events in the generated catalog (default 300). */
  eventCount?: number;
  /** A new WebSocket that never subscribes is closed after this long (default 10 s). */
  idleCloseMs?: number;
  /** The catalog's "now" (default: the start of the current UTC day, so a seed gives one catalog a day). */
  nowMs?: number;
}

export interface SimulatorUrls {
  gammaUrl: string;
  clobUrl: string;
  clobWsUrl: string;
  controlUrl: string;
}

export interface Simulator {
  start(): Promise<SimulatorUrls>;
  stop(): Promise<void>;
  readonly state: SimState;
}

export { SimState } from './state.js';
export { loadScenario, SimulatorScenario } from './schemas.js';

export function createSimulator(options: SimulatorOptions): Simulator {
  const host = options.host ?? '127.0.0.1';
  const { logger } = options;
  const nowMs = options.nowMs ?? Math.floor(Date.now() / 86_400_000) * 86_400_000;
  const state = new SimState(createRng(options.seed));
  buildCatalog(state, options.eventCount ?? 300, nowMs);
  for (const e of options.scenario?.events ?? []) addEvent(state, e, nowMs);

  const hub = new WsHub(state, { path: '/ws/market', idleCloseMs: options.idleCloseMs ?? 10_000, logger });
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '1mb' }));
  const gammaFault: GammaFault = { untilMs: 0, status: 500 };
  app.use('/control', controlRoutes(state, hub, gammaFault));
  app.use(gammaRoutes(state, { legacyOffsetOnly: options.legacyOffsetOnly ?? false, fault: gammaFault }));
  app.use(clobRoutes(state));
  app.use((_req: Request, res: Response) => res.status(404).json({ error: 'not found' }));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof ZodError) return res.status(400).json({ error: err.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') });
    if (err instanceof SimError) return res.status(err.status).json({ error: err.message });
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) return res.status(status).json({ error: (err as Error).message });
    logger.error({ err }, 'simulator request failed');
    return res.status(500).json({ error: 'internal error' });
  });

  let server: Server | null = null;
  let stopWalk = () => {};

  return {
    state,
    async start() {
      const srv = createServer(app);
      // Tests and tools reuse keep-alive sockets: with Node's 5 s default a client whose event loop
      // is held (PGlite queries run in the test's own thread) can send on a socket the simulator
      // has just closed and get ECONNRESET. A minute's idle keeps that race out of every test run.
      srv.keepAliveTimeout = SIMULATOR_KEEP_ALIVE_MS;
      srv.headersTimeout = SIMULATOR_KEEP_ALIVE_MS + 5_000;
      server = srv;
      hub.attach(srv);
      await new Promise<void>((resolve, reject) => {
        srv.once('error', reject);
        srv.listen(options.port, host, () => resolve());
      });
      const { port } = srv.address() as AddressInfo;
      if (options.randomWalk) {
        stopWalk = startRandomWalk({
          state,
          hub,
          rng: createRng(options.seed + 1),
          tickIntervalMs: options.tickIntervalMs,
          legacyPriceChange: options.legacyPriceChange ?? false,
        });
      }
      const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
      const urls = { gammaUrl: base, clobUrl: base, clobWsUrl: `${base.replace(/^http/, 'ws')}/ws/market`, controlUrl: `${base}/control` };
      logger.info({ ...urls, events: state.events.size, markets: state.markets.size }, 'venue simulator listening');
      return urls;
    },
    async stop() {
      stopWalk();
      hub.close();
      const srv = server;
      server = null;
      if (!srv) return;
      srv.closeAllConnections();
      await new Promise<void>((resolve) => srv.close(() => resolve()));
    },
  };
}
