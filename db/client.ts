/** Kontor's database layer: connections, units of work, prepared statements. */
export { keepStatisticsFresh, migrate, type DataMigrations, type MigrateOptions, openDatabase, PAGE_CACHE_KIB, type Connection, type Db, type Tx } from "./connection.ts";
export { firstRow } from "./rows.ts";
export { kept, plainRows, runSql, sqlRows, prepared, preparedQuery, preparedRows, preparedSql, type SqlStatement, tableRows, type RenderableQuery, type RowQuery } from "./statements.ts";
import type { Db, Tx } from "./connection.ts";

/**
 * Runs a command: `work` in one write transaction, committed when it resolves and rolled back
 * when it throws (inside another unit of the connection, a savepoint of it). Units of one
 * connection take turns; `work` does no outside I/O (no HTTP, no mail, no files): what it
 * decides to send goes to the outbox, which sends after the commit
 * (docs/architecture.md#units-of-work).
 */
export function unitOfWork<T>(db: Db, work: (tx: Tx) => T | Promise<T>): Promise<T> {
  return db.connection.transactions.run("immediate", work);
}

/**
 * Runs reads in one read transaction: every statement sees the same committed state (a page
 * and its total, an invoice and its lines, whatever another process commits meanwhile), and
 * SQLite takes its WAL read lock once instead of once per statement. A unit of work like any
 * other: it waits for the connection's turn.
 */
export function snapshot<T>(db: Db, work: (tx: Tx) => T | Promise<T>): Promise<T> {
  return db.connection.transactions.run("deferred", work);
}

/**
 * A read of one statement (`work` makes one query): one statement sees one committed state by
 * itself. On PostgreSQL outside a unit it runs alone on a pooled connection, without the
 * BEGIN and COMMIT a snapshot costs (two round trips of three); on SQLite, and inside a unit, it
 * is a snapshot, which takes the connection's turn (a read between another unit's statements
 * on SQLite's one connection would see what that unit has not committed).
 */
export function singleRead<T>(db: Db, work: (tx: Tx) => T | Promise<T>): Promise<T> {
  if (db.connection.engine === "postgres" && !db.connection.transactions.inUnit) return (async () => await work(db as Tx))();
  return snapshot(db, work);
}
