/**
 * A connection to Kontor's database: the drizzle database over one bun:sqlite connection, with
 * what belongs to that connection alone in `connection` (its change clock, statement cache,
 * transactions and write turns, what it remembers until anything commits, and the outbox signal
 * it moves). Each HTTP
 * thread, the CLI and every test opens its own (server/runtime.ts).
 */
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { MigrationMeta } from "drizzle-orm/migrator";
import { eq } from "drizzle-orm";
import { backupDatabase, compactUtc, searchTables, type BackupResult } from "./backup.ts";
import { ChangeClock } from "./clock.ts";
import { CommitMemory } from "./memory.ts";
import { embeddedMigrations } from "./migrations/index.ts";
import { OutboxSignal } from "./outbox-signal.ts";
import * as schema from "./schema.ts";
import { pendingBackfills } from "./schema.ts";
import { Transactions } from "./transactions.ts";
import { firstRow } from "./rows.ts";
import { migratePostgres } from "./postgres/migrate.ts";

export type { Connection, Db, Tx, UnitRunner } from "./types.ts";
import type { Connection, Db, Tx } from "./types.ts";

/**
 * SQLite's page cache of a server, in KiB; its HTTP threads divide it among their connections.
 * Small on purpose: it copies pages the OS page cache holds anyway, where reading one back is a
 * cheap pread, and the scattered reads of a search or a customer's invoices (tens of thousands
 * of pages at a million invoices) miss a private cache of any size a server can afford. On the
 * million-invoice benchmark a larger cache made those reads no faster, only the server bigger
 * (docs/performance.md has the figures). The interior pages of every index still fit.
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
  const clock = new ChangeClock(sqlite);
  const transactions = new Transactions(sqlite);
  const connection: Connection = {
    engine: "sqlite",
    clock,
    statements: new Map(),
    transactions,
    memory: new CommitMemory(clock),
    outbox: new OutboxSignal((effect) => transactions.afterCommit(effect)),
    close: () => sqlite.close(),
  };
  const db = Object.assign(drizzle(sqlite, { schema }), { $client: sqlite, connection });
  transactions.attach(db as Tx);
  return db;
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

/** A database that a newer Kontor has migrated: this one refuses it, and leaves it untouched. */
export class DatabaseTooNew extends Error {}

/**
 * The data migrations a SQL migration can ask for by name (a row in pending_backfills), given by
 * the features that own the data (server/data-migrations.ts): db/ knows no posting rule.
 */
export type DataMigrations = Readonly<Record<string, (tx: Tx, notice: (text: string) => void) => void | Promise<void>>>;

export type MigrateOptions = {
  /** every data migration a SQL migration of this build may queue */
  dataMigrations: DataMigrations;
  /** where the backup taken before an upgrade goes (KONTOR_BACKUP_DIR); default: beside the database */
  backupDir?: string | null;
  onBackup?: (backup: BackupResult) => void;
  /** what a data migration reports for the operator (a case it left as it was), one line each: the upgrade's output */
  onNotice?: (text: string) => void;
};

/**
 * Applies the migrations embedded at build time, in drizzle's own bookkeeping format.
 *
 * Before anything is written:
 * - a database holding a migration this build does not know (by its time stamp, as drizzle
 *   orders them) was made by a newer Kontor: DatabaseTooNew. drizzle alone would see nothing
 *   newer to apply and carry on, with code that does not know the schema it writes to.
 * - a database holding some migrations but not all (an older Kontor's) is backed up first
 *   (db/backup.ts), so a failed or regretted upgrade can be undone with `kontor restore`.
 */
export async function migrate(db: Db, { dataMigrations, backupDir = null, onBackup, onNotice }: MigrateOptions): Promise<number> {
  if (db.connection.engine === "postgres") {
    const applied = await migratePostgres(db, (unknown) => {
      throw new DatabaseTooNew(
        `the PostgreSQL database was migrated by a newer Kontor: it holds ${unknown.length} migration(s) this version does not know (${unknown.join(", ")}). ` +
          `Nothing was changed. Run the Kontor that migrated it.`,
      );
    });
    await runDataMigrations(db, dataMigrations, onNotice ?? (() => {}));
    return applied;
  }
  const migrations: MigrationMeta[] = embeddedMigrations.map((m) => ({
    sql: m.sql.split("--> statement-breakpoint"),
    bps: m.breakpoints,
    folderMillis: m.when,
    hash: createHash("sha256").update(m.sql).digest("hex"),
  }));
  refuseNewer(db.$client);
  const applied = appliedMigrations(db.$client);
  const last = Math.max(0, ...applied.map((m) => m.created_at));
  const pending = embeddedMigrations.filter((m) => m.when > last);
  const file = db.$client.filename;
  if (applied.length > 0 && pending.length > 0 && file !== ":memory:" && file !== "") {
    const from = embeddedMigrations.find((m) => m.when === last)?.tag.slice(0, 4) ?? "none";
    const name = `${basename(file)}.before-upgrade-${from}-to-${pending.at(-1)!.tag.slice(0, 4)}-${compactUtc(new Date())}.db`;
    onBackup?.(backupDatabase(db.$client, join(backupDir ?? dirname(file), name)));
  }
  // drizzle's sqlite dialect runs every pending migration in one transaction
  (db as any).dialect.migrate(migrations, (db as any).session, {});
  await runDataMigrations(db, dataMigrations, onNotice ?? (() => {}));
  if (applied.length > 0 && pending.length > 0) {
    // 0001 made the search tables without indexing the rows already there: a database from
    // before it found none of its old customers, suppliers or expenses. Rebuilt after every
    // upgrade, the search indexes hold every row whatever the migrations did.
    for (const table of searchTables(db.$client)) db.$client.run(`INSERT INTO "${table}"("${table}") VALUES ('rebuild')`);
  }
  return appliedMigrations(db.$client).length - applied.length;
}

/** DatabaseTooNew when `client`'s database holds a migration this build does not know. */
export function refuseNewer(client: Database): void {
  const known = new Set(embeddedMigrations.map((m) => m.when));
  const unknown = appliedMigrations(client).filter((m) => !known.has(m.created_at));
  if (unknown.length === 0) return;
  const newest = new Date(Math.max(...unknown.map((m) => m.created_at))).toISOString();
  throw new DatabaseTooNew(
    `the database ${client.filename} was written by a newer Kontor: it holds ${unknown.length} migration(s) this version does not know (the newest from ${newest}). ` +
      `Nothing was changed. Run the Kontor that wrote it, or restore a backup taken before that upgrade (kontor restore).`,
  );
}

function appliedMigrations(client: Database): { hash: string; created_at: number }[] {
  const table = client.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!table) return [];
  return (client.query("SELECT hash, created_at FROM __drizzle_migrations").all() as { hash: string; created_at: number | string }[]).map(
    (m) => ({ hash: m.hash, created_at: Number(m.created_at) }),
  );
}

/**
 * Data migrations a SQL migration asked for (a row in pending_backfills): each runs in one
 * transaction that also removes its row, so a crash leaves it for the next start.
 */
async function runDataMigrations(db: Db, dataMigrations: DataMigrations, onNotice: (text: string) => void): Promise<void> {
  for (const { name } of (await db.select().from(pendingBackfills))) {
    const backfill = dataMigrations[name];
    if (!backfill) throw new Error(`this Kontor does not know the data migration "${name}" the database asks for: is it older than the database?`);
    const notices: string[] = [];
    await db.connection.transactions.runAtStart(async (tx) => {
      // claimed inside the write lock: a second process that saw the row too finds it gone
      const claimed = await firstRow(tx.delete(pendingBackfills).where(eq(pendingBackfills.name, name)).returning());
      if (claimed) await backfill(tx, (text) => notices.push(text));
    });
    // told once the migration committed (a rolled-back one tells nothing; the next start runs it again)
    notices.forEach(onNotice);
  }
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
 * of every invoice instead of the much smaller one of invoices awaiting payment. Exact
 * statistics take somewhat longer to gather, at the first start and again only when a table
 * has grown tenfold.
 */
export function keepStatisticsFresh(db: Db): () => void {
  // PostgreSQL's autovacuum analyses tables as they change
  if (db.connection.engine === "postgres") return () => {};
  const client = db.$client;
  client.exec("PRAGMA analysis_limit = 0");
  client.exec("PRAGMA optimize = 0x10002");
  const timer = setInterval(() => client.exec("PRAGMA optimize"), STATISTICS_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

