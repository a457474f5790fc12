/**
 * A connection to Kontor's database on PostgreSQL (`KONTOR_DATABASE_URL`): drizzle over a pool of
 * Bun's client, given the same table declarations as SQLite, and units of work that each hold one
 * pooled connection from BEGIN to COMMIT (docs/architecture.md#two-engines).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { SQL } from "bun";
import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import type { Connection, Db, Tx, UnitKind, UnitRunner } from "../types.ts";
import { useEngine } from "../engine.ts";
import { CommitMemory } from "../memory.ts";
import { OutboxSignal } from "../outbox-signal.ts";
import * as schema from "../schema.ts";
import { decodingClient, type BeginOptions, type PostgresClient } from "./client.ts";

/**
 * The key of the one advisory lock every write unit takes (`pg_advisory_xact_lock`): writes take
 * turns across every server on the database, as SQLite's writes do on one file, so what a command
 * reads before it writes (a number's counter, an invoice's status, a balance) is what it writes
 * against. Reads never wait for it.
 */
export const WRITE_LOCK_KEY = 0x4b6f6e74; // "Kont"

/** A transaction of drizzle's PostgreSQL driver, as the units see it. */
type DriverTx = { transaction<T>(work: (tx: DriverTx) => Promise<T>): Promise<T>; execute(query: unknown): Promise<unknown>; session: { client: PostgresClient } };
type DriverDb = { transaction<T>(work: (tx: DriverTx) => Promise<T>): Promise<T>; execute(query: unknown): Promise<unknown> };

/**
 * `shared` by a unit and its savepoints: `ended` once its transaction settled (a callback it left
 * behind is then no part of it); `announce` when it queued deliveries (NOTIFY with its commit).
 */
type OpenUnit = { owner: PostgresUnits; driver: DriverTx; afterCommit: (() => void)[]; shared: { ended: boolean; announce: boolean } };

/** The channel on which a commit that queued deliveries wakes the workers of every process (db/outbox-signal.ts). */
export const OUTBOX_CHANNEL = "kontor_outbox";

const current = new AsyncLocalStorage<OpenUnit>();

/**
 * Units of work on PostgreSQL: each outermost unit is a transaction on a connection of the pool;
 * a unit inside another (the same async call chain) is a savepoint of it, as on SQLite. A write
 * unit first takes the write lock; a read unit (`snapshot`) reads one committed state
 * (REPEATABLE READ) and takes no lock.
 */
class PostgresUnits implements UnitRunner {
  #db: DriverDb;
  /** what this connection's notifications carry: it wakes its own worker without them (db/outbox-signal.ts) */
  readonly origin = crypto.randomUUID();
  #connection: Connection | null = null;

  #begin: BeginOptions;

  constructor(db: DriverDb, begin: BeginOptions) {
    this.#db = db;
    this.#begin = begin;
  }

  attach(connection: Connection): void {
    this.#connection = connection;
  }

  /** The unit of this connection the running code belongs to, if it is still open. */
  #open(): OpenUnit | undefined {
    const open = current.getStore();
    return open?.owner === this && !open.shared.ended ? open : undefined;
  }

  get inUnit(): boolean {
    return this.#open() !== undefined;
  }

  /** The transaction of the unit the running code belongs to, if one is open. */
  openTransaction(): DriverTx | undefined {
    return this.#open()?.driver;
  }

  afterCommit(effect: () => void): void {
    const open = this.#open();
    if (open) open.afterCommit.push(effect);
    else queueMicrotask(effect);
  }

  /** Writes take turns through the database's lock (`WRITE_LOCK_KEY`), across threads and servers alike. */
  shareWriteTurns(): void {}

  /** The open unit queued deliveries: it notifies the other processes' workers as it commits. */
  announce(): void {
    const open = this.#open();
    if (open) open.shared.announce = true;
  }

  #asTx(driver: DriverTx): Tx {
    return Object.assign(driver, { connection: this.#connection!, $client: driver.session.client }) as unknown as Tx;
  }

  async run<T>(kind: UnitKind, work: (tx: Tx) => T | Promise<T>): Promise<T> {
    const open = this.#open();
    if (open) {
      return open.driver.transaction((driver) => current.run({ ...open, driver }, async () => work(this.#asTx(driver))));
    }
    const effects: (() => void)[] = [];
    const shared = { ended: false, announce: false };
    try {
      // a read is one state from its first statement on: said with its BEGIN, which saves a round trip
      this.#begin.next = kind === "immediate" ? undefined : "ISOLATION LEVEL REPEATABLE READ";
      let transaction: Promise<T>;
      try {
        transaction = this.#db.transaction(async (driver) => {
          if (kind === "immediate") await driver.execute(sql`SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`);
          const result = await current.run({ owner: this, driver, afterCommit: effects, shared }, async () => work(this.#asTx(driver)));
          // delivered by PostgreSQL with the commit, and not at all after a rollback
          if (shared.announce) await driver.execute(sql`SELECT pg_notify(${OUTBOX_CHANNEL}, ${this.origin})`);
          return result;
        });
      } finally {
        // read by `begin` at once, synchronously: the next unit's BEGIN is its own
        this.#begin.next = undefined;
      }
      return await transaction;
    } finally {
      shared.ended = true;
      for (const effect of effects) effect();
    }
  }

  runAtStart<T>(work: (tx: Tx) => T | Promise<T>): Promise<T> {
    return this.run("immediate", work);
  }
}

function poolSize(): number {
  const value = Number(process.env.KONTOR_DATABASE_POOL ?? POOL_SIZE);
  return Number.isInteger(value) && value >= 1 && value <= 100 ? value : POOL_SIZE;
}

/** PostgreSQL's commits (another server's too) are not visible to a connection without asking: every mark is new, and the connection's memory remembers nothing. */
class NoChangeClock {
  #n = 0;
  mark(): string {
    return `pg:${++this.#n}`;
  }
}

/**
 * Connections each thread of a process opens at most (KONTOR_DATABASE_POOL): a unit of work holds
 * one while it runs. A server opens up to (KONTOR_HTTP_THREADS + 1) × this, a worker or a command
 * this many (docs/operations.md#running-on-postgresql).
 */
export const POOL_SIZE = 4;

/** What a query on the connection reaches for: inside a unit, its transaction's instead. */
const IN_UNIT = new Set(["select", "selectDistinct", "selectDistinctOn", "insert", "update", "delete", "execute", "with", "$with", "$count", "query", "$client"]);

export function openPostgres(url: string, { max = poolSize() }: { max?: number } = {}): Db {
  useEngine("postgres");
  const pool = new SQL(url, { max, idleTimeout: 30, connectionTimeout: 10 });
  const begin: BeginOptions = { next: undefined };
  const client = decodingClient(pool, begin);
  const db = drizzle({ client: client as unknown as SQL, schema });
  const units = new PostgresUnits(db as unknown as DriverDb, begin);
  const clock = new NoChangeClock();
  const connection: Connection = {
    engine: "postgres",
    clock,
    statements: new Map(),
    transactions: units,
    memory: new CommitMemory(clock, { enabled: false }),
    outbox: new OutboxSignal((effect) => units.afterCommit(effect), {
      announce: () => units.announce(),
      // one connection of its own, reconnected by the client when it drops
      listen: async (wake) => {
        const subscription = await pool.listen(OUTBOX_CHANNEL, (origin) => {
          if (origin !== units.origin) wake();
        });
        return () => subscription.unlisten();
      },
    }),
    close: () => pool.close({ timeout: 5 }),
    clientNow: () => units.openTransaction()?.session.client ?? client,
  };
  units.attach(connection);
  Object.assign(db, { $client: client, connection });
  // A query on the connection itself (`db`, not the unit's `tx`) made inside a unit runs in that
  // unit's transaction, as on SQLite, whose one connection is the unit's: not on another pooled
  // connection, which would not see what the unit wrote and could wait for the unit's own lock.
  return new Proxy(db, {
    get(target, property, receiver) {
      if (typeof property === "string" && IN_UNIT.has(property)) {
        const open = units.openTransaction();
        if (open) {
          if (property === "$client") return open.session.client;
          const value = (open as unknown as Record<string, unknown>)[property];
          return typeof value === "function" ? value.bind(open) : value;
        }
      }
      return Reflect.get(target, property, receiver);
    },
  }) as unknown as Db;
}
