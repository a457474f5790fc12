/** Kontor's database layer: connections, transactions, prepared statements. */
export { keepStatisticsFresh, migrate, type DataMigrations, type MigrateOptions, openDatabase, PAGE_CACHE_KIB, type Connection, type Db, type Tx } from "./connection.ts";
export { plainRows, prepared, preparedRows, tableRows, type RenderableQuery, type RowQuery } from "./statements.ts";
import type { Db, Tx } from "./connection.ts";

/**
 * Runs `work` in one transaction of the connection (a savepoint when one is open already). `work`
 * is handed the database itself: inside, every query of the connection is in the transaction.
 */
export function inTransaction<T>(db: Db, behavior: "deferred" | "immediate", work: (tx: Tx) => T): T {
  return db.connection.transactions.run(behavior, () => work(db));
}
