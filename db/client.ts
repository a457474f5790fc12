import { Database, type Statement } from "bun:sqlite";
import { createHash } from "node:crypto";
import { chmodSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { fillPlaceholders, getTableColumns, getTableName } from "drizzle-orm";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { MigrationMeta } from "drizzle-orm/migrator";
import { embeddedMigrations } from "./migrations/index.ts";
import * as schema from "./schema.ts";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };
/** A drizzle transaction or the database itself: services accept either. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

/**
 * SQLite's page cache of a server, in KiB; its HTTP threads divide it among their connections.
 * Small on purpose: it copies pages the OS page cache holds anyway, where reading one back costs
 * about a microsecond (pread of 4 KB), and the scattered reads of a search or a customer's
 * invoices (tens of thousands of pages at a million invoices) miss a private cache of any size
 * a server can afford. At two threads on the million-invoice benchmark, 8 MB in all answered
 * searches 5 % and the customer filter 8 % faster than 48 MB, with a peak RSS 45 MB lower
 * (about 195 MB instead of 240). The interior pages of every index still fit.
 */
export const PAGE_CACHE_KIB = 8192;

export function openDatabase(path: string, { cacheKiB = PAGE_CACHE_KIB }: { cacheKiB?: number } = {}): Db {
  if (path !== ":memory:") keepPrivate(path);
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec(`PRAGMA cache_size = -${Math.floor(cacheKiB)}`);
  sqlite.exec("PRAGMA temp_store = MEMORY");
  return drizzle(sqlite, { schema }) as Db;
}

/**
 * The database holds every organisation's data: its folder is created 0700 and its files are
 * 0600, whatever the umask. SQLite gives the -wal and -shm files the mode of the database
 * file; ones left by an older Kontor with a looser mode are tightened.
 */
function keepPrivate(path: string): void {
  const dir = dirname(path);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  closeSync(openSync(path, "a", 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  }
}

/** Applies the migrations embedded at build time, in drizzle's own bookkeeping format. */
export function migrate(db: Db): number {
  const migrations: MigrationMeta[] = embeddedMigrations.map((m) => ({
    sql: m.sql.split("--> statement-breakpoint"),
    bps: m.breakpoints,
    folderMillis: m.when,
    hash: createHash("sha256").update(m.sql).digest("hex"),
  }));
  const before = countApplied(db);
  // drizzle's sqlite dialect runs every pending migration in one transaction
  (db as any).dialect.migrate(migrations, (db as any).session, {});
  return countApplied(db) - before;
}

function countApplied(db: Db): number {
  try {
    return (db.$client.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
  } catch {
    return 0;
  }
}

/** The bun:sqlite connection under a drizzle database or transaction (they share it). */
export function clientOf(tx: Tx): Database {
  return (tx as unknown as { session: { client: Database } }).session.client;
}

const preparedByClient = new WeakMap<Database, Map<string, unknown>>();

/** Drops the connection's prepared queries, so the next use builds them again (the query-plan tests watch that). */
export function forgetPreparedQueries(client: Database): void {
  preparedByClient.delete(client);
}

/**
 * A drizzle prepared query (`….prepare()`, values as `sql.placeholder`), built once per
 * connection and reused: building a query's SQL and compiling it cost more than running it
 * on the read paths (a show spent ~80% of its time there). A query built on a transaction
 * stays valid after it: bun:sqlite statements belong to the connection, not the transaction.
 */
export function prepared<T>(tx: Tx, key: string, build: (tx: Tx) => T): T {
  const client = clientOf(tx);
  let cache = preparedByClient.get(client);
  if (!cache) preparedByClient.set(client, (cache = new Map()));
  let query = cache.get(key) as T | undefined;
  if (query === undefined) cache.set(key, (query = build(tx)));
  return query;
}

/**
 * A value that changes whenever anything may have committed: `total_changes()` moves on every
 * write of this connection, `PRAGMA data_version` on every commit of another one (the CLI, a
 * worker process). What is remembered from the database (list counts, authenticated tokens)
 * is valid only while it stays the same.
 */
export function databaseVersion(client: Database): string {
  let statement = versionStatements.get(client);
  if (!statement) {
    statement = client.prepare<{ v: string }, []>("SELECT total_changes() || ':' || (SELECT data_version FROM pragma_data_version) AS v");
    versionStatements.set(client, statement);
  }
  return statement.get()!.v;
}
const versionStatements = new WeakMap<Database, Statement<{ v: string }, []>>();

/**
 * Like databaseVersion, for use outside a transaction: a value that changes whenever anything
 * has committed, read without starting a read transaction. It is the WAL-index header at the
 * start of the `-shm` file (https://sqlite.org/walformat.html), which every commit of every
 * connection and process rewrites (its change counter, last frame and salts); every SQLite
 * version that opens the database shares that file, so its format is fixed. Reading it is one
 * pread. A read transaction takes shared-memory locks the HTTP threads contend for: with two
 * threads, databaseVersion on every request cost 12–17 µs, a sixth of a shown invoice's time
 * (bench/). Without a `-shm` (":memory:", a database not in WAL mode), and inside a
 * transaction (whose snapshot may be older than the file), it is databaseVersion.
 *
 * Read it before what it vouches for: a commit that lands between the two only makes the
 * remembered value newer than its mark, never older.
 */
export function commitMark(client: Database): string {
  let header = walIndexHeaders.get(client);
  if (header === undefined) {
    header = openWalIndexHeader(client);
    walIndexHeaders.set(client, header);
  }
  if (header === null || client.inTransaction) return databaseVersion(client);
  readSync(header.fd, header.bytes, 0, WAL_INDEX_HEADER_BYTES, 0);
  return header.bytes.toString("latin1");
}

/** The header's first copy: a writer updates the second, then this one. */
const WAL_INDEX_HEADER_BYTES = 48;
const walIndexHeaders = new WeakMap<Database, { fd: number; bytes: Buffer } | null>();
/**
 * One descriptor per `-shm` file for the life of the thread, never closed: SQLite's locks on
 * that file are POSIX locks, which belong to the process, and closing any descriptor of the
 * file drops every one of them, those of every other connection included.
 */
const walIndexFiles = new Map<string, number>();

function openWalIndexHeader(client: Database): { fd: number; bytes: Buffer } | null {
  const mode = client.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode;
  // the path SQLite itself opened: absolute, links resolved ("" for an in-memory database)
  const file = client.query<{ file: string }, []>("SELECT file FROM pragma_database_list WHERE name = 'main'").get()?.file ?? "";
  if (mode !== "wal" || file === "") return null;
  const path = `${file}-shm`;
  try {
    let fd = walIndexFiles.get(path);
    // SQLite deletes the file with the last connection of the process; a descriptor of the old
    // one holds no lock of anyone's and is closed
    if (fd !== undefined && fstatSync(fd).ino !== statSync(path).ino) {
      closeSync(fd);
      fd = undefined;
    }
    if (fd === undefined) walIndexFiles.set(path, (fd = openSync(path, "r")));
    return { fd, bytes: Buffer.alloc(WAL_INDEX_HEADER_BYTES) };
  } catch {
    return null;
  }
}

type Runner = (work: () => unknown) => unknown;
const transactionRunners = new WeakMap<Database, { deferred: Runner; immediate: Runner }>();

/**
 * Runs `work` in one transaction of the connection (a savepoint when one is open already), by
 * bun:sqlite's own wrapper: its BEGIN and COMMIT are prepared once per connection, where
 * drizzle's `transaction` compiles them on every call — a fifth of a small read's time. `work`
 * is handed the database itself: inside, every query of the connection is in the transaction.
 */
export function inTransaction<T>(db: Db, behavior: "deferred" | "immediate", work: (tx: Tx) => T): T {
  const client = db.$client;
  let runners = transactionRunners.get(client);
  if (!runners) {
    const wrapped = client.transaction((run: () => unknown) => run());
    runners = { deferred: wrapped.deferred, immediate: wrapped.immediate };
    transactionRunners.set(client, runners);
  }
  const turn = behavior === "immediate" && !client.inTransaction ? writeTurns.get(client) : undefined;
  if (!turn) return runners[behavior](() => work(db)) as T;
  while (Atomics.compareExchange(turn, 0, 0, 1) !== 0) Atomics.wait(turn, 0, 1, 100);
  try {
    return runners.immediate(() => work(db)) as T;
  } finally {
    Atomics.store(turn, 0, 0);
    Atomics.notify(turn, 0, 1);
  }
}

const writeTurns = new WeakMap<Database, Int32Array>();

/**
 * Makes the connection's write transactions take turns with those of the other connections
 * given the same `memory` (a SharedArrayBuffer of 4 bytes): the HTTP threads of one server
 * (server/serve.ts). A thread waiting for SQLite's write lock sleeps in SQLite's busy handler,
 * 1 to 100 ms at a time, and its whole event loop with it: writes from two threads waited up to
 * 700 ms. Waiting here, a thread is woken the moment the other commits. Other processes (the
 * CLI, a separate webhook worker) still meet at SQLite's lock.
 */
export function shareWriteTurns(db: Db, memory: SharedArrayBuffer): void {
  writeTurns.set(db.$client, new Int32Array(memory, 0, 1));
}

const STATISTICS_EVERY_MS = 60 * 60 * 1000;

/**
 * Keeps SQLite's planner statistics current for a long-running server: `PRAGMA optimize` at
 * start (analysing every table that has no statistics or has grown tenfold since) and hourly.
 * Without statistics the planner guesses, and on a large organisation it guesses wrong: it
 * walked every customer of the organisation to find the 20 of an invoice page, and scanned the
 * invoice index for a search instead of starting from FTS hits.
 *
 * The analysis reads whole indexes (`analysis_limit = 0`): a sample of the first rows of an
 * index that begins with organization_id sees one organisation, and the planner then believes
 * an organisation has a thousand invoices; at a million it read overdue=true through the index
 * of every invoice (400 µs a page) instead of the one of invoices awaiting payment (80 µs).
 * Exact statistics cost 8.5 s instead of 6.6 s on a cold million-invoice database, at the first
 * start and again only when a table has grown tenfold.
 */
export function keepStatisticsFresh(db: Db): () => void {
  const client = db.$client;
  client.exec("PRAGMA analysis_limit = 0");
  client.exec("PRAGMA optimize = 0x10002");
  const timer = setInterval(() => client.exec("PRAGMA optimize"), STATISTICS_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Column types whose stored value is already the value drizzle returns. */
const PLAIN_COLUMN_TYPES = new Set(["SQLiteText", "SQLiteInteger", "SQLiteReal", "SQLiteNumeric"]);

export type RowQuery<Row> = { all(values: Record<string, unknown>): Row[]; get(values: Record<string, unknown>): Row | undefined };

/**
 * Like `prepared`, for a `select().from(table)` query on a hot read path: drizzle builds the SQL
 * once, and bun:sqlite runs it and makes the row objects itself, each column aliased to its
 * property name. That halves the cost of a query that returns a few dozen rows (drizzle reads
 * arrays and maps every row in JavaScript); only columns with a mode (booleans, JSON) are
 * decoded afterwards, by the column's own decoder, so the rows are exactly drizzle's.
 */
export function preparedRows<T extends SQLiteTable>(
  tx: Tx,
  key: string,
  table: T,
  build: (tx: Tx) => { toSQL(): { sql: string; params: unknown[] } },
): RowQuery<T["$inferSelect"]> {
  return prepared(tx, `rows:${key}`, (tx) => {
    const { sql: text, params } = build(tx).toSQL();
    const columns = Object.entries(getTableColumns(table));
    const selectList = columns.map(([, column]) => `"${column.name}"`).join(", ");
    const aliased = columns.map(([property, column]) => `"${column.name}" AS "${property}"`).join(", ");
    const prefix = `select ${selectList} from "${getTableName(table)}"`;
    if (!text.startsWith(prefix)) throw new Error(`preparedRows(${key}): not a plain select of ${getTableName(table)}: ${text}`);
    const statement = clientOf(tx).prepare<T["$inferSelect"], any[]>(`select ${aliased} from "${getTableName(table)}"${text.slice(prefix.length)}`);
    const decoded = columns.filter(([, column]) => !PLAIN_COLUMN_TYPES.has(column.columnType));
    const decode = (row: Record<string, unknown>) => {
      for (const [property, column] of decoded) if (row[property] !== null) row[property] = column.mapFromDriverValue(row[property]);
      return row as T["$inferSelect"];
    };
    return {
      all: (values) => {
        const rows = statement.all(...fillPlaceholders(params, values)) as Record<string, unknown>[];
        if (decoded.length > 0) for (const row of rows) decode(row);
        return rows as T["$inferSelect"][];
      },
      get: (values) => {
        const row = statement.get(...fillPlaceholders(params, values)) as Record<string, unknown> | null;
        return row === null ? undefined : decode(row);
      },
    };
  });
}
