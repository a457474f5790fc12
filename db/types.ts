/**
 * The types every module of db/ shares: a connection (`Db`), a unit's transaction (`Tx`), and how
 * each engine runs units (`UnitRunner`: db/transactions.ts on SQLite, db/postgres/connection.ts).
 */
import type { Database } from "bun:sqlite";
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { ChangeClock } from "./clock.ts";
import type { Engine } from "./engine.ts";
import type { CommitMemory } from "./memory.ts";
import type { OutboxSignal } from "./outbox-signal.ts";
import type * as schema from "./schema.ts";

/** deferred: a read snapshot (SQLite takes the write lock at the first write); immediate: a write. */
export type UnitKind = "deferred" | "immediate";

/**
 * How a connection runs units of work (db/transactions.ts on SQLite, db/postgres/connection.ts on
 * PostgreSQL): `run` hands `work` the unit's transaction.
 */
export interface UnitRunner {
  run<T>(kind: UnitKind, work: (tx: Tx) => T | Promise<T>): Promise<T>;
  runAtStart<T>(work: (tx: Tx) => T | Promise<T>): Promise<T>;
  afterCommit(effect: () => void): void;
  readonly inUnit: boolean;
  shareWriteTurns(memory: SharedArrayBuffer): void;
}

export type Connection = {
  readonly engine: Engine;
  /** changes whenever anything may have committed (ChangeClock.mark) */
  readonly clock: Pick<ChangeClock, "mark">;
  /** prepared queries by key (db/statements.ts) */
  readonly statements: Map<string, unknown>;
  readonly transactions: UnitRunner;
  /** what lists remember until anything commits (server/lib/list.ts) */
  readonly memory: CommitMemory;
  /** wakes the webhook worker once deliveries this connection queued have committed */
  readonly outbox: OutboxSignal;
  /** closes the connection (on PostgreSQL, the pool) */
  readonly close: () => void | Promise<void>;
  /**
   * PostgreSQL: the client a statement runs on now, that of the unit the running code belongs to
   * (its transaction, or its savepoint), else the pool's; what lets a statement rendered once serve
   * every unit (db/statements.ts)
   */
  readonly clientNow?: () => unknown;
};

export type Db = BunSQLiteDatabase<typeof schema> & { readonly $client: Database; readonly connection: Connection };
/** Inside a transaction: the database itself (every query of the connection is in it). */
declare const inUnit: unique symbol;
export type Tx = Db & { readonly [inUnit]: true };
