import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MIGRATIONS_FOLDER } from '../../src/db/migrate.js';

/**
 * A copy of the migrations folder cut after `last` (journal idx), for upgrade tests that migrate a
 * database part way, put rows in, then run the rest. `cleanups` gets the folder's removal.
 */
export async function migrationsUpTo(last: number, cleanups: (() => Promise<void>)[]): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'oddswatch-migrations-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await cp(MIGRATIONS_FOLDER, dir, { recursive: true });
  const journal = JSON.parse(await readFile(path.join(dir, 'meta', '_journal.json'), 'utf8')) as { entries: { idx: number }[] };
  journal.entries = journal.entries.filter((e) => e.idx <= last);
  await writeFile(path.join(dir, 'meta', '_journal.json'), JSON.stringify(journal));
  return dir;
}
