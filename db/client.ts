import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { MigrationMeta } from "drizzle-orm/migrator";
import { embeddedMigrations } from "./migrations/index.ts";
import * as schema from "./schema.ts";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };
/** A drizzle transaction or the database itself: services accept either. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA cache_size = -65536");
  sqlite.exec("PRAGMA temp_store = MEMORY");
  return drizzle(sqlite, { schema }) as Db;
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
