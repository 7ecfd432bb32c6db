import { describe, expect, it } from 'vitest';
import { assetIdsOf, parseMarketFrame } from '../../src/venue/clob/messages.js';
import { fixtureText, silent } from './support.js';

const YES = '71321045679252212594626385532706912750332728571942532289631379312455583992563';
const NO = '52114319501245915516055106046884209969926127482827954674443846427813813222426';

describe('market channel messages', () => {
  it('parses a book with ".48" prices as numbers and finds the best levels by value', () => {
    const [book] = parseMarketFrame(fixtureText('ws-book-leading-dot.json'), silent);
    expect(book).toMatchObject({ type: 'book', bestBid: 0.48, bestAsk: 0.5, timestampMs: 1763800000123 });
    if (book?.type !== 'book') throw new Error('expected a book');
    expect(book.bids.map((l) => l.price)).toEqual([0.46, 0.47, 0.48]);
    expect(book.bids[2]?.price).toBe(Number('0.48'));
  });

  it('parses the new price_change form with each entry’s top of book', () => {
    const [msg] = parseMarketFrame(fixtureText('ws-price-change-new.json'), silent);
    expect(msg).toEqual({
      type: 'price_change',
      market: '0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1',
      timestampMs: 1757908892351,
      legacy: false,
      changes: [
        { assetId: YES, price: 0.5, size: 200, side: 'BUY', bestBid: 0.5, bestAsk: 1 },
        { assetId: NO, price: 0.5, size: 0, side: 'SELL', bestBid: 0, bestAsk: 0.5 },
      ],
    });
    if (msg) expect(assetIdsOf(msg)).toEqual([YES, NO]);
  });

  it('parses the legacy price_change form (one asset, `changes`) into the same shape', () => {
    const [msg] = parseMarketFrame(fixtureText('ws-price-change-legacy.json'), silent);
    expect(msg).toEqual({
      type: 'price_change',
      market: '0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1',
      timestampMs: 1729084877448,
      legacy: true,
      changes: [
        { assetId: YES, price: 0.4, size: 3300, side: 'SELL', bestBid: null, bestAsk: null },
        { assetId: YES, price: 0.5, size: 0, side: 'BUY', bestBid: null, bestAsk: null },
      ],
    });
  });

  it('parses an array frame and skips an unknown message type', () => {
    const msgs = parseMarketFrame(fixtureText('ws-array-frame.json'), silent);
    expect(msgs.map((m) => m.type)).toEqual(['last_trade_price', 'tick_size_change', 'best_bid_ask', 'market_resolved']);
    expect(msgs[0]).toMatchObject({ price: 0.456, side: 'BUY', size: 219.217767, timestampMs: 1750428146322 });
    expect(msgs[1]).toMatchObject({ oldTickSize: 0.01, newTickSize: 0.001 });
    expect(msgs[2]).toMatchObject({ bestBid: 0.455, bestAsk: 0.457 });
    expect(msgs[3]).toMatchObject({ winningOutcome: 'Yes', assetIds: expect.arrayContaining([expect.any(String)]) });
  });

  it('parses a trade\'s transaction_hash when sent, and none when absent', () => {
    const trade = { event_type: 'last_trade_price', asset_id: '1', market: '0x1', price: '0.62', side: 'SELL', size: '40322.58', fee_rate_bps: '0', timestamp: '5' };
    expect(parseMarketFrame(JSON.stringify({ ...trade, transaction_hash: '0xabc' }), silent)[0]).toEqual({
      type: 'last_trade_price', assetId: '1', market: '0x1', price: 0.62, side: 'SELL', size: 40322.58, timestampMs: 5, transactionHash: '0xabc',
    });
    expect(parseMarketFrame(JSON.stringify(trade), silent)[0]).toMatchObject({ transactionHash: null });
    expect(parseMarketFrame(JSON.stringify({ ...trade, transaction_hash: 12 }), silent)[0]).toMatchObject({ transactionHash: null });
  });

  it('parses new_market whose assets and outcomes are real arrays', () => {
    const [msg] = parseMarketFrame(fixtureText('ws-new-market.json'), silent);
    expect(msg).toMatchObject({
      type: 'new_market',
      marketId: '1031769',
      market: '0x311d0c4b6671ab54af4970c06fcf58662516f5168997bdda209ec3db5aa6b0c1',
      outcomes: ['Yes', 'No'],
      assetIds: [
        '76043073756653678226373981964075571318267289248134717369284518995922789326425',
        '31690934263385727664202099278545688007799199447969475608906331829650099442770',
      ],
      event: { id: '125819', slug: 'nba-lal-bos-2025-12-25', title: 'Lakers vs. Celtics' },
    });
  });

  it('ignores PONG, non-JSON text and malformed messages', () => {
    expect(parseMarketFrame('PONG', silent)).toEqual([]);
    expect(parseMarketFrame('{"event_type":"book","asset_id":"1"}', silent)).toEqual([]);
    expect(parseMarketFrame('{"event_type":"price_change","market":"0x1","timestamp":"1"}', silent)).toEqual([]);
    // A level that is not a number, or a side that is neither BUY nor SELL, spoils the message.
    expect(parseMarketFrame('{"event_type":"book","asset_id":"1","market":"0x1","bids":[{"price":"abc","size":"1"}]}', silent)).toEqual([]);
    expect(parseMarketFrame('{"event_type":"price_change","asset_id":"1","market":"0x1","changes":[{"price":".4","size":"1","side":"HOLD"}]}', silent)).toEqual([]);
    expect(parseMarketFrame('{"event_type":"last_trade_price","asset_id":"1","market":"0x1","price":""}', silent)).toEqual([]);
  });

  it('parses the legacy form with ".40"-style prices as numbers', () => {
    const msgs = parseMarketFrame(fixtureText('ws-leading-dot-move.json'), silent);
    expect(msgs.map((m) => m.type)).toEqual(['book', 'price_change']);
    expect(msgs[0]).toMatchObject({ bestBid: 0.45, bestAsk: 0.47, lastTradePrice: 0.46, tickSize: 0.01 });
    if (msgs[1]?.type !== 'price_change') throw new Error('expected a price_change');
    expect(msgs[1].legacy).toBe(true);
    expect(msgs[1].changes.map((c) => [c.price, c.side, c.size])).toEqual([[0.45, 'BUY', 0], [0.47, 'SELL', 0], [0.4, 'BUY', 25], [0.44, 'SELL', 12]]);
  });
});
