/**
 * What the intra-Community listing reads of the VAT return: the period's rows of grids 44, 46
 * and 48 (only the credit notes on 44 and 46: those with a listing code), each with its customer
 * as issued and its listing code, exactly as the return adds them up.
 */
import type { Tx } from "../../db/client.ts";
import type { VatPeriodName } from "../lib/vat-period.ts";
import { collectPeriod, type ForeignDocument } from "../vat-returns/contributions.ts";
import { regionOf } from "../vat-returns/grids.ts";
import type { IntraCode } from "../vat-returns/listing-rules.ts";

export type IntraContribution = {
  grid: "44" | "46" | "48";
  code: IntraCode;
  /** as the grid counts it: positive for a supply (44, 46) or a credit note on one (48); negative for a cancellation */
  cents: number;
  party: { customerId: string; name: string; vatNumber: string | null };
};

const INTRA_GRIDS = new Set(["44", "46", "48"]);

/**
 * The period's 44/46/48 rows, and the sales in another currency the return leaves out that would
 * have reached them (K or AE to a customer in another member state): the listing names those.
 */
export async function intraContributions(tx: Tx, orgId: string, period: VatPeriodName): Promise<{ rows: IntraContribution[]; foreign: ForeignDocument[] }> {
  const { contributions, foreign } = await collectPeriod(tx, orgId, period);
  const rows = contributions
    .filter((c) => c.side === "sales" && INTRA_GRIDS.has(c.grid) && c.intraCode !== null)
    .map((c) => ({
      grid: c.grid as IntraContribution["grid"],
      code: c.intraCode!,
      cents: c.cents,
      party: { customerId: c.party.id ?? c.sourceId, name: c.party.name ?? c.number ?? c.sourceId, vatNumber: c.party.vatNumber },
    }));
  const intraForeign = foreign.filter((d) => d.side === "sales" && regionOf(d.party.country) === "EU" && d.categories.some((c) => c === "K" || c === "AE"));
  return { rows, foreign: intraForeign };
}
