/**
 * What the intra-Community listing reads of the VAT return: the period's rows of grids 44, 46
 * and 48 (credit notes on 44 and 46 only), each with its customer and listing code.
 */
import type { Tx } from "../../db/client.ts";
import type { VatPeriodName } from "../lib/vat-period.ts";
import type { IntraCode } from "./rules.ts";

export type IntraContribution = {
  grid: "44" | "46" | "48";
  code: IntraCode;
  /** positive: the base of a supply (44, 46) or of a credit note on one (48) */
  cents: number;
  party: { customerId: string; name: string; vatNumber: string | null };
};

export function intraContributions(_tx: Tx, _orgId: string, _period: VatPeriodName): IntraContribution[] {
  return [];
}
