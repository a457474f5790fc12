/**
 * The SQL Kontor writes per engine, in one place: each helper renders SQLite's spelling or
 * PostgreSQL's (db/engine.ts chooses when the query is rendered). Full-text search is in
 * db/search.ts; the triggers in the migrations (SQLite) and db/postgres/baseline.ts.
 */
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { perEngine } from "./engine.ts";

/** `value IN` the strings of a JSON array (a parameter such as `["c_1","c_2"]`). */
export const inJsonArray = (value: SQLWrapper, array: SQLWrapper): SQLWrapper =>
  perEngine({
    sqlite: () => sql`${value} IN (SELECT value FROM json_each(${array}))`,
    postgres: () => sql`${value} IN (SELECT jsonb_array_elements_text(CAST(CAST(${array} AS text) AS jsonb)))`,
  });

/** The values of a group as a JSON array text (`[]` when none). */
export const jsonArrayOf = (value: SQLWrapper): SQL<string> =>
  sql<string>`${perEngine({
    sqlite: () => sql`json_group_array(${value})`,
    postgres: () => sql`coalesce(json_agg(${value})::text, '[]')`,
  })}`;

/** The whole days between two ISO dates (`YYYY-MM-DD`), without sign. */
export const daysApart = (a: SQLWrapper, b: SQLWrapper): SQLWrapper =>
  perEngine({
    sqlite: () => sql`abs(julianday(${a}) - julianday(${b}))`,
    postgres: () => sql`abs(CAST(${a} AS date) - CAST(${b} AS date))`,
  });

/** The text of `key` in a JSON object column (its metadata). */
export const jsonText = (column: SQLWrapper, key: SQLWrapper): SQLWrapper =>
  perEngine({
    sqlite: () => sql`(${column} ->> ${key})`,
    postgres: () => sql`(CAST(${column} AS jsonb) ->> CAST(${key} AS text))`,
  });

/** The larger of two values (SQLite's two-argument max). */
export const larger = (a: SQLWrapper, b: SQLWrapper): SQLWrapper =>
  perEngine({
    sqlite: () => sql`max(${a}, ${b})`,
    postgres: () => sql`greatest(${a}, ${b})`,
  });

/** A value lower-cased as SQLite's lower() does it, ASCII letters only (as a text column's own `lower(…)` on PostgreSQL, whose collation is "C"). */
export const lowerAscii = (value: SQLWrapper): SQLWrapper =>
  perEngine({
    sqlite: () => sql`lower(${value})`,
    postgres: () => sql`lower(CAST(${value} AS text) COLLATE "C")`,
  });

/** A condition that holds for no row. */
export const noRow: SQL = sql`1 = 0`;

/** What identifies a row of `table` in its indexes: SQLite's rowid, PostgreSQL's primary key. */
export const rowKey = (table: SQLiteTable): SQLWrapper =>
  perEngine({
    sqlite: () => sql`${table}.rowid`,
    postgres: () => sql`${table}."id"`,
  });

/**
 * A column compared without its index (SQLite's unary `+`, a hint to its planner where an index
 * on the column would be the slower path); PostgreSQL's planner decides by its statistics.
 */
export const unindexed = (column: SQLWrapper): SQLWrapper =>
  perEngine({
    sqlite: () => sql`+${column}`,
    postgres: () => sql`${column}`,
  });
