import { readFile } from 'node:fs/promises';
import { z } from 'zod';

const slug = z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lowercase words joined by dashes').max(120);

/** Body of `POST /control/events`, and one event of a scenario file. */
export const ControlEventInput = z.object({
  title: z.string().trim().min(1).max(300),
  slug: slug.optional(),
  tags: z.array(slug).max(10).optional(),
  markets: z
    .array(z.object({ question: z.string().trim().min(1).max(300), price: z.number().min(0).max(1).optional() }))
    .min(1)
    .max(50),
  /** The event's and its markets' endDate (default: some days ahead). */
  endDate: z.iso.datetime({ offset: true }).optional(),
});
export type ControlEventInput = z.infer<typeof ControlEventInput>;

export const ControlPriceInput = z.object({
  price: z.number().min(0).max(1),
  /** Send the book change in the pre-Sept-2025 `changes` form (no top of book, ".4"-style prices). */
  legacy: z.boolean().optional(),
});

/** Body of `POST /control/markets/{id}/resolution`: the market's next `umaResolutionStatus`. */
export const ControlResolutionInput = z.object({
  status: z.enum(['proposed', 'disputed', 'resolved', '']),
  /** The proposed outcome, or the winner when resolved (default: the one proposed, else the side the price favours). */
  outcome: z.enum(['Yes', 'No']).optional(),
});

/** Body of `POST /control/markets/{id}/end-date`. */
export const ControlEndDateInput = z.object({ endDate: z.iso.datetime({ offset: true }) });

/** Body of `POST /control/markets/{id}/trade`: a trade on the market's first outcome. */
export const ControlTradeInput = z.strictObject({
  price: z.number().gt(0, 'price must be above 0').lt(1, 'price must be below 1'),
  size: z.number().positive('size must be a positive number of shares').max(1e9, 'size must be at most 1e9 shares'),
  side: z.enum(['BUY', 'SELL'], { error: 'side must be BUY or SELL' }),
});

export const ControlDisconnectInput = z.object({ refuseMs: z.number().int().min(0).max(60_000).optional() }).default({});

const FaultSeconds = z.number().min(0).max(3600);

/** Body of `POST /control/feed/stall`; 0 ends a stall. */
export const ControlStallInput = z.object({ seconds: FaultSeconds });

/** Body of `POST /control/gamma/fail`; 0 ends an outage. */
export const ControlGammaFailInput = z.object({ seconds: FaultSeconds, status: z.number().int().min(400).max(599).default(500) });

/** A scenario file: extra events added after the generated catalog. */
export const SimulatorScenario = z.object({ events: z.array(ControlEventInput).default([]) });
export type SimulatorScenario = z.infer<typeof SimulatorScenario>;

/** A scenario file (SIMULATOR_SCENARIO): extra events on top of the seeded catalog. */
export async function loadScenario(path: string | undefined): Promise<SimulatorScenario | undefined> {
  if (!path) return undefined;
  return SimulatorScenario.parse(JSON.parse(await readFile(path, 'utf8')));
}
