/**
 * `preparedRows` (db/statements.ts) lets bun:sqlite make the row objects and decodes only the
 * columns with a mode, where drizzle maps every row itself: its rows must be exactly drizzle's.
 * This holds it to that for every table of db/schema.ts, with rows whose every column is set
 * (booleans, JSON, large integers, text that needs quoting) and rows whose nullable columns are
 * NULL, so that a drizzle upgrade that maps rows differently, or a column of a new type, fails
 * here instead of changing what the API shows. On PostgreSQL the same, on a database of its own.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { getTableColumns, getTableName, is, sql } from "drizzle-orm";
import { SQLiteTable, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import { firstRow, openDatabase, preparedRows } from "../../db/client.ts";
import { openPostgres } from "../../db/postgres/connection.ts";
import { migrateDatabase } from "../../server/data-migrations.ts";
import * as schema from "../../db/schema.ts";
import { asTx } from "../helpers.ts";
import { freshPostgresDatabase } from "../postgres-database.ts";
import { onPostgres, rawSql } from "../raw-sql.ts";

const postgres = onPostgres ? await freshPostgresDatabase() : null;
const db = postgres === null ? openDatabase(":memory:") : openPostgres(postgres.url);
await migrateDatabase(db);
const raw = rawSql(db);
// rows of one table at a time, whatever they point at: no foreign keys, and none of the triggers
// that keep running totals (an entry's header checks its lines, which this test writes separately;
// an open invoice adds to the receivables' totals, which this test writes rows of itself)
if (postgres === null) {
  db.$client.exec("PRAGMA foreign_keys = OFF");
  for (const { name } of db.$client
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND (tbl_name IN ('journal_entries', 'journal_lines') OR name LIKE 'invoices_receivables%')")
    .all()) {
    db.$client.exec(`DROP TRIGGER "${name}"`);
  }
} else {
  for (const { table, name } of await raw.all<{ table: string; name: string }>("SELECT conrelid::regclass::text AS \"table\", conname AS name FROM pg_constraint WHERE contype = 'f'")) {
    await raw.run(`ALTER TABLE ${table} DROP CONSTRAINT "${name}"`);
  }
  for (const { table, name } of await raw.all<{ table: string; name: string }>(
    "SELECT tgrelid::regclass::text AS \"table\", tgname AS name FROM pg_trigger WHERE NOT tgisinternal AND (tgrelid::regclass::text IN ('journal_entries', 'journal_lines') OR tgname LIKE 'invoices_receivables%')",
  )) {
    await raw.run(`DROP TRIGGER "${name}" ON ${table}`);
  }
}
/** Where a row is stored, in the order rows were written: SQLite's rowid, PostgreSQL's ctid (a fresh table, nothing updated). */
const rowid = onPostgres ? sql`ctid` : sql`rowid`;
/** The stored rows' places, in the order written. */
const placesOf = async (name: string): Promise<unknown[]> =>
  onPostgres ? (await raw.all<{ place: string }>(`SELECT ctid::text AS place FROM "${name}" ORDER BY ctid`)).map((r) => r.place) : [1, 2];
const nowhere = onPostgres ? "(999,1)" : 99;
/** Values a table's CHECK constraints or keys need: a journal line has a debit or a credit, never negative. */
const CHECKED: Record<string, (n: number) => Record<string, unknown>> = {
  journal_lines: (n) => (n === 0 ? { debitCents: 2 ** 40 + 7, creditCents: 0 } : { debitCents: 0, creditCents: 5 }),
  // its id is the rowid: rows 1 and 2, in the order written, as the lookups by rowid below expect
  events: (n) => ({ id: n + 1 }),
};
afterAll(async () => {
  await db.connection.close();
  await postgres?.drop();
});

const tables = Object.values(schema as Record<string, unknown>).filter((value): value is SQLiteTable => is(value, SQLiteTable));

/**
 * A value for `column` in row `n` (0: every column set; 1: nullable columns NULL, the others
 * set to other values). Text carries the row number, so keys and unique indexes hold.
 */
function valueFor(column: SQLiteColumn, n: number): unknown {
  if (n === 1 && !column.notNull) return null;
  const enumValues = (column as { enumValues?: string[] }).enumValues;
  switch (column.columnType) {
    case "SQLiteText":
      if (enumValues && enumValues.length > 0) return enumValues[n % enumValues.length];
      return `${column.name} ${n}: "quoted" 'single' é ✓ 😀`;
    case "SQLiteInteger":
      return n === 0 ? 2 ** 40 + 7 : -3;
    case "SQLiteBoolean":
      return n === 0;
    case "SQLiteTextJson":
      return n === 0 ? { nested: { list: [1, "two", null, true, 2.5] }, text: "é ✓", empty: {} } : ["a", "b"];
    case "SQLiteReal":
      return n === 0 ? 1.5 : -0.25;
    case "SQLiteBlobBuffer":
      return Buffer.from(n === 0 ? [0, 1, 255, 0x3c] : [0xef, 0xbb, 0xbf]);
    default:
      throw new Error(
        `${column.name}: no test value for drizzle column type ${column.columnType}: add one to tests/db/prepared-rows.test.ts (and check that preparedRows decodes it)`,
      );
  }
}

describe("preparedRows returns exactly drizzle's rows", () => {
  test("the schema's tables are all here", () => {
    expect(tables.map((t) => getTableName(t))).toEqual(expect.arrayContaining(["organizations", "invoices", "webhooks", "idempotency_keys"]));
  });

  for (const table of tables) {
    const name = getTableName(table);
    test(name, async () => {
      const columns = Object.entries(getTableColumns(table));
      const rows = [0, 1].map((n) => ({
        ...Object.fromEntries(columns.map(([property, column]) => [property, valueFor(column, n)])),
        ...CHECKED[name]?.(n),
      }));
      // the rows a migration seeded (Belgium's statutory interest rates, the cursor key) make way for the test's
      if (name === "statutory_interest_rates" || name === "server_keys") await db.delete(table);
      await db.insert(table).values(rows);

      const drizzleRows = await db.select().from(table).orderBy(rowid);
      const fast = preparedRows(asTx(db), `prepared-rows test:${name}`, table, (tx) => tx.select().from(table).orderBy(rowid));
      expect(await fast.all({})).toStrictEqual(drizzleRows);
      // and what was written comes back as written
      expect(drizzleRows).toStrictEqual(rows);

      const one = preparedRows(asTx(db), `prepared-rows test:${name}:one`, table, (tx) =>
        tx.select().from(table).where(onPostgres ? sql`${rowid} = ${sql.placeholder("rowid")}::tid` : sql`${rowid} = ${sql.placeholder("rowid")}`),
      );
      const places = await placesOf(name);
      expect(places).toHaveLength(2);
      for (const place of places) {
        const row = await one.get({ rowid: place });
        expect(row).toBeDefined();
        expect(row).toStrictEqual(await firstRow(db.select().from(table).where(onPostgres ? sql`${rowid} = ${place}::tid` : sql`${rowid} = ${place}`)));
      }
      expect(await one.get({ rowid: nowhere })).toBeUndefined();
    });
  }
});
