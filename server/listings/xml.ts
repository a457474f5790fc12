/**
 * The listings as Intervat XML: one consignment of one listing (`SequenceNumber` 1), filed by
 * the declarant itself (no `Representative`), an original (no `Replaced…Listing`: Kontor keeps
 * no Intervat reference of an earlier filing). Counts and sums are those of the rows written.
 * Validated against ../shared/belgium/intervat in tests/listings.
 */
import { el, xmlDocument } from "../documents/xml-writer.ts";
import { formatCents, toCents } from "../lib/money.ts";
import type { ClientListing } from "../vat-returns/client-listing.ts";
import { declarantXml, INPUT_COMMON_NS, type Declarant } from "../vat-returns/declarant.ts";
import type { IntraListing } from "./intra.ts";

const cents = (money: string) => toCents(money)!;
const sum = (amounts: string[]) => formatCents(amounts.reduce((s, a) => s + cents(a), 0));

/** `ClientListingConsignment` (NewLK-in_v0_9.xsd): each listed customer by its 10 digits, issued by BE. */
export function clientListingXml(listing: ClientListing, declarant: Declarant): string {
  const ns2 = "ns2";
  const clients = listing.customers;
  return xmlDocument(
    el(
      `${ns2}:ClientListingConsignment`,
      { xmlns: INPUT_COMMON_NS, "xmlns:ns2": "http://www.minfin.fgov.be/ClientListingConsignment", ClientListingsNbr: "1" },
      el(
        `${ns2}:ClientListing`,
        {
          SequenceNumber: "1",
          ClientsNbr: String(clients.length),
          DeclarantReference: `LK${listing.year}`,
          TurnOverSum: sum(clients.map((c) => c.turnover)),
          VATAmountSum: sum(clients.map((c) => c.vat_amount)),
        },
        declarantXml(ns2, declarant),
        el(`${ns2}:Period`, null, String(listing.year)),
        ...clients.map((c, i) =>
          el(
            `${ns2}:Client`,
            { SequenceNumber: String(i + 1) },
            el(`${ns2}:CompanyVATNumber`, { issuedBy: "BE" }, c.vat_number.slice(2)),
            el(`${ns2}:TurnOver`, null, c.turnover),
            el(`${ns2}:VATAmount`, null, c.vat_amount),
          ),
        ),
      ),
    ),
  );
}

/** `IntraConsignment` (NewICO-in_v0_9.xsd): one line per customer VAT number and code; the schema wants at least one. */
export function intraListingXml(listing: IntraListing, declarant: Declarant): string {
  const ns2 = "ns2";
  const lines = listing.lines;
  return xmlDocument(
    el(
      `${ns2}:IntraConsignment`,
      { xmlns: INPUT_COMMON_NS, "xmlns:ns2": "http://www.minfin.fgov.be/IntraConsignment", IntraListingsNbr: "1" },
      el(
        `${ns2}:IntraListing`,
        { SequenceNumber: "1", ClientsNbr: String(lines.length), DeclarantReference: `IC${listing.period.replace("-", "")}`, AmountSum: sum(lines.map((l) => l.amount)) },
        declarantXml(ns2, declarant),
        el(
          `${ns2}:Period`,
          null,
          listing.kind === "monthly" ? el(`${ns2}:Month`, null, String(listing.index)) : el(`${ns2}:Quarter`, null, String(listing.index)),
          el(`${ns2}:Year`, null, String(listing.year)),
        ),
        ...lines.map((l, i) =>
          el(
            `${ns2}:IntraClient`,
            { SequenceNumber: String(i + 1) },
            el(`${ns2}:CompanyVATNumber`, { issuedBy: l.country }, l.number),
            el(`${ns2}:Code`, null, l.code),
            el(`${ns2}:Amount`, null, l.amount),
          ),
        ),
      ),
    ),
  );
}
