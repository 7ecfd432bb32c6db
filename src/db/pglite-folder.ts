import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { copyPgliteImage, currentPgliteImage } from './pglite-image.js';
import { createPrivateDataDir, folderIsPrivate, makeTreePrivate } from './private-files.js';
import { PrivateNodeFS } from './private-pglite-fs.js';
import type { CompiledWasm } from './pglite-wasm.js';

// Opening a PGlite folder needs neither drizzle nor the schema: main.ts starts it before the rest
// of the service's code loads, so the two overlap (docs/PERFORMANCE.md, Start time).

/** Extensions the migrations create; PGlite must have them loaded before `create extension`. */
export const PGLITE_EXTENSIONS = { pg_trgm };

/**
 * PGlite's initdb sizes the embedded server like a shared database server (shared_buffers 128 MB,
 * max_connections 100), all of it inside the process: a reopened folder idled at ~300 MB before the
 * service did anything. One session and a small database need far less. Given to initdb (written
 * to the folder's postgresql.conf, and used by initdb's own runs) and on every start (folders made
 * before this change keep the old postgresql.conf). Reads beyond 16 MB come from the OS page cache.
 */
export const PGLITE_SETTINGS = ['shared_buffers=16MB', 'max_connections=10'];
const PGLITE_MEMORY_OPTIONS = {
  initDbStartParams: PGLITE_SETTINGS.flatMap((s) => ['--set', s]),
  startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((s) => ['-c', s])],
};

/**
 * Opens (or makes) the PGlite folder `dataDir`, private to the service's user. `fromImage` false:
 * a new folder runs initdb instead of starting from the build's image (making the image).
 * `wasmModule`: PGlite's WebAssembly already compiling (`compilePgliteWasm`); without it, or if
 * it came to nothing, PGlite compiles its own.
 */
export async function openPgliteFolder(dataDir: string, fromImage = true, wasmModule?: Promise<CompiledWasm | undefined>): Promise<PGlite> {
  await createPrivateDataDir(dataDir);
  const fresh = !existsSync(path.join(dataDir, 'PG_VERSION'));
  if (fresh && fromImage) {
    // A new folder: a copy of the build's initialised, migrated folder instead of initdb (see pglite-image.ts).
    const image = await currentPgliteImage(PGLITE_SETTINGS);
    if (image) await copyPgliteImage(image, dataDir);
  }
  // Decided before the open, which leaves the folder's own mode as it was.
  const walk = fresh || !(await folderIsPrivate(dataDir));
  const fs = new PrivateNodeFS(dataDir);
  const pgliteWasmModule = await wasmModule;
  const pg = await PGlite.create(dataDir, { ...PGLITE_MEMORY_OPTIONS, extensions: PGLITE_EXTENSIONS, fs, ...(pgliteWasmModule ? { pgliteWasmModule } : {}) });
  if (walk || !fs.hooked) await makeTreePrivate(dataDir);
  return pg;
}
