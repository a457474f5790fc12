/** `kontor bank-account add`: the declaration; what it does is in cli/actions/bank-accounts.ts, imported when it runs. */
import type { Command } from "commander";
import type { AddOptions } from "../actions/bank-accounts.ts";
import { withGlobals } from "../globals.ts";

export function registerBankAccountCommands(program: Command): void {
  const bankAccount = program.command("bank-account").description("manage bank accounts (read-only over the API)");
  withGlobals(bankAccount.command("add").description("add a bank account, linked to the chart's bank account; the IBAN's check digits are verified"))
    .requiredOption("--org <org>", "organisation id or name")
    .requiredOption("--name <name>", "display name")
    .requiredOption("--iban <iban>", "IBAN (spaces allowed)")
    .option("--bank-name <name>", "name of the bank")
    .option("--currency <code>", "ISO 4217 currency (default: the organisation's)")
    .action(async (options: AddOptions) => (await import("../actions/bank-accounts.ts")).add(options));
}
