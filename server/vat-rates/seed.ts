import type { Tx } from "../../db/client.ts";
import { vatRates } from "../../db/schema.ts";
import type { VatCategory } from "../documents/model.ts";
import { VAT_RATES_BY_COUNTRY } from "../lib/country-vat-rates.ts";
import { newId, nowIso } from "../lib/time.ts";

/**
 * The 0 % rates every organisation gets beside its country's rates, each with its EN 16931
 * category and the VATEX exemption reason the category needs on an e-invoice. Migration 0014
 * adds the same rows to organisations made before it. Intra-EU rows are seeded outside the EU
 * too: a handful of unused rates costs nothing, and every organisation has the same set.
 */
export const ZERO_RATED_EXTRAS: readonly { name: string; category: VatCategory; exemptionReasonCode: string }[] = [
  { name: "Reverse charge 0%", category: "AE", exemptionReasonCode: "VATEX-EU-AE" },
  { name: "Intra-EU supply 0%", category: "K", exemptionReasonCode: "VATEX-EU-IC" },
  { name: "Export 0%", category: "G", exemptionReasonCode: "VATEX-EU-G" },
  // exempt under article 132 of Directive 2006/112/EC (medical care, education, …)
  { name: "Exempt 0%", category: "E", exemptionReasonCode: "VATEX-EU-132" },
];

/**
 * Seeds an organisation's VAT rates from its country: its standard rate (the default) and
 * reduced rates (category S), a zero rate (Z, the default where the country is unknown), and
 * the 0 % rates of ZERO_RATED_EXTRAS.
 */
export async function seedVatRates(tx: Tx, organizationId: string, country: string): Promise<void> {
  const rates = VAT_RATES_BY_COUNTRY[country.toUpperCase()] ?? [];
  const now = nowIso();
  const row = (name: string, rateBp: number, isDefault: boolean, category: VatCategory, exemptionReasonCode: string | null) => ({
    id: newId(),
    organizationId,
    name,
    rateBp,
    isDefault,
    category,
    exemptionReasonCode,
    createdAt: now,
  });
  const rows = rates.map((rate, i) => row(`${i === 0 ? "Standard" : "Reduced"} ${rate}%`, Math.round(rate * 100), i === 0, "S", null));
  rows.push(row("Zero 0%", 0, rows.length === 0, "Z", null));
  for (const extra of ZERO_RATED_EXTRAS) rows.push(row(extra.name, 0, false, extra.category, extra.exemptionReasonCode));
  await tx.insert(vatRates).values(rows);
}
