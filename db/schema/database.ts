/** The database's own tables: data migrations still to run (db/connection.ts) and its secrets (server/lib/cursor-seal.ts). */
import { blob, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Data migrations still to run after the SQL ones (db/connection.ts `migrate`), by name. */
export const pendingBackfills = sqliteTable("pending_backfills", { name: text("name").primaryKey() });

/** Secrets of the database itself, made by a migration and never shown: `cursor` seals list cursors (server/lib/cursor-seal.ts). */
export const serverKeys = sqliteTable("server_keys", { name: text("name").primaryKey(), key: blob("key", { mode: "buffer" }).notNull() });
