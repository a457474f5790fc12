/**
 * The profit and loss: revenue and expense accounts over a period, closing entries left out (what
 * the period earned), and the net result. Parameters: `to` (default today), `from` (default the
 * first day of the fiscal year that holds `to`: docs/books.md#fiscal-years), `currency` (default
 * the organisation's). Refused (422): a date that is not YYYY-MM-DD, `from` after `to`, a
 * `currency` that is not an ISO 4217 code.
 */
import { fiscalCalendar, fiscalYearOf } from "../lib/fiscal-year.ts";
import { formatCents, sumCents } from "../lib/money.ts";
import { periodOf } from "../lib/period.ts";
import { snapshot, type Scope } from "../lib/scope.ts";
import { accountSums, amountRow, shown } from "./balances.ts";
import { reportCurrency } from "./currency.ts";

export async function profitAndLoss(scope: Scope, query: { from?: string; to?: string; currency?: string }) {
  return await snapshot(scope.db, async (tx) => {
    const calendar = await fiscalCalendar(tx, scope.org.id);
    const { from, to } = periodOf(query, (to) => fiscalYearOf(calendar, to).start);
    const currency = reportCurrency(scope, query.currency);
    const rows = (await accountSums(tx, scope.org.id, currency, from, to, false)).filter((a) => shown(a) !== 0);
    const revenue = rows.filter((a) => a.type === "revenue");
    const expenses = rows.filter((a) => a.type === "expense");
    const totalRevenue = sumCents(revenue.map(shown));
    const totalExpenses = sumCents(expenses.map(shown));
    return {
      from,
      to,
      currency,
      revenue: revenue.map(amountRow),
      expenses: expenses.map(amountRow),
      total_revenue: formatCents(totalRevenue),
      total_expenses: formatCents(totalExpenses),
      net_result: formatCents(totalRevenue - totalExpenses),
    };
  });
}
