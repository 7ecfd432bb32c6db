import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type RequestHandler, type Router } from 'express';
import helmet from 'helmet';
import type { Logger } from '../logger.js';
import { packageRoot } from '../paths.js';

/**
 * The /docs page: Scalar's API reference rendered from its standalone browser bundle, served from
 * node_modules (`@scalar/api-reference`), so the page works without internet. The renderer reads
 * /openapi.json; nothing is fetched from anywhere else.
 */
export interface DocsPage {
  /** GET /docs. */
  page: RequestHandler;
  /** The page's scripts, under /docs/. */
  assets: Router;
  /** The page's Content-Security-Policy and the other helmet headers. */
  headers: RequestHandler;
}

const ONE_DAY_S = 86_400;

/**
 * Scalar's options that keep it on this server: no web fonts (fonts.scalar.com), no telemetry, no
 * AI agent, no "open in Scalar's client" button (client.scalar.com), no developer toolbar.
 */
const CONFIGURATION = {
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  hideClientButton: true,
  showDeveloperTools: 'never',
  _integration: 'express',
};

const HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Oddswatch API</title>
  </head>
  <body>
    <div id="app"></div>
    <noscript>The API reference needs JavaScript; the OpenAPI document is at <a href="/openapi.json">/openapi.json</a>.</noscript>
    <script src="/docs/scalar.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

// Shown when the renderer is not installed: the API and its document work without it.
const MISSING = `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>Oddswatch API</title></head>
  <body>
    <h1>Oddswatch API</h1>
    <p>The API reference renderer (<code>@scalar/api-reference</code>) is not installed: run <code>npm install</code>.
    The OpenAPI document is at <a href="/openapi.json">/openapi.json</a>.</p>
  </body>
</html>
`;

/** Where the installed bundle is, or undefined when the package is missing. */
function findBundle(): string | undefined {
  try {
    const require = createRequire(path.join(packageRoot(), 'package.json'));
    return require.resolve('@scalar/api-reference/browser/standalone.js');
  } catch {
    return undefined;
  }
}

/** `findRenderer`: where the renderer's file is, undefined when it is not installed (tests replace it). */
export function createDocsPage(logger: Logger, findRenderer: () => string | undefined = findBundle): DocsPage {
  const bundle = findRenderer();
  if (!bundle) logger.warn({ package: '@scalar/api-reference' }, '/docs shows a plain page: the API reference renderer is not installed');
  const init = `Scalar.createApiReference('#app', ${JSON.stringify(CONFIGURATION)});\n`;

  const assets = express.Router();
  assets.get('/scalar.js', (_req, res, next) => {
    if (!bundle) return next();
    res.sendFile(bundle, { maxAge: ONE_DAY_S * 1000, headers: { 'Content-Type': 'text/javascript; charset=utf-8' } });
  });
  assets.get('/init.js', (_req, res, next) => {
    if (!bundle) return next();
    res.type('text/javascript').set('Cache-Control', `public, max-age=${ONE_DAY_S}`).send(init);
  });

  return {
    page: (_req, res) => void res.type('html').send(bundle ? HTML : MISSING),
    assets,
    // Scripts from this server only (no inline script); the renderer injects its styles as <style>
    // elements, and "Try it" requests go to this same origin. No upgrade-insecure-requests (in
    // helmet's defaults): a service reached over plain http on another host than localhost would
    // have its own scripts fetched over https, which it does not serve, and show a blank page.
    headers: helmet({
      contentSecurityPolicy: {
        useDefaults: true,
        directives: {
          'script-src': ["'self'"],
          'style-src': ["'self'", "'unsafe-inline'"],
          'img-src': ["'self'", 'data:', 'blob:'],
          'font-src': ["'self'", 'data:'],
          'connect-src': ["'self'"],
          'worker-src': ["'self'", 'blob:'],
          'upgrade-insecure-requests': null,
        },
      },
    }),
  };
}
