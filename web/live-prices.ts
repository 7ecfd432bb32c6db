import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';

const POLL_MS = 5000;
const MAX_MARKETS = 100;

export interface CurrentPrice {
  marketId: string;
  question: string;
  current: number | null;
}

/** The displayed price of each market, one request for all of them every few seconds. */
export function useLivePrices(marketIds: string[]): Record<string, CurrentPrice> {
  const [prices, setPrices] = useState<Record<string, CurrentPrice>>({});
  const key = [...new Set(marketIds)].slice(0, MAX_MARKETS).join(',');
  useEffect(() => {
    if (!key) return;
    let stopped = false;
    const poll = async () => {
      const answer = await api<{ prices: CurrentPrice[] }>('GET', `/markets/prices?ids=${encodeURIComponent(key)}`).catch(() => null);
      if (stopped || !answer) return;
      setPrices(Object.fromEntries(answer.prices.map((p) => [p.marketId, p])));
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
