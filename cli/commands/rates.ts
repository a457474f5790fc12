/** `kontor rates add|list` (docs/reminders.md#rates-table): the statutory late-payment interest rates; what they do is in cli/actions/rates.ts. */
import type { Command } from "commander";
import type { AddRateOptions } from "../actions/rates.ts";
import { withGlobals, type GlobalOptions } from "../globals.ts";

const actions = () => import("../actions/rates.ts");

/**
 * How an administrator adds the rate of a new period: what a reminder run reports as missing
 * (a period without a rate charges no interest until its rate is added).
 */
const RATES_HELP = `
A day without a rate earns no interest: a reminder run, its preview and GET /invoices/{id}/reminders
report such days as missing_rates (and the run logs a warning); the interest note charges the days
it can, and a later one picks up the rest once the rate is added.

Adding the published rate of a period (docs/reminders.md#rates-table):
  1. Find the official publication of the rate for the period (the rate with its margin, as published):
     BE  the FPS Finance notice in the Belgian Official Journal, each half year ("Taux d'intérêt
         applicable en cas de retard de paiement dans les transactions commerciales": ECB rate + 8
         points, rounded up to the next half point; law of 2 August 2002, art. 5)
     other EU countries: the reference rate + at least 8 points their law transposing Directive
         2011/7/EU sets, as their own official journal or central bank publishes it
  2. Add it with the period's first and last day and the publication as its source:
       kontor rates add --country BE --from 2026-07-01 --to 2026-12-31 --rate <as published> \\
         --source "FPS Finance notice, Belgian Official Journal of <date>, p. <page>"
  3. Check it: kontor rates list --country BE
Never enter a rate you cannot cite: the source is kept with the row and shown by kontor rates list.
`;

export function registerRateCommands(program: Command): void {
  const rates = program
    .command("rates")
    .description("the statutory late-payment interest rates interest notes charge, per country and period")
    .addHelpText("after", RATES_HELP);
  withGlobals(rates.command("add").description("add a published rate (audited in each organisation of the country); overlapping periods are refused").addHelpText("after", RATES_HELP))
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
