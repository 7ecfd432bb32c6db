import type { Express } from 'express';
import type { Registry } from 'prom-client';
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';

/**
 * What readiness needs beyond the database answering (for example, migrations applied). `details`
 * shows the state of dependencies that degrade one feature without making the service unready
 * (the chat bots).
 */
export type Readiness = () => Promise<{ ready: boolean; reason?: string; details?: Record<string, unknown> }>;

export function healthRoutes(app: Express, deps: { database: Database; readiness: Readiness; registry: Registry }) {
  app.get('/healthz', (_req, res) => void res.json({ status: 'ok' }));
  app.get('/readyz', async (req, res) => {
    try {
      await deps.database.rows(sql`select 1`);
      const state = await deps.readiness();
      const details = state.details ? { details: state.details } : {};
      if (!state.ready) return void res.status(503).json({ status: 'not ready', error: state.reason ?? 'not ready', ...details });
      res.json({ status: 'ready', ...details });
    } catch (err) {
      req.log.warn({ err }, 'readiness check failed');
      res.status(503).json({ status: 'not ready', error: 'database unreachable' });
    }
  });
  app.get('/metrics', async (_req, res) => {
    res.type(deps.registry.contentType).send(await deps.registry.metrics());
  });
}
