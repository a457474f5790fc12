/**
 * PostgreSQL's baseline schema (db/postgres/schema.ts) is SQLite's, table by table: the same
 * columns in the same order, each of the mapped type, the same nullability and defaults, the
 * same keys, foreign keys and indexes. SQLite's side is read from a database migrated the way a
 * server migrates, so a migration that drifts from the declarations fails here too. Runs against
 * the PostgreSQL of KONTOR_TEST_DATABASE_URL (CI starts one: .ci/run), in a database of its own.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { openDatabase } from "../../db/client.ts";
import { baselineDdl, declaredTables, POSTGRES_TYPES } from "../../db/postgres/schema.ts";
import { postgresSql } from "../../db/postgres/sql.ts";
import { BASELINE_MIGRATION, REFERENCE_TABLES } from "../../db/postgres/baseline.ts";
import { freshPostgresDatabase } from "../postgres-database.ts";
import { KNOWN_MIGRATIONS, MIGRATIONS } from "../../db/postgres/migrate.ts";
import { embeddedMigrations } from "../../db/migrations/index.ts";
import { migrateDatabase } from "../../server/data-migrations.ts";

const serverUrl = process.env.KONTOR_TEST_DATABASE_URL;

type Column = { name: string; type: string; notNull: boolean; default: string | null };
type Index = { name: string; unique: boolean; partial: boolean };
type ForeignKey = { columns: string; table: string; to: string; onDelete: string };
type Shape = { columns: Column[]; indexes: Index[]; foreignKeys: ForeignKey[]; primaryKey: string };

/** Columns by name: SQLite appends a column a migration adds, PostgreSQL's baseline has them where they are declared. */
const byName = (columns: Column[]) => [...columns].sort((a, b) => a.name.localeCompare(b.name));

/** Defaults as both engines' catalogs spell them: quotes, casts and booleans aside. */
const normalDefault = (value: string | null): string | null => {
  if (value === null) return null;
  let v = value.replace(/::[a-z ]+$/i, "").trim();
  if (/^'.*'$/s.test(v)) v = v.slice(1, -1).replaceAll("''", "'");
  if (v === "false") return "0";
  if (v === "true") return "1";
  return v;
};

function sqliteShape(db: ReturnType<typeof openDatabase>, table: string): Shape {
  const client = db.$client;
  const config = getTableConfig(declaredTables().find((t) => getTableConfig(t).name === table)!);
  const typeOf = new Map(config.columns.map((c) => [c.name, POSTGRES_TYPES[c.columnType]!]));
  const info = client.query(`SELECT name, type, "notnull" AS nn, dflt_value AS dflt, pk FROM pragma_table_info(?1) ORDER BY cid`).all(table) as { name: string; type: string; nn: number; dflt: string | null; pk: number }[];
  const columns = info.map((c) => ({
    name: c.name,
    // SQLite's declared type, checked against the declaration's; then named as PostgreSQL's
    type: c.type.toLowerCase() === { bigint: "integer", smallint: "integer", text: "text", bytea: "blob", "double precision": "real", numeric: "numeric" }[typeOf.get(c.name)!] ? typeOf.get(c.name)! : `sqlite ${c.type}`,
    notNull: c.nn === 1 || c.pk > 0,
    default: normalDefault(c.dflt),
  }));
  const primaryKey = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name).join(",");
  const indexes = (client.query(`SELECT name, "unique" AS u, partial FROM pragma_index_list(?1) WHERE origin = 'c' ORDER BY name`).all(table) as { name: string; u: number; partial: number }[]).map((i) => ({ name: i.name, unique: i.u === 1, partial: i.partial === 1 }));
  const fks = client.query(`SELECT id, "from" AS f, "table" AS t, "to" AS o, on_delete AS d FROM pragma_foreign_key_list(?1) ORDER BY id, seq`).all(table) as { id: number; f: string; t: string; o: string; d: string }[];
  const grouped = new Map<number, ForeignKey>();
  for (const fk of fks) {
    const had = grouped.get(fk.id);
    if (had) Object.assign(had, { columns: `${had.columns},${fk.f}`, to: `${had.to},${fk.o}` });
    else grouped.set(fk.id, { columns: fk.f, table: fk.t, to: fk.o, onDelete: fk.d.toUpperCase() });
  }
  return { columns: byName(columns), indexes, foreignKeys: [...grouped.values()].sort((a, b) => a.columns.localeCompare(b.columns)), primaryKey };
}

async function postgresShape(pg: SQL, table: string): Promise<Shape> {
  const columns = (await pg`SELECT column_name, data_type, is_nullable, column_default, is_identity FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ${table} ORDER BY ordinal_position`).map(
    (c: any) => ({ name: c.column_name, type: c.data_type, notNull: c.is_nullable === "NO", default: c.is_identity === "YES" ? null : normalDefault(c.column_default) }),
  );
  const primaryKey = (
    await pg`SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
             WHERE i.indrelid = ${table}::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)`
  ).map((r: any) => r.attname).join(",");
  const indexes = (
    await pg`SELECT c.relname AS name, i.indisunique AS u, i.indpred IS NOT NULL AS partial FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
             WHERE i.indrelid = ${table}::regclass AND NOT i.indisprimary AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) ORDER BY c.relname`
  ).map((r: any) => ({ name: r.name, unique: r.u, partial: r.partial }));
  const foreignKeys = (
    await pg`SELECT (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(c.conkey) WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS columns,
                    f.relname AS table,
                    (SELECT string_agg(a.attname, ',' ORDER BY k.n) FROM unnest(c.confkey) WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum) AS to,
                    CASE c.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'n' THEN 'SET NULL' WHEN 'r' THEN 'RESTRICT' WHEN 'd' THEN 'SET DEFAULT' ELSE 'NO ACTION' END AS on_delete
             FROM pg_constraint c JOIN pg_class f ON f.oid = c.confrelid WHERE c.conrelid = ${table}::regclass AND c.contype = 'f'`
  )
    .map((r: any) => ({ columns: r.columns, table: r.table, to: r.to, onDelete: r.on_delete }))
    .sort((a: ForeignKey, b: ForeignKey) => a.columns.localeCompare(b.columns));
  return { columns: byName(columns), indexes, foreignKeys, primaryKey };
}

test("SQLite's spellings are translated: a name compared without case is lower(…); placeholders numbered, quoted text left alone", () => {
  expect(postgresSql(`"customers"."name" collate nocase`)).toBe(`lower("customers"."name")`);
  expect(postgresSql(`"name" COLLATE NOCASE, "id"`)).toBe(`lower("name"), "id"`);
  expect(postgresSql(`SELECT a FROM t WHERE b = ? AND c = ? AND d = '?' AND "e?" = ?`)).toBe(`SELECT a FROM t WHERE b = $1 AND c = $2 AND d = '?' AND "e?" = $3`);
  expect(postgresSql(`UPDATE t SET a = ?2 WHERE id = ?1 AND s = 'it''s ?'`)).toBe(`UPDATE t SET a = $2 WHERE id = $1 AND s = 'it''s ?'`);
});

test("every SQLite migration has its PostgreSQL counterpart: the baseline up to its number, then one of the same number and name", () => {
  const sqliteMigrations = embeddedMigrations.map((m) => m.tag);
  const baselineAt = sqliteMigrations.indexOf(BASELINE_MIGRATION);
  expect(baselineAt).toBeGreaterThanOrEqual(0);
  expect(KNOWN_MIGRATIONS).toEqual(sqliteMigrations.slice(baselineAt));
});

describe.skipIf(!serverUrl)("the PostgreSQL baseline and its later migrations against SQLite's migrated schema", () => {
  const database = `kontor_schema_${process.pid}_${Date.now()}`;
  let admin: SQL;
  let pg: SQL;
  const sqlite = openDatabase(":memory:");
  beforeAll(async () => {
    await migrateDatabase(sqlite);
    admin = new SQL(serverUrl!);
    await admin.unsafe(`CREATE DATABASE "${database}"`);
    const url = new URL(serverUrl!);
    url.pathname = `/${database}`;
    pg = new SQL(url.toString());
    await pg.begin(async (tx) => {
      for (const statement of [...baselineDdl(), ...MIGRATIONS.flatMap((m) => m.statements)]) await tx.unsafe(statement);
    });
  });
  afterAll(async () => {
    await pg?.close();
    await admin?.unsafe(`DROP DATABASE IF EXISTS "${database}"`);
    await admin?.close();
    sqlite.$client.close();
  });

  test("the same tables", async () => {
    const onPostgres = (await pg`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`).map((r: any) => r.table_name);
    expect(onPostgres).toEqual(declaredTables().map((t) => getTableConfig(t).name).sort());
    // and SQLite holds nothing else but its search tables (FTS5, written per engine) and the migrations' log
    const onSqlite = (sqlite.$client.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '%_fts%' AND name <> '__drizzle_migrations' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
    expect(onSqlite).toEqual(onPostgres);
  });

  test("each mapped type holds what SQLite's column holds, unchanged: the largest safe integer (cents, epoch ms), 0 and 1, JSON text, bytes", async () => {
    const samples: Record<string, { value: unknown; text: string }> = {
      SQLiteText: { value: "Zoë's café ✓", text: "Zoë's café ✓" },
      SQLiteTextJson: { value: '{"b": 1, "a": [2]}', text: '{"b": 1, "a": [2]}' },
      SQLiteInteger: { value: "9007199254740991", text: "9007199254740991" },
      SQLiteBoolean: { value: "1", text: "1" },
      SQLiteReal: { value: "0.1", text: "0.1" },
      SQLiteNumeric: { value: "12345678901234567890.5", text: "12345678901234567890.5" },
      SQLiteBlobBuffer: { value: "\\x00ff", text: "\\x00ff" },
    };
    expect(Object.keys(samples).sort()).toEqual(Object.keys(POSTGRES_TYPES).sort());
    for (const [columnType, { value, text }] of Object.entries(samples)) {
      const [row] = await pg.unsafe(`SELECT CAST(CAST($1 AS text) AS ${POSTGRES_TYPES[columnType]})::text AS v`, [value]);
      expect(row.v, columnType).toBe(text);
    }
  });

  test("the same CHECK constraints: SQLite's in its tables' SQL, PostgreSQL's in its catalog", async () => {
    const onSqlite = (sqlite.$client.query("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE '%CHECK%' ORDER BY name").all() as { name: string; sql: string }[])
      .flatMap((t) => (t.sql.match(/CHECK \(.*\)/g) ?? []).map((check) => `${t.name}: ${check.replace(/[`"\s]/g, "")}`));
    const onPostgres = (await pg`SELECT c.conrelid::regclass::text AS table, pg_get_constraintdef(c.oid) AS def FROM pg_constraint c WHERE c.contype = 'c' AND c.conrelid <> 0 ORDER BY 1`)
      .map((r: any) => `${r.table}: ${String(r.def).replace(/[`"\s]/g, "")}`);
    expect(onSqlite.length).toBeGreaterThan(0);
    // the same tables and conditions, as each engine's catalog prints them (PostgreSQL adds parentheses)
    const normal = (check: string) => check.replace(/[()]/g, "").toLowerCase();
    expect(onPostgres.map(normal)).toEqual(onSqlite.map(normal));
  });

  test("a migrated PostgreSQL database holds SQLite's reference rows, the same ones (the statutory interest rates)", async () => {
    const fresh = await freshPostgresDatabase();
    const migrated = new SQL(fresh.url);
    try {
      for (const table of REFERENCE_TABLES) {
        const onSqlite = sqlite.$client.query(`SELECT * FROM "${table}" ORDER BY id`).all();
        const onPostgres = [...(await migrated.unsafe(`SELECT * FROM "${table}" ORDER BY id`))].map((row: any) => ({ ...row, rate_bp: Number(row.rate_bp) }));
        expect(onSqlite.length, table).toBeGreaterThan(20);
        expect(onPostgres, table).toEqual(onSqlite);
      }
    } finally {
      await migrated.close();
      await fresh.drop();
    }
  });

  test("each table: columns (type, nullability, default), primary key, foreign keys, indexes", async () => {
    const differences: string[] = [];
    for (const table of declaredTables().map((t) => getTableConfig(t).name).sort()) {
      const [onPostgres, onSqlite] = [await postgresShape(pg, table), sqliteShape(sqlite, table)];
      for (const part of ["columns", "primaryKey", "foreignKeys", "indexes"] as const) {
        if (JSON.stringify(onPostgres[part]) !== JSON.stringify(onSqlite[part])) differences.push(`${table}.${part}:\n  PostgreSQL ${JSON.stringify(onPostgres[part])}\n  SQLite     ${JSON.stringify(onSqlite[part])}`);
      }
    }
    expect(differences.join("\n")).toBe("");
  });
});
