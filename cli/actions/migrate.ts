/** `kontor migrate` (declared in cli/commands/core.ts). */
import { loadConfig } from "../../server/config.ts";
import { migrateDatabase } from "../../server/data-migrations.ts";
import { openConfiguredDatabase } from "../../server/runtime.ts";
import type { GlobalOptions } from "../globals.ts";
import { printJson, printLine } from "../output.ts";

export async function migrate(options: GlobalOptions): Promise<void> {
  const config = loadConfig();
  if (options.db) config.dbPath = options.db;
  const db = openConfiguredDatabase(config);
  let backup: string | null = null;
  const notices: string[] = [];
  const applied = await migrateDatabase(db, { backupDir: config.backupDir, onBackup: (b) => (backup = b.path), onNotice: (notice) => notices.push(notice) });
  if (options.json) printJson({ applied, backup, notices });
  else {
    if (backup) printLine(`Backed up the database before upgrading it: ${backup}`);
    printLine(applied ? `Applied ${applied} migration(s).` : "Database is up to date.");
    // what a data migration left for the operator to decide (two external ids that became equal, …)
    for (const notice of notices) printLine(`Notice: ${notice}`);
  }
  await db.connection.close();
}
