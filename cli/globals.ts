/**
 * What every command shares, below main.ts and the commands (so that neither imports the other):
 * the --db and --json options, and the user error that exits 1. Imports nothing but commander's
 * types: the declarations load it before any command runs.
 */
import type { Command } from "commander";

export type GlobalOptions = { db?: string; json?: boolean };

/** Adds --db and --json to every command that does work. */
export function withGlobals(command: Command): Command {
  return command
    .option("--db <path>", "SQLite database file (default: KONTOR_DB or ./data/kontor.db)")
    .option("--json", "machine-readable output on stdout");
}

/** A mistake of the user's that is not a usage error (exit 1). */
export class UserError extends Error {}
