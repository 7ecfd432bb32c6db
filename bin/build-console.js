#!/usr/bin/env node
// Builds the web console (web/) into dist/console: one minified ES module (Preact views, uPlot
// chart), its CSS and index.html. bin/ensure-build.js runs it before `npm start` when web/ changed;
// the tests run it once per run (test/support/global-setup.ts). Run alone: `node bin/build-console.js`
// (`--if-stale`: only when web/ changed since the last build).
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const at = (p) => new URL(`../${p}`, import.meta.url);

/** The newest modification time of the console's inputs (web/ and the installed packages). */
export function consoleSourcesMtime() {
  const files = readdirSync(at('web'), { recursive: true }).filter((f) => !f.endsWith('/')).map((f) => `web/${f}`);
  return Math.max(...['package-lock.json', 'bin/build-console.js', ...files].map((f) => statSync(at(f)).mtimeMs));
}

/** Whether dist/console is missing or older than its inputs. */
export function consoleIsStale(outdir = 'dist/console') {
  const bundle = at(`${outdir}/app.js`);
  return !existsSync(bundle) || statSync(bundle).mtimeMs < consoleSourcesMtime();
}

/** Builds the console into `outdir` (relative to the package root). */
export function buildConsole(outdir = 'dist/console') {
  const esbuild = createRequire(import.meta.url)('esbuild');
  mkdirSync(at(outdir), { recursive: true });
  esbuild.buildSync({
    absWorkingDir: root,
    entryPoints: { app: 'web/main.tsx' },
    outdir,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome110', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
  });
  copyFileSync(at('web/index.html'), at(`${outdir}/index.html`));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && (!process.argv.includes('--if-stale') || consoleIsStale())) buildConsole();
