/**
 * What a bank line pays, as rows (bank_transaction_allocations), and the suspense its unallocated
 * rest sits in (docs/banking.md#suspense). The low level both payments.ts (a payment held by a
 * line is deleted) and bank-matches.ts (allocating, undoing) build on:
 * - a line's status and its first allocation's columns follow its allocations (`refreshLine`);
 * - undoing an allocation reverses the entry it made (an account's, or the move of a payment
 *   recorded by hand out of suspense); one made on import, which posted against the bank account
 *   directly, puts its amount into suspense instead, so the bank account keeps the line's money.
 */
import { asc, eq, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { bankAccounts, bankTransactionAllocations, bankTransactions } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { systemAccount } from "../ledger/accounts.ts";
import type { LedgerEffect } from "../ledger/draft.ts";
import { suspenseEntry } from "../ledger/rules.ts";
import { findInOrg, inOrg, updateInOrg, type Scope } from "../lib/scope.ts";
import { nowIso } from "../lib/time.ts";
import { firstRow } from "../../db/client.ts";

type TransactionRow = typeof bankTransactions.$inferSelect;
export type AllocationRow = typeof bankTransactionAllocations.$inferSelect;

/** A bank line matched to nothing: as imported, and again after an unmatch or its payment's deletion. */
export const NOT_MATCHED = { status: "unmatched", invoiceId: null, expenseId: null, paymentId: null, paymentLink: null, matchedCents: null } as const;

/** A line's allocations, first first. */
export async function allocationsOf(tx: Tx, lineId: string): Promise<AllocationRow[]> {
  return await tx.select().from(bankTransactionAllocations).where(eq(bankTransactionAllocations.bankTransactionId, lineId)).orderBy(asc(bankTransactionAllocations.position));
}

/** What the line's allocations hold, in cents. */
export async function allocatedCents(tx: Tx, lineId: string): Promise<number> {
  return (
    (await firstRow(tx
      .select({ cents: sql<number>`coalesce(sum(${bankTransactionAllocations.amountCents}), 0)` })
      .from(bankTransactionAllocations)
      .where(eq(bankTransactionAllocations.bankTransactionId, lineId))))?.cents ?? 0
  );
}

/**
 * The line's status from its allocations (none: unmatched; all of its amount: matched; else
 * partially_matched), and the columns it has always shown (invoice_id, expense_id, payment_id,
 * matched_amount): its first allocation's, kept for the clients that read them.
 */
export async function refreshLine(tx: Tx, orgId: string, lineId: string): Promise<void> {
  const line = await findInOrg(tx, bankTransactions, orgId, lineId);
  const allocations = await allocationsOf(tx, lineId);
  const first = allocations[0];
  if (!first) return void await updateInOrg(tx, bankTransactions, orgId, lineId, { ...NOT_MATCHED, updatedAt: nowIso() });
  const sum = allocations.reduce((s, a) => s + a.amountCents, 0);
  await updateInOrg(tx, bankTransactions, orgId, lineId, {
    status: sum >= line.amountCents ? "matched" : "partially_matched",
    invoiceId: first.invoiceId,
    expenseId: first.expenseId,
    paymentId: first.paymentId,
    paymentLink: first.paymentLink,
    matchedCents: first.amountCents,
    updatedAt: nowIso(),
  });
}

/** How a bank line is named in the journal: its communication, else its counterparty, reference or entry. */
export const lineName = (line: TransactionRow) =>
  (line.communication ?? line.counterpartyName ?? line.structuredReference ?? `Bank line ${line.entryRef}`).replace(/\s+/g, " ").trim().slice(0, 200);

/** `cents` of the line into suspense (> 0) or out of it against the bank account (< 0): suspenseEntry. */
export async function suspenseDraft(tx: Tx, orgId: string, line: TransactionRow, cents: number, id?: string) {
  const bank = await findInOrg(tx, bankAccounts, orgId, line.bankAccountId);
  return suspenseEntry(
    { id, lineId: line.id, date: line.bookingDate, currency: bank.currency, direction: line.direction, cents, description: lineName(line) },
    { bank: bank.accountId, suspense: (await systemAccount(tx, orgId, "suspense")).id },
  );
}

/** What undoing an allocation posts, its payment aside (the caller deletes a payment it recorded, or keeps one recorded by hand). */
export async function undoEffects(tx: Tx, orgId: string, line: TransactionRow, allocation: AllocationRow): Promise<LedgerEffect[]> {
  const effects: LedgerEffect[] = [];
  if (allocation.journalEntryId) effects.push({ reverseEntry: { entryId: allocation.journalEntryId } });
  if (!allocation.viaSuspense) effects.push({ post: await suspenseDraft(tx, orgId, line, allocation.amountCents) });
  return effects;
}

/**
 * A payment a bank line holds is being deleted (DELETE …/payments/{id}): its allocation goes, its
 * amount back into suspense, the line's status follows; audited as bank_transaction.unmatched.
 */
export async function releaseAllocation(tx: Tx, scope: Scope, paymentId: string): Promise<void> {
  const allocation = await firstRow(tx.select().from(bankTransactionAllocations).where(inOrg(bankTransactionAllocations, scope.org.id, eq(bankTransactionAllocations.paymentId, paymentId))));
  if (!allocation) return;
  const line = await findInOrg(tx, bankTransactions, scope.org.id, allocation.bankTransactionId);
  const ledger = await undoEffects(tx, scope.org.id, line, allocation);
  await tx.delete(bankTransactionAllocations).where(eq(bankTransactionAllocations.id, allocation.id));
  await refreshLine(tx, scope.org.id, line.id);
  await recordChange(tx, scope, { action: "bank_transaction.unmatched", resource: { type: "bank_transaction", id: line.id }, ledger });
}

/** The next position on a line. */
export async function nextPosition(tx: Tx, lineId: string): Promise<number> {
  return (
    ((await firstRow(tx
      .select({ p: sql<number | null>`max(${bankTransactionAllocations.position})` })
      .from(bankTransactionAllocations)
      .where(eq(bankTransactionAllocations.bankTransactionId, lineId))))?.p ?? 0) + 1
  );
}


