/** Balances to date, read from the running totals the journal's triggers keep (account_totals). */
import { and, eq, inArray, lt, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { accountTotals, journalLines } from "../../db/schema.ts";
import type { AccountType } from "../../db/values.ts";
import { firstRow } from "../../db/client.ts";

/** Asset and expense accounts show debit balances as positive, the others credit balances. */
export const isDebitNormal = (type: AccountType) => type === "asset" || type === "expense";

/** Debits less credits per account id, in `currency`; accounts never posted to are missing (0). */
export async function debitBalances(tx: Tx, accountIds: string[], currency: string): Promise<Map<string, number>> {
  if (accountIds.length === 0) return new Map();
  const rows = await tx
    .select({ accountId: accountTotals.accountId, debit: accountTotals.debitCents, credit: accountTotals.creditCents })
    .from(accountTotals)
    .where(and(inArray(accountTotals.accountId, accountIds), eq(accountTotals.currency, currency)));
  return new Map(rows.map((r) => [r.accountId, r.debit - r.credit]));
}

/** A debit balance (debits less credits) as the account's type shows it: credit balances positive for liability, equity and revenue. */
export const shownBalance = (type: AccountType, debitBalance: number) => (isDebitNormal(type) ? debitBalance : -debitBalance);

/** Debits less credits of one account in `currency` on the days before `date` (the index journal_lines_org_account). */
export async function debitBalanceBefore(tx: Tx, orgId: string, accountId: string, currency: string, date: string): Promise<number> {
  const row = await firstRow(tx
    .select({ cents: sql<number>`coalesce(sum(${journalLines.debitCents} - ${journalLines.creditCents}), 0)` })
    .from(journalLines)
    .where(and(eq(journalLines.organizationId, orgId), eq(journalLines.accountId, accountId), lt(journalLines.date, date), eq(journalLines.currency, currency))));
  return Number(row?.cents ?? 0);
}
