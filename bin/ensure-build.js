#!/usr/bin/env node
// Brings dist/ up to date before `npm start` (and the process tests, and `npm run build`), each
// step only when its inputs changed, so a fresh clone's `npm install && npm start` works without a
// separate build step and a later start pays well under a second here:
//   1. `tsc -b`: src/ to dist/ (the CLI, and the modules the image step runs); it compares the
//      sources with dist/.tsbuildinfo.
//   2. esbuild: src/main.ts and its dependencies to one dist/main.js (role modules loaded on demand
//      become chunks in dist/chunks/). Loading hundreds of small ES modules was ~0.7 s of each start.
//   3. bin/build-console.js: web/ (the browser console) to dist/console.
//   4. dist/pglite-image: an initialised, migrated PGlite folder that a first start copies instead
//      of running initdb (src/db/pglite-image.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const at = (p) => new URL(`../${p}`, import.meta.url);
const bundle = at('dist/main.js');
const built = existsSync(bundle);
const require = createRequire(import.meta.url);
let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  // An install without dev dependencies runs what was built before it, if anything was.
  if (built) process.exit(0);
  process.stderr.write('dist/ is missing and TypeScript is not installed: run `npm install` (with dev dependencies), then `npm run build`.\n');
  process.exit(1);
}
if (!built) process.stderr.write('Building dist/ (the first start after a clone takes a little while)…\n');

const sources = readdirSync(at('src'), { recursive: true }).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
// tsc -b trusts its build info and would not notice a compiled file deleted by hand: then rebuild all.
// src/main.ts is the bundle's entry only (tsconfig.build.json leaves it out).
const missing = sources.some((f) => f !== 'main.ts' && !existsSync(at(`dist/${f.replace(/\.ts$/, '.js')}`)));
const compiled = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json', ...(missing && existsSync(at('dist')) ? ['--force'] : [])], {
  cwd: root,
  stdio: 'inherit',
});
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

// The bundle is stale when a source or the installed packages are newer than it.
const newest = Math.max(...['package-lock.json', 'bin/ensure-build.js', ...sources.map((f) => `src/${f}`)].map((f) => statSync(at(f)).mtimeMs));
if (!built || statSync(bundle).mtimeMs < newest) {
  rmSync(at('dist/chunks'), { recursive: true, force: true });
  const esbuild = require('esbuild');
  esbuild.buildSync({
    absWorkingDir: root,
    entryPoints: ['src/main.ts'],
    outdir: 'dist',
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    // PGlite finds its .wasm and .data files next to its own modules; the chat libraries load only
    // with a bot token and carry optional native add-ons. Left as packages, loaded from node_modules.
    external: ['@electric-sql/pglite', '@electric-sql/pglite/*', 'discord.js', 'grammy', '@grammyjs/*', 'bufferutil', 'utf-8-validate', 'zlib-sync'],
    // CommonJS dependencies inside an ES module bundle still call require() for Node's own modules.
    banner: { js: "import { createRequire as __oddswatchRequire } from 'node:module'; const require = __oddswatchRequire(import.meta.url);" },
  });
}

const consoleBuild = await import('./build-console.js');
if (consoleBuild.consoleIsStale()) consoleBuild.buildConsole();

const image = spawnSync(process.execPath, ['dist/db/build-image.js'], { cwd: root, stdio: 'inherit' });
process.exit(image.status ?? 1);
