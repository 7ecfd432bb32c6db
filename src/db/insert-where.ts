import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

/**
 * `insert into <table> (...) select <row> where <condition>`: the row only when the condition
 * holds, inside a larger statement. Each value is encoded as drizzle's own insert encodes it (its
 * column's mapping) and cast to its column's type, which `select` (unlike `values`) does not infer.
 * Columns left undefined take their defaults.
 */
export function insertWhere<T extends PgTable>(table: T, row: { [K in keyof T['$inferInsert']]?: T['$inferInsert'][K] }, condition: SQL): SQL {
  const columns = getTableColumns(table);
  const names: SQL[] = [];
  const values: SQL[] = [];
  for (const [key, value] of Object.entries(row)) {
    const column = columns[key];
    if (!column) throw new Error(`insertWhere: no column ${key}`);
    if (value === undefined) continue;
    names.push(sql`${sql.identifier(column.name)}`);
    values.push(sql`${sql.param(value, column)}::${sql.raw(column.getSQLType())}`);
  }
  return sql`insert into ${table} (${sql.join(names, sql`, `)}) select ${sql.join(values, sql`, `)} where ${condition}`;
}
