/** `kontor db copy --to postgres://…` (declared in cli/commands/core.ts): a SQLite database into an empty PostgreSQL one. */
import { copySqliteToPostgres, CopyRefused, type CopiedTable } from "../../db/postgres/copy.ts";
import { openPostgres } from "../../db/postgres/connection.ts";
import { loadConfig } from "../../server/config.ts";
import { migrateDatabase } from "../../server/data-migrations.ts";
import { UserError, type GlobalOptions } from "../globals.ts";
import { printJson, printLine } from "../output.ts";

export type DbCopyOptions = GlobalOptions & { to: string };

export async function dbCopy(options: DbCopyOptions): Promise<void> {
  const config = loadConfig({ ...process.env, KONTOR_DATABASE_URL: "" });
  const from = options.db ?? config.dbPath;
  let url: URL;
  try {
    url = new URL(options.to);
  } catch {
    throw new UserError("--to must be a postgres:// URL");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") throw new UserError(`--to must be a postgres:// URL (got the scheme "${url.protocol}")`);
  const target = openPostgres(options.to);
  const started = performance.now();
  try {
    await migrateDatabase(target);
    const tables = await copySqliteToPostgres(from, target, (t: CopiedTable) => {
      if (!options.json && t.rows > 0) printLine(`${t.table}: ${t.rows} rows`);
    });
    const rows = tables.reduce((sum, t) => sum + t.rows, 0);
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    if (options.json) printJson({ from, to: `postgres://${url.host}${url.pathname}`, rows, seconds, tables });
    else printLine(`Copied ${rows} rows of ${from} to postgres://${url.host}${url.pathname} in ${seconds} s. Run Kontor on it with KONTOR_DATABASE_URL (and the same KONTOR_SECRET_KEY_FILE as the SQLite database's, whose webhook secrets it sealed).`);
  } catch (error) {
    if (error instanceof CopyRefused) throw new UserError(error.message);
    throw error;
  } finally {
    await target.connection.close();
  }
}
