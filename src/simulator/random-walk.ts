import { round4 } from './books.js';
import type { Rng } from './prng.js';
import type { SimState } from './state.js';
import { bestBidAskMessage, bookMessage, type WireMessage } from './wire.js';
import type { WsHub } from './ws-hub.js';

export interface RandomWalkOptions {
  state: SimState;
  hub: WsHub;
  rng: Rng;
  tickIntervalMs: number;
  legacyPriceChange: boolean;
}

/** Moves a few open markets every tick and publishes what changed; returns a stop function. */
export function startRandomWalk({ state, hub, rng, tickIntervalMs, legacyPriceChange }: RandomWalkOptions): () => void {
  const tick = () => {
    const open = state.openMarkets();
    if (open.length === 0) return;
    const messages: WireMessage[] = [];
    for (let i = rng.int(1, 3); i > 0; i--) {
      const m = rng.pick(open);
      const price = Math.min(0.98, Math.max(0.02, round4(state.yesPrice(m) + rng.int(-2, 2) * m.tickSize)));
      const side = rng.chance(0.5) ? 'BUY' : 'SELL';
      const trade = rng.chance(0.4)
        ? { side, size: rng.int(1, 2000), price: round4(side === 'BUY' ? price + m.tickSize : price - m.tickSize) } as const
        : undefined;
      messages.push(...state.quote(m, price, { trade, legacy: legacyPriceChange && rng.chance(0.5) }));
      const [yes] = state.bookPair(m);
      if (rng.chance(0.1)) messages.push(bestBidAskMessage(yes, yes.timestampMs));
      if (rng.chance(0.05)) messages.push(bookMessage(yes, rng.chance(0.5)));
    }
    hub.publish(messages, rng.chance(0.35));
  };
  const timer = setInterval(tick, tickIntervalMs);
  return () => clearInterval(timer);
}
