/**
 * A bank line matched to the document its money settles (banking decides which: the rules in the
 * header of server/banking/service.ts and its matching.ts): the line takes over a payment recorded by hand for the
 * same money, or records one; undoing the match deletes only a payment the match recorded.
 */
import { asc, between, eq, min, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { bankAccounts, bankStatements, bankTransactions, expensePayments, payments } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import type { LedgerEffect } from "../ledger/draft.ts";
import { formatCents } from "../lib/money.ts";
import { inOrg, updateInOrg, type Scope } from "../lib/scope.ts";
import { addDays, nowIso } from "../lib/time.ts";
import { deletePayment, movePayment, NOT_MATCHED, recordPayment, type Settled, type Show } from "./payments.ts";

type BankAccountRow = typeof bankAccounts.$inferSelect;
type TransactionRow = typeof bankTransactions.$inferSelect;

/** The read sides a match's events carry: the document paid, and the bank line. */
export type MatchReaders = { invoice: Show; expense: Show; bankTransaction: Show };

/** How far apart a payment recorded by hand and its bank line may be dated to be the same money. */
const SAME_MONEY_DAYS = 14;

/**
 * A payment recorded by hand that is this bank line's money: of the document, of exactly `cents`,
 * by bank transfer, dated within SAME_MONEY_DAYS of the booking, and held by no other bank line.
 * (A cash or card payment, or an earlier instalment of the same amount, is other money.) One
 * recorded through another bank account is taken over and posted again through this one. Never
 * one dated before the bank account's first statement opens: that money is in the opening balance
 * the statement brought into the books (server/banking/booking.ts), so the line is other money.
 */
export function handPayment(tx: Tx, orgId: string, bank: Pick<BankAccountRow, "id">, doc: Settled, cents: number, bookingDate: string) {
  const table = doc.kind === "invoice" ? payments : expensePayments;
  const parent = doc.kind === "invoice" ? payments.invoiceId : expensePayments.expenseId;
  const opened = tx.select({ date: min(bankStatements.openingDate) }).from(bankStatements).where(eq(bankStatements.bankAccountId, bank.id)).get()?.date ?? null;
  const from = addDays(bookingDate, -SAME_MONEY_DAYS);
  return tx
    .select()
    .from(table)
    .where(
      inOrg(
        table,
        orgId,
        eq(parent, doc.row.id),
        eq(table.amountCents, cents),
        eq(table.paymentMethod, "bank_transfer"),
        between(table.paymentDate, opened !== null && opened > from ? opened : from, addDays(bookingDate, SAME_MONEY_DAYS)),
        sql`NOT EXISTS (SELECT 1 FROM ${bankTransactions} WHERE ${bankTransactions.paymentId} = ${table.id})`,
      ),
    )
    .orderBy(asc(table.createdAt), asc(table.id))
    .limit(1)
    .get();
}

/**
 * Reconciles a line with a document for `cents` (checked by the caller): takes over a payment
 * recorded by hand (moving it to this bank account if it went through another), else records one
 * through the bank account on the booking date; then marks the line matched and records the
 * change (its audit entry, bank_transaction.matched, and the reposting of a moved payment).
 */
export function matchLine(
  tx: Tx,
  scope: Scope,
  bank: BankAccountRow,
  line: TransactionRow,
  doc: Settled,
  cents: number,
  how: "import" | "manual",
  readers: MatchReaders,
): void {
  const existing = handPayment(tx, scope.org.id, bank, doc, cents, line.bookingDate);
  const ledger: LedgerEffect[] = [];
  let paymentId: string;
  let link: "recorded" | "linked";
  if (existing) {
    paymentId = existing.id;
    link = "linked";
    // the money came in on this account: the hand-made posting moves here, on its own date
    if (existing.bankAccountId !== bank.id) ledger.push(...movePayment(tx, scope.org.id, doc, existing, bank));
  } else {
    const input = {
      amount: formatCents(cents),
      payment_date: line.bookingDate,
      payment_method: "bank_transfer" as const,
      reference: (line.structuredReference ?? line.communication ?? line.entryRef).slice(0, 255),
      bank_account_id: bank.id,
    };
    paymentId = recordPayment(tx, scope, doc, input, readers[doc.kind]).payment.id;
    link = "recorded";
  }
  updateInOrg(tx, bankTransactions, scope.org.id, line.id, {
    status: "matched",
    invoiceId: doc.kind === "invoice" ? doc.row.id : null,
    expenseId: doc.kind === "expense" ? doc.row.id : null,
    paymentId,
    paymentLink: link,
    matchedCents: cents,
    updatedAt: nowIso(),
  });
  recordChange(tx, scope, {
    action: how === "import" ? "bank_transaction.matched_on_import" : "bank_transaction.matched",
    resource: { type: "bank_transaction", id: line.id },
    event: "bank_transaction.matched",
    data: () => readers.bankTransaction(tx, scope.org.id, line.id),
    ledger,
  });
}

/**
 * Undoes a match, or an ignore: a payment the match recorded is deleted (its posting reversed); a
 * payment recorded by hand that the match took over stays. The line is unmatched again.
 */
export function unmatchLine(tx: Tx, scope: Scope, line: TransactionRow, documentOf: (line: TransactionRow) => Settled | null, readers: MatchReaders): void {
  if (line.status === "matched" && line.paymentLink === "recorded" && line.paymentId) {
    const doc = documentOf(line);
    if (doc) deletePayment(tx, scope, doc, line.paymentId, readers[doc.kind], { releaseLine: false });
  }
  updateInOrg(tx, bankTransactions, scope.org.id, line.id, { ...NOT_MATCHED, updatedAt: nowIso() });
  recordChange(tx, scope, { action: "bank_transaction.unmatched", resource: { type: "bank_transaction", id: line.id } });
}
