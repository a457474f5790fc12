/** `kontor vat-return show | xml | file`: the declarations; what they do is in cli/actions/vat-returns.ts, imported when one runs. */
import type { Command } from "commander";
import type { VatReturnOptions } from "../actions/vat-returns.ts";
import { withGlobals } from "../globals.ts";

const actions = () => import("../actions/vat-returns.ts");

export function registerVatReturnCommands(program: Command): void {
  const vatReturn = program.command("vat-return").description("the Belgian periodic VAT return (docs/books.md#the-vat-return)");
  withGlobals(vatReturn.command("show").description("show a period's grids, the documents behind them, the warnings and whether it was filed").argument("<period>", "a quarter (2026-Q4) or a month (2026-11), after the organisation's vat_period"))
    .requiredOption("--org <org>", "organisation id or name")
    .action(async (period: string, options: VatReturnOptions) => (await actions()).show(period, options));
  withGlobals(vatReturn.command("xml").description("print the Intervat VATConsignment XML of a period (as filed once filed)").argument("<period>", "a quarter (2026-Q4) or a month (2026-11)"))
    .requiredOption("--org <org>", "organisation id or name")
    .option("--ask-restitution", "ask for the VAT credit (grid 72) to be paid back")
    .action(async (period: string, options: VatReturnOptions) => (await actions()).xml(period, options));
  withGlobals(vatReturn.command("file").description("file a period's return: keeps its grids and XML as filed and closes the period for VAT").argument("<period>", "a quarter (2026-Q4) or a month (2026-11)"))
    .requiredOption("--org <org>", "organisation id or name")
    .option("--ask-restitution", "ask for the VAT credit (grid 72) to be paid back")
    .action(async (period: string, options: VatReturnOptions) => (await actions()).file(period, options));
}
