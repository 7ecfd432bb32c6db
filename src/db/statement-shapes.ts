import type { Query, SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { prepared, rowsOf, type Queryable } from './client.js';

/**
 * A hot statement whose text depends on a few choices (its shape: which checks, how many
 * channels) and whose values are all placeholders (`sql.placeholder`, or `sql.param` of one with
 * its column to encode it): drizzle builds its text and parameter list once per shape, and each
 * call only fills the values in. Building it anew on every call (drizzle's `is()` walk of ~30
 * parameters, `sqlToQuery`, and the service's own SQL objects) was ~0.15 ms of a create's CPU.
 *
 * The statement still runs as every other does: the session's `prepareQuery` and `execute`, the
 * same path as `on.execute`, so the `prepared` mark routes it to a named statement (client.ts: PGlite's
 * session, or the postgres.js connection). Nothing here talks to a driver: one way
 * of running statements, as the sixth round chose (docs/PERFORMANCE.md).
 */
export class StatementShapes<Values extends Record<string, unknown>> {
  readonly #built = new Map<string, Query>();

  /**
   * @param build the statement of one shape; it must read nothing but the shape, or a call's values
   *   would be frozen into the text every later call of that shape runs.
   * @param limit shapes kept; past it the oldest is built again when next asked for.
   */
  constructor(
    private readonly build: (shape: string) => SQL,
    private readonly limit = 32,
  ) {}

  /** The rows of the statement of `shape` run with `values`, inside `on` (a transaction or not). */
  async rows<T extends Record<string, unknown>>(on: Queryable, shape: string, values: Values): Promise<T[]> {
    const query = this.#built.get(shape) ?? this.#add(shape);
    return rowsOf<T>(await on._.session.prepareQuery(query, undefined, undefined, false).execute(values));
  }

  #add(shape: string): Query {
    if (this.#built.size >= this.limit) this.#built.delete(this.#built.keys().next().value!);
    // The dialect as drizzle() makes it (no casing option, as ours): only the text and parameters.
    const { sql, params } = dialect.sqlToQuery(prepared(this.build(shape)));
    const query = { sql, params };
    this.#built.set(shape, query);
    return query;
  }
}

const dialect = new PgDialect();
