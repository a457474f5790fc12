/** `kontor export journal`: the declaration; what it does is in cli/actions/export.ts, imported when it runs. */
import { Option, type Command } from "commander";
import type { JournalOptions } from "../actions/export.ts";
import type { EXPORT_FORMATS as SERVED_FORMATS } from "../../server/journal/export.ts";
import { withGlobals } from "../globals.ts";

/**
 * The formats the export writes. Declared here, as the same tuple: server/journal/export.ts
 * loads the ledger (and its schemas) and is imported only when the command runs; the
 * typecheck fails when the two lists differ.
 */
const EXPORT_FORMATS = ["csv", "beancount"] as const;
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
export type FormatsAgree = Assert<Same<typeof EXPORT_FORMATS, typeof SERVED_FORMATS>>;
type Assert<T extends true> = T;

export function registerExportCommands(program: Command): void {
  const exporting = program.command("export").description("export the books for an accountant");
  withGlobals(
    exporting
      .command("journal")
      .description("print the journal as CSV or as a Beancount file (bean-check accepts it; its balance assertions are Kontor's trial balance)"),
  )
    .requiredOption("--org <org>", "organisation id or name")
    .addOption(new Option("--format <format>", "csv or beancount").choices(EXPORT_FORMATS).makeOptionMandatory())
    .option("--from <date>", "first day (YYYY-MM-DD); earlier postings become opening balances")
    .option("--to <date>", "last day (YYYY-MM-DD); default today")
    .action(async (options: JournalOptions) => (await import("../actions/export.ts")).journal(options));
}
