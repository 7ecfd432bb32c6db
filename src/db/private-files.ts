import { chmod, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';

/**
 * The embedded database's folder holds webhook signing secrets and token hashes (in tables and in
 * WAL segments), so only the service's own user may read it: folders 0700, files 0600.
 *
 * PGlite creates its files as the WASM runtime asks (0666 / 0777, less the umask), and keeps
 * creating them while it runs (WAL segments, new relations), so the process umask is narrowed for
 * good rather than around the open; the files an older version left open are fixed once here.
 */
export async function preparePrivateDataDir(dataDir: string): Promise<void> {
  // A worker thread cannot change the process umask; the walk below still fixes what exists.
  if (isMainThread) process.umask(0o077);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  for (const entry of await readdir(dataDir, { recursive: true, withFileTypes: true })) {
    // A symlink's target may lie outside the folder: not ours to change.
    if (entry.isSymbolicLink()) continue;
    await chmod(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o700 : 0o600);
  }
}
