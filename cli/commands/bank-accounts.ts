/** `kontor bank-account add | set | deactivate | default`: the declarations; what they do is in cli/actions/bank-accounts.ts, imported when one runs. */
import type { Command } from "commander";
import type { AddOptions, RefOptions, SetOptions } from "../actions/bank-accounts.ts";
import { withGlobals } from "../globals.ts";

const actions = () => import("../actions/bank-accounts.ts");

export function registerBankAccountCommands(program: Command): void {
  const bankAccount = program.command("bank-account").description("manage the organisation's own bank accounts (read-only over the API)");
  withGlobals(bankAccount.command("add").description("add a bank account: the first in the organisation's currency is linked to 1110, later ones get a ledger account of their own (1111, 1112, …); the IBAN's check digits are verified"))
    .requiredOption("--org <org>", "organisation id or name")
    .requiredOption("--name <name>", "display name")
    .requiredOption("--iban <iban>", "IBAN (spaces allowed)")
    .option("--bic <bic>", "BIC (ISO 9362, 8 or 11 characters), shown beside the IBAN on documents")
    .option("--bank-name <name>", "name of the bank")
    .option("--currency <code>", "ISO 4217 currency (default: the organisation's)")
    .option("--default", "make it the account documents show")
    .action(async (options: AddOptions) => (await actions()).add(options));
  withGlobals(bankAccount.command("set").description("change a bank account's display name, BIC or bank name; an empty --bic or --bank-name clears it").argument("<account>", "bank account id or IBAN"))
    .requiredOption("--org <org>", "organisation id or name")
    .option("--name <name>", "display name")
    .option("--bic <bic>", "BIC (ISO 9362, 8 or 11 characters)")
    .option("--bank-name <name>", "name of the bank")
    .action(async (ref: string, options: SetOptions) => (await actions()).set(ref, options));
  withGlobals(bankAccount.command("deactivate").description("stop using a bank account: documents no longer show it; its ledger account and history stay").argument("<account>", "bank account id or IBAN"))
    .requiredOption("--org <org>", "organisation id or name")
    .action(async (ref: string, options: RefOptions) => (await actions()).deactivate(ref, options));
  withGlobals(bankAccount.command("default").description("make a bank account the one whose IBAN goes on documents").argument("<account>", "bank account id or IBAN"))
    .requiredOption("--org <org>", "organisation id or name")
    .action(async (ref: string, options: RefOptions) => (await actions()).makeDefault(ref, options));
}
