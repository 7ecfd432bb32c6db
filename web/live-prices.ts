import { useEffect, useState } from 'preact/hooks';
import { api, type PriceHistory } from './api.js';

const POLL_MS = 5000;
const MAX_MARKETS = 30;

/** The displayed price of each market, polled every few seconds (the engine's own latest price). */
export function useLivePrices(marketIds: string[]): Record<string, PriceHistory> {
  const [prices, setPrices] = useState<Record<string, PriceHistory>>({});
  const key = marketIds.slice(0, MAX_MARKETS).join(',');
  useEffect(() => {
    if (!key) return;
    let stopped = false;
    const poll = async () => {
      const answers = await Promise.all(
        key.split(',').map((id) => api<PriceHistory>('GET', `/markets/${encodeURIComponent(id)}/prices?minutes=1`).catch(() => null)),
      );
      if (stopped) return;
      setPrices(Object.fromEntries(answers.flatMap((a) => (a ? [[a.marketId, a]] : []))));
    };
    void poll();
    const timer = setInterval(poll, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [key]);
  return prices;
}
