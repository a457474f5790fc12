/**
 * The annual client listing (form 725, Intervat `ClientListingConsignment`): per Belgian VAT
 * number as issued on the documents, the net turnover (invoices less credit notes, without VAT)
 * and Belgian VAT of a calendar year, for those whose turnover is more than €250.00
 * (docs/books.md#the-listings). Read from the journal's sales VAT lines of each document, so a
 * document's allowances, charges and cancellation count exactly as its posting did.
 */
import { sql } from "drizzle-orm";
import { sqlRows, type Tx } from "../../db/client.ts";
import type { DocumentParty, IssuedParties, VatCategory } from "../../db/values.ts";
import { ValidationFailed } from "../lib/errors.ts";
import { formatCents } from "../lib/money.ts";
import { localDate } from "../lib/time.ts";
import { compactVatNumber, isBelgianEnterpriseNumber } from "../lib/vat-numbers.ts";
import { CLIENT_LISTING_CATEGORIES, CLIENT_LISTING_THRESHOLD_CENTS } from "./listing-rules.ts";
import type { Declarant } from "./declarant.ts";

export type ListingWarning = { code: string; message: string; customer_id: string | null; customer_name: string | null };

export type ClientListingCustomer = { vat_number: string; name: string; customer_ids: string[]; documents: number; turnover: string; vat_amount: string };

export type ClientListing = {
  year: number;
  declarant: { vat_number: string; name: string };
  threshold: string;
  customers: ClientListingCustomer[];
  totals: { clients: number; turnover: string; vat_amount: string };
  below_threshold: ClientListingCustomer[];
  warnings: ListingWarning[];
};

/** `{year}` of the route: a calendar year that has ended (the listing is filed after it, by 31 March), else a 422 on `year`. */
export function listingYear(text: string, timeZone: string): number {
  const year = /^\d{4}$/.test(text) ? Number(text) : NaN;
  if (!(year >= 1900 && year <= 2999)) throw ValidationFailed.field("year", "The year field must be a calendar year, e.g. 2025.");
  const today = localDate(timeZone);
  if (`${year}-12-31` >= today) {
    throw ValidationFailed.field("year", `The year ${year} has not ended (today is ${today}): the client listing covers a whole calendar year and is filed after it.`);
  }
  return year;
}

type Row = {
  id: string;
  number: string;
  issueDate: string;
  currency: string;
  customerId: string;
  parties: string | null;
  customerName: string;
  customerVat: string | null;
  customerCountry: string | null;
  customerCompany: string | null;
  customerPeppol: string | null;
  category: VatCategory;
  base: number;
  vat: number;
};

/** Each issued document's sales base and VAT of the year, per VAT category, signed (a credit note negative), with its buyer as issued. */
async function documentRows(tx: Tx, orgId: string, year: number): Promise<Row[]> {
  return await sqlRows<Row>(tx, sql`
    SELECT i.id AS "id", i.number AS "number", i.issue_date AS "issueDate", i.currency AS "currency", i.customer_id AS "customerId",
           i.issued_parties AS "parties", c.name AS "customerName", c.vat_number AS "customerVat", c.country AS "customerCountry",
           c.company_number AS "customerCompany", c.peppol_id AS "customerPeppol", jl.vat_category AS "category",
           sum(CASE WHEN jl.vat_role = 'base' THEN jl.credit_cents - jl.debit_cents ELSE 0 END) AS base,
           sum(CASE WHEN jl.vat_role = 'vat' THEN jl.credit_cents - jl.debit_cents ELSE 0 END) AS vat
    FROM invoices i
    JOIN customers c ON c.id = i.customer_id
    JOIN journal_entries je ON je.organization_id = i.organization_id AND je.source_type = 'invoice' AND je.source_id = i.id
    JOIN journal_lines jl ON jl.entry_id = je.id
    WHERE i.organization_id = ${orgId} AND i.issue_date BETWEEN ${`${year}-01-01`} AND ${`${year}-12-31`}
      AND i.type IN ('invoice', 'credit_note') AND jl.vat_side = 'sales'
    GROUP BY i.id, c.id, jl.vat_category
    ORDER BY i.issue_date, i.number`);
}

/** Who the document was issued to: its frozen buyer, or (a document issued before parties were frozen) the customer as it is. */
function buyerOf(row: Row): Pick<DocumentParty, "name" | "vatNumber" | "country" | "companyNumber" | "peppolId"> {
  if (row.parties) return (JSON.parse(row.parties) as IssuedParties).buyer;
  return { name: row.customerName, vatNumber: row.customerVat, country: row.customerCountry, companyNumber: row.customerCompany, peppolId: row.customerPeppol };
}

type Totals = { turnover: number; vat: number; documents: Set<string>; customerIds: Set<string>; name: string };

export async function clientListing(tx: Tx, orgId: string, year: number, declarant: Declarant, currency = "EUR"): Promise<ClientListing> {
  const listed = new Map<string, Totals>();
  // customers the listing cannot place, by customer id and what is wrong (their listed turnover is added up to say how much is at stake)
  const unplaced = new Map<string, Totals & { code: string; vatNumber: string | null; currency: string }>();
  const add = (t: Totals, row: Row, buyer: { name: string }) => {
    t.turnover += row.base;
    t.vat += row.vat;
    t.documents.add(row.id);
    t.customerIds.add(row.customerId);
    t.name = buyer.name; // the latest document's name: rows come in date order
  };
  const fresh = (name: string): Totals => ({ turnover: 0, vat: 0, documents: new Set(), customerIds: new Set(), name });

  for (const row of await documentRows(tx, orgId, year)) {
    if (!CLIENT_LISTING_CATEGORIES[row.category]?.listed) continue;
    const buyer = buyerOf(row);
    const vat = buyer.vatNumber ? compactVatNumber(buyer.vatNumber) : "";
    let problem: string | null = null;
    if (vat.startsWith("BE")) {
      if (!isBelgianEnterpriseNumber(vat.slice(2))) problem = "invalid_vat_number";
      else if (row.currency !== currency) problem = "other_currency";
    } else if (vat === "") {
      // a Belgian business without a VAT number on the document: one with an enterprise number or a Peppol id, or that owes the VAT as co-contractor; a consumer has none of these
      const business = buyer.companyNumber || buyer.peppolId || row.category === "AE";
      if ((buyer.country ?? "BE") === "BE" && business) problem = "missing_vat_number";
      else continue;
    } else continue; // a foreign VAT number: never on the Belgian client listing
    if (problem) {
      const key = `${row.customerId} ${problem} ${row.currency}`;
      const t = unplaced.get(key) ?? { ...fresh(buyer.name), code: problem, vatNumber: vat || null, currency: row.currency };
      unplaced.set(key, t);
      add(t, row, buyer);
      continue;
    }
    const t = listed.get(vat) ?? fresh(buyer.name);
    listed.set(vat, t);
    add(t, row, buyer);
  }

  const present = ([vat, t]: [string, Totals]): ClientListingCustomer => ({
    vat_number: vat,
    name: t.name,
    customer_ids: [...t.customerIds].sort(),
    documents: t.documents.size,
    turnover: formatCents(t.turnover),
    vat_amount: formatCents(t.vat),
  });
  const entries = [...listed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const over = entries.filter(([, t]) => t.turnover > CLIENT_LISTING_THRESHOLD_CENTS);
  const customers = over.map(present);
  const warnings: ListingWarning[] = [];
  for (const [, t] of unplaced) {
    if (t.turnover === 0 && t.vat === 0) continue;
    const id = [...t.customerIds][0]!;
    const amounts = `${formatCents(t.turnover)} ${t.currency} turnover and ${formatCents(t.vat)} VAT in ${year}`;
    const message =
      t.code === "invalid_vat_number"
        ? `Customer ${t.name} was invoiced under the VAT number ${t.vatNumber}, which is not a valid Belgian VAT number (mod 97): ${amounts} are not listed. Correct the number and list them by hand.`
        : t.code === "missing_vat_number"
          ? `Customer ${t.name} is a Belgian business invoiced without a VAT number: ${amounts} are not listed. If it is VAT-registered, list it by hand under its VAT number.`
          : `Customer ${t.name} (${t.vatNumber}) was invoiced in ${t.currency}: ${amounts} are not converted to ${currency} (Kontor keeps no exchange rates) and not listed.`;
    warnings.push({ code: t.code, message, customer_id: id, customer_name: t.name });
  }
  if (customers.length === 0) {
    warnings.push({
      code: "no_client",
      message: `No Belgian VAT-registered customer had more than ${formatCents(CLIENT_LISTING_THRESHOLD_CENTS)} of turnover in ${year}: no client listing is filed; the year's last VAT return answers ClientListingNihil YES.`,
      customer_id: null,
      customer_name: null,
    });
  }
  return {
    year,
    declarant: { vat_number: declarant.vatNumber, name: declarant.name },
    threshold: formatCents(CLIENT_LISTING_THRESHOLD_CENTS),
    customers,
    totals: {
      clients: customers.length,
      turnover: formatCents(over.reduce((s, [, t]) => s + t.turnover, 0)),
      vat_amount: formatCents(over.reduce((s, [, t]) => s + t.vat, 0)),
    },
    below_threshold: entries.filter(([, t]) => t.turnover <= CLIENT_LISTING_THRESHOLD_CENTS).map(present),
    warnings,
  };
}
