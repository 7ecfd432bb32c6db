import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConsoleDir } from '../../src/http/console.js';
import { createTestEnv, type TestEnv } from '../support/context.js';

// The console's budget (issue #21): its JavaScript at most 150 KB gzipped.
const JS_BUDGET_GZIP_BYTES = 150 * 1024;

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

describe('the web console as the api role serves it (built by the test run: bin/build-console.js)', () => {
  it(`keeps its JavaScript within ${JS_BUDGET_GZIP_BYTES / 1024} KB gzipped`, () => {
    const js = readFileSync(path.join(defaultConsoleDir(), 'app.js'));
    const gzipped = gzipSync(js, { level: 9 }).length;
    expect(gzipped).toBeLessThanOrEqual(JS_BUDGET_GZIP_BYTES);
  });

  it('answers its page at /app and at every page under it, with a CSP that admits only its own scripts', async () => {
    for (const page of ['/app', '/app/', '/app/rules/new', '/app/login']) {
      const res = await env.http.get(page).expect(200);
      expect(res.type).toBe('text/html');
      expect(res.text).toContain('<script type="module" src="/app/app.js">');
      expect(res.headers['content-security-policy']).toMatch(/script-src 'self';/);
    }
  });

  it('serves its built script and styles from the package, nothing from elsewhere', async () => {
    const js = await env.http.get('/app/app.js').expect(200);
    expect(js.type).toBe('text/javascript');
    await env.http.get('/app/app.css').expect(200).expect('content-type', /text\/css/);
    expect(js.text).not.toMatch(/https?:\/\/(cdn|unpkg|esm\.sh)/);
  });

  it('leaves the API as it was: unknown API paths still answer JSON 404', async () => {
    const res = await env.http.get('/nope').expect(404);
    expect(res.body.error).toMatch(/No route/);
  });
});
