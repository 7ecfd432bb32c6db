import { randomBytes } from 'node:crypto';
import { Router, type Response } from 'express';
import { bestAsk, bestBid, displayedPrice } from './books.js';
import { addEvent, SimError } from './catalog.js';
import { gammaEvent, gammaMarket } from './gamma-format.js';
import type { GammaFault } from './gamma-routes.js';
import { ControlDisconnectInput, ControlEndDateInput, ControlEventInput, ControlGammaFailInput, ControlPriceInput, ControlResolutionInput, ControlStallInput, ControlTradeInput } from './schemas.js';
import type { SimEvent, SimMarket, SimState } from './state.js';
import { marketResolvedMessage, newMarketMessage, type WireMessage } from './wire.js';
import type { WsHub } from './ws-hub.js';

/** The test and demo controls of API.md ("Simulator control"). */
export function controlRoutes(state: SimState, hub: WsHub, gammaFault: GammaFault): Router {
  const router = Router();
  const market = (id: string): SimMarket => {
    const m = state.markets.get(id);
    if (!m) throw new SimError(404, `unknown market ${id}`);
    return m;
  };
  const event = (id: string): SimEvent => {
    const e = state.events.get(id);
    if (!e) throw new SimError(404, `unknown event ${id}`);
    return e;
  };
  const resolve = (m: SimMarket, now: number): WireMessage => marketResolvedMessage(m, state.closeMarket(m, now), now);

  router.post('/events', (req, res) => {
    const input = ControlEventInput.parse(req.body);
    const now = Date.now();
    const e = addEvent(state, input, now);
    const labels = e.tagIds.map((id) => state.tags.get(id)?.label ?? id);
    hub.publish(e.marketIds.map((id) => newMarketMessage(market(id), e, labels, now)), false);
    res.status(201).json({ event: gammaEvent(state, e) });
  });

  router.post('/markets/:marketId/price', (req, res) => {
    const m = market(req.params.marketId);
    const { price, legacy } = ControlPriceInput.parse(req.body);
    if (m.closed) throw new SimError(409, `market ${m.id} is closed`);
    // A trade at the price as well, so the displayed price is `price` even where one side is empty.
    hub.publish(state.quote(m, price, { trade: { side: 'BUY', size: 10 }, legacy: legacy ?? false }), false);
    res.json({ market: gammaMarket(state, m, true) });
  });

  router.post('/markets/:marketId/trade', (req, res) => {
    const m = market(req.params.marketId);
    const trade = ControlTradeInput.parse(req.body);
    if (m.closed) throw new SimError(409, `market ${m.id} is closed`);
    // Not from the seeded generator: a trade's hash must not shift the catalog or the random walk of a seed.
    const transactionHash = `0x${randomBytes(32).toString('hex')}`;
    const price = Math.round(trade.price * 1e4) / 1e4;
    const size = Math.round(trade.size * 1e4) / 1e4;
    hub.publish(state.trade(m, { price, size, side: trade.side, transactionHash }), false);
    res.json({ market: gammaMarket(state, m, true), trade: { price, size, side: trade.side, transactionHash } });
  });

  router.post('/markets/:marketId/close', (req, res) => {
    const m = market(req.params.marketId);
    if (!m.closed) hub.publish([resolve(m, Date.now())], false);
    res.json({ market: gammaMarket(state, m, true) });
  });

  router.post('/events/:eventId/close', (req, res) => {
    const e = event(req.params.eventId);
    const now = Date.now();
    const open = e.marketIds.map(market).filter((m) => !m.closed);
    const resolved = open.map((m) => resolve(m, now));
    state.closeEvent(e, now);
    hub.publish(resolved, false);
    res.json({ event: gammaEvent(state, e) });
  });

  // The venue's resolution process (UMA): proposed, perhaps disputed, then resolved, which closes
  // the market. Only the catalog shows a status; the market channel hears of the resolution alone.
  router.post('/markets/:marketId/resolution', (req, res) => {
    const m = market(req.params.marketId);
    const { status, outcome } = ControlResolutionInput.parse(req.body);
    if (m.closed) throw new SimError(409, `market ${m.id} is closed (resolved)`);
    if (outcome !== undefined) m.resolutionOutcome = outcome === 'Yes' ? 0 : 1;
    else if (status === '') m.resolutionOutcome = null;
    if (status === 'resolved') hub.publish([resolve(m, Date.now())], false);
    else m.resolutionStatus = status;
    res.json({ market: gammaMarket(state, m, true) });
  });

  router.post('/markets/:marketId/end-date', (req, res) => {
    const m = market(req.params.marketId);
    const { endDate } = ControlEndDateInput.parse(req.body);
    if (m.closed) throw new SimError(409, `market ${m.id} is closed`);
    const e = event(m.eventId);
    m.endDateMs = Date.parse(endDate);
    // An event ends with its last market.
    e.endDateMs = Math.max(e.endDateMs, m.endDateMs);
    res.json({ market: gammaMarket(state, m, true) });
  });

  router.post('/disconnect', (req, res: Response) => {
    const { refuseMs } = ControlDisconnectInput.parse(req.body ?? {});
    res.json({ disconnected: hub.disconnectAll(refuseMs ?? 0) });
  });

  router.post('/feed/stall', (req, res) => {
    const { seconds } = ControlStallInput.parse(req.body);
    res.json({ stalledUntil: hub.stall(seconds * 1000).toISOString() });
  });

  router.post('/gamma/fail', (req, res) => {
    const { seconds, status } = ControlGammaFailInput.parse(req.body);
    gammaFault.untilMs = Date.now() + seconds * 1000;
    gammaFault.status = status;
    res.json({ failingUntil: new Date(gammaFault.untilMs).toISOString(), status });
  });

  router.get('/state', (_req, res) => {
    res.json({
      events: [...state.events.values()].map((e) => gammaEvent(state, e)),
      tokens: [...state.books.values()].map((b) => ({
        tokenId: b.tokenId,
        marketId: b.marketId,
        bestBid: bestBid(b),
        bestAsk: bestAsk(b),
        lastTradePrice: b.lastTrade?.price ?? null,
        price: displayedPrice(b),
      })),
      connections: hub.connectionCount,
    });
  });
  return router;
}
