import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { migrate, openDatabase, PGLITE_EXTENSIONS } from '../../src/db/index.js';

export const TMP_DIR = path.resolve('.vitest-tmp');
export const PGLITE_TEMPLATE = path.join(TMP_DIR, 'pglite-template.tar');

declare module 'vitest' {
  export interface ProvidedContext {
    pgTemplate: string | undefined;
  }
}

/**
 * Migrates once per run: a PGlite data dump that every test file loads into memory, and, when
 * DATABASE_URL is set, a PostgreSQL template database that every test file clones.
 */
export default async function setup(project: TestProject) {
  await mkdir(TMP_DIR, { recursive: true });
  // The web console the api role serves at /app (tests of the console and its browser test).
  const built = spawnSync(process.execPath, ['bin/build-console.js', '--if-stale'], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('building the web console (bin/build-console.js) failed');
  const pg = new PGlite({ extensions: PGLITE_EXTENSIONS });
  const database = await openDatabase({ pglite: pg });
  await migrate(database);
  const dump = await pg.dumpDataDir('none');
  await writeFile(PGLITE_TEMPLATE, Buffer.from(await dump.arrayBuffer()));
  await database.close();

  const url = process.env.DATABASE_URL;
  if (!url) {
    project.provide('pgTemplate', undefined);
    return;
  }
  const template = `oddswatch_tpl_${process.pid}`;
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await dropLeftovers(admin);
  await admin.unsafe(`create database "${template}"`);
  const templateDb = await openDatabase({ databaseUrl: withDatabase(url, template), maxConnections: 1 });
  await migrate(templateDb);
  await templateDb.close();
  project.provide('pgTemplate', template);
  return async () => {
    await admin.unsafe(`drop database if exists "${template}" with (force)`);
    await admin.end();
  };
}

/** Databases of earlier runs that were killed before their teardown. */
async function dropLeftovers(admin: postgres.Sql) {
  const rows = await admin`select datname from pg_database where datname like 'oddswatch_t%'`;
  for (const { datname } of rows) {
    // Names carry the creating process id: oddswatch_tpl_<pid> and oddswatch_t<pid>_<hex>.
    const pid = Number(/^oddswatch_t(?:pl_)?(\d+)/.exec(datname)?.[1]);
    if (pid && isAlive(pid)) continue;
    await admin.unsafe(`drop database if exists "${datname}" with (force)`);
  }
}

export function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function withDatabase(url: string, name: string) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}
