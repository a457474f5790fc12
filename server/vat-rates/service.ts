import { asc, desc, eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { vatRates } from "../../db/schema.ts";
import type { FieldErrorBag } from "../lib/errors.ts";
import { formatCents } from "../lib/money.ts";
import { inOrg } from "../lib/scope.ts";
import { firstRow } from "../../db/client.ts";

export type VatRateRow = typeof vatRates.$inferSelect;

/**
 * The organisation's VAT rate with this id, or an error on `field` in the bag (a rate of
 * another organisation is a validation error, 422, not a 404: the resource is the invoice).
 */
export async function readVatRate(tx: Tx, orgId: string, bag: FieldErrorBag, field: string, id: string): Promise<VatRateRow | null> {
  const row = await firstRow(tx.select().from(vatRates).where(inOrg(vatRates, orgId, eq(vatRates.id, id))));
  if (!row) bag.add(field, `The selected ${field} is invalid.`);
  return row ?? null;
}

export async function listVatRates(tx: Tx, orgId: string): Promise<VatRateRow[]> {
  return await tx.select().from(vatRates).where(inOrg(vatRates, orgId)).orderBy(desc(vatRates.isDefault), desc(vatRates.rateBp), asc(vatRates.id));
}

/** The rate as the API shows it: basis points of a percent as a decimal string (2100 → "21.00"). */
export function presentVatRate(row: VatRateRow) {
  return { id: row.id, name: row.name, rate: formatCents(row.rateBp), is_default: row.isDefault, category: row.category, exemption_reason_code: row.exemptionReasonCode };
}
