/** `kontor listing clients | intra-community` (declared in cli/commands/listings.ts). */
import { listingService } from "../../server/listings/service.ts";
import type { ListingWarning } from "../../server/vat-returns/client-listing.ts";
import { CLI_ACTOR, findOrganization } from "../../server/orgs/service.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";
import { printError, printJson, printLine, printTable } from "../output.ts";

export type ListingOptions = GlobalOptions & { org: string; xml?: boolean };

async function scopeOf(options: ListingOptions) {
  const { db } = await open(options);
  return { db, org: await findOrganization(db, options.org), actor: CLI_ACTOR };
}

/** Warnings go to stderr with the tables, so that stdout holds the listing alone. */
const warn = (warnings: ListingWarning[]) => warnings.forEach((w) => printError(`warning: ${w.message}`));

export async function clients(year: string, options: ListingOptions): Promise<void> {
  const scope = await scopeOf(options);
  if (options.xml) return void process.stdout.write((await listingService.clientsXml(scope, year)).body);
  const listing = await listingService.clients(scope, year);
  if (options.json) return printJson(listing);
  printTable(listing.customers, [
    ["VAT NUMBER", (c) => c.vat_number],
    ["NAME", (c) => c.name],
    ["TURNOVER", (c) => c.turnover],
    ["VAT", (c) => c.vat_amount],
  ]);
  printLine(`${listing.totals.clients} clients, turnover ${listing.totals.turnover}, VAT ${listing.totals.vat_amount}`);
  warn(listing.warnings);
}

export async function intraCommunity(period: string, options: ListingOptions): Promise<void> {
  const scope = await scopeOf(options);
  if (options.xml) return void process.stdout.write((await listingService.intraCommunityXml(scope, period)).body);
  const listing = await listingService.intraCommunity(scope, period);
  if (options.json) return printJson(listing);
  printTable(listing.lines, [
    ["VAT NUMBER", (l) => l.vat_number],
    ["CODE", (l) => l.code],
    ["NAME", (l) => l.name],
    ["AMOUNT", (l) => l.amount],
  ]);
  printLine(`${listing.totals.clients} lines, total ${listing.totals.amount} (grids 44 ${listing.totals.grid_44} + 46 ${listing.totals.grid_46} − 48 ${listing.totals.grid_48_on_44_46})`);
  warn(listing.warnings);
}
