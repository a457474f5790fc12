/**
 * The balance sheet at the end of a day: asset, liability and equity accounts, and the result of
 * the years not yet closed (revenue less expenses) as part of equity, so that assets equal
 * liabilities plus equity. Parameters: `date` (default today), `currency` (default the
 * organisation's). Refused (422): a `date` that is not YYYY-MM-DD, a `currency` that is not an
 * ISO 4217 code.
 */
import type { AccountType } from "../accounts/model.ts";
import { formatCents, sumCents } from "../lib/money.ts";
import { dayOf } from "../lib/period.ts";
import { snapshot, type Scope } from "../lib/scope.ts";
import { today } from "../lib/time.ts";
import { accountSums, amountRow, shown } from "./balances.ts";
import { reportCurrency } from "./currency.ts";

export async function balanceSheet(scope: Scope, query: { date?: string; currency?: string }) {
  const date = dayOf("date", query.date, today());
  const currency = reportCurrency(scope, query.currency);
  return await snapshot(scope.db, async (tx) => {
    const rows = await accountSums(tx, scope.org.id, currency, null, date, true);
    const of = (type: AccountType) => rows.filter((a) => a.type === type && shown(a) !== 0);
    // closed years' results sit in retained earnings already (their closing entries zeroed them)
    const currentResult = sumCents(of("revenue").map(shown)) - sumCents(of("expense").map(shown));
    const totalAssets = sumCents(of("asset").map(shown));
    const totalLiabilities = sumCents(of("liability").map(shown));
    const totalEquity = sumCents(of("equity").map(shown)) + currentResult;
    return {
      date,
      currency,
      assets: of("asset").map(amountRow),
      liabilities: of("liability").map(amountRow),
      equity: of("equity").map(amountRow),
      current_result: formatCents(currentResult),
      total_assets: formatCents(totalAssets),
      total_liabilities: formatCents(totalLiabilities),
      total_equity: formatCents(totalEquity),
    };
  });
}
