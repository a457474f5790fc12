/**
 * The VAT report: sales and purchases over a period, per VAT category and rate (base and VAT),
 * from the running totals the journal's triggers keep (vat_days), with the VAT balance; for a
 * Belgian organisation reporting in euros, the grids of the Belgian periodic VAT return too.
 * Parameters: `to` (default today), `from` (default 1 January of `to`'s year: VAT keeps to
 * calendar years, whatever the fiscal year), `currency` (default the organisation's). Refused
 * (422): a date that is not YYYY-MM-DD, `from` after `to`, a `currency` that is not an ISO 4217
 * code.
 */
import { and, between, eq, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { vatDays } from "../../db/schema.ts";
import type { VatCategory } from "../documents/model.ts";
import { formatCents, sumCents } from "../lib/money.ts";
import { periodOf } from "../lib/period.ts";
import { snapshot, type Scope } from "../lib/scope.ts";
import { rangeContributions } from "../vat-returns/contributions.ts";
import { shownGrids, withBalance } from "../vat-returns/grids.ts";
import { reportCurrency } from "./currency.ts";

type VatSum = { side: "sales" | "purchases"; category: VatCategory; rateBp: number; base: number; vat: number; noteBase: number; noteVat: number };

/**
 * The grids of the Belgian periodic VAT return (form 625) over the report's dates, by the VAT
 * return's grid table (server/vat-returns/grids.ts): what each document dated in them contributes,
 * summed per grid, with 71 or 72. A filed return may differ: it reports documents posted after a
 * filing in the next open period (GET /api/v1/vat-returns/{period}).
 */
async function belgianGrids(tx: Tx, orgId: string, from: string, to: string): Promise<Record<string, string>> {
  const sums: Record<string, number> = {};
  for (const c of (await rangeContributions(tx, orgId, from, to, `${from}..${to}`)).contributions) sums[c.grid] = (sums[c.grid] ?? 0) + c.cents;
  return Object.fromEntries(shownGrids(withBalance(sums)).map(([g, c]) => [g, formatCents(c)]));
}

export async function vatReport(scope: Scope, query: { from?: string; to?: string; currency?: string }) {
  const { from, to } = periodOf(query, (to) => `${to.slice(0, 4)}-01-01`);
  const currency = reportCurrency(scope, query.currency);
  return await snapshot(scope.db, async (tx) => {
    const rows: VatSum[] = (await tx
      .select({
        side: vatDays.side,
        category: vatDays.category,
        rateBp: vatDays.rateBp,
        base: sql<number>`sum(${vatDays.baseCents})`,
        vat: sql<number>`sum(${vatDays.vatCents})`,
        noteBase: sql<number>`sum(${vatDays.creditBaseCents})`,
        noteVat: sql<number>`sum(${vatDays.creditVatCents})`,
      })
      .from(vatDays)
      .where(and(eq(vatDays.organizationId, scope.org.id), eq(vatDays.currency, currency), between(vatDays.date, from, to)))
      .groupBy(vatDays.side, vatDays.category, vatDays.rateBp)
      .orderBy(vatDays.side, vatDays.category, sql`${vatDays.rateBp} DESC`))
      .filter((r) => r.base !== 0 || r.vat !== 0 || r.noteBase !== 0);
    const present = (side: VatSum["side"]) =>
      rows.filter((r) => r.side === side).map((r) => ({ category: r.category, rate: formatCents(r.rateBp), base: formatCents(r.base), vat: formatCents(r.vat) }));
    const salesVat = sumCents(rows.filter((r) => r.side === "sales").map((r) => r.vat));
    const purchasesVat = sumCents(rows.filter((r) => r.side === "purchases").map((r) => r.vat));
    return {
      from,
      to,
      currency,
      sales: present("sales"),
      purchases: present("purchases"),
      total_sales_vat: formatCents(salesVat),
      total_purchases_vat: formatCents(purchasesVat),
      vat_balance: formatCents(salesVat - purchasesVat),
      belgian_return: scope.org.country === "BE" && currency === "EUR" ? { grids: await belgianGrids(tx, scope.org.id, from, to) } : null,
    };
  });
}
