/** Each report as CSV rows: the JSON report flattened, its totals as last rows. */
import type { agedReceivables } from "./aged-receivables.ts";
import type { balanceSheet } from "./balance-sheet.ts";
import type { profitAndLoss } from "./profit-and-loss.ts";
import type { trialBalance } from "./trial-balance.ts";
import type { vatReport } from "./vat-report.ts";
import { toCsv } from "../http/csv.ts";

type Amounts = { code: string; name: string; amount: string }[];
const section = (name: string, rows: Amounts) => rows.map((r) => [name, r.code, r.name, r.amount]);

export function trialBalanceCsv(r: Awaited<ReturnType<typeof trialBalance>>): string {
  return toCsv(
    ["account_code", "account_name", "type", "debit", "credit"],
    [...r.accounts.map((a) => [a.code, a.name, a.type, a.debit, a.credit]), ["", "Total", "", r.total_debit, r.total_credit]],
  );
}

export function profitAndLossCsv(r: Awaited<ReturnType<typeof profitAndLoss>>): string {
  return toCsv(
    ["section", "account_code", "account_name", "amount"],
    [
      ...section("revenue", r.revenue),
      ...section("expenses", r.expenses),
      ["total", "", "Total revenue", r.total_revenue],
      ["total", "", "Total expenses", r.total_expenses],
      ["total", "", "Net result", r.net_result],
    ],
  );
}

export function balanceSheetCsv(r: Awaited<ReturnType<typeof balanceSheet>>): string {
  return toCsv(
    ["section", "account_code", "account_name", "amount"],
    [
      ...section("assets", r.assets),
      ...section("liabilities", r.liabilities),
      ...section("equity", r.equity),
      ["equity", "", "Current result", r.current_result],
      ["total", "", "Total assets", r.total_assets],
      ["total", "", "Total liabilities", r.total_liabilities],
      ["total", "", "Total equity", r.total_equity],
    ],
  );
}

export function agedReceivablesCsv(r: Awaited<ReturnType<typeof agedReceivables>>): string {
  const t = r.totals;
  return toCsv(
    ["customer_id", "name", "current", "days_1_30", "days_31_60", "days_61_90", "over_90", "total"],
    [
      ...r.customers.map((c) => [c.customer_id, c.name, c.current, c.days_1_30, c.days_31_60, c.days_61_90, c.over_90, c.total]),
      ["", "Total", t.current, t.days_1_30, t.days_31_60, t.days_61_90, t.over_90, t.total],
    ],
  );
}

export function vatReportCsv(r: Awaited<ReturnType<typeof vatReport>>): string {
  return toCsv(
    ["side", "category", "rate", "base", "vat"],
    [
      ...r.sales.map((v) => ["sales", v.category, v.rate, v.base, v.vat]),
      ...r.purchases.map((v) => ["purchases", v.category, v.rate, v.base, v.vat]),
      ["total_sales", "", "", "", r.total_sales_vat],
      ["total_purchases", "", "", "", r.total_purchases_vat],
      ["vat_balance", "", "", "", r.vat_balance],
      // grid numbers in their order on the form ("03" before "49": JSON objects put integer-like keys first)
      ...Object.entries(r.belgian_return?.grids ?? {})
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([grid, amount]) => ["grid", grid, "", "", amount]),
    ],
  );
}
