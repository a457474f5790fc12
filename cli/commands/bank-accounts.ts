import type { Command } from "commander";
import { bankAccountService } from "../../server/bank-accounts/service.ts";
import { CLI_ACTOR, findOrganization } from "../../server/orgs/service.ts";
import { open, type GlobalOptions } from "../context.ts";
import { withGlobals } from "../main.ts";
import { printJson, printRecord } from "../output.ts";

type AddOptions = GlobalOptions & { org: string; name: string; iban: string; bankName?: string; currency?: string };

export function registerBankAccountCommands(program: Command): void {
  const bankAccount = program.command("bank-account").description("manage bank accounts (read-only over the API)");
  withGlobals(bankAccount.command("add").description("add a bank account, linked to the chart's bank account; the IBAN's check digits are verified"))
    .requiredOption("--org <org>", "organisation id or name")
    .requiredOption("--name <name>", "display name")
    .requiredOption("--iban <iban>", "IBAN (spaces allowed)")
    .option("--bank-name <name>", "name of the bank")
    .option("--currency <code>", "ISO 4217 currency (default: the organisation's)")
    .action((options: AddOptions) => {
      const { db } = open(options);
      const org = findOrganization(db, options.org);
      const added = bankAccountService.add({ db, org, actor: CLI_ACTOR }, options);
      if (options.json) printJson(added);
      else printRecord(added);
    });
}
