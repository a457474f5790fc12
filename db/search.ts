/**
 * Full-text search per engine, in one place. A search is words of letters and digits, each
 * matching any word it begins, without case or accents. SQLite: an FTS5 table per searched table
 * (migrations 0001, 0011, 0018), joined by rowid. PostgreSQL: a GIN index on a search document of
 * the same columns (db/postgres/baseline.ts), matched with a prefix tsquery.
 */
import { sql, type SQLWrapper } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { engine, perEngine } from "./engine.ts";
import { SEARCHED_COLUMNS, searchDocument } from "./postgres/baseline.ts";

/**
 * The rows of `table` whose words (those of its search table `ftsTable`, or only of `column`)
 * match `query`, a parameter holding what `everyWordQuery` made, or `phraseQuery` (`phrase`).
 * On PostgreSQL the parameter is the words themselves: kontor_search_query (db/postgres/baseline.ts)
 * cuts them as the documents' words are cut, so no character of a search is tsquery syntax.
 */
export function searchHits(table: SQLiteTable, ftsTable: string, query: SQLWrapper, { column, phrase = false }: { column?: string; phrase?: boolean } = {}): SQLWrapper {
  const searched = SEARCHED_COLUMNS[ftsTable];
  if (!searched) throw new Error(`no search table ${ftsTable}`);
  const fts = sql.raw(`"${ftsTable}"`);
  return perEngine({
    sqlite: () => sql`${table}.rowid IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ${query})`,
    // the hits found once through the GIN index, then each row only looked up among them (a
    // condition on the row itself would compute its search document row by row, beside an OR)
    postgres: () =>
      sql`${table}."id" IN (SELECT "hits"."id" FROM ${sql.raw(`"${searched.table}" AS "hits"`)} WHERE ${sql.raw(searchDocument(column ? [column] : searched.columns, "hits"))} @@ kontor_search_query(CAST(${query} AS text), ${sql.raw(phrase ? "true" : "false")}))`,
  });
}

/** Every word, each as a prefix, anywhere (SQLite: `"acme"* "gmbh"*`; `column` limits it to one column). */
export function everyWordQuery(words: string[], column?: string): string {
  if (engine() === "postgres") return words.join(" ");
  const prefixes = words.map((w) => `"${w}"*`).join(" ");
  return column ? `${column} : (${prefixes})` : prefixes;
}

/** The words in this order, one after the other, the last as a prefix (SQLite: `"inv 2026 42"*`). */
export function phraseQuery(words: string[]): string {
  if (engine() === "postgres") return words.join(" ");
  return `"${words.join(" ")}"*`;
}
