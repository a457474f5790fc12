/**
 * `kontor db copy --to postgres://…`: a SQLite database copied whole to an empty PostgreSQL
 * database, in one transaction (all or nothing): every table's rows as they are (ids, numbers,
 * timestamps, events, the ledger and its running totals, which are tables too), read from one
 * SQLite snapshot. The triggers are suspended for the copy (they would refuse the ledger's rows as
 * "changes" and count the running totals twice); the identity counter of the events continues
 * after the highest id copied. SQLite's search tables are not copied: PostgreSQL's search indexes
 * are built from the rows.
 */
import { Database } from "bun:sqlite";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";
import { embeddedMigrations } from "../migrations/index.ts";
import { runSql, sqlRows } from "../statements.ts";
import type { Db } from "../types.ts";
import type { PostgresClient } from "./client.ts";
import { REFERENCE_TABLES } from "./baseline.ts";
import { tablesInKeyOrder } from "./schema.ts";

/** PostgreSQL takes at most 65,535 parameters in one statement. */
const MAX_PARAMETERS = 60_000;
const MAX_ROWS_PER_INSERT = 1_000;

export class CopyRefused extends Error {}

export type CopiedTable = { table: string; rows: number };

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Copies the SQLite database at `sqlitePath` into `target` (migrated, empty). */
export async function copySqliteToPostgres(sqlitePath: string, target: Db, onTable: (copied: CopiedTable) => void = () => {}): Promise<CopiedTable[]> {
  const source = new Database(sqlitePath, { readonly: true, strict: true });
  try {
    const applied = (source.query("SELECT count(*) AS n FROM sqlite_master WHERE name = '__drizzle_migrations'").get() as { n: number }).n
      ? (source.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n
      : 0;
    if (applied !== embeddedMigrations.length) {
      throw new CopyRefused(
        `the SQLite database holds ${applied} of this Kontor's ${embeddedMigrations.length} migrations: run kontor migrate on it first (with this version), then copy. Nothing was copied.`,
      );
    }
    // one snapshot of the source for the whole copy, whatever a server writes meanwhile
    source.run("BEGIN");
    return await target.connection.transactions.run("immediate", async (tx) => {
      const [{ n }] = (await sqlRows<{ n: number }>(tx, sql`SELECT count(*) AS n FROM organizations`)) as [{ n: number }];
      if (n > 0) throw new CopyRefused(`the PostgreSQL database already holds ${n} organisation(s): copy into an empty one. Nothing was copied.`);
      // what the baseline made of its own (the cursor key, the rates shipped) gives way to the source's
      await runSql(tx, sql`DELETE FROM server_keys`);
      for (const table of REFERENCE_TABLES) await runSql(tx, sql.raw(`DELETE FROM ${quote(table)}`));
      const client = tx.$client as unknown as PostgresClient;
      const tables = tablesInKeyOrder().map((table) => getTableConfig(table));
      for (const { name } of tables) await client.unsafe(`ALTER TABLE ${quote(name)} DISABLE TRIGGER USER`);
      const copied: CopiedTable[] = [];
      for (const { name, columns } of tables) {
        const rows = await copyTable(source, client, name, columns.map((c) => c.name));
        copied.push({ table: name, rows });
        onTable({ table: name, rows });
      }
      // the deferred keys (a journal line's entry) checked now: a table is altered only with none pending
      await client.unsafe("SET CONSTRAINTS ALL IMMEDIATE");
      for (const { name } of tables) await client.unsafe(`ALTER TABLE ${quote(name)} ENABLE TRIGGER USER`);
      // the events' identity counter continues after the highest id copied
      await runSql(tx, sql`SELECT setval(pg_get_serial_sequence('events', 'id'), (SELECT coalesce(max(id), 0) + 1 FROM events), false)`);
      return copied;
    });
  } finally {
    if (source.inTransaction) source.run("ROLLBACK");
    source.close();
  }
}

async function copyTable(source: Database, client: PostgresClient, table: string, columns: string[]): Promise<number> {
  const perInsert = Math.max(1, Math.min(MAX_ROWS_PER_INSERT, Math.floor(MAX_PARAMETERS / columns.length)));
  const names = columns.map(quote).join(", ");
  let batch: unknown[][] = [];
  let count = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    let p = 0;
    const values = batch.map((row) => `(${row.map(() => `$${++p}`).join(", ")})`).join(", ");
    await client.unsafe(`INSERT INTO ${quote(table)} (${names}) VALUES ${values}`, batch.flat());
    count += batch.length;
    batch = [];
  };
  // the source's rows one at a time: a table of millions is never held whole
  for (const row of source.query<Record<string, unknown>, []>(`SELECT ${names} FROM ${quote(table)}`).iterate()) {
    batch.push(columns.map((column) => row[column]));
    if (batch.length === perInsert) await flush();
  }
  await flush();
  return count;
}
