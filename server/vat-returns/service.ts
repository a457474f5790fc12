/**
 * The Belgian periodic VAT return of a period (docs/books.md#the-vat-return): its grids, summed
 * from what each document contributes (./contributions.ts) by the grid table (./grids.ts), their
 * sources and warnings; its Intervat XML (./xml.ts); and its filing, which keeps the grids and the
 * XML as filed, byte for byte, and closes the period for VAT.
 */
import { and, eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { organizations, vatReturns } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { Conflict, ValidationFailed } from "../lib/errors.ts";
import { formatCents } from "../lib/money.ts";
import { snapshot, unitOfWork, type Scope } from "../lib/scope.ts";
import { localDate, newId, nowIso } from "../lib/time.ts";
import { isLastOfYear, parseVatPeriod, type VatPeriodName } from "../lib/vat-period.ts";
import { clientListing } from "./client-listing.ts";
import { collectPeriod, filingOver, filings, type GridContribution } from "./contributions.ts";
import { plausibility, shownGrids, withBalance } from "./grids.ts";
import { readDeclarant } from "./declarant.ts";
import { vatConsignmentXml } from "./xml.ts";
import { firstRow } from "../../db/client.ts";

type OrgRow = typeof organizations.$inferSelect;

async function orgRow(tx: Tx, orgId: string): Promise<OrgRow> {
  return (await firstRow(tx.select().from(organizations).where(eq(organizations.id, orgId))))!;
}

/**
 * The period named, of the organisation's kind and ended (its last day before today where it is):
 * else a 422 on `period`. The one check of the return and the intra-Community listing.
 */
export async function filingPeriod(tx: Tx, orgId: string, name: string): Promise<VatPeriodName> {
  return periodOf(await orgRow(tx, orgId), name);
}

function periodOf(org: OrgRow, name: string): VatPeriodName {
  const period = parseVatPeriod(name);
  if (!period) throw ValidationFailed.field("period", "The period must be a quarter (YYYY-Qn, e.g. 2026-Q4) or a month (YYYY-MM, e.g. 2026-11).");
  if (period.kind !== org.vatPeriod) {
    const example = org.vatPeriod === "quarterly" ? "a quarter, e.g. 2026-Q4" : "a month, e.g. 2026-11";
    throw ValidationFailed.field("period", `The organisation files its VAT return ${org.vatPeriod} (vat_period): name ${example}.`);
  }
  if (period.to >= localDate(org.timezone)) throw ValidationFailed.field("period", `The period ${period.name} has not ended yet (it ends on ${period.to}).`);
  return period;
}

/** The organisation as declarant (the one reader of the Intervat filings, ./declarant.ts): without a valid Belgian VAT number, a 422 on `vat_number`. */
const declarantOf = (tx: Tx, org: OrgRow) => readDeclarant(tx, org.id);

/**
 * Whether the year's client listing is empty (no Belgian VAT-registered customer listed): the
 * listing itself decides, so the return's ClientListingNihil and the listing never disagree. Only
 * the return of the year's last period says so.
 */
async function clientListingEmpty(tx: Tx, orgId: string, year: number): Promise<boolean> {
  return (await clientListing(tx, orgId, year, await readDeclarant(tx, orgId))).customers.length === 0;
}

type Computed = {
  period: VatPeriodName;
  grids: Record<string, number>;
  contributions: GridContribution[];
  warnings: string[];
  blocking: string[];
};

async function compute(tx: Tx, orgId: string, period: VatPeriodName): Promise<Computed> {
  const { contributions, warnings } = await collectPeriod(tx, orgId, period);
  const sums: Record<string, number> = {};
  for (const c of contributions) sums[c.grid] = (sums[c.grid] ?? 0) + c.cents;
  // 61 and 62 (miscellaneous corrections) are the accountant's to enter in Intervat
  const grids = withBalance(sums);
  const checks = plausibility(grids);
  return {
    period,
    grids,
    contributions,
    warnings: [...warnings, ...checks.map((c) => c.message)],
    blocking: checks.filter((c) => c.blocking).map((c) => c.message),
  };
}

const gridsShown = (grids: Record<string, number>) => Object.fromEntries(shownGrids(grids).map(([g, c]) => [g, formatCents(c)]));

/** `overlapped`: another filed period (of the other kind) shares days with this one, so it cannot be filed. */
function present(org: OrgRow, computed: Computed, filed: typeof vatReturns.$inferSelect | undefined, overlapped = false) {
  const grids = filed ? filed.grids : computed.grids;
  const bySource = Map.groupBy(computed.contributions, (c) => c.grid);
  return {
    period: computed.period.name,
    from: computed.period.from,
    to: computed.period.to,
    vat_period: org.vatPeriod,
    grids: gridsShown(grids),
    sources: Object.fromEntries(
      shownGrids(computed.grids)
        .filter(([g]) => bySource.has(g))
        .map(([g]) => [
          g,
          bySource.get(g)!.map((c) => ({
            source_type: c.sourceType,
            source_id: c.sourceId,
            number: c.number,
            date: c.date,
            party: { id: c.party.id, name: c.party.name, country: c.party.country, vat_number: c.party.vatNumber },
            amount: formatCents(c.cents),
            intra_code: c.intraCode,
          })),
        ]),
    ),
    warnings: computed.warnings,
    can_file: !filed && !overlapped && computed.blocking.length === 0,
    filed: filed !== undefined,
    filed_at: filed?.filedAt ?? null,
  };
}

export type VatReturnShown = ReturnType<typeof present>;

async function filedRow(tx: Tx, orgId: string, name: string) {
  return await firstRow(tx.select().from(vatReturns).where(and(eq(vatReturns.organizationId, orgId), eq(vatReturns.period, name))));
}

async function xmlOf(tx: Tx, org: OrgRow, computed: Computed, askRestitution: boolean): Promise<string> {
  const declarant = await declarantOf(tx, org);
  if (computed.blocking.length > 0) throw ValidationFailed.field("period", `The return of ${computed.period.name} cannot be filed: ${computed.blocking.join(" ")}`);
  return vatConsignmentXml({
    declarant,
    period: computed.period,
    grids: computed.grids,
    clientListingNihil: isLastOfYear(computed.period) && await clientListingEmpty(tx, org.id, computed.period.year),
    // a restitution is asked only of a VAT credit: with 71 (VAT owed) the request is ignored
    askRestitution: restitutionAsked(computed, askRestitution),
  });
}

/** Whether the return asks for its VAT credit back: asked, and grid 72 is positive; otherwise the request is ignored (NO). */
const restitutionAsked = (computed: Computed, asked: boolean) => asked && (computed.grids["72"] ?? 0) > 0;

export const vatReturnService = {
  async show(scope: Scope, name: string): Promise<VatReturnShown> {
    return await snapshot(scope.db, async (tx) => {
      const org = await orgRow(tx, scope.org.id);
      const period = periodOf(org, name);
      await declarantOf(tx, org);
      const filed = await filedRow(tx, org.id, period.name);
      return present(org, await compute(tx, org.id, period), filed, !filed && filingOver(await filings(tx, org.id), period) !== undefined);
    });
  },

  /** The XML: as filed when the period is filed (byte for byte), else as it would be filed now. */
  async xml(scope: Scope, name: string, askRestitution: boolean): Promise<{ body: string; filename: string }> {
    return await snapshot(scope.db, async (tx) => {
      const org = await orgRow(tx, scope.org.id);
      const period = periodOf(org, name);
      await declarantOf(tx, org);
      const filed = await filedRow(tx, org.id, period.name);
      return { body: filed ? filed.xml : await xmlOf(tx, org, await compute(tx, org.id, period), askRestitution), filename: `vat-return-${period.name}` };
    });
  },

  async file(scope: Scope, name: string, askRestitution: boolean): Promise<VatReturnShown> {
    return await unitOfWork(scope.db, async (tx) => {
      const org = await orgRow(tx, scope.org.id);
      const period = periodOf(org, name);
      await declarantOf(tx, org);
      const before = await filedRow(tx, org.id, period.name);
      if (before) throw new Conflict(`The VAT return of ${period.name} was filed on ${before.filedAt}; a filed return is not filed again (corrections are made in a later return).`);
      // filed periods are found by their dates: a month of a filed quarter (or the reverse) would declare its documents twice
      const over = filingOver(await filings(tx, org.id), period);
      if (over) throw new Conflict(`The period ${period.name} overlaps the VAT return of ${over.period.name} (${over.period.from} to ${over.period.to}), filed on ${over.filedAt}: its documents were declared there.`);
      const computed = await compute(tx, org.id, period);
      const xml = await xmlOf(tx, org, computed, askRestitution);
      const row = {
        id: newId(),
        organizationId: org.id,
        period: period.name,
        periodFrom: period.from,
        periodTo: period.to,
        grids: computed.grids,
        xml,
        askRestitution: restitutionAsked(computed, askRestitution),
        filedAt: nowIso(),
      };
      await tx.insert(vatReturns).values(row);
      const shown = present(org, computed, row);
      await recordChange(tx, scope, { action: "vat_return.filed", resource: { type: "vat_return", id: period.name }, event: "vat_return.filed", data: shown });
      return shown;
    });
  },
};
