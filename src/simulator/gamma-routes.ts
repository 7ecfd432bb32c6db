import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { gammaEvent, gammaMarket } from './gamma-format.js';
import type { SimEvent, SimMarket, SimState } from './state.js';

const MAX_OFFSET = 10_000;
const list = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]));
const bool = z.enum(['true', 'false']).optional().transform((v) => (v === undefined ? undefined : v === 'true'));
const count = z.coerce.number().int().min(0).optional();

const Query = z.object({
  limit: count,
  offset: count,
  order: z.string().optional(),
  ascending: bool,
  id: list,
  slug: list,
  active: bool,
  closed: bool,
  archived: bool,
  tag_id: z.string().optional(),
  tag_slug: z.string().optional(),
  after_cursor: z.string().optional(),
  clob_token_ids: list,
  condition_ids: list,
});
type Query = z.infer<typeof Query>;

interface Row {
  id: string;
  slug: string;
  closed: boolean;
  tagIds: string[];
  sortable: Record<string, number>;
}

/** A catalog outage set through `POST /control/gamma/fail`: every request answers `status` until `untilMs`. */
export interface GammaFault {
  untilMs: number;
  status: number;
}

export interface GammaRouteOptions {
  /** Serve keyset endpoints as 404, like older deployments. */
  legacyOffsetOnly: boolean;
  fault: GammaFault;
}

const cursorOf = (id: string) => Buffer.from(JSON.stringify({ id })).toString('base64url');
function idFromCursor(cursor: string): number | null {
  try {
    const id = Number((JSON.parse(Buffer.from(cursor, 'base64url').toString()) as { id?: unknown }).id);
    return Number.isFinite(id) ? id : null;
  } catch {
    return null;
  }
}

function filterRows<T extends Row>(rows: T[], q: Query, state: SimState): T[] {
  const tagId = q.tag_id ?? (q.tag_slug !== undefined ? (state.tagBySlug(q.tag_slug)?.id ?? '-') : undefined);
  return rows.filter(
    (r) =>
      (q.closed === undefined || r.closed === q.closed) &&
      q.active !== false &&
      q.archived !== true &&
      (q.id.length === 0 || q.id.includes(r.id)) &&
      (q.slug.length === 0 || q.slug.includes(r.slug)) &&
      (tagId === undefined || r.tagIds.includes(tagId)),
  );
}

function sortRows<T extends Row>(rows: T[], q: Query): T[] {
  const field = q.order ?? 'id';
  const dir = q.order === undefined || q.ascending === true ? 1 : -1;
  return [...rows].sort((a, b) => dir * ((a.sortable[field] ?? 0) - (b.sortable[field] ?? 0)) || Number(a.id) - Number(b.id));
}

export function gammaRoutes(state: SimState, options: GammaRouteOptions): Router {
  const router = Router();
  const eventRow = (e: SimEvent): Row & { e: SimEvent } => {
    const sortable = { id: Number(e.id), ...state.eventTotals(e), startDate: e.createdAtMs, endDate: e.endDateMs };
    return { e, id: e.id, slug: e.slug, closed: e.closed, tagIds: e.tagIds, sortable };
  };
  const marketRow = (m: SimMarket): Row & { m: SimMarket } => ({
    m,
    id: m.id,
    slug: m.slug,
    closed: m.closed,
    tagIds: state.events.get(m.eventId)?.tagIds ?? [],
    sortable: { id: Number(m.id), volume: m.volume, volume24hr: m.volume24hr, liquidity: m.liquidity, startDate: m.createdAtMs, endDate: m.endDateMs },
  });
  const eventRows = (q: Query) => sortRows(filterRows([...state.events.values()].map(eventRow), q, state), q);
  const marketRows = (q: Query) =>
    sortRows(
      filterRows([...state.markets.values()].map(marketRow), q, state).filter(
        (r) => (q.clob_token_ids.length === 0 || r.m.tokenIds.some((t) => q.clob_token_ids.includes(t))) && (q.condition_ids.length === 0 || q.condition_ids.includes(r.m.conditionId)),
      ),
      q,
    );

  function offsetPage<T>(req: Request, res: Response, rows: (q: Query) => T[], cap: number, render: (row: T) => unknown) {
    const q = Query.parse(req.query);
    const offset = q.offset ?? 0;
    if (offset > MAX_OFFSET) return res.status(422).json({ error: `offset must be at most ${MAX_OFFSET}` });
    const limit = Math.min(q.limit ?? 20, cap);
    res.setHeader('Sunset', 'Thu, 31 Dec 2026 23:59:59 GMT');
    res.json(rows(q).slice(offset, offset + limit).map(render));
  }

  function keysetPage<T extends Row>(req: Request, res: Response, key: 'events' | 'markets', rows: (q: Query) => T[], cap: number, render: (row: T) => unknown) {
    if (options.legacyOffsetOnly) return res.status(404).json({ error: 'not found' });
    const q = Query.parse(req.query);
    if (q.offset !== undefined) return res.status(422).json({ error: 'offset is not supported by keyset paging; use after_cursor' });
    const after = q.after_cursor === undefined ? -Infinity : idFromCursor(q.after_cursor);
    if (after === null) return res.status(400).json({ error: 'invalid after_cursor' });
    const limit = Math.min(q.limit ?? 20, cap);
    const all = rows({ ...q, order: undefined }).filter((r) => Number(r.id) > after);
    const page = all.slice(0, limit);
    const last = page.at(-1);
    res.json({ [key]: page.map(render), ...(all.length > limit && last ? { next_cursor: cursorOf(last.id) } : {}) });
  }

  const notFound = (res: Response) => res.status(404).json({ error: 'not found' });

  // Only the catalog's own paths: the CLOB REST API shares this server and stays up.
  router.use(['/events', '/markets', '/tags'], (_req, res, next) => {
    const { untilMs, status } = options.fault;
    if (Date.now() < untilMs) return void res.status(status).json({ error: `simulated catalog failure (HTTP ${status})` });
    next();
  });

  router.get('/events', (req, res) => offsetPage(req, res, eventRows, 500, (r) => gammaEvent(state, r.e)));
  router.get('/events/keyset', (req, res) => keysetPage(req, res, 'events', eventRows, 500, (r) => gammaEvent(state, r.e)));
  router.get('/events/slug/:slug', (req, res) => {
    const e = [...state.events.values()].find((x) => x.slug === req.params.slug);
    return e ? res.json(gammaEvent(state, e)) : notFound(res);
  });
  router.get('/events/:id', (req, res) => {
    const e = state.events.get(req.params.id);
    return e ? res.json(gammaEvent(state, e)) : notFound(res);
  });
  router.get('/markets', (req, res) => offsetPage(req, res, marketRows, 100, (r) => gammaMarket(state, r.m, true)));
  router.get('/markets/keyset', (req, res) => keysetPage(req, res, 'markets', marketRows, 100, (r) => gammaMarket(state, r.m, true)));
  router.get('/markets/:id', (req, res) => {
    const m = state.markets.get(req.params.id);
    return m ? res.json(gammaMarket(state, m, true)) : notFound(res);
  });
  router.get('/tags', (_req, res) => res.json([...state.tags.values()]));
  router.get('/tags/slug/:slug', (req, res) => {
    const t = state.tagBySlug(req.params.slug);
    return t ? res.json(t) : notFound(res);
  });
  return router;
}
