import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { prng, serviceArgs } from './support.js';

const root = path.resolve(import.meta.dirname, '..');

export interface SoakOptions {
  minutes: number;
  rules: number;
  markets: number;
  /** Allowed RSS growth from the start of the walk to its end, MB: the bench fails beyond it. */
  boundMb: number;
}

export interface SoakResult {
  openMarkets: number;
  rules: number;
  setupSeconds: number;
  walkStartKb: number;
  walkMaxKb: number;
  walkEndKb: number;
  peakKb: number;
  firings: number;
  /** RSS every minute of the walk, MB. */
  perMinuteMb: number[];
}

const INBOX_PAGE = 100;

const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
const hwm = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

async function call(url: string, token: string | undefined, body?: unknown, attempt = 1): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).catch((err: unknown) => {
    // A kept-alive connection the server closed just as a request went out (a busy machine): again,
    // at worst one more rule than asked for.
    if (attempt < 3) return undefined;
    throw err;
  });
  if (!res) return call(url, token, body, attempt + 1);
  const text = await res.text();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

interface VenueEvent {
  id: string;
  closed: boolean;
  markets: { id: string; closed: boolean }[];
}

/**
 * The service as `npm start` runs it (`node dist/main.js`, every role, PGlite on a new folder,
 * `VENUE=simulator` with its random walk), with extra simulator events so that at least
 * `markets` markets are open; `rules` price rules (In App, Recurring) spread evenly over them,
 * created through the REST API (one account; the rate limit and `MAX_SUBSCRIPTIONS` raised for it); then RSS once a second for `minutes` of the random walk.
 */
export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'oddswatch-bench-soak-'));
  // The generated catalog has ~690 open markets in open events: more events of 10 markets each.
  const scenario = path.join(dir, 'scenario.json');
  const extraEvents = Math.max(0, Math.ceil((o.markets - 650) / 10));
  await writeFile(
    scenario,
    JSON.stringify({
      events: Array.from({ length: extraEvents }, (_, e) => ({
        title: `Soak event ${e + 1}`,
        markets: Array.from({ length: 10 }, (_, m) => ({ question: `Soak market ${e + 1}.${m + 1}?`, price: 0.2 + 0.06 * m })),
      })),
    }),
  );
  const child = spawn(process.execPath, serviceArgs(), {
    cwd: root,
    env: { ...process.env, PORT: '0', SIMULATOR_PORT: '0', VENUE: 'simulator', SIMULATOR_SCENARIO: scenario, LOG_LEVEL: 'info', DATABASE_URL: '', DATA_DIR: path.join(dir, 'data'), RATE_LIMIT_PER_MINUTE: '1000000', MAX_SUBSCRIPTIONS: String(o.rules) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    let token: string | undefined;
    let control: string | undefined;
    let synced = false;
    const api = await new Promise<string>((resolve, reject) => {
      void exited.then((code) => reject(new Error(`the service exited with ${code}`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        token ??= /API token \(shown once\): (\S+)/.exec(line)?.[1];
        if (line.includes('"venue simulator listening"')) control = (JSON.parse(line) as { controlUrl: string }).controlUrl;
        if (line.includes('"catalog synced"')) synced = true;
        if (line.includes('"Oddswatch started"')) resolve((JSON.parse(line) as { url: string }).url);
      });
    });
    if (!token || !control) throw new Error('no first-start token or simulator control URL in the output');
    while (!synced) await sleep(200);
    const setupStarted = performance.now();
    const state = (await call(`${control}/state`, undefined)) as unknown as { events: VenueEvent[] };
    const picked = state.events
      .filter((e) => !e.closed)
      .flatMap((e) => e.markets.filter((m) => !m.closed).map((m) => ({ eventId: e.id, marketId: m.id })))
      .slice(0, o.markets);
    if (picked.length < o.markets) throw new Error(`the simulator has only ${picked.length} open markets`);
    const watchlist = (await call(`${api}/watchlists`, token, {
      name: 'memory soak',
      events: Object.fromEntries([...new Set(picked.map((p) => p.eventId))].map((id) => [id, {}])),
    })) as { watchList: { id: string } };
    const random = prng(17);
    const types = ['Crossing', 'Crossing Up', 'Crossing Down'];
    const intervals = ['0m', '5m', '30m'];
    let next = 0;
    // Eight requests in flight: the rules are the setup, not the measure.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let i = next++; i < o.rules; i = next++) {
          const p = picked[i % picked.length]!;
          await call(`${api}/subscriptions`, token, {
            watchlistId: watchlist.watchList.id,
            subscriptionScope: 'Market',
            eventId: p.eventId,
            marketId: p.marketId,
            subscriptionTypeConfig: { type: types[i % 3], config: { params: { threshold_percent: 5 + Math.floor(random() * 90) } } },
            triggerType: 'Recurring',
            triggerInterval: intervals[Math.floor(random() * 3)],
            channels: [{ type: 'In App' }],
          });
        }
      }),
    );
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    // The engine takes the new rules in; the first minute of the walk is then the reference.
    await sleep(30_000);
    const walkStartKb = rss(child.pid!);
    let walkMaxKb = walkStartKb;
    const perMinuteMb: number[] = [];
    for (let s = 1; s <= o.minutes * 60; s++) {
      await sleep(1000);
      const now = rss(child.pid!);
      walkMaxKb = Math.max(walkMaxKb, now);
      if (s % 60 === 0) perMinuteMb.push(Math.round(now / 1024));
    }
    const walkEndKb = rss(child.pid!);
    // Firings during the run: the In App inbox, page by page (newest first).
    let firings = 0;
    for (let before: string | null | undefined = ''; before !== null && before !== undefined; ) {
      const page = (await call(`${api}/notifications?limit=${INBOX_PAGE}${before ? `&before=${before}` : ''}`, token)) as { notifications: unknown[]; nextBefore: string | null };
      firings += page.notifications.length;
      before = page.nextBefore;
    }
    return {
      openMarkets: picked.length,
      rules: o.rules,
      setupSeconds,
      walkStartKb,
      walkMaxKb,
      walkEndKb,
      peakKb: hwm(child.pid!),
      firings,
      perMinuteMb,
    };
  } finally {
    child.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  }
}
