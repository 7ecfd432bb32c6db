import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { parseConfig } from '../src/config.js';
import { migrate, openDatabase, PGLITE_EXTENSIONS, type Database } from '../src/db/index.js';
import { catalogEvents, catalogMarkets } from '../src/db/schema/index.js';
import { createLogger } from '../src/logger.js';
import { findEvents, findMarkets } from '../src/services/search/index.js';
import { createRng } from '../src/simulator/prng.js';
import { drawTemplate } from '../src/simulator/templates.js';
import { fmt, machine, numberOption, printTable } from './support.js';

const QUERIES = ['bitcoin august', 'Bitcoin 100k', 'bitc', 'zorb', 'bitcoim', 'will the lakers win', 'e'];

/**
 * Events drawn as the simulator draws them, with their markets, random volumes, 6 % closed; then
 * `history` more, all closed with their markets (what months of use leave stored).
 */
async function fillCatalog(database: Database, events: number, history: number): Promise<number> {
  const r = createRng(16);
  let markets = 0;
  const total = events + history;
  for (let start = 0; start < total; start += 500) {
    const eventRows: (typeof catalogEvents.$inferInsert)[] = [];
    const marketRows: (typeof catalogMarkets.$inferInsert)[] = [];
    for (let i = start; i < Math.min(total, start + 500); i++) {
      const t = drawTemplate(r);
      const id = String(100000 + i);
      const old = i >= events;
      eventRows.push({ id, slug: `e-${id}`, title: t.title, closed: old || r.chance(0.06), volume24hr: r.int(0, 1_000_000), volume: r.int(0, 10_000_000) });
      const items = t.items ?? [{ title: '', question: t.question ?? t.title }];
      items.forEach((it, position) => {
        const token = `${id}${position}`.padEnd(77, '7');
        marketRows.push({ id: `${id}-${position}`, eventId: id, position, question: it.question, groupItemTitle: it.title, outcomes: ['Yes', 'No'], outcomePrices: [0.5, 0.5], clobTokenIds: [token, token.replace(/7$/, '8')], yesTokenId: token, volume24hr: r.int(0, 100_000), closed: old });
      });
    }
    await database.db.insert(catalogEvents).values(eventRows);
    await database.db.insert(catalogMarkets).values(marketRows);
    markets += marketRows.length;
  }
  return markets;
}

/**
 * `npm run bench -- search [--events=5000] [--runs=20] [--closed=0] [--vacuum]`: people-search (findEvents,
 * findMarkets) over a catalog of simulator-drawn events and `closed` more closed ones, in-memory
 * PGlite or DATABASE_URL (a scratch database: it is filled).
 */
export async function runSearchBench(args: string[]): Promise<void> {
  const option = (name: string, fallback: number) => numberOption(args, name, fallback);
  const events = option('events', 5000);
  const runs = option('runs', 20);
  const history = option('closed', 0);
  const url = process.env.DATABASE_URL;
  const database = url ? await openDatabase({ databaseUrl: url }) : await openDatabase({ pglite: new PGlite({ extensions: PGLITE_EXTENSIONS }) });
  await migrate(database);
  const markets = await fillCatalog(database, events, history);
  // PGlite never vacuums: the GIN indexes' pending lists hold the fill until they pass 4 MB, and a
  // search reads them whole. `--vacuum` measures the indexes themselves.
  const analyze = args.includes('--vacuum') ? 'vacuum analyze' : 'analyze';
  await database.rows(sql.raw(`${analyze} catalog_events`));
  await database.rows(sql.raw(`${analyze} catalog_markets`));
  const ctx = { database, config: parseConfig({ LOG_LEVEL: 'silent' }), logger: createLogger('silent') };
  const rows: string[][] = [];
  for (const q of QUERIES) {
    for (const [name, find] of [
      ['findEvents', () => findEvents({ ctx, input: { q, limit: 10 } })],
      ['findMarkets', () => findMarkets({ ctx, input: { q, limit: 25 } })],
    ] as const) {
      await find();
      const times: number[] = [];
      let hits = 0;
      for (let i = 0; i < runs; i++) {
        const started = performance.now();
        hits = (await find()).length;
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      rows.push([name, q, String(hits), fmt(times[Math.floor(runs / 2)]!, 1), fmt(times[Math.floor(runs * 0.95)]!, 1)]);
    }
  }
  console.log(`${machine()}; ${database.kind}; ${events} events and ${history} closed ones, ${markets} markets in all`);
  printTable(['function', 'query', 'hits', 'median ms', 'p95 ms'], rows);
  await database.close();
}
