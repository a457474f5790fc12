/**
 * Upgrade tests of a data migration: the rows a test made through the API, copied as stored into
 * a database of the migrations before the one under test, then upgraded and served again.
 */
import type { Database } from "bun:sqlite";
import { expect } from "bun:test";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { openDatabase } from "../db/client.ts";
import { embeddedMigrations } from "../db/migrations/index.ts";
import { createApp } from "../server/app.ts";
import { loadConfig } from "../server/config.ts";
import { migrateDatabase } from "../server/data-migrations.ts";
import { silentLogger } from "../server/log.ts";
import { createRuntime } from "../server/runtime.ts";
import type { TestEnv } from "./helpers.ts";
import { onPostgres } from "./raw-sql.ts";

/**
 * A database at `path` migrated up to (not including) the migration whose tag starts with
 * `before`, holding a copy of every row of `env`'s database: copied without the triggers, which
 * would post, count and index every row again; the search indexes rebuilt from the rows; no data
 * migration queued (they ran in the copied database). The test then makes the rows look as the
 * earlier Kontor left them, and closes it. SQLite's own upgrades, of SQLite files: a test that
 * uses it is `sqliteOnly` (tests/raw-sql.ts).
 */
export function databaseBefore(env: TestEnv, before: string, path: string): { sqlite: Database; pending: number } {
  if (onPostgres) throw new Error("databaseBefore copies a SQLite database into an older SQLite one: its test is sqliteOnly");
  const index = embeddedMigrations.findIndex((m) => m.tag.startsWith(before));
  expect(index).toBeGreaterThan(0);
  const old = openDatabase(path);
  (old as any).dialect.migrate(
    embeddedMigrations
      .slice(0, index)
      .map((m) => ({ sql: m.sql.split("--> statement-breakpoint"), bps: true, folderMillis: m.when, hash: createHash("sha256").update(m.sql).digest("hex") })),
    (old as any).session,
    {},
  );
  const sqlite = old.$client;
  env.db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite.exec("PRAGMA foreign_keys = OFF");
  const triggers = sqlite.query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'").all() as { name: string; sql: string }[];
  for (const t of triggers) sqlite.exec(`DROP TRIGGER "${t.name}"`);
  sqlite.exec("DELETE FROM pending_backfills");
  sqlite.run("ATTACH DATABASE ? AS ref", [env.config.dbPath]);
  const tables = (
    sqlite
      .query(
        "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%' AND name NOT LIKE '%\\_fts%' ESCAPE '\\'",
      )
      .all() as { name: string }[]
  ).map((t) => t.name);
  for (const table of tables) {
    const columns = (sqlite.query(`SELECT name FROM pragma_table_info('${table}', 'main')`).all() as { name: string }[]).map((c) => `"${c.name}"`);
    sqlite.exec(`INSERT INTO main."${table}" (${columns.join(", ")}) SELECT ${columns.join(", ")} FROM ref."${table}"`);
  }
  sqlite.exec("DETACH DATABASE ref");
  for (const t of triggers) sqlite.exec(t.sql);
  const searchTables = sqlite.query("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5%'").all() as { name: string }[];
  for (const { name } of searchTables) sqlite.exec(`INSERT INTO "${name}"("${name}") VALUES ('rebuild')`);
  return { sqlite, pending: embeddedMigrations.length - index };
}

/** The database at `path` upgraded by the migrations `pending` says, and the app on it; `get` answers a 200's data. */
export async function upgradedApp(env: TestEnv, path: string, pending: number, token: string) {
  const db = openDatabase(path);
  expect(await migrateDatabase(db)).toBe(pending);
  const config = loadConfig({ KONTOR_ENV: "test", KONTOR_RATE_LIMIT: "100000", KONTOR_DB: path, KONTOR_SECRET_KEY_FILE: join(env.dir, "kontor.key") });
  const app = createApp(createRuntime(config, { db, log: silentLogger }));
  const get = async (url: string) => {
    const r = await app.handle(new Request(`http://localhost${url}`, { headers: { authorization: `Bearer ${token}` } }));
    expect(r.status).toBe(200);
    return ((await r.json()) as any).data;
  };
  return { db, app, get };
}
