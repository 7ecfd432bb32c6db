#!/usr/bin/env node
// Brings dist/ up to date before `npm start` (and the process tests): `tsc -b` compares the sources
// with dist/.tsbuildinfo and compiles only when something changed (under a second when nothing did),
// so a fresh clone's `npm install && npm start` works without a separate build step.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = existsSync(new URL('../dist/main.js', import.meta.url));
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // An install without dev dependencies runs what was built before it, if anything was.
  if (built) process.exit(0);
  process.stderr.write('dist/ is missing and TypeScript is not installed: run `npm install` (with dev dependencies), then `npm run build`.\n');
  process.exit(1);
}
if (!built) process.stderr.write('Building dist/ (the first start after a clone takes a little while)…\n');
// tsc -b trusts its build info and would not notice a compiled file deleted by hand: then rebuild all.
const missing = readdirSync(new URL('../src', import.meta.url), { recursive: true })
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .some((f) => !existsSync(new URL(`../dist/${f.replace(/\.ts$/, '.js')}`, import.meta.url)));
const args = ['-b', 'tsconfig.build.json', ...(built && missing ? ['--force'] : [])];
const result = spawnSync(process.execPath, [tsc, ...args], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
