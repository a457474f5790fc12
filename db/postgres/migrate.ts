/**
 * Migrations on PostgreSQL: an empty database gets the baseline (./baseline.ts) in one
 * transaction; every later change is a migration numbered as SQLite's of the same change.
 * Servers starting at once take turns (an advisory lock), so one migrates and the others find it done.
 */
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Db, Tx } from "../types.ts";
import { sqlRows, runSql } from "../statements.ts";
import { BASELINE_MIGRATION, baselineStatements } from "./baseline.ts";

/** The advisory lock of a migration (any number unlike the write lock's). */
const MIGRATION_LOCK_KEY = 0x4b6d6967;

/** PostgreSQL's migrations after the baseline, in order, each named as SQLite's of the same change (db/migrations/). */
export const MIGRATIONS: readonly { name: string; statements: readonly string[] }[] = [
  {
    name: "0052_scheduled_runs",
    statements: [
      `CREATE TABLE "scheduled_runs" (
  "job" text COLLATE "C" NOT NULL,
  "period" text COLLATE "C" NOT NULL,
  "run_by" text COLLATE "C" NOT NULL,
  "started_at" text COLLATE "C" NOT NULL,
  "finished_at" text COLLATE "C",
  PRIMARY KEY ("job", "period")
)`,
    ],
  },
];

export const KNOWN_MIGRATIONS = [BASELINE_MIGRATION, ...MIGRATIONS.map((m) => m.name)];

/** The migrations `tx`'s database has applied, oldest first. */
export async function appliedPostgresMigrations(tx: Tx): Promise<string[]> {
  await runSql(tx, sql`CREATE TABLE IF NOT EXISTS kontor_migrations (name text COLLATE "C" PRIMARY KEY, applied_at text NOT NULL)`);
  return (await sqlRows<{ name: string }>(tx, sql`SELECT name FROM kontor_migrations ORDER BY name`)).map((r) => r.name);
}

/** Applies what is missing; returns how many migrations were applied. `refuse` is called with migrations this build does not know (a newer Kontor's). */
export async function migratePostgres(db: Db, refuse: (unknown: string[]) => never): Promise<number> {
  return db.connection.transactions.run("immediate", async (tx) => {
    await runSql(tx, sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    const applied = await appliedPostgresMigrations(tx);
    const unknown = applied.filter((name) => !KNOWN_MIGRATIONS.includes(name));
    if (unknown.length > 0) refuse(unknown);
    let count = 0;
    const record = (name: string) => runSql(tx, sql`INSERT INTO kontor_migrations (name, applied_at) VALUES (${name}, ${new Date().toISOString()})`);
    if (applied.length === 0) {
      const [{ encoding }] = (await sqlRows<{ encoding: string }>(tx, sql`SELECT pg_encoding_to_char(encoding) AS encoding FROM pg_database WHERE datname = current_database()`)) as [{ encoding: string }];
      if (encoding !== "UTF8") {
        throw new Error(`the PostgreSQL database is in ${encoding}: Kontor needs UTF8 (createdb --encoding UTF8 --locale C.UTF-8 --template template0; docs/operations.md#running-on-postgresql). Nothing was changed.`);
      }
      for (const statement of baselineStatements()) await runSql(tx, sql.raw(statement));
      // 0046_server_keys.sql: the key that seals list cursors, random per database
      await runSql(tx, sql`INSERT INTO server_keys (name, key) VALUES ('cursor', ${randomBytes(32)})`);
      await record(BASELINE_MIGRATION);
      count++;
    }
    for (const migration of MIGRATIONS) {
      if (applied.includes(migration.name)) continue;
      for (const statement of migration.statements) await runSql(tx, sql.raw(statement));
      await record(migration.name);
      count++;
    }
    return count;
  });
}
