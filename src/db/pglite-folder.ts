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
 * The WAL sizes are PostgreSQL's defaults, what folders with 16 MB WAL segments always had: initdb
 * would scale them down with the 1 MB segments below (to 5 MB and 64 MB), and the image's build
 * writes its own into the folder's postgresql.conf (build-image.ts); given on every start, they
 * hold whatever the file says. Single-user PostgreSQL never checkpoints by WAL size: the service
 * runs its checkpoints itself (pglite-checkpoints.ts).
 */
export const PGLITE_SETTINGS = ['shared_buffers=16MB', 'max_connections=10', 'min_wal_size=80MB', 'max_wal_size=1GB'];

/**
 * initdb only: WAL segments of 1 MB instead of 16 MB. A new folder holds one segment, so the image
 * a first start copies is 15 MB smaller (docs/PERFORMANCE.md, Start time). A folder keeps the size
 * it was made with (pg_control): folders made before keep their 16 MB segments.
 */
export const PGLITE_INITDB_ARGS = ['--wal-segsize=1'];

/** `settings`: more for this open only, after (so over) PGLITE_SETTINGS. */
const pgliteOptions = (settings: readonly string[]) => {
  const all = [...PGLITE_SETTINGS, ...settings];
  return {
    initDbStartParams: [...all.flatMap((s) => ['--set', s]), ...PGLITE_INITDB_ARGS],
    startParams: [...PGlite.defaultStartParams, ...all.flatMap((s) => ['-c', s])],
  };
};

/**
 * Opens (or makes) the PGlite folder `dataDir`, private to the service's user. `fromImage` false:
 * a new folder runs initdb instead of starting from the build's image (making the image).
 * `wasmModule`: PGlite's WebAssembly already compiling (`compilePgliteWasm`); without it, or if
 * it came to nothing, PGlite compiles its own. `settings`: more `name=value` for this open (and
 * initdb's, which writes them into the folder's postgresql.conf): the image's build.
 */
export async function openPgliteFolder(
  dataDir: string,
  fromImage = true,
  wasmModule?: Promise<CompiledWasm | undefined>,
  settings: readonly string[] = [],
): Promise<PGlite> {
  await createPrivateDataDir(dataDir);
  const fresh = !existsSync(path.join(dataDir, 'PG_VERSION'));
  let copied = false;
  if (fresh && fromImage) {
    // A new folder: a copy of the build's initialised, migrated folder instead of initdb (see pglite-image.ts).
    const image = await currentPgliteImage();
    if (image) await copyPgliteImage(image, dataDir);
    copied = image !== undefined;
  }
  // Decided before the open, which leaves the folder's own mode as it was. initdb writes its files
  // 0666: a folder it made is walked. A copy of the image is private as written (its files 0600),
  // and even if someone loosened the image's modes, a copy in a folder at 0700 is as safe as a later
  // start's folder, which is not walked either (`folderIsPrivate`); the stop walks both.
  const walk = (fresh && !copied) || !(await folderIsPrivate(dataDir));
  const fs = new PrivateNodeFS(dataDir);
  const pgliteWasmModule = await wasmModule;
  const pg = await PGlite.create(dataDir, {
    ...pgliteOptions(settings),
    extensions: PGLITE_EXTENSIONS,
    fs,
    ...(pgliteWasmModule ? { pgliteWasmModule } : {}),
  });
  if (walk || !fs.hooked) await makeTreePrivate(dataDir);
  return pg;
}
