import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { toVenueEvent } from '../../src/venue/gamma/types.js';
import { gammaEvent } from '../../src/simulator/gamma-format.js';
import { createSimulator } from '../../src/simulator/index.js';
import { expectNothingFor, waitFor } from '../support/wait.js';
import { getJson, postJson, silent, startSimulator } from './support.js';

type Started = Awaited<ReturnType<typeof startSimulator>>;

function catalogOf(seed: number) {
  const sim = createSimulator({ port: 0, seed, randomWalk: false, tickIntervalMs: 100, logger: silent, nowMs: Date.UTC(2026, 0, 1) });
  return [...sim.state.events.values()].map((e) => gammaEvent(sim.state, e));
}

/** A raw market-channel client recording every text frame. */
async function rawSocket(url: string) {
  const ws = new WebSocket(url);
  const frames: string[] = [];
  let closed = false;
  ws.on('message', (d) => frames.push(d.toString()));
  ws.on('close', () => (closed = true));
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  return { ws, frames, isClosed: () => closed };
}

describe('venue simulator', () => {
  let s: Started;
  beforeAll(async () => {
    s = await startSimulator({ eventCount: 300, idleCloseMs: 300 });
  });
  afterAll(() => s.sim.stop());

  it('builds the same catalog from the same seed and another from another seed', () => {
    const a = catalogOf(1);
    expect(catalogOf(1)).toEqual(a);
    expect(catalogOf(2).map((e) => e.title)).not.toEqual(a.map((e) => e.title));
  });

  it('builds a realistic catalog: several hundred events, single and negRisk, venue-shaped ids', () => {
    const events = catalogOf(1);
    expect(events.length).toBe(300);
    expect(events.some((e) => e.negRisk && e.markets.length > 2)).toBe(true);
    expect(events.some((e) => !e.negRisk && e.markets.length === 1)).toBe(true);
    expect(new Set(events.flatMap((e) => e.tags.map((t) => t?.slug))).size).toBeGreaterThanOrEqual(8);
    for (const e of events) {
      expect(e.id).toMatch(/^\d+$/);
      for (const m of e.markets) {
        expect(m.id).toMatch(/^\d+$/);
        expect(m.conditionId).toMatch(/^0x[0-9a-f]{64}$/);
        const tokens = JSON.parse(m.clobTokenIds) as string[];
        expect(tokens).toHaveLength(2);
        for (const t of tokens) expect(t).toMatch(/^[1-9]\d{76,77}$/);
        expect(m.outcomes).toBe('["Yes", "No"]');
      }
    }
    const parsed = events.map((e) => toVenueEvent(e));
    expect(parsed.every((e) => e !== null && e.markets.length > 0)).toBe(true);
  });

  it('applies the paging caps and refusals of the venue', async () => {
    const g = s.urls.gammaUrl;
    expect((await getJson(`${g}/markets?limit=1000`)).json).toHaveLength(100);
    expect((await getJson(`${g}/events?limit=5&offset=10001`)).status).toBe(422);
    expect((await getJson(`${g}/events/keyset?limit=1000`)).json.events).toHaveLength(300);
    expect((await getJson(`${g}/markets/keyset?limit=1000`)).json.markets).toHaveLength(100);
    expect((await getJson(`${g}/events/keyset?offset=5`)).status).toBe(422);
    const res = await fetch(`${g}/events?limit=2`);
    expect(res.headers.get('sunset')).toBeTruthy();
    const markets = (await getJson(`${g}/markets?limit=3&order=id&ascending=true`)).json;
    expect(markets[0].events[0]).toEqual({ id: expect.any(String), slug: expect.any(String), title: expect.any(String) });
  });

  it('filters by repeated ids and by tag', async () => {
    const [a, b] = [...s.sim.state.events.values()];
    const both = (await getJson(`${s.urls.gammaUrl}/events?id=${a?.id}&id=${b?.id}`)).json;
    expect(both.map((e: { id: string }) => e.id)).toEqual([a?.id, b?.id]);
    const crypto = (await getJson(`${s.urls.gammaUrl}/events?tag_slug=crypto&limit=500`)).json;
    expect(crypto.length).toBeGreaterThan(0);
    expect(crypto.every((e: { tags: { slug: string }[] }) => e.tags.some((t) => t.slug === 'crypto'))).toBe(true);
  });

  it('keeps idle keep-alive sockets for a minute, so a client held up for seconds does not send on a closed one', async () => {
    // Bug seen under load: Node's 5 s default closed the socket while a test, its event loop held
    // by PGlite, was about to reuse it (fetch failed, ECONNRESET, in the feed-health test).
    const res = await fetch(`${s.urls.controlUrl}/gamma/fail`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ seconds: 0, status: 503 }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('keep-alive')).toBe('timeout=65');
    await res.arrayBuffer();
  });

  it('answers 404 for unknown ids and slugs', async () => {
    const g = s.urls.gammaUrl;
    for (const path of ['/events/1', '/events/slug/nope', '/markets/1', '/tags/slug/nope', '/book?token_id=123']) {
      const { status, json } = await getJson(g + path);
      expect([path, status]).toEqual([path, 404]);
      expect(json.error).toEqual(expect.any(String));
    }
  });

  it('serves the order-book REST endpoints for a token', async () => {
    const market = s.sim.state.openMarkets()[0];
    const token = market?.tokenIds[0] ?? '';
    const c = s.urls.clobUrl;
    const book = (await getJson(`${c}/book?token_id=${token}`)).json;
    expect(book).toMatchObject({ asset_id: token, market: market?.conditionId, tick_size: expect.any(String), neg_risk: expect.any(Boolean) });
    const bestBid = Math.max(...book.bids.map((l: { price: string }) => Number(l.price)));
    const bestAsk = Math.min(...book.asks.map((l: { price: string }) => Number(l.price)));
    expect(Number((await getJson(`${c}/price?token_id=${token}&side=BUY`)).json.price)).toBe(bestBid);
    expect(Number((await getJson(`${c}/price?token_id=${token}&side=SELL`)).json.price)).toBe(bestAsk);
    expect(Number((await getJson(`${c}/midpoint?token_id=${token}`)).json.mid)).toBeCloseTo((bestBid + bestAsk) / 2, 6);
    expect((await getJson(`${c}/last-trade-price?token_id=${token}`)).json).toEqual({ price: expect.any(String), side: 'BUY' });
    const books = await postJson(`${c}/books`, [{ token_id: token }, { token_id: market?.tokenIds[1] }, { token_id: '42' }]);
    expect(books.json.map((b: { asset_id: string }) => b.asset_id)).toEqual(market?.tokenIds);
    await postJson(`${s.urls.controlUrl}/markets/${market?.id}/price`, { price: 0.4 });
    const history = (await getJson(`${c}/prices-history?market=${token}&interval=1d&fidelity=1`)).json.history;
    expect(history.at(-1)).toEqual({ t: expect.any(Number), p: 0.4 });
    expect((await getJson(`${c}/price?token_id=${token}&side=UP`)).status).toBe(400);
  });

  it('speaks the market channel: PONG, one-array initial dump, INVALID OPERATION, operations', async () => {
    const [m1, m2] = s.sim.state.openMarkets();
    const { ws, frames } = await rawSocket(s.urls.clobWsUrl);
    ws.send('PING');
    await waitFor(() => frames.includes('PONG'), { message: 'PONG' });
    ws.send(JSON.stringify({ assets_ids: m1?.tokenIds, type: 'market', initial_dump: true, custom_feature_enabled: true }));
    const dump = JSON.parse(await waitFor(() => frames.find((f) => f.startsWith('[')), { message: 'dump' }));
    expect(dump.map((b: { event_type: string; asset_id: string }) => [b.event_type, b.asset_id])).toEqual(m1?.tokenIds.map((t) => ['book', t]));
    ws.send(JSON.stringify({ assets_ids: m2?.tokenIds, type: 'market' }));
    await waitFor(() => frames.includes('INVALID OPERATION'), { message: 'INVALID OPERATION' });
    ws.send(JSON.stringify({ assets_ids: [m2?.tokenIds[0]], operation: 'subscribe' }));
    await waitFor(() => frames.some((f) => f.includes(m2?.tokenIds[0] ?? '-') && f.includes('"book"')), { message: 'book after subscribe' });
    ws.send(JSON.stringify({ assets_ids: m1?.tokenIds, operation: 'unsubscribe' }));
    // The hub answers a socket's messages in order: the PONG after it means the unsubscribe is done.
    const pongs = () => frames.filter((f) => f === 'PONG').length;
    const pongsBefore = pongs();
    ws.send('PING');
    await waitFor(() => pongs() > pongsBefore, { message: 'PONG after the unsubscribe' });
    const before = frames.length;
    await postJson(`${s.urls.controlUrl}/markets/${m1?.id}/price`, { price: 0.11 });
    await postJson(`${s.urls.controlUrl}/markets/${m2?.id}/price`, { price: 0.12 });
    await waitFor(() => frames.slice(before).some((f) => f.includes(m2?.tokenIds[0] ?? '-')), { message: 'move of m2' });
    expect(frames.slice(before).some((f) => f.includes(m1?.tokenIds[0] ?? '-'))).toBe(false);
    ws.close();
  });

  it('closes a new connection that never subscribes', async () => {
    const { isClosed } = await rawSocket(s.urls.clobWsUrl);
    await waitFor(() => isClosed(), { message: 'idle close' });
  });

  it('creates an event through control in the exact catalog shape and announces its markets', async () => {
    const { ws, frames } = await rawSocket(s.urls.clobWsUrl);
    ws.send(JSON.stringify({ assets_ids: [], type: 'market', custom_feature_enabled: true }));
    const { status, json } = await postJson(`${s.urls.controlUrl}/events`, {
      title: 'Will the test pass?',
      tags: ['tech', 'testing'],
      markets: [{ question: 'Will it pass on Monday?', price: 0.66 }, { question: 'Will it pass on Tuesday?' }],
    });
    expect(status).toBe(201);
    const { event } = json;
    expect(event).toEqual((await getJson(`${s.urls.gammaUrl}/events/${event.id}`)).json);
    expect(typeof event.markets[0].clobTokenIds).toBe('string');
    const parsed = toVenueEvent(event);
    expect(parsed).toMatchObject({ title: 'Will the test pass?', negRisk: true, closed: false, tags: [{ slug: 'tech' }, { slug: 'testing' }] });
    expect(parsed?.markets[0]?.outcomePrices[0]).toBeCloseTo(0.66, 6);
    await waitFor(() => frames.filter((f) => f.includes('"new_market"')).length === 2, { message: 'new_market messages' });
    ws.close();
  });

  it('closes markets and events through control', async () => {
    const event = [...s.sim.state.events.values()].find((e) => e.negRisk && !e.closed && e.marketIds.length > 2);
    const [first] = event?.marketIds ?? [];
    const closedMarket = await postJson(`${s.urls.controlUrl}/markets/${first}/close`, {});
    expect(closedMarket.json.market.closed).toBe(true);
    expect((await getJson(`${s.urls.gammaUrl}/events/${event?.id}`)).json.closed).toBe(false);
    const closedEvent = await postJson(`${s.urls.controlUrl}/events/${event?.id}/close`, {});
    expect(closedEvent.json.event.closed).toBe(true);
    expect(closedEvent.json.event.markets.every((m: { closed: boolean }) => m.closed)).toBe(true);
    const open = (await getJson(`${s.urls.gammaUrl}/events?closed=false&limit=500`)).json;
    expect(open.some((e: { id: string }) => e.id === event?.id)).toBe(false);
  });

  it('answers bad control input with 400 and unknown ids with 404', async () => {
    const c = s.urls.controlUrl;
    const market = s.sim.state.openMarkets()[0];
    expect((await postJson(`${c}/events`, { title: '' , markets: [] })).status).toBe(400);
    expect((await postJson(`${c}/events`, { title: 'x', slug: 'Not A Slug', markets: [{ question: 'q' }] })).status).toBe(400);
    expect((await postJson(`${c}/markets/${market?.id}/price`, { price: 1.5 })).status).toBe(400);
    expect((await postJson(`${c}/markets/${market?.id}/price`, { price: '0.5' })).status).toBe(400);
    const unknown = await postJson(`${c}/markets/1/price`, { price: 0.5 });
    expect(unknown).toEqual({ status: 404, json: { error: expect.any(String) } });
    expect((await postJson(`${c}/events/1/close`, {})).status).toBe(404);
    const badJson = await fetch(`${c}/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toEqual({ error: expect.any(String) });
  });

  it('reports its catalog and prices', async () => {
    const { json } = await getJson(`${s.urls.controlUrl}/state`);
    expect(json.events.length).toBeGreaterThanOrEqual(300);
    expect(json.tokens[0]).toEqual({ tokenId: expect.any(String), marketId: expect.any(String), bestBid: expect.any(Number), bestAsk: expect.any(Number), lastTradePrice: expect.any(Number), price: expect.any(Number) });
  });
});

describe('venue simulator scenario', () => {
  it('adds the scenario events after the generated catalog', async () => {
    const sim = createSimulator({
      port: 0,
      seed: 3,
      randomWalk: false,
      tickIntervalMs: 100,
      logger: silent,
      eventCount: 5,
      scenario: { events: [{ title: 'Scenario event', slug: 'scenario-event', tags: ['politics'], markets: [{ question: 'Will it?', price: 0.9 }] }] },
    });
    const events = [...sim.state.events.values()];
    expect(events).toHaveLength(6);
    expect(events.at(-1)).toMatchObject({ slug: 'scenario-event', closed: false });
  });
});

describe('venue simulator random walk', () => {
  it('streams book, price_change (both forms) and trades, sometimes several in one frame', async () => {
    const s = await startSimulator({ randomWalk: true, tickIntervalMs: 5, legacyPriceChange: true, eventCount: 10 });
    try {
      const tokens = s.sim.state.openMarkets().flatMap((m) => m.tokenIds);
      const volumeBefore = s.sim.state.openMarkets().reduce((a, m) => a + m.volume, 0);
      const { ws, frames } = await rawSocket(s.urls.clobWsUrl);
      ws.send(JSON.stringify({ assets_ids: tokens, type: 'market', initial_dump: false, custom_feature_enabled: true }));
      const kinds = () => new Set(frames.flatMap((f) => [JSON.parse(f)].flat().map((m: { event_type: string; changes?: unknown }) => (m.changes ? 'legacy_price_change' : m.event_type))));
      await waitFor(() => ['price_change', 'legacy_price_change', 'last_trade_price'].every((k) => kinds().has(k)), { message: 'every message kind' });
      await waitFor(() => frames.some((f) => f.startsWith('[') && JSON.parse(f).length > 1), { message: 'an array frame' });
      expect(s.sim.state.openMarkets().reduce((a, m) => a + m.volume, 0)).toBeGreaterThan(volumeBefore);
      ws.close();
    } finally {
      await s.sim.stop();
    }
  });
});

describe('venue simulator fault controls', () => {
  let f: Started;
  beforeAll(async () => {
    f = await startSimulator({ eventCount: 10, idleCloseMs: 200 });
  });
  afterAll(() => f.sim.stop());

  it('stalls every connection, new ones included: open, silent (no data, no PONG), then data flows again', async () => {
    const [m1] = f.sim.state.openMarkets();
    const token = m1!.tokenIds[0]!;
    const old = await rawSocket(f.urls.clobWsUrl);
    old.ws.send(JSON.stringify({ assets_ids: m1?.tokenIds, type: 'market' }));
    await waitFor(() => old.frames.some((fr) => fr.startsWith('[')), { message: 'dump' });
    const stall = await postJson(`${f.urls.controlUrl}/feed/stall`, { seconds: 0.8 });
    expect(stall.status).toBe(200);
    expect(Date.parse(stall.json.stalledUntil)).toBeGreaterThan(Date.now());
    const seenBefore = old.frames.length;

    const fresh = await rawSocket(f.urls.clobWsUrl);
    fresh.ws.send(JSON.stringify({ assets_ids: m1?.tokenIds, type: 'market' }));
    for (const c of [old, fresh]) c.ws.send('PING');
    await postJson(`${f.urls.controlUrl}/markets/${m1?.id}/price`, { price: 0.31 });
    // Longer than idleCloseMs: even an idle close is held back.
    await expectNothingFor(400, () => old.frames.length !== seenBefore || fresh.frames.length > 0 || old.isClosed() || fresh.isClosed(), {
      message: 'a frame or a close during the stall',
    });
    expect(old.frames.length).toBe(seenBefore);
    expect(fresh.frames).toEqual([]);
    expect(old.isClosed() || fresh.isClosed()).toBe(false);

    await waitFor(() => Date.now() > Date.parse(stall.json.stalledUntil), { message: 'end of stall' });
    for (const c of [old, fresh]) c.ws.send('PING');
    await waitFor(() => old.frames.includes('PONG') && fresh.frames.includes('PONG'), { message: 'PONG after the stall' });
    await postJson(`${f.urls.controlUrl}/markets/${m1?.id}/price`, { price: 0.62 });
    // The subscription made during the stall counts once it ends.
    await waitFor(() => [old, fresh].every((c) => c.frames.some((fr) => fr.includes(token) && !fr.startsWith('['))), { message: 'data after the stall' });
    old.ws.close();
    fresh.ws.close();
  });

  it('fails the catalog REST API with the given status for that long, leaving the CLOB API up', async () => {
    const g = f.urls.gammaUrl;
    const [m1] = f.sim.state.openMarkets();
    const fail = await postJson(`${f.urls.controlUrl}/gamma/fail`, { seconds: 0.5, status: 503 });
    expect(fail.json).toEqual({ failingUntil: expect.any(String), status: 503 });
    expect((await getJson(`${g}/events?limit=1`)).status).toBe(503);
    expect((await getJson(`${g}/events/keyset?limit=1`)).status).toBe(503);
    expect((await getJson(`${g}/markets/${m1?.id}`)).status).toBe(503);
    expect((await getJson(`${g}/book?token_id=${m1?.tokenIds[0]}`)).status).toBe(200);
    await waitFor(() => Date.now() > Date.parse(fail.json.failingUntil), { message: 'end of outage' });
    expect((await getJson(`${g}/events?limit=1`)).status).toBe(200);

    await postJson(`${f.urls.controlUrl}/gamma/fail`, { seconds: 60 });
    expect((await getJson(`${g}/tags`)).status).toBe(500); // the default status
    await postJson(`${f.urls.controlUrl}/gamma/fail`, { seconds: 0 }); // 0 ends it early
    expect((await getJson(`${g}/tags`)).status).toBe(200);
  });

  it('answers bad fault input with 400', async () => {
    const c = f.urls.controlUrl;
    expect((await postJson(`${c}/feed/stall`, {})).status).toBe(400);
    expect((await postJson(`${c}/feed/stall`, { seconds: -1 })).status).toBe(400);
    expect((await postJson(`${c}/gamma/fail`, { seconds: 1, status: 200 })).status).toBe(400);
    expect((await postJson(`${c}/gamma/fail`, { seconds: 'long' })).status).toBe(400);
    expect((await getJson(`${f.urls.gammaUrl}/tags`)).status).toBe(200);
  });
});
