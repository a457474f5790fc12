/** `kontor listing clients | intra-community`: the declarations; what they do is in cli/actions/listings.ts, imported when they run. */
import type { Command } from "commander";
import type { ListingOptions } from "../actions/listings.ts";
import { withGlobals } from "../globals.ts";

export function registerListingCommands(program: Command): void {
  const listing = program.command("listing").description("the Belgian listings: the annual client listing and the intra-Community listing (docs/books.md)");
  withGlobals(
    listing
      .command("clients <year>")
      .description("the annual client listing of a calendar year that has ended: Belgian VAT numbers invoiced more than 250.00 net, with warnings")
      .requiredOption("--org <org>", "organisation id or name")
      .option("--xml", "print the Intervat XML (ClientListingConsignment) instead"),
  ).action(async (year: string, options: ListingOptions) => (await import("../actions/listings.ts")).clients(year, options));
  withGlobals(
    listing
      .command("intra-community <period>")
      .description("the intra-Community listing of a VAT period that has ended (YYYY-Qn or YYYY-MM, after the organisation's vat_period)")
      .requiredOption("--org <org>", "organisation id or name")
      .option("--xml", "print the Intervat XML (IntraConsignment) instead"),
  ).action(async (period: string, options: ListingOptions) => (await import("../actions/listings.ts")).intraCommunity(period, options));
}
