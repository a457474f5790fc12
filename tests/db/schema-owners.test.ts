/**
 * The schema is declared per feature (docs/architecture.md#which-feature-owns-which-table): each
 * table in one file of db/schema/, named for the folder of server/ that writes it, and the list in
 * docs/architecture.md says which file holds which tables. This holds the list to the files, and
 * the files to the index that the rest of the code imports through db/schema.ts.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "../../db/schema.ts";

const ROOT = join(import.meta.dir, "..", "..");
const DIR = join(ROOT, "db", "schema");
/** Files of db/schema/ that hold no feature's tables, or whose writer is not a folder of server/. */
const NOT_FEATURES: Record<string, string> = {
  "columns.ts": "the column helpers",
  "index.ts": "the re-exports",
  "sequences.ts": "server/lib/sequences.ts draws every numbered series",
  "database.ts": "the database's own tables (db/connection.ts)",
};

const tablesOf = (module: Record<string, unknown>) =>
  Object.values(module)
    .filter((value) => is(value, SQLiteTable))
    .map((table) => getTableName(table as SQLiteTable))
    .sort();

const files = readdirSync(DIR).filter((name) => name.endsWith(".ts")).sort();
const declared = new Map<string, string[]>();
for (const file of files) if (file !== "index.ts") declared.set(file, tablesOf(await import(join(DIR, file))));

/** The list's rows: `| \`orgs.ts\` | organizations, users | … |` → orgs.ts → [organizations, users]. */
function documented(): Map<string, string[]> {
  const doc = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8");
  const section = doc.split("## Which feature owns which table")[1]?.split("\n## ")[0] ?? "";
  const rows = new Map<string, string[]>();
  for (const match of section.matchAll(/^\| `([\w-]+\.ts)` \| ([^|]*) \|/gm)) {
    const tables = match[2]!.trim().startsWith("(") ? [] : match[2]!.split(",").map((t) => t.trim());
    rows.set(match[1]!, tables.sort());
  }
  return rows;
}

describe("the schema per feature", () => {
  test("every table of db/schema.ts is declared in one file of db/schema/, and every file's tables are exported by the index", () => {
    const all = tablesOf(schema);
    const perFile = [...declared.values()].flat().sort();
    expect(all.length).toBeGreaterThan(40);
    expect(perFile).toEqual(all);
  });

  test("a file holding tables is named for the folder of server/ that writes them", () => {
    for (const [file, tables] of declared) {
      if (file in NOT_FEATURES || tables.length === 0) continue;
      expect({ file, folder: existsSync(join(ROOT, "server", file.replace(/\.ts$/, ""))) }).toEqual({ file, folder: true });
    }
  });

  test("docs/architecture.md lists each file with the tables it declares", () => {
    const rows = documented();
    const expected = new Map([...declared].filter(([file]) => file !== "columns.ts"));
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(expected));
  });
});
