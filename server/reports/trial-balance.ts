/**
 * The trial balance: each account's net balance at the end of a day, as a debit or a credit,
 * closing entries included; accounts at zero left out; total debits equal total credits.
 * Parameters: `date` (default today), `currency` (default the organisation's). Refused (422): a
 * `date` that is not YYYY-MM-DD, a `currency` that is not an ISO 4217 code.
 */
import { formatCents, sumCents } from "../lib/money.ts";
import { dayOf } from "../lib/period.ts";
import { snapshot, type Scope } from "../lib/scope.ts";
import { today } from "../lib/time.ts";
import { accountSums } from "./balances.ts";
import { reportCurrency } from "./currency.ts";

export async function trialBalance(scope: Scope, query: { date?: string; currency?: string }) {
  const date = dayOf("date", query.date, today());
  const currency = reportCurrency(scope, query.currency);
  return await snapshot(scope.db, async (tx) => {
    const rows = (await accountSums(tx, scope.org.id, currency, null, date, true))
      .map((a) => ({ a, net: a.debit - a.credit }))
      .filter((r) => r.net !== 0);
    return {
      date,
      currency,
      accounts: rows.map(({ a, net }) => ({
        account_id: a.accountId,
        code: a.code,
        name: a.name,
        type: a.type,
        debit: formatCents(Math.max(net, 0)),
        credit: formatCents(Math.max(-net, 0)),
      })),
      total_debit: formatCents(sumCents(rows.map((r) => Math.max(r.net, 0)))),
      total_credit: formatCents(sumCents(rows.map((r) => Math.max(-r.net, 0)))),
    };
  });
}
