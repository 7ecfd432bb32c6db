import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

type Key<T extends PgTable> = keyof T['$inferInsert'] & string;

/**
 * `insert into <table> (...) select <row> where <condition>`: the row only when the condition
 * holds, inside a larger statement. Each column's value is the placeholder of its key (the
 * statement is built once per shape, statement-shapes.ts; `encodedRow` gives the values), cast to
 * its column's type, which `select` (unlike `values`) does not infer. Columns not named take their
 * defaults.
 */
export function insertWhere<T extends PgTable>(table: T, keys: readonly Key<T>[], condition: SQL): SQL {
  const columns = getTableColumns(table);
  const names: SQL[] = [];
  const values: SQL[] = [];
  for (const key of keys) {
    const column = columns[key];
    if (!column) throw new Error(`insertWhere: no column ${key}`);
    names.push(sql`${sql.identifier(column.name)}`);
    values.push(sql`${sql.placeholder(key)}::${sql.raw(column.getSQLType())}`);
  }
  return sql`insert into ${table} (${sql.join(names, sql`, `)}) select ${sql.join(values, sql`, `)} where ${condition}`;
}

/**
 * The values of `insertWhere`'s placeholders: each encoded as drizzle's own insert encodes it (its
 * column's mapping; null stays null, as drizzle leaves it), by key.
 */
export function encodedRow<T extends PgTable, K extends Key<T>>(table: T, keys: readonly K[], row: { [P in K]: T['$inferInsert'][P] | null }): Record<string, unknown> {
  const columns = getTableColumns(table);
  const values: Record<string, unknown> = {};
  for (const key of keys) {
    const value = row[key];
    values[key] = value === null || value === undefined ? null : columns[key]!.mapToDriverValue(value);
  }
  return values;
}
