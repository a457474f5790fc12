/**
 * The connection's statement cache: queries built once per connection and query shape, with
 * their values as placeholders.
 */
import { fillPlaceholders, getTableColumns, getTableName, type SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Tx } from "./types.ts";
import type { PostgresClient } from "./postgres/client.ts";
import { postgresSql } from "./postgres/sql.ts";

/** On PostgreSQL, the client of the unit running now (Connection.clientNow): what a statement kept across units runs on. */
const postgresNow = (tx: Tx) => tx.connection.clientNow!() as PostgresClient;
const onPostgres = (tx: Tx) => tx.connection.engine === "postgres";

/**
 * A drizzle prepared query (`….prepare()`, values as `sql.placeholder`), built once per
 * connection and reused: on the read paths, building a query's SQL and compiling it cost more
 * than running it. A query built on a transaction stays valid after it: bun:sqlite statements
 * belong to the connection, not the transaction.
 */
export function prepared<T>(tx: Tx, key: string, build: (tx: Tx) => T): T {
  // on PostgreSQL a drizzle query is built on the unit's pooled connection, and belongs to it
  if (onPostgres(tx)) return build(tx);
  return kept(tx, key, build);
}

/**
 * A statement whose SQL is rendered once (`tableRows`, `plainRows`, raw SQL), kept by the
 * connection under `key` on both engines: on PostgreSQL it runs on the client of the unit
 * running now (`postgresNow`), so one rendering serves every unit.
 */
export function kept<T>(tx: Tx, key: string, build: (tx: Tx) => T): T {
  const cache = tx.connection.statements;
  let query = cache.get(key) as T | undefined;
  if (query === undefined) cache.set(key, (query = build(tx)));
  return query;
}

/** A query drizzle can render: a select built on a database or by drizzle's `QueryBuilder`. */
export type RenderableQuery = { toSQL(): { sql: string; params: unknown[] } };

/** Column types whose stored value is already the value drizzle returns. */
const PLAIN_COLUMN_TYPES = new Set(["SQLiteText", "SQLiteInteger", "SQLiteReal", "SQLiteNumeric"]);

/** A prepared query, run with its placeholders' values: every row, or the first (undefined when none). Awaited like any query. */
export type RowQuery<Row> = { all(values: Record<string, unknown>): Promise<Row[]>; get(values: Record<string, unknown>): Promise<Row | undefined> };

/** What drizzle's `….prepare()` gives: on SQLite, runs with placeholders' values synchronously; on PostgreSQL, `execute` resolves to its rows. */
type DriverPrepared<Row> = { all(values?: Record<string, unknown>): Row[]; get(values?: Record<string, unknown>): Row | undefined };
type PostgresPrepared<Row> = { execute(values?: Record<string, unknown>): Promise<Row[]> };

/**
 * Like `prepared`, for a drizzle query prepared once per connection (`build` ends in
 * `.prepare()`), its values as `sql.placeholder`s: the rows as drizzle makes them, awaited.
 */
export function preparedQuery<Row>(tx: Tx, key: string, build: (tx: Tx) => DriverPrepared<Row>): RowQuery<Row> {
  return prepared(tx, `query:${key}`, (tx) => {
    const query = build(tx);
    if (onPostgres(tx)) {
      const execute = (values: Record<string, unknown>) => (query as unknown as PostgresPrepared<Row>).execute(values);
      return { all: execute, get: async (values) => (await execute(values))[0] };
    }
    return {
      all: async (values) => query.all(values),
      get: async (values) => query.get(values),
    };
  });
}

/**
 * Like `prepared`, for a `select().from(table)` query on a hot read path: drizzle builds the SQL
 * once, and bun:sqlite runs it and makes the row objects itself (see `tableRows`).
 */
export function preparedRows<T extends SQLiteTable>(
  tx: Tx,
  key: string,
  table: T,
  build: (tx: Tx) => RenderableQuery,
): RowQuery<T["$inferSelect"]> {
  // kept on both engines: its SQL is rendered once and runs on the unit of the moment
  return kept(tx, `rows:${key}`, (tx) => tableRows(tx, table, build(tx)));
}

/**
 * A `select().from(table)` query as a bun:sqlite statement (compiled now, kept by no one: see
 * `preparedRows`) that makes the row objects itself, each column aliased to its property name,
 * where drizzle reads arrays and maps every row in JavaScript. Only columns with a mode
 * (booleans, JSON) are decoded afterwards, by the column's own decoder, so the rows are exactly
 * drizzle's (tests/db/prepared-rows.test.ts holds it to that for every table). Values missing from
 * the query are its placeholders, given at each run.
 */
export function tableRows<T extends SQLiteTable>(tx: Tx, table: T, query: RenderableQuery): RowQuery<T["$inferSelect"]> {
  const { sql: text, params } = query.toSQL();
  const columns = Object.entries(getTableColumns(table));
  const selectList = columns.map(([, column]) => `"${column.name}"`).join(", ");
  const aliased = columns.map(([property, column]) => `"${column.name}" AS "${property}"`).join(", ");
  const prefix = `select ${selectList} from "${getTableName(table)}"`;
  if (!text.startsWith(prefix)) throw new Error(`not a plain select of ${getTableName(table)}: ${text}`);
  const aliasedText = `select ${aliased} from "${getTableName(table)}"${text.slice(prefix.length)}`;
  const decoded = columns.filter(([, column]) => !PLAIN_COLUMN_TYPES.has(column.columnType));
  const decode = (row: Record<string, unknown>) => {
    for (const [property, column] of decoded) if (row[property] !== null) row[property] = column.mapFromDriverValue(row[property]);
    return row as T["$inferSelect"];
  };
  if (onPostgres(tx)) {
    const pgText = postgresSql(aliasedText);
    const run = async (values: Record<string, unknown>) => {
      const rows = (await postgresNow(tx).unsafe(pgText, fillPlaceholders(params, values))) as Record<string, unknown>[];
      if (decoded.length > 0) for (const row of rows) decode(row);
      return rows as T["$inferSelect"][];
    };
    return { all: run, get: async (values) => (await run(values))[0] };
  }
  const statement = tx.$client.prepare<T["$inferSelect"], any[]>(aliasedText);
  return {
    all: async (values) => {
      const rows = statement.all(...fillPlaceholders(params, values)) as Record<string, unknown>[];
      if (decoded.length > 0) for (const row of rows) decode(row);
      return rows as T["$inferSelect"][];
    },
    get: async (values) => {
      const row = statement.get(...fillPlaceholders(params, values)) as Record<string, unknown> | null;
      return row === null ? undefined : decode(row);
    },
  };
}

/**
 * A query as a bun:sqlite statement whose rows are what SQLite returns, under the names the
 * query gives its columns (`count(*) as "n"`): for aggregates and ids, nothing to decode.
 */
export function plainRows<Row>(tx: Tx, query: RenderableQuery): RowQuery<Row> {
  const { sql: text, params } = query.toSQL();
  if (onPostgres(tx)) {
    const pgText = postgresSql(text);
    const run = async (values: Record<string, unknown>) => (await postgresNow(tx).unsafe(pgText, fillPlaceholders(params, values))) as Row[];
    return { all: run, get: async (values) => (await run(values))[0] };
  }
  const statement = tx.$client.prepare<Row, any[]>(text);
  return {
    all: async (values) => statement.all(...fillPlaceholders(params, values)),
    get: async (values) => statement.get(...fillPlaceholders(params, values)) ?? undefined,
  };
}

/** A statement of raw SQL with positional parameters (`?1`, `?2`): every row, the first, or run for its effect; awaited like any query. */
export type SqlStatement<Row, Params extends unknown[]> = {
  all(...params: Params): Promise<Row[]>;
  get(...params: Params): Promise<Row | undefined>;
  run(...params: Params): Promise<void>;
};

/**
 * Raw SQL prepared once per connection, for what drizzle's builder would cost more to build
 * than to run (the ledger's inserts and counters, the fiscal calendar). SQLite's SQL: the few
 * statements written for one engine are these.
 */
export function preparedSql<Row, Params extends unknown[]>(tx: Tx, key: string, text: string): SqlStatement<Row, Params> {
  return kept(tx, `sql:${key}`, (tx) => {
    if (onPostgres(tx)) {
      const pgText = postgresSql(text);
      const run = async (params: unknown[]) => (await postgresNow(tx).unsafe(pgText, params)) as Row[];
      return { all: (...params) => run(params), get: async (...params) => (await run(params))[0], run: async (...params) => void (await run(params)) };
    }
    const statement = tx.$client.prepare<Row, any[]>(text);
    return {
      all: async (...params) => statement.all(...params),
      get: async (...params) => statement.get(...params) ?? undefined,
      run: async (...params) => void statement.run(...params),
    };
  });
}

/** The rows of a query written as SQL (`sql\`…\``), awaited like any query. */
export async function sqlRows<Row>(tx: Tx, query: SQL): Promise<Row[]> {
  if (onPostgres(tx)) return (await (tx as unknown as { execute(q: SQL): Promise<Row[]> }).execute(query)) as Row[];
  return tx.all<Row>(query);
}

/** Runs a statement written as SQL (`sql\`…\``) for its effect, awaited like any query. */
export async function runSql(tx: Tx, query: SQL): Promise<void> {
  if (onPostgres(tx)) await (tx as unknown as { execute(q: SQL): Promise<unknown> }).execute(query);
  else tx.run(query);
}

