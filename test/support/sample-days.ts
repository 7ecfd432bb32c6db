import type { Db } from '../../src/db/client.js';
import { keepDays, type DayPartitionedTable } from '../../src/db/day-partitions.js';

/**
 * Makes the day partitions that rows at these instants need, for tests that store samples directly
 * (the service makes them as it writes: src/db/day-partitions.ts).
 */
export async function sampleDaysFor(on: Db, table: DayPartitionedTable, instants: readonly Date[]): Promise<void> {
  await keepDays(on, table, { days: instants.map((d) => d.getTime()), dropBeforeMs: -Infinity });
}
