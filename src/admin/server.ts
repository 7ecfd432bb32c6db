import { randomBytes, timingSafeEqual } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import type { SystemDeps } from '../services/context.js';
import { createAccountAsOperator, createTokenAsOperator } from '../services/accounts/index.js';
import { errorHandler, notFoundHandler } from '../http/errors.js';
import { pinoHttp } from 'pino-http';

export const ADMIN_FILE = 'admin.json';

export interface AdminEndpoint {
  close(): Promise<void>;
}

export interface AdminActions {
  syncOnce?: () => Promise<unknown>;
}

/**
 * PGlite admits one process per data folder, so the CLI asks the running service instead: a
 * loopback-only endpoint, authenticated by a secret written (mode 0600) into DATA_DIR.
 */
export async function startAdminEndpoint(deps: SystemDeps, dataDir: string, actions: AdminActions = {}): Promise<AdminEndpoint> {
  const secret = randomBytes(32).toString('hex');
  const app = express();
  app.use(pinoHttp({ logger: deps.logger, autoLogging: false }));
  app.use(express.json({ limit: 10_000 }));
  app.use((req, res, next) => {
    const given = Buffer.from(req.header('x-admin-secret') ?? '');
    const expected = Buffer.from(secret);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return void res.status(401).json({ error: 'bad admin secret' });
    }
    next();
  });
  app.post('/accounts', async (req, res) => void res.status(201).json(await createAccountAsOperator(deps, req.body)));
  app.post('/tokens', async (req, res) => {
    res.status(201).json(await createTokenAsOperator(deps, { userId: req.body?.userId, name: req.body?.name }));
  });
  app.post('/migrate', (_req, res) => void res.json({ message: 'migrations were applied by the running service at start' }));
  app.post('/sync-once', async (_req, res) => {
    if (!actions.syncOnce) return void res.status(409).json({ error: 'this process does not run the sync role' });
    res.json(await actions.syncOnce());
  });
  app.use(notFoundHandler);
  app.use(errorHandler);

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const file = path.join(dataDir, ADMIN_FILE);
  await writeFile(file, JSON.stringify({ port, secret, pid: process.pid }), { mode: 0o600 });
  return {
    async close() {
      await rm(file, { force: true });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
