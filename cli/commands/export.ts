import { Option, type Command } from "commander";
import { EXPORT_FORMATS, exportJournal, type ExportFormat } from "../../server/ledger/export.ts";
import { CLI_ACTOR, findOrganization } from "../../server/orgs/service.ts";
import { open, type GlobalOptions } from "../context.ts";
import { withGlobals } from "../main.ts";

type JournalOptions = GlobalOptions & { org: string; format: ExportFormat; from?: string; to?: string };

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
    .action((options: JournalOptions) => {
      const { db } = open(options);
      const org = findOrganization(db, options.org);
      process.stdout.write(exportJournal({ db, org, actor: CLI_ACTOR }, options.format, { from: options.from, to: options.to }));
    });
}
