/**
 * The intra-Community listing (form 723, Intervat `IntraConsignment`) of a VAT period: per
 * customer VAT number and code, the base of its grid-44 (S) and grid-46 (L) supplies less the
 * credit notes on them in grid 48 (docs/books.md#the-listings). It is built from the very rows
 * the period's VAT return adds up (server/vat-returns/contributions.ts), so its total is the
 * return's 44 + 46 less their part of 48 by construction; a row the listing cannot carry (no
 * valid EU VAT number) is named in a warning and counted in `unlisted`.
 */
import type { Tx } from "../../db/client.ts";
import { formatCents } from "../lib/money.ts";
import { compactVatNumber, vatNumberProblem } from "../lib/vat-numbers.ts";
import type { VatPeriodName } from "../lib/vat-period.ts";
import type { ListingWarning } from "../vat-returns/client-listing.ts";
import type { Declarant } from "../vat-returns/declarant.ts";
import { intervatCountry, type IntraCode } from "../vat-returns/listing-rules.ts";
import { intraContributions } from "./sources.ts";
import { EU_COUNTRIES } from "../vat-returns/grids.ts";

/** The member states an intra-Community listing names, by their Intervat codes (Greece EL): the EU's one list less Belgium (Intervat's MSCountryCodeExclBE also has GB and MC, no longer in the EU). */
const MEMBER_STATES = new Set([...EU_COUNTRIES].filter((c) => c !== "BE").map(intervatCountry));

export type IntraLine = { vat_number: string; country: string; number: string; code: IntraCode; amount: string; name: string; customer_ids: string[] };

export type IntraListing = {
  period: string;
  kind: VatPeriodName["kind"];
  year: number;
  index: number;
  from: string;
  to: string;
  declarant: { vat_number: string; name: string };
  lines: IntraLine[];
  totals: { clients: number; amount: string; unlisted: string; grid_44: string; grid_46: string; grid_48_on_44_46: string };
  warnings: ListingWarning[];
};


type Line = { vatNumber: string; country: string; number: string; code: IntraCode; cents: number; name: string; customerIds: Set<string> };

export async function intraListing(tx: Tx, orgId: string, period: VatPeriodName, declarant: Declarant): Promise<IntraListing> {
  const grids = { "44": 0, "46": 0, "48": 0 };
  const lines = new Map<string, Line>();
  const unlisted = new Map<string, { name: string; customerId: string; vatNumber: string | null; cents: number }>();
  const sources = await intraContributions(tx, orgId, period);
  for (const row of sources.rows) {
    // a credit note on a 44 or 46 supply (grid 48) reduces its customer's line of the same code
    const signed = row.grid === "48" ? -row.cents : row.cents;
    grids[row.grid] += row.cents;
    const vat = row.party.vatNumber ? compactVatNumber(row.party.vatNumber) : "";
    const prefix = intervatCountry(vat.slice(0, 2));
    const number = vat.slice(2);
    if (!MEMBER_STATES.has(prefix) || number.length === 0 || number.length > 12) {
      const t = unlisted.get(row.party.customerId) ?? { name: row.party.name, customerId: row.party.customerId, vatNumber: vat || null, cents: 0 };
      t.cents += signed;
      unlisted.set(row.party.customerId, t);
      continue;
    }
    const key = `${prefix}${number} ${row.code}`;
    const line = lines.get(key) ?? { vatNumber: vat, country: prefix, number, code: row.code, cents: 0, name: row.party.name, customerIds: new Set<string>() };
    line.cents += signed;
    line.name = row.party.name;
    line.customerIds.add(row.party.customerId);
    lines.set(key, line);
  }

  const warnings: ListingWarning[] = [];
  for (const d of sources.foreign) {
    warnings.push({
      code: "other_currency",
      message: `${d.label} to ${d.party.name ?? "a customer"} in another member state is in ${d.currency}: it is neither in the VAT return nor listed (Kontor keeps no exchange rates). Add it by hand in euro.`,
      customer_id: d.party.id,
      customer_name: d.party.name,
    });
  }
  for (const t of unlisted.values()) {
    if (t.cents === 0) continue;
    warnings.push({
      code: "no_vat_number",
      message: t.vatNumber
        ? `Customer ${t.name} was invoiced a supply reported in grid 44 or 46 under ${t.vatNumber}, which is not an EU VAT number the listing accepts: ${formatCents(t.cents)} is not listed.`
        : `Customer ${t.name} was invoiced a supply reported in grid 44 or 46 without a VAT number: ${formatCents(t.cents)} is not listed. An intra-Community supply needs the customer's VAT number.`,
      customer_id: t.customerId,
      customer_name: t.name,
    });
  }
  const listed = [...lines.values()].filter((l) => l.cents !== 0).sort((a, b) => (a.vatNumber < b.vatNumber ? -1 : a.vatNumber > b.vatNumber ? 1 : a.code < b.code ? -1 : 1));
  for (const l of listed) {
    if (vatNumberProblem(l.vatNumber)) {
      warnings.push({
        code: "invalid_vat_number",
        message: `Customer ${l.name}'s VAT number ${l.vatNumber} fails its country's format or check digits: check it (VIES) before filing.`,
        customer_id: [...l.customerIds][0]!,
        customer_name: l.name,
      });
    }
    if (l.cents < 0) {
      warnings.push({
        code: "negative_line",
        message: `Customer ${l.name} (${l.vatNumber}, code ${l.code}) was credited more than it was invoiced in ${period.name}: a correction of an earlier period is filed with that period as CorrectingPeriod (verify).`,
        customer_id: [...l.customerIds][0]!,
        customer_name: l.name,
      });
    }
  }
  return {
    period: period.name,
    kind: period.kind,
    year: period.year,
    index: period.index,
    from: period.from,
    to: period.to,
    declarant: { vat_number: declarant.vatNumber, name: declarant.name },
    lines: listed.map((l) => ({ vat_number: l.vatNumber, country: l.country, number: l.number, code: l.code, amount: formatCents(l.cents), name: l.name, customer_ids: [...l.customerIds].sort() })),
    totals: {
      clients: listed.length,
      amount: formatCents(listed.reduce((s, l) => s + l.cents, 0)),
      unlisted: formatCents([...unlisted.values()].reduce((s, t) => s + t.cents, 0)),
      grid_44: formatCents(grids["44"]),
      grid_46: formatCents(grids["46"]),
      grid_48_on_44_46: formatCents(grids["48"]),
    },
    warnings,
  };
}
