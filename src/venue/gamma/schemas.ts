import { z } from 'zod';

// The venue sends numbers either as JSON numbers or as decimal strings; "" and null mean absent.
const decimal = z
  .union([z.number(), z.string(), z.null()])
  .optional()
  .transform((v): number | null => {
    if (v === null || v === undefined) return null;
    if (typeof v === 'number') return Number.isFinite(v) ? v : null;
    const t = v.trim();
    if (t === '') return null;
    const n = Number(t);
    return Number.isFinite(n) ? n : null;
  });

const text = z.string().nullish().transform((v) => v ?? '');
const optionalText = z.string().nullish().transform((v) => (v === undefined || v === '' ? null : v));
const flag = z.boolean().nullish().transform((v) => v ?? false);
const id = z.union([z.string().min(1), z.number().int()]).transform(String);

/** A field holding a JSON array inside a string; real arrays are accepted too. */
const jsonStringArray = z.union([z.string(), z.array(z.union([z.string(), z.number()]))]).transform((v, ctx) => {
  let arr: unknown = v;
  if (typeof v === 'string') {
    try {
      arr = JSON.parse(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not a JSON array string' });
      return z.NEVER;
    }
  }
  if (!Array.isArray(arr) || !arr.every((x) => typeof x === 'string' || typeof x === 'number')) {
    ctx.addIssue({ code: 'custom', message: 'not an array of strings' });
    return z.NEVER;
  }
  return arr.map(String);
});

export const GammaTagSchema = z.object({ id, label: text, slug: text });

export const GammaMarketSchema = z.object({
  id,
  question: text,
  slug: text,
  groupItemTitle: text,
  description: text,
  conditionId: text,
  outcomes: jsonStringArray,
  outcomePrices: jsonStringArray.optional(),
  clobTokenIds: jsonStringArray,
  active: flag,
  closed: flag,
  archived: flag,
  acceptingOrders: flag,
  negRisk: flag,
  startDate: optionalText,
  endDate: optionalText,
  volume: decimal,
  volumeNum: decimal,
  volume24hr: decimal,
  liquidity: decimal,
  liquidityNum: decimal,
  bestBid: decimal,
  bestAsk: decimal,
  lastTradePrice: decimal,
  orderPriceMinTickSize: decimal,
  image: text,
  icon: text,
  umaResolutionStatus: text,
  events: z.array(z.object({ id })).nullish(),
});
export type GammaMarket = z.infer<typeof GammaMarketSchema>;

export const GammaEventSchema = z.object({
  id,
  slug: text,
  title: text,
  description: text,
  image: text,
  icon: text,
  active: flag,
  closed: flag,
  archived: flag,
  startDate: optionalText,
  endDate: optionalText,
  volume: decimal,
  volume24hr: decimal,
  liquidity: decimal,
  negRisk: flag,
  tags: z.array(z.unknown()).nullish(),
  // Each market is parsed on its own so one legacy market cannot fail its event.
  markets: z.array(z.unknown()).nullish(),
});

export const EventsKeysetPageSchema = z.object({
  events: z.array(z.unknown()),
  next_cursor: z.string().nullish(),
});
export const ArrayPageSchema = z.array(z.unknown());
