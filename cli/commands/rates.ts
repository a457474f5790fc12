/** `kontor rates add|list` (issue 30): the statutory late-payment interest rates; what they do is in cli/actions/rates.ts. */
import type { Command } from "commander";
import type { AddRateOptions } from "../actions/rates.ts";
import { withGlobals, type GlobalOptions } from "../globals.ts";

const actions = () => import("../actions/rates.ts");

export function registerRateCommands(program: Command): void {
  const rates = program.command("rates").description("the statutory late-payment interest rates interest notes charge, per country and period");
  withGlobals(rates.command("add").description("add a published rate (audited in each organisation of the country); overlapping periods are refused"))
    .requiredOption("--country <code>", "ISO 3166-1 alpha-2, e.g. BE")
    .requiredOption("--from <date>", "first day it applies, YYYY-MM-DD")
    .requiredOption("--to <date>", "last day it applies, YYYY-MM-DD")
    .requiredOption("--rate <percent>", "the rate as published, 8 points included, e.g. 10.50")
    .requiredOption("--source <text>", "the publication it comes from (title and date)")
    .action(async (options: AddRateOptions) => (await actions()).add(options));
  withGlobals(rates.command("list").description("list the rates, by country and date"))
    .option("--country <code>", "only this country's")
    .action(async (options: GlobalOptions & { country?: string }) => (await actions()).list(options));
}
