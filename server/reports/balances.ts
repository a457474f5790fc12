/**
 * Account balances for the reports, read from the running balances the journal's triggers keep
 * (account_days: debits and credits per account, currency and day), never from the postings: a
 * report sums days, so it costs the same at a million invoices as at ten. Also the fiscal year's
 * result (`netResult`), which closing a year books.
 */
import { and, asc, between, eq, lte, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { accountDays, accounts } from "../../db/schema.ts";
import type { AccountType } from "../accounts/model.ts";
import { shownBalance } from "../ledger/balances.ts";
import { formatCents, sumCents } from "../lib/money.ts";

export type AccountBalance = { accountId: string; code: string; name: string; type: AccountType; debit: number; credit: number };

/**
 * Debits and credits per account over the days in range (`from` null: every day up to `to`), in
 * one currency, by account code; `withClosing: false` leaves the year-end closing entries out (a
 * profit and loss shows what the year earned).
 */
export async function accountSums(tx: Tx, orgId: string, currency: string, from: string | null, to: string, withClosing: boolean): Promise<AccountBalance[]> {
  return await tx
    .select({
      accountId: accountDays.accountId,
      code: accounts.code,
      name: accounts.name,
      type: accounts.type,
      debit: sql<number>`sum(${accountDays.debitCents})`,
      credit: sql<number>`sum(${accountDays.creditCents})`,
    })
    .from(accountDays)
    .innerJoin(accounts, eq(accounts.id, accountDays.accountId))
    .where(
      and(
        eq(accountDays.organizationId, orgId),
        eq(accountDays.currency, currency),
        from === null ? lte(accountDays.date, to) : between(accountDays.date, from, to),
        withClosing ? undefined : eq(accountDays.isClosing, false),
      ),
    )
    .groupBy(accountDays.accountId, accounts.id)
    .orderBy(asc(accounts.code));
}

/** An account's balance as its type shows it: debit-normal for assets and expenses, credit-normal otherwise. */
export const shown = (a: AccountBalance) => shownBalance(a.type, a.debit - a.credit);

/** An account's line in a report: its reference and its shown balance. */
export const amountRow = (a: AccountBalance) => ({ account_id: a.accountId, code: a.code, name: a.name, amount: formatCents(shown(a)) });

/** Revenue less expenses over the days in range, closing entries left out (a fiscal year's result). */
export async function netResult(tx: Tx, orgId: string, currency: string, from: string, to: string): Promise<number> {
  const rows = await accountSums(tx, orgId, currency, from, to, false);
  return sumCents(rows.filter((a) => a.type === "revenue").map(shown)) - sumCents(rows.filter((a) => a.type === "expense").map(shown));
}
