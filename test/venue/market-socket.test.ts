import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMarketStream, type MarketStream } from '../../src/venue/clob/market-socket.js';
import type { MarketMessage } from '../../src/venue/clob/messages.js';
import { createClobRestClient } from '../../src/venue/clob/rest.js';
import { StreamPrices } from '../../src/runner/prices-from-stream.js';
import type { SimMarket } from '../../src/simulator/state.js';
import { getJson, postJson, silent, startSimulator } from './support.js';
import { expectNothingFor, waitFor } from '../support/wait.js';

type Started = Awaited<ReturnType<typeof startSimulator>>;

describe('market stream against the simulator', () => {
  let s: Started;
  let stream: MarketStream | undefined;
  let markets: SimMarket[];
  beforeAll(async () => {
    s = await startSimulator();
    markets = s.sim.state.openMarkets();
  });
  afterAll(() => s.sim.stop());
  afterEach(() => {
    stream?.close();
    stream = undefined;
  });

  function open(maxTokensPerConnection = 500) {
    const clobRest = createClobRestClient({ baseUrl: s.urls.clobUrl, logger: silent, timeoutMs: 1000 });
    const received: { msg: MarketMessage; at: number }[] = [];
    const reconnects: string[][] = [];
    stream = createMarketStream({
      url: s.urls.clobWsUrl,
      clobRest,
      logger: silent,
      maxTokensPerConnection,
      pingIntervalMs: 200,
      silenceTimeoutMs: 1000,
      backoff: { baseMs: 50, maxMs: 200 },
    });
    stream.on('message', (msg, at) => received.push({ msg, at }));
    stream.on('reconnected', (tokens) => reconnects.push(tokens));
    return { stream, received, reconnects };
  }

  const yesOf = (i: number) => (markets[i] as SimMarket).tokenIds[0];
  const bookFor = (received: { msg: MarketMessage; at: number }[], token: string, since = 0) =>
    received.find((r) => r.at >= since && r.msg.type === 'book' && r.msg.assetId === token)?.msg;
  const touches = (r: { msg: MarketMessage }, token: string) =>
    r.msg.type === 'price_change' ? r.msg.changes.some((c) => c.assetId === token) : 'assetId' in r.msg && r.msg.assetId === token;

  it('receives the initial dump: one book per followed token', async () => {
    const { stream, received } = open();
    const tokens = [yesOf(0), ...(markets[1] as SimMarket).tokenIds];
    stream.setTokens(tokens);
    await waitFor(() => tokens.every((t) => bookFor(received, t)), { timeoutMs: 3000, message: 'initial books' });
    const expected = s.sim.state.books.get(yesOf(0));
    expect(bookFor(received, yesOf(0))).toMatchObject({ bestBid: Math.max(...(expected?.bids ?? []).map((l) => l.price)) });
  });

  it('receives a price moved through the control endpoint at once', async () => {
    const { stream, received } = open();
    const market = markets[2] as SimMarket;
    stream.setTokens(market.tokenIds);
    await waitFor(() => bookFor(received, market.tokenIds[0]), { timeoutMs: 3000, message: 'initial book' });
    const { status } = await postJson(`${s.urls.controlUrl}/markets/${market.id}/price`, { price: 0.73 });
    expect(status).toBe(200);
    const change = await waitFor(() => received.find((r) => r.msg.type === 'price_change')?.msg, { timeoutMs: 3000, message: 'price_change' });
    if (change.type !== 'price_change') throw new Error('unreachable');
    const yes = change.changes.find((c) => c.assetId === market.tokenIds[0]);
    const no = change.changes.find((c) => c.assetId === market.tokenIds[1]);
    expect(yes?.bestBid).toBeCloseTo(0.72, 6);
    expect(yes?.bestAsk).toBeCloseTo(0.74, 6);
    expect(no?.bestBid).toBeCloseTo(0.26, 6);
    expect(no?.bestAsk).toBeCloseTo(0.28, 6);
    const trade = await waitFor(() => received.find((r) => r.msg.type === 'last_trade_price' && r.msg.assetId === market.tokenIds[0])?.msg, { timeoutMs: 3000, message: 'trade' });
    expect(trade).toMatchObject({ price: 0.73 });
  });

  it('a move sent in the legacy `changes` form (".7"-style prices) reaches the displayed price through the kept levels', async () => {
    const { stream, received } = open();
    const market = markets[20] as SimMarket;
    const shown = new Map<string, number>();
    const prices = new StreamPrices((record, price) => shown.set(record.token, price));
    stream.on('message', (msg, at) => prices.handle(msg, at));
    stream.setTokens(market.tokenIds);
    await waitFor(() => bookFor(received, market.tokenIds[0]), { timeoutMs: 3000, message: 'initial book' });
    await postJson(`${s.urls.controlUrl}/markets/${market.id}/price`, { price: 0.25 }); // wide apart from the start
    await waitFor(() => shown.get(market.tokenIds[0]) === 0.25, { timeoutMs: 3000, message: 'first move' });
    const since = received.length;
    const { status } = await postJson(`${s.urls.controlUrl}/markets/${market.id}/price`, { price: 0.7, legacy: true });
    expect(status).toBe(200);
    const legacy = await waitFor(() => received.slice(since).find((r) => r.msg.type === 'price_change')?.msg, { timeoutMs: 3000, message: 'legacy price_change' });
    expect(legacy).toMatchObject({ legacy: true, changes: expect.arrayContaining([expect.objectContaining({ bestBid: null, bestAsk: null })]) });
    // Both outcomes move, each from its own kept levels (its top is not in the message).
    await waitFor(() => shown.get(market.tokenIds[0]) === 0.7 && shown.get(market.tokenIds[1]) === 0.3, { timeoutMs: 3000, message: 'displayed 0.7 / 0.3' });
    const state = (await getJson(`${s.urls.controlUrl}/state`)).json.tokens.find((t: { tokenId: string }) => t.tokenId === market.tokenIds[0]);
    expect(state).toMatchObject({ bestBid: 0.69, bestAsk: 0.71, price: 0.7 });
  });

  it('adds and removes tokens on an open connection, dropping messages of removed tokens', async () => {
    const { stream, received } = open();
    const [a, b] = [markets[3] as SimMarket, markets[4] as SimMarket];
    stream.setTokens([a.tokenIds[0]]);
    await waitFor(() => bookFor(received, a.tokenIds[0]), { timeoutMs: 3000, message: 'book of a' });
    stream.addTokens([b.tokenIds[0]]);
    await waitFor(() => bookFor(received, b.tokenIds[0]), { timeoutMs: 3000, message: 'book of b after subscribe' });
    expect(stream.connections()).toHaveLength(1);
    stream.removeTokens([a.tokenIds[0]]);
    const since = received.length;
    await postJson(`${s.urls.controlUrl}/markets/${a.id}/price`, { price: 0.31 });
    await postJson(`${s.urls.controlUrl}/markets/${b.id}/price`, { price: 0.62 });
    await waitFor(() => received.slice(since).some((r) => touches(r, b.tokenIds[0])), { timeoutMs: 3000, message: 'move of b' });
    await expectNothingFor(100, () => received.slice(since).filter((r) => touches(r, a.tokenIds[0])), { message: 'a move of the removed token' });
    expect(received.slice(since).filter((r) => touches(r, a.tokenIds[0]))).toEqual([]);
  });

  it('shards tokens over several connections of at most maxTokensPerConnection', async () => {
    const { stream, received } = open(2);
    const tokens = markets.slice(5, 10).map((m) => m.tokenIds[0]);
    stream.setTokens(tokens);
    expect(stream.connections().map((c) => c.length)).toEqual([2, 2, 1]);
    await waitFor(() => tokens.every((t) => bookFor(received, t)), { timeoutMs: 3000, message: 'books on every shard' });
    expect((await getJson(`${s.urls.controlUrl}/state`)).json.connections).toBe(3);
    stream.removeTokens([tokens[4] as string]);
    expect(stream.connections().map((c) => c.length)).toEqual([2, 2]);
    stream.addTokens(markets.slice(10, 13).map((m) => m.tokenIds[0]));
    expect(stream.connections().map((c) => c.length)).toEqual([2, 2, 2, 1]);
  });

  it('after a forced disconnect, reseeds by REST so a move made in the gap is not lost', async () => {
    const { stream, received, reconnects } = open(2);
    const market = markets[14] as SimMarket;
    const yes = market.tokenIds[0];
    stream.setTokens([yes, yesOf(15), yesOf(16)]);
    await waitFor(() => bookFor(received, yes), { timeoutMs: 3000, message: 'initial book' });
    const before = s.sim.state.stats.booksRequests;
    const { json } = await postJson(`${s.urls.controlUrl}/disconnect`, { refuseMs: 400 });
    expect(json.disconnected).toBeGreaterThanOrEqual(2);
    const gapStart = Date.now();
    await postJson(`${s.urls.controlUrl}/markets/${market.id}/price`, { price: 0.21 });
    await waitFor(() => reconnects.length >= 2, { timeoutMs: 5000, message: 'both connections back' });
    const book = await waitFor(() => bookFor(received, yes, gapStart), { timeoutMs: 3000, message: 'book after reconnect' });
    if (book.type !== 'book') throw new Error('unreachable');
    expect(book.bestBid).toBeCloseTo(0.2, 6);
    expect(book.bestAsk).toBeCloseTo(0.22, 6);
    await waitFor(() => s.sim.state.stats.booksRequests >= before + 2, { timeoutMs: 2000, message: 'REST reseed of each connection' });
    expect(s.sim.state.stats.booksTokens.has(yes)).toBe(true);
    // One book from the resubscription's dump and one from the REST reseed.
    await waitFor(() => received.filter((r) => r.at >= gapStart && r.msg.type === 'book' && r.msg.assetId === yes).length >= 2, { timeoutMs: 2000, message: 'REST book' });
    expect(reconnects.flat()).toEqual(expect.arrayContaining([yes, yesOf(15), yesOf(16)]));
  });
});
