/** Balances to date, read from the running totals the journal's triggers keep (account_totals). */
import { and, eq, inArray } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { accountTotals } from "../../db/schema.ts";
import type { AccountType } from "../../db/values.ts";

/** Asset and expense accounts show debit balances as positive, the others credit balances. */
export const isDebitNormal = (type: AccountType) => type === "asset" || type === "expense";

/** Debits less credits per account id, in `currency`; accounts never posted to are missing (0). */
export function debitBalances(tx: Tx, accountIds: string[], currency: string): Map<string, number> {
  if (accountIds.length === 0) return new Map();
  const rows = tx
    .select({ accountId: accountTotals.accountId, debit: accountTotals.debitCents, credit: accountTotals.creditCents })
    .from(accountTotals)
    .where(and(inArray(accountTotals.accountId, accountIds), eq(accountTotals.currency, currency)))
    .all();
  return new Map(rows.map((r) => [r.accountId, r.debit - r.credit]));
}

/** A debit balance (debits less credits) as the account's type shows it: credit balances positive for liability, equity and revenue. */
export const shownBalance = (type: AccountType, debitBalance: number) => (isDebitNormal(type) ? debitBalance : -debitBalance);
