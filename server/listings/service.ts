/** The listings' read side: each computed in one read snapshot, as JSON or as its Intervat XML. */
import { eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { organizations } from "../../db/schema.ts";
import { snapshot, type Scope } from "../lib/scope.ts";
import { clientListing, listingYear, type ClientListing } from "../vat-returns/client-listing.ts";
import { readDeclarant } from "../vat-returns/declarant.ts";
import { intraListing, type IntraListing } from "./intra.ts";
import { filingPeriod } from "../vat-returns/service.ts";
import { clientListingXml, intraListingXml } from "./xml.ts";
import { Conflict } from "../lib/errors.ts";
import { firstRow } from "../../db/client.ts";

const timeZoneOf = async (tx: Tx, orgId: string) => (await firstRow(tx.select({ tz: organizations.timezone }).from(organizations).where(eq(organizations.id, orgId))))!.tz;

export type ListingFile = { body: string; name: string };

export const listingService = {
  async clients(scope: Scope, yearText: string): Promise<ClientListing> {
    return await snapshot(scope.db, async (tx) => {
      const year = listingYear(yearText, await timeZoneOf(tx, scope.org.id));
      return clientListing(tx, scope.org.id, year, await readDeclarant(tx, scope.org.id));
    });
  },

  async clientsXml(scope: Scope, yearText: string): Promise<ListingFile> {
    return await snapshot(scope.db, async (tx) => {
      const year = listingYear(yearText, await timeZoneOf(tx, scope.org.id));
      const declarant = await readDeclarant(tx, scope.org.id);
      const listing = await clientListing(tx, scope.org.id, year, declarant);
      // nobody to list: no listing is filed (the year's last VAT return says ClientListingNihil YES)
      if (listing.customers.length === 0) {
        throw new Conflict(`Nobody to list in ${year}: no Belgian VAT-registered customer had more than ${listing.threshold} of turnover, so no client listing is filed; the year's last VAT return answers ClientListingNihil YES.`);
      }
      return { body: clientListingXml(listing, declarant), name: `client-listing-${year}` };
    });
  },

  async intraCommunity(scope: Scope, periodText: string): Promise<IntraListing> {
    return await snapshot(scope.db, async (tx) => {
      const period = await filingPeriod(tx, scope.org.id, periodText);
      return intraListing(tx, scope.org.id, period, await readDeclarant(tx, scope.org.id));
    });
  },

  /** The schema wants at least one customer: a period without intra-Community supplies files no listing (409). */
  async intraCommunityXml(scope: Scope, periodText: string): Promise<ListingFile> {
    return await snapshot(scope.db, async (tx) => {
      const period = await filingPeriod(tx, scope.org.id, periodText);
      const declarant = await readDeclarant(tx, scope.org.id);
      const listing = await intraListing(tx, scope.org.id, period, declarant);
      if (listing.lines.length === 0) {
        throw new Conflict(`Nothing to list in ${period.name}: no intra-Community supply or service to an EU customer, so no intra-Community listing is filed for it.`);
      }
      return { body: intraListingXml(listing, declarant), name: `intra-community-listing-${period.name}` };
    });
  },
};
