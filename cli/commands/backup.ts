/**
 * `kontor backup --to FILE` and `kontor restore FILE` (docs/operations.md, "Running Kontor in production"):
 * the declarations; what they do is in cli/actions/backup.ts, imported when one runs.
 */
import type { Command } from "commander";
import type { BackupOptions } from "../actions/backup.ts";
import { withGlobals, type GlobalOptions } from "../globals.ts";

const actions = () => import("../actions/backup.ts");

export function registerBackupCommands(program: Command): void {
  withGlobals(program.command("backup").description("write a consistent, checked copy of the database, also while kontor serve runs"))
    .requiredOption("--to <file>", "the backup file (replaced, once the new copy is complete, if it exists)")
    .action(async (options: BackupOptions) => (await actions()).backup(options));

  withGlobals(program.command("restore").description("replace the database with a backup (the server must be stopped); the replaced one is kept aside"))
    .argument("<file>", "a backup written by kontor backup (or a scheduled one)")
    .action(async (file: string, options: GlobalOptions) => (await actions()).restore(file, options));
}
