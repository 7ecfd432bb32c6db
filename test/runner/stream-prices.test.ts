import { describe, expect, it } from 'vitest';
import { StreamPrices } from '../../src/runner/prices-from-stream.js';
import { parseMarketFrame } from '../../src/venue/clob/messages.js';
import { fixtureText, silent } from '../venue/support.js';

const TOKEN = '65818619657568813474341868652308942079804919287380422192892211131408793125422';

/** Feeds each frame's messages to a StreamPrices and answers the prices it emitted, per frame. */
function feed(frames: string[]) {
  const seen: number[][] = [];
  const sink: number[] = [];
  const p = new StreamPrices((_t, price) => sink.push(price));
  for (const frame of frames) {
    sink.length = 0;
    for (const msg of parseMarketFrame(frame, silent)) p.handle(msg, 1);
    seen.push([...sink]);
  }
  return { seen, records: p.records };
}

/** A fixture holding an array of messages, split into one frame per message. */
const framesOf = (name: string) => (JSON.parse(fixtureText(name)) as unknown[]).map((m) => JSON.stringify(m));

describe('StreamPrices with kept levels', () => {
  it('moves the displayed price on a legacy `changes` price_change (poly-websockets defect)', () => {
    const { seen } = feed(framesOf('ws-legacy-move.json'));
    expect(seen).toEqual([[0.5], [0.65]]); // book .49/.51 → 0.5; after the changes .64/.66 → 0.65
  });

  it('matches levels written ".45" and "0.45" as one (poly-websockets defect)', () => {
    const { seen, records } = feed(framesOf('ws-leading-dot-move.json'));
    // Book: bids .40/.45, asks .47/.50 → 0.46. The changes remove .45 and .47 (written "0.470"),
    // resize "0.4" and add ask .44: bid 0.40, ask 0.44 → 0.42.
    expect(seen).toEqual([[0.46], [0.42]]);
    expect(records.get(TOKEN)?.levels?.bids.sizeAt(0.4)).toBe(25);
    expect(records.get(TOKEN)?.levels?.asks.size).toBe(2);
  });

  it('applies all of a message’s changes before showing a price (no half-applied book)', () => {
    const legacy = JSON.parse(fixtureText('ws-legacy-move.json')) as [unknown, Record<string, unknown>];
    const { seen } = feed(framesOf('ws-legacy-move.json').slice(0, 1).concat(JSON.stringify(legacy[1])));
    // Removing .49 first alone would show (0.48 + 0.51) / 2; only the final 0.65 may appear.
    expect(seen[1]).toEqual([0.65]);
  });

  it('switches to the last trade when a legacy change widens the spread past 0.10', () => {
    const [book] = framesOf('ws-legacy-move.json');
    const trade = JSON.stringify({ event_type: 'last_trade_price', asset_id: TOKEN, market: '0xm', price: '0.52', side: 'BUY', size: '5', timestamp: '1' });
    const widen = JSON.stringify({
      event_type: 'price_change', asset_id: TOKEN, market: '0xm', timestamp: '2',
      changes: [{ price: '.51', side: 'SELL', size: '0' }, { price: '0.52', side: 'SELL', size: '0' }, { price: '.7', side: 'SELL', size: '9' }],
    });
    const { seen } = feed([book!, trade, widen]);
    expect(seen).toEqual([[0.5], [], [0.52]]); // bid .49, ask .70: spread 0.21 → the last trade
  });

  it('uses the venue’s best_bid/best_ask when a price_change carries them, and keeps the levels too', () => {
    const [book] = framesOf('ws-legacy-move.json');
    const current = JSON.stringify({
      event_type: 'price_change', market: '0xm', timestamp: '3',
      price_changes: [{ asset_id: TOKEN, price: '.49', size: '0', side: 'BUY', hash: 'h', best_bid: '0.6', best_ask: '.62' }],
    });
    const legacy = JSON.stringify({ event_type: 'price_change', asset_id: TOKEN, market: '0xm', timestamp: '4', changes: [{ price: '.5', side: 'BUY', size: '7' }] });
    const { seen } = feed([book!, current, legacy]);
    // The venue's top (0.6/0.62) wins over the levels (0.48/0.51); a later legacy change reads the
    // levels, where ".49" was removed and ".5" added: 0.50/0.51.
    expect(seen).toEqual([[0.5], [0.61], [0.505]]);
  });

  it('sets each token of a two-token price_change from that token’s last entry', () => {
    const seen: [string, number][] = [];
    const p = new StreamPrices((record, price) => seen.push([record.token, price]));
    const entry = (asset_id: string, price: string, best_bid: string, best_ask: string) => ({ asset_id, price, size: '1', side: 'BUY', hash: 'h', best_bid, best_ask });
    const frame = JSON.stringify({
      event_type: 'price_change', market: '0xm', timestamp: '5',
      price_changes: [entry('a', '.3', '0.3', '0.32'), entry('b', '.6', '.6', '.62'), entry('a', '.4', '.4', '.42')],
    });
    for (const msg of parseMarketFrame(frame, silent)) p.handle(msg, 1);
    expect(seen).toEqual([['b', 0.61], ['a', 0.41]]);
  });
});

describe('StreamPrices trades', () => {
  it('hands every trade with a size to the trade sink, after the price it set, and nothing else', () => {
    const seen: string[] = [];
    const p = new StreamPrices(
      (record, price) => seen.push(`price ${record.token} ${price}`),
      (msg, at) => seen.push(`trade ${msg.assetId} ${msg.price}×${msg.size} ${msg.side} ${at}`),
    );
    const frame = JSON.stringify([
      { event_type: 'book', asset_id: 'a', market: '0xm', bids: [{ price: '0.1', size: '5' }], asks: [{ price: '0.9', size: '5' }], timestamp: '1', last_trade_price: '0.5' },
      { event_type: 'last_trade_price', asset_id: 'a', market: '0xm', price: '0.55', side: 'SELL', size: '100', timestamp: '2' },
      { event_type: 'last_trade_price', asset_id: 'a', market: '0xm', price: '0.55', side: 'BUY', size: '3', timestamp: '3' },
      { event_type: 'last_trade_price', asset_id: 'a', market: '0xm', price: '0.6', side: 'BUY', timestamp: '4' },
    ]);
    for (const msg of parseMarketFrame(frame, silent)) p.handle(msg, 7);
    // A book's last trade price is no trade; a trade at the same price is one, though the price stays.
    expect(seen).toEqual(['price a 0.5', 'price a 0.55', 'trade a 0.55×100 SELL 7', 'trade a 0.55×3 BUY 7', 'price a 0.6']);
  });
});
