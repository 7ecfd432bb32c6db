import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { packageRoot } from '../paths.js';
import { makeTreePrivate } from './private-files.js';

// A new PGlite folder costs initdb: ~3.5–4.5 s and a ~700 MB peak (PGlite 0.5 copies its whole
// WebAssembly heap around between initdb's runs), more than a 1 GB host can give. The build makes
// one initialised and migrated folder (dist/pglite-image); a first start copies it (528 files,
// 12 MB: no template databases, 1 MB WAL segments; build-image.ts) and then opens it like any
// later start. Migrations newer than the image run on top of it as usual. A folder holds no
// account or secret until the service's first start writes them, so every install may start from
// the same image.

/** Where the build puts the image, and beside it what it was made from. */
const imageDir = () => path.join(packageRoot(), 'dist', 'pglite-image');
const imageKeyFile = () => path.join(packageRoot(), 'dist', 'pglite-image.json');

/** What an image depends on: the PGlite release (its on-disk format), the migrations, the settings. */
export function pgliteImageKey(settings: readonly string[]): string {
  const root = packageRoot();
  const pgliteVersion = installedPgliteVersion(root);
  const hash = createHash('sha256');
  hash.update(`pglite ${pgliteVersion}\n${settings.join('\n')}\n`);
  const migrations = path.join(root, 'drizzle');
  const files = readdirSync(migrations).filter((n) => n.endsWith('.sql')).sort();
  for (const name of files) hash.update(`${name}\n`).update(readFileSync(path.join(migrations, name)));
  hash.update(readFileSync(path.join(migrations, 'meta', '_journal.json')));
  return `${pgliteVersion}:${hash.digest('hex')}`;
}

/** The version in PGlite's package.json (its `exports` do not list the file: found from its entry). */
function installedPgliteVersion(root: string): string {
  let dir = path.dirname(createRequire(path.join(root, 'package.json')).resolve('@electric-sql/pglite'));
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The image's folder when one was built for this PGlite release. */
export async function currentPgliteImage(): Promise<string | undefined> {
  const recorded = await readFile(imageKeyFile(), 'utf8').then(
    (text) => (JSON.parse(text) as { key?: string }).key,
    () => undefined,
  );
  if (!recorded || !existsSync(path.join(imageDir(), 'PG_VERSION'))) return undefined;
  // Only the PGlite release must match: an image with fewer migrations is migrated on top at start,
  // and one made by an earlier recipe is still a folder this PGlite opens.
  return recorded.split(':')[0] === installedPgliteVersion(packageRoot()) ? imageDir() : undefined;
}

/** Whether the build must (re)make the image. */
export async function pgliteImageStale(settings: readonly string[]): Promise<boolean> {
  const recorded = await readFile(imageKeyFile(), 'utf8').then(
    (text) => (JSON.parse(text) as { key?: string }).key,
    () => undefined,
  );
  return recorded !== pgliteImageKey(settings) || !existsSync(path.join(imageDir(), 'PG_VERSION'));
}

/**
 * Copies the image into an empty data folder. PG_VERSION, which tells PGlite a database is there,
 * is copied last: a start cut short during the copy leaves a folder the next start copies again.
 * Files go 64 at a time with copyFile: `fs.cp` took 1.2–2 s for the image's ~1,100 files here,
 * this ~0.1 s. copyFile gives each copy its image file's mode, 0600 (`writePgliteImage`), and new
 * folders are 0700. Creating the image's empty files instead of copying them was measured slower:
 * telling them apart took a `stat` per file, and each file system call is a round trip to libuv's
 * threads (copyFile is one).
 */
export async function copyPgliteImage(image: string, dataDir: string): Promise<void> {
  const entries = await readdir(image, { recursive: true, withFileTypes: true });
  const relative = (e: (typeof entries)[number]) => path.relative(image, path.join(e.parentPath, e.name));
  for (const dir of entries.filter((e) => e.isDirectory())) await mkdir(path.join(dataDir, relative(dir)), { recursive: true, mode: 0o700 });
  const files = entries.filter((e) => e.isFile()).map(relative).filter((f) => f !== 'PG_VERSION');
  for (let i = 0; i < files.length; i += COPY_BATCH) {
    await Promise.all(files.slice(i, i + COPY_BATCH).map((f) => copyFile(path.join(image, f), path.join(dataDir, f))));
  }
  await copyFile(path.join(image, 'PG_VERSION'), path.join(dataDir, 'PG_VERSION'));
}

const COPY_BATCH = 64;

/**
 * Makes the image: `init(folder)` initialises and migrates a PGlite folder and closes it. Built in
 * a temporary folder beside the target and renamed into place, so a build cut short leaves no
 * half-made image behind.
 */
export async function writePgliteImage(settings: readonly string[], init: (folder: string) => Promise<void>): Promise<void> {
  const dist = path.dirname(imageDir());
  const building = await mkdtemp(path.join(dist, '.pglite-image-'));
  try {
    await init(building);
    // Every copy gets these modes (copyPgliteImage), and a first start does not walk its copy.
    await makeTreePrivate(building);
    await rm(imageDir(), { recursive: true, force: true });
    await rename(building, imageDir());
    await writeFile(imageKeyFile(), `${JSON.stringify({ key: pgliteImageKey(settings) })}\n`);
  } finally {
    await rm(building, { recursive: true, force: true });
  }
}
