import type { Queryable } from '../../src/db/client.js';
import { keepDays, type DayPartitionedTable } from '../../src/db/day-partitions.js';

/**
 * Makes the day partitions that rows at these instants need, for tests that store samples directly
 * (the service makes them as it writes: src/db/day-partitions.ts).
 */
export async function sampleDaysFor(on: Queryable, table: DayPartitionedTable, instants: readonly Date[]): Promise<void> {
  const ms = instants.map((d) => d.getTime());
  await keepDays(on, table, { fromMs: Math.min(...ms), toMs: Math.max(...ms), dropBeforeMs: -Infinity });
}
