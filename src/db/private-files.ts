import { chmod, mkdir, readdir, stat } from 'node:fs/promises';
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
 * Whether the folder itself is 0700. No other user can then reach anything inside it, whatever the
 * modes of its files; and the files are 0600 already unless something outside the service changed
 * them: what PGlite writes is private as written (the umask and `PrivateNodeFS`), and a stop runs
 * `makeTreePrivate`. So a start walks the tree only for a new folder or one that is not 0700: the
 * walk (a chmod of each of the ~1,100 files) was ~0.1 s of every later start.
 */
export async function folderIsPrivate(dataDir: string): Promise<boolean> {
  return ((await stat(dataDir)).mode & 0o777) === 0o700;
}

/**
 * Sets every folder to 0700 and file to 0600. Needed after a new folder's open as well as the
 * umask: PGlite's initdb writes its initial files with the modes of its bundled image (0666), and a
 * folder an older version left open stays so until fixed. Also run on the build's image, so that
 * its copies (which keep its modes) need no walk at a first start.
 */
export async function makeTreePrivate(dataDir: string): Promise<void> {
  for (const entry of await readdir(dataDir, { recursive: true, withFileTypes: true })) {
    // A symlink's target may lie outside the folder: not ours to change.
    if (entry.isSymbolicLink()) continue;
    await chmod(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o700 : 0o600);
  }
  // Last: a folder at 0700 tells the next start that its walk was finished (`folderIsPrivate`).
  await chmod(dataDir, 0o700);
}
