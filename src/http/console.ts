import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type Express } from 'express';
import { CONSOLE_PATH } from '../domain/links.js';
import { packageRoot } from '../paths.js';

/** Where bin/build-console.js puts the built console. */
export const defaultConsoleDir = () => path.join(packageRoot(), 'dist', 'console');

/**
 * The web console at /app: its built files, and index.html for every page under it (the console
 * routes in the browser). A client of the REST API like any other; no route of its own.
 */
export function mountConsole(app: Express, dir: string): void {
  const index = path.join(dir, 'index.html');
  // A router of its own: the console's files are not API routes (the route table and OpenAPI).
  const router = express.Router();
  router.use(express.static(dir, { index: false, redirect: false }));
  router.get('/{*page}', (_req, res) => {
    // Without a build (running src/ directly) the API works and the console says how to get it.
    if (!existsSync(index)) return void res.status(503).json({ error: 'The web console is not built: run `npm run build` (or `npm start`, which builds it)' });
    res.sendFile(index, { headers: { 'Cache-Control': 'no-cache' } });
  });
  app.use(CONSOLE_PATH, router);
}
