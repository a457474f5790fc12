/** What a command that works on the database opens: imported by cli/actions/ only, when the command runs. */
import { migrateDatabase } from "../server/data-migrations.ts";
import { loadConfig } from "../server/config.ts";
import { createRuntime, openConfiguredDatabase, type Runtime } from "../server/runtime.ts";
import type { GlobalOptions } from "./globals.ts";
import { printError } from "./output.ts";

/** The command's runtime (server/runtime.ts) on the database named by KONTOR_DATABASE_URL, or else by --db or KONTOR_DB, migrated. */
export async function open(options: GlobalOptions): Promise<Runtime> {
  const config = loadConfig();
  if (options.db) config.dbPath = options.db;
  const db = openConfiguredDatabase(config);
  await migrateDatabase(db, {
    backupDir: config.backupDir,
    onBackup: (backup) => printError(`Backed up the database before upgrading it: ${backup.path}`),
    onNotice: (notice) => printError(`Upgrade notice: ${notice}`),
  });
  return createRuntime(config, { db });
}
