/**
 * The column helpers every feature's tables share. The values a column may hold (enumerations,
 * the shapes of JSON columns) are in db/values.ts. Each enum is declared once, beside the API
 * schema that shows it; `enum` on a SQLite text column only types it (no CHECK constraint, no
 * migration when a list changes). `orgId`, the column that points at the organisation, is in
 * orgs.ts beside the table it references.
 */
import { sql, type SQLWrapper } from "drizzle-orm";
import { type AnySQLiteColumn, integer, text } from "drizzle-orm/sqlite-core";
import { perEngine } from "../engine.ts";

export const id = () => text("id").primaryKey();
export const createdAt = () => text("created_at").notNull();
export const updatedAt = () => text("updated_at").notNull();
export const bool = (name: string) => integer(name, { mode: "boolean" });
/** A client's own id of a row (docs/api.md#external-ids-and-metadata): unique per organisation and table where set. */
export const externalId = () => text("external_id");
/** A client's string pairs on a row (at most 50 keys of 40 characters, values of 500), a JSON object; `{}` when none. */
export const metadata = () => text("metadata", { mode: "json" }).$type<Record<string, string>>().notNull().default({});
/** Names sort case-insensitively ("alpha" between "Aaron" and "Bravo"); lists order by the same expression. */
export const nocase = (column: AnySQLiteColumn) =>
  sql`${Object.assign(perEngine({ sqlite: () => sql`${column} collate nocase`, postgres: () => sql`lower(${column})` }), { collated: column })}`;

/**
 * A value compared with a `nocase` column as the column is (a list cursor's stored name): on
 * SQLite the column's collation applies to the comparison; PostgreSQL compares `lower(…)` with
 * `lower(…)`, both of ASCII letters only, as SQLite's NOCASE (the column's byte order, "C", not
 * the database's locale, which would lower "É" in the value and not in the column).
 */
export const nocaseValue = (value: SQLWrapper) => perEngine({ sqlite: () => sql`${value}`, postgres: () => sql`lower(CAST(${value} AS text) COLLATE "C")` });
