import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { waitFor } from '../support/wait.js';
import { getJson, postJson, startSimulator } from './support.js';

type Started = Awaited<ReturnType<typeof startSimulator>>;

describe('venue simulator: POST /control/markets/{id}/trade', () => {
  let s: Started;
  beforeAll(async () => {
    s = await startSimulator({ eventCount: 20 });
  });
  afterAll(() => s.sim.stop());

  it('emits the trade as a last_trade_price of the first outcome at once, with size and hash, and counts it in the volume', async () => {
    const market = s.sim.state.openMarkets()[0]!;
    const [yes, no] = market.tokenIds;
    const ws = new WebSocket(s.urls.clobWsUrl);
    const frames: any[] = [];
    ws.on('message', (d) => {
      const text = d.toString();
      if (text.startsWith('{') || text.startsWith('[')) frames.push(...[JSON.parse(text)].flat());
    });
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    ws.send(JSON.stringify({ assets_ids: [yes, no], type: 'market' }));
    await waitFor(() => frames.some((f) => f.event_type === 'book' && f.asset_id === yes), { message: 'the initial dump' });
    const before = (await getJson(`${s.urls.controlUrl}/state`)).json.tokens.find((t: any) => t.tokenId === yes);
    const volumeBefore = market.volume24hr;

    const res = await postJson(`${s.urls.controlUrl}/markets/${market.id}/trade`, { price: 0.62, size: 40322.58, side: 'BUY' });
    expect(res.status).toBe(200);
    expect(res.json.trade).toEqual({ price: 0.62, size: 40322.58, side: 'BUY', transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    const trades = await waitFor(() => {
      const found = frames.filter((f) => f.event_type === 'last_trade_price');
      return found.length === 2 && found;
    }, { message: 'the trade messages' });
    expect(trades[0]).toEqual({
      event_type: 'last_trade_price', asset_id: yes, market: market.conditionId, price: '0.62', side: 'BUY', size: '40322.58',
      fee_rate_bps: '0', timestamp: expect.stringMatching(/^\d+$/), transaction_hash: res.json.trade.transactionHash,
    });
    // The venue's report of the same trade on the second outcome.
    expect(trades[1]).toMatchObject({ asset_id: no, price: '0.38', side: 'SELL', size: '40322.58' });
    ws.close();

    // The books stay: with a narrow spread the displayed price is still the midpoint.
    const after = (await getJson(`${s.urls.controlUrl}/state`)).json.tokens.find((t: any) => t.tokenId === yes);
    expect(after).toMatchObject({ lastTradePrice: 0.62, price: before.price, bestBid: before.bestBid, bestAsk: before.bestAsk });
    expect(market.volume24hr).toBeCloseTo(volumeBefore + 0.62 * 40322.58, 2);
  });

  it('answers bad bodies with 400 saying what to fix, an unknown market with 404 and a closed one with 409', async () => {
    const c = s.urls.controlUrl;
    const market = s.sim.state.openMarkets()[1]!;
    const url = `${c}/markets/${market.id}/trade`;
    const bad = [
      [{ price: 1.5, size: 10, side: 'BUY' }, 'price'],
      [{ price: 0, size: 10, side: 'BUY' }, 'price'],
      [{ price: '0.5', size: 10, side: 'BUY' }, 'price'],
      [{ price: 0.5, size: -1, side: 'BUY' }, 'size'],
      [{ price: 0.5, size: 10, side: 'HOLD' }, 'side'],
      [{ price: 0.5, size: 10 }, 'side'],
      [{ price: 0.5, size: 10, side: 'BUY', hash: 'x' }, 'hash'],
    ] as const;
    for (const [body, field] of bad) {
      const res = await postJson(url, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error).toContain(field);
    }
    expect((await postJson(`${c}/markets/1/trade`, { price: 0.5, size: 10, side: 'BUY' })).status).toBe(404);
    await postJson(`${c}/markets/${market.id}/close`, {});
    const closed = await postJson(url, { price: 0.5, size: 10, side: 'BUY' });
    expect(closed.status).toBe(409);
    expect(closed.json.error).toContain('closed');
  });
});
