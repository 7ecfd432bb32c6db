import { Router, type Response } from 'express';
import { z } from 'zod';
import { bestAsk, bestBid, displayedPrice, formatPrice, type TokenBook } from './books.js';
import type { SimState } from './state.js';
import { restBook } from './wire.js';

const TokenQuery = z.object({ token_id: z.string().min(1) });
const PriceQuery = TokenQuery.extend({ side: z.enum(['BUY', 'SELL']) });
const BooksBody = z.array(z.object({ token_id: z.string().min(1) })).max(500);
const HistoryQuery = z.object({
  market: z.string().min(1),
  interval: z.enum(['1h', '6h', '1d', '1w', '1m', 'max']).optional(),
  startTs: z.coerce.number().int().optional(),
  endTs: z.coerce.number().int().optional(),
  fidelity: z.coerce.number().int().min(1).optional(),
});
const INTERVAL_S = { '1h': 3600, '6h': 21_600, '1d': 86_400, '1w': 604_800, '1m': 2_592_000, max: Infinity } as const;

export function clobRoutes(state: SimState): Router {
  const router = Router();
  const negRiskOf = (b: TokenBook) => state.markets.get(b.marketId)?.negRisk ?? false;
  const withBook = (res: Response, tokenId: string, answer: (b: TokenBook) => unknown) => {
    const book = state.books.get(tokenId);
    if (!book) return res.status(404).json({ error: 'No orderbook exists for the requested token id' });
    return res.json(answer(book));
  };

  router.get('/book', (req, res) => {
    const { token_id } = TokenQuery.parse(req.query);
    return withBook(res, token_id, (b) => restBook(b, negRiskOf(b)));
  });
  router.post('/books', (req, res) => {
    const tokens = BooksBody.parse(req.body).map((t) => t.token_id);
    state.stats.booksRequests += 1;
    for (const t of tokens) state.stats.booksTokens.add(t);
    const books = tokens.map((t) => state.books.get(t)).filter((b): b is TokenBook => b !== undefined);
    res.json(books.map((b) => restBook(b, negRiskOf(b))));
  });
  router.get('/midpoint', (req, res) => {
    const { token_id } = TokenQuery.parse(req.query);
    return withBook(res, token_id, (b) => {
      const bid = bestBid(b);
      const ask = bestAsk(b);
      return { mid: bid !== null && ask !== null ? formatPrice((bid + ask) / 2) : formatPrice(displayedPrice(b) ?? 0) };
    });
  });
  router.get('/price', (req, res) => {
    const { token_id, side } = PriceQuery.parse(req.query);
    return withBook(res, token_id, (b) => ({ price: formatPrice((side === 'BUY' ? bestBid(b) : bestAsk(b)) ?? 0) }));
  });
  router.get('/last-trade-price', (req, res) => {
    const { token_id } = TokenQuery.parse(req.query);
    return withBook(res, token_id, (b) => ({ price: formatPrice(b.lastTrade?.price ?? 0), side: b.lastTrade?.side ?? '' }));
  });
  router.get('/prices-history', (req, res) => {
    const q = HistoryQuery.parse(req.query);
    return withBook(res, q.market, (b) => {
      const end = q.endTs ?? Math.floor(Date.now() / 1000);
      const start = q.startTs ?? end - INTERVAL_S[q.interval ?? '1d'];
      const step = (q.fidelity ?? 1) * 60;
      let lastT = -Infinity;
      const history = b.history.filter((h) => {
        if (h.t < start || h.t > end || h.t - lastT < step) return false;
        lastT = h.t;
        return true;
      });
      return { history };
    });
  });
  return router;
}
