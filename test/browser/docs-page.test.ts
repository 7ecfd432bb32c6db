import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { CHROMIUM } from './chromium.js';

let env: TestEnv;
let server: Server;
let port: number;
let browser: Browser;
// A name that is not loopback, as a server on the network is reached: Chromium treats 127.0.0.1 as
// secure and would not show what an http:// page on another host meets (upgraded requests).
const LAN_HOST = 'oddswatch.lan';

beforeAll(async () => {
  env = await createTestEnv();
  server = env.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', `--host-resolver-rules=MAP ${LAN_HOST} 127.0.0.1`] });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await env?.close();
});

describe(`the /docs page in Chromium, offline (${engineName})`, () => {
  it.each(['127.0.0.1', LAN_HOST])('renders the API reference from this server alone at http://%s: title, operations, no page error, no request elsewhere', async (host) => {
    const base = `http://${host}:${port}`;
    const context = await browser.newContext();
    // Offline: every request that is not to this server fails, as it would without internet.
    const elsewhere: string[] = [];
    await context.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.origin === base) return route.continue();
      elsewhere.push(url.href);
      return route.abort('internetdisconnected');
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
    // A Content-Security-Policy refusal is reported on the console.
    page.on('console', (msg) => {
      // Chromium's note that plain http on a non-local host cannot use helmet's opener policy: kept
      // for https, where it applies.
      if (msg.type() === 'error' && !msg.text().startsWith('The Cross-Origin-Opener-Policy header has been ignored')) {
        errors.push(`console: ${msg.text()}`);
      }
    });

    const res = await page.goto(`${base}/docs`);
    expect(res?.status()).toBe(200);
    const csp = res?.headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('upgrade-insecure-requests');
    await page.getByRole('heading', { name: 'Oddswatch API' }).first().waitFor({ timeout: 20_000 });
    for (const operation of ['The in-app inbox, newest first', 'Mark an inbox entry read (its In App channel status becomes READ)']) {
      await page.getByText(operation).filter({ visible: true }).first().waitFor({ timeout: 5_000 });
    }
    // Another group, opened from the sidebar as a reader would.
    await page.getByRole('button', { name: 'Search Open Group', exact: true }).click({ timeout: 5_000 });
    await page.getByText('Search open events by keyphrases').filter({ visible: true }).first().waitFor({ timeout: 10_000 });
    expect(errors).toEqual([]);
    expect(elsewhere).toEqual([]);
    await context.close();
  });

  it('serves the renderer with a day of caching, and the page without any inline script', async () => {
    const bundle = await env.http.get('/docs/scalar.js').expect(200);
    expect(bundle.headers['content-type']).toMatch(/^text\/javascript/);
    expect(bundle.headers['cache-control']).toBe('public, max-age=86400');
    const page = await env.http.get('/docs').expect(200);
    expect(page.text).not.toMatch(/<script>|<script type/);
    expect(page.text).not.toContain('https://');
    const init = await env.http.get('/docs/init.js').expect(200);
    expect(init.text).toContain('"url":"/openapi.json"');
  });
});
