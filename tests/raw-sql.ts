/**
 * Raw SQL for a test that arranges or reads rows directly, on either engine (the suite runs on
 * SQLite, and on PostgreSQL with KONTOR_TEST_DATABASE_URL): `?` placeholders, awaited. A test of
 * what only SQLite has (its file, its WAL, an upgrade from an old SQLite database) says so with
 * `sqliteOnly`.
 */
import { describe, test } from "bun:test";
import { preparedSql, type Db } from "../db/client.ts";
import { asTx } from "./helpers.ts";
import { TEST_DATABASE_URL } from "./postgres-database.ts";

/** Whether the suite runs on PostgreSQL. */
export const onPostgres = TEST_DATABASE_URL !== null;

/** `describe`/`test` for what SQLite alone has: skipped on PostgreSQL. */
export const sqliteOnly = { describe: describe.skipIf(onPostgres), test: test.skipIf(onPostgres) };

/** Raw SQL on `db`: every row, the first, or run for its effect. */
export function rawSql(db: Db) {
  const statement = <Row>(text: string) => preparedSql<Row, unknown[]>(asTx(db), `test: ${text}`, text);
  return {
    all: <Row = any>(text: string, ...params: unknown[]) => statement<Row>(text).all(...params),
    get: <Row = any>(text: string, ...params: unknown[]) => statement<Row>(text).get(...params),
    run: (text: string, ...params: unknown[]) => statement<never>(text).run(...params),
  };
}
