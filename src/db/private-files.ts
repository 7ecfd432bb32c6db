import { chmod, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';

// The embedded database's folder holds webhook signing secrets and token hashes (in tables and in
// WAL segments), so only the service's own user may read it: folders 0700, files 0600.

/**
 * Before PGlite opens the folder: the process umask is narrowed for good, since PGlite keeps
 * creating files while it runs (WAL segments, new relations) through plain Node `fs` calls.
 */
export async function createPrivateDataDir(dataDir: string): Promise<void> {
  // A worker thread cannot change the process umask; `makeTreePrivate` still fixes what exists.
  if (isMainThread) process.umask(0o077);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
}

/**
 * Sets every folder to 0700 and file to 0600. Needed after the open as well as the umask: PGlite
 * writes a new folder's initial files with the modes of its bundled image (0666), and a folder an
 * older version left open stays so until fixed.
 */
export async function makeTreePrivate(dataDir: string): Promise<void> {
  await chmod(dataDir, 0o700);
  for (const entry of await readdir(dataDir, { recursive: true, withFileTypes: true })) {
    // A symlink's target may lie outside the folder: not ours to change.
    if (entry.isSymbolicLink()) continue;
    await chmod(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o700 : 0o600);
  }
}
