/**
 * Settlement: the payments of invoices, credit notes and expenses, and the bank lines that hold
 * them (bank-matches.ts). The one place a payment is recorded, deleted or moved to another bank
 * account, with its posting, its audit entry and its event in the same transaction; a bank line
 * holding a deleted payment is released here too. Below invoices, expenses and banking: each
 * hands it the document row and its own read side (`show`) for the event's payload.
 */
import { count, eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { AWAITING_PAYMENT, bankAccounts, expensePayments, expenses, invoices, payments } from "../../db/schema.ts";
import { INVOICE_STATUSES } from "../../db/values.ts";
import { recordChange } from "../changes/record.ts";
import { bankLedgerAccountId, defaultBankAccount } from "../ledger/accounts.ts";
import type { EntryDraft, LedgerEffect } from "../ledger/draft.ts";
import { expensePaymentPosting, paymentPosting } from "../ledger/rules.ts";
import { checkRoom } from "../lib/counts.ts";
import { FieldErrorBag } from "../lib/errors.ts";
import { formatCents, readMoney } from "../lib/money.ts";
import { deleteInOrg, findChildInOrg, inOrg, updateInOrg, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { checkTransition } from "../lib/transitions.ts";
import { NOT_MATCHED, releaseAllocation } from "./allocations.ts";
import { reallocateCreditNotes } from "./credits.ts";
import { expenseMoneyComesIn, expenseOpenCents, expenseStatusAfterPayments, invoiceDueCents, settledStatus } from "./due.ts";
import type { PaymentInput, Show } from "./model.ts";
import { firstRow } from "../../db/client.ts";

type PaymentRow = {
  id: string;
  amountCents: number;
  paymentDate: string;
  paymentMethod: string;
  reference: string | null;
  bankAccountId: string | null;
  createdAt: string;
};
type BankAccountRow = typeof bankAccounts.$inferSelect;
type InvoiceRow = typeof invoices.$inferSelect;
type ExpenseRow = typeof expenses.$inferSelect;
export type InvoicePaymentRow = typeof payments.$inferSelect;
export type ExpensePaymentRow = typeof expensePayments.$inferSelect;

/** A document payments settle: an invoice or credit note (money in or refunded), or an expense (money out, or back for a supplier's credit note). */
export type Settled = { kind: "invoice"; row: InvoiceRow } | { kind: "expense"; row: ExpenseRow };

export type { Show };
export { NOT_MATCHED };

/** The states a document takes and gives back payments in (docs/invoicing.md#states-and-payments, docs/payables.md#expenses); the invoices' and expenses' state machines include them. */
export const PAYMENT_TRANSITIONS = {
  invoice: {
    recordPayment: { from: AWAITING_PAYMENT, refusal: "payments are recorded on finalized, sent or partially paid invoices only" },
    deletePayment: {
      from: INVOICE_STATUSES.filter((s) => s !== "cancelled"),
      refusal: "the payments of a cancelled invoice cannot be deleted",
    },
  },
  expense: {
    recordPayment: { from: ["approved"], refusal: "only an approved expense can be paid" },
    deletePayment: { from: ["approved", "paid"], refusal: "only an approved or paid expense has payments" },
  },
} as const;

const nounOf = (doc: Settled) => (doc.kind === "expense" ? "expense" : doc.row.type === "credit_note" ? "credit note" : doc.row.type === "interest_note" ? "interest note" : "invoice");

/** What is still owed on the document (due.ts), in its direction: an expense's amount due, or the refund its supplier owes. */
export const dueOf = (doc: Settled): number => (doc.kind === "invoice" ? invoiceDueCents(doc.row) : expenseOpenCents(doc.row));

/**
 * Which way the document's money moves: in for an invoice, an interest note, a supplier's credit
 * note and a supplier invoice prepaid beyond its total (its refund), out for a credit note and an expense.
 */
export function directionOf(doc: Settled): "credit" | "debit" {
  if (doc.kind === "invoice") return doc.row.type === "credit_note" ? "debit" : "credit";
  return expenseMoneyComesIn(doc.row) ? "credit" : "debit";
}

export function presentPayment<R extends PaymentRow>(row: R) {
  return {
    id: row.id,
    amount: formatCents(row.amountCents),
    payment_date: row.paymentDate,
    payment_method: row.paymentMethod as R["paymentMethod"],
    reference: row.reference,
    bank_account_id: row.bankAccountId,
    created_at: row.createdAt,
  };
}

/**
 * The bank account a payment in `currency` moves through: the one named (an active account of the
 * organisation in that currency, else a 422 on `bank_account_id`), or the default one.
 */
export async function paymentBankAccount(tx: Tx, orgId: string, bag: FieldErrorBag, id: string | undefined, currency: string): Promise<BankAccountRow | null> {
  if (id === undefined) return defaultBankAccount(tx, orgId, currency);
  const bank = await firstRow(tx.select().from(bankAccounts).where(inOrg(bankAccounts, orgId, eq(bankAccounts.id, id))));
  if (!bank) bag.add("bank_account_id", "The selected bank_account_id is invalid.");
  else if (!bank.isActive) bag.add("bank_account_id", `The bank account ${bank.name} is not active.`);
  else if (bank.currency !== currency) bag.add("bank_account_id", `The bank account ${bank.name} holds ${bank.currency}, not ${currency}.`);
  else return bank;
  return null;
}

/**
 * A new payment's columns, of an invoice or an expense alike: an amount of at least 0.01 and at
 * most `dueCents` (else 422 on `amount`), through its bank account (`paymentBankAccount`). The
 * bank account comes back too: its ledger account is what the payment posts to.
 */
export async function newPayment(tx: Tx, orgId: string, input: PaymentInput, { dueCents, currency }: { dueCents: number; currency: string }) {
  const bag = new FieldErrorBag();
  const amountCents = readMoney(bag, "amount", input.amount, { min: 1 });
  if (amountCents !== null && amountCents > dueCents) {
    bag.add("amount", `The amount must not be greater than the amount due (${formatCents(dueCents)}).`);
  }
  const bank = await paymentBankAccount(tx, orgId, bag, input.bank_account_id, currency);
  bag.throwIfAny();
  const columns = {
    id: newId(),
    organizationId: orgId,
    amountCents: amountCents!,
    paymentDate: input.payment_date,
    paymentMethod: input.payment_method ?? "bank_transfer",
    reference: input.reference ?? null,
    bankAccountId: bank?.id ?? null,
    createdAt: nowIso(),
  };
  return { bank, columns };
}

/** The audit action and event of each payment change, and the journal source its posting is filed under. */
const CHANGES = {
  invoice: {
    recorded: { action: "invoice.payment_recorded", event: "invoice.payment_recorded" },
    deleted: { action: "invoice.payment_deleted", event: "invoice.updated" },
    journal: "payment",
  },
  expense: {
    recorded: { action: "expense.payment_recorded", event: "expense.updated" },
    deleted: { action: "expense.payment_deleted", event: "expense.updated" },
    journal: "expense_payment",
  },
} as const;

/** The document's paid amount becomes `paidCents`; an invoice's or an expense's status follows. */
async function setPaid(tx: Tx, orgId: string, doc: Settled, paidCents: number): Promise<void> {
  if (doc.kind === "invoice") await updateInOrg(tx, invoices, orgId, doc.row.id, { paidCents, status: settledStatus(doc.row, paidCents, doc.row.creditedCents), updatedAt: nowIso() });
  else await updateInOrg(tx, expenses, orgId, doc.row.id, { paidCents, status: expenseStatusAfterPayments(doc.row, paidCents), updatedAt: nowIso() });
}

/**
 * Records a payment of at most the amount due (record-payment, and a bank line matched to the
 * document; `via`: the account its bank side posts to, suspense for a line's money sitting there): the payment row, the document's paid amount (an invoice's status follows), and
 * through recordChange its posting, its audit entry and its event (invoice.payment_recorded,
 * expense.updated) carrying the document as `show` reads it.
 */
export async function recordPayment<S>(tx: Tx, scope: Scope, doc: Settled, input: PaymentInput, show: Show<S>, via?: string): Promise<{ shown: S; payment: { id: string } }> {
  checkTransition(nounOf(doc), doc.row.status, PAYMENT_TRANSITIONS[doc.kind].recordPayment);
  const orgId = scope.org.id;
  const { id } = doc.row;
  const [table, parent] = doc.kind === "invoice" ? ([payments, payments.invoiceId] as const) : ([expensePayments, expensePayments.expenseId] as const);
  const held = (await firstRow(tx.select({ n: count() }).from(table).where(inOrg(table, orgId, eq(parent, id)))))!.n;
  checkRoom("payments", held, 1, `This ${nounOf(doc)}`);
  const { bank, columns } = await newPayment(tx, orgId, input, { dueCents: dueOf(doc), currency: doc.row.currency });
  // a bank line in suspense that records the payment posts it against suspense (`via`): its money is in the bank account already
  const bankLedger = via ?? await bankLedgerAccountId(tx, orgId, bank);
  let posting: EntryDraft;
  if (doc.kind === "invoice") {
    const payment: InvoicePaymentRow = { ...columns, invoiceId: id };
    await tx.insert(payments).values(payment);
    posting = await paymentPosting(tx, doc.row, payment, bankLedger);
  } else {
    const payment: ExpensePaymentRow = { ...columns, expenseId: id };
    await tx.insert(expensePayments).values(payment);
    posting = await expensePaymentPosting(tx, doc.row, payment, bankLedger);
  }
  await setPaid(tx, orgId, doc, doc.row.paidCents + columns.amountCents);
  const shown = await show(tx, orgId, id);
  // invoice.payment_recorded names the payment it recorded
  const paymentId = doc.kind === "invoice" ? columns.id : undefined;
  await recordChange(tx, scope, { ...CHANGES[doc.kind].recorded, resource: { type: doc.kind, id }, data: shown, paymentId, ledger: [{ post: posting }] });
  return { shown, payment: columns };
}

/**
 * Deletes a payment of the document (recorded by mistake, or by a bank match being undone): its
 * posting is reversed on its own date, the document's paid amount (and an invoice's status)
 * follows, and a bank line that held the payment is released (unmatched, audited) unless the
 * caller is releasing it itself (`releaseLine: false`, an unmatch).
 */
export async function deletePayment<S>(tx: Tx, scope: Scope, doc: Settled, paymentId: string, show: Show<S>, { releaseLine = true } = {}): Promise<S> {
  checkTransition(nounOf(doc), doc.row.status, PAYMENT_TRANSITIONS[doc.kind].deletePayment);
  const orgId = scope.org.id;
  const { id } = doc.row;
  const [table, parent] = doc.kind === "invoice" ? ([payments, payments.invoiceId] as const) : ([expensePayments, expensePayments.expenseId] as const);
  const payment = await findChildInOrg(tx, table, parent, orgId, id, paymentId);
  if (releaseLine) await releaseAllocation(tx, scope, payment.id);
  await deleteInOrg(tx, table, orgId, payment.id);
  await setPaid(tx, orgId, doc, doc.row.paidCents - payment.amountCents);
  // what is due again on an invoice is settled first by its credit notes' unpaid refunds
  if (doc.kind === "invoice") await reallocateCreditNotes(tx, scope, id, show);
  const shown = await show(tx, orgId, id);
  const { deleted, journal } = CHANGES[doc.kind];
  await recordChange(tx, scope, { ...deleted, resource: { type: doc.kind, id }, data: shown, ledger: [{ reverse: { type: journal, id: payment.id } }] });
  return shown;
}

/**
 * Moves a payment to the bank account its money really came through (a bank line took it over):
 * the payment names the account, and its posting is reversed and posted again through that
 * account's ledger account, on its own date. The effects go into the caller's change.
 */
export async function movePayment(tx: Tx, orgId: string, doc: Settled, payment: InvoicePaymentRow | ExpensePaymentRow, bank: BankAccountRow): Promise<LedgerEffect[]> {
  const bankLedger = await bankLedgerAccountId(tx, orgId, bank);
  if (doc.kind === "invoice") {
    await updateInOrg(tx, payments, orgId, payment.id, { bankAccountId: bank.id });
    const moved = { ...(payment as InvoicePaymentRow), bankAccountId: bank.id };
    return [{ reverse: { type: "payment", id: payment.id } }, { post: await paymentPosting(tx, doc.row, moved, bankLedger) }];
  }
  await updateInOrg(tx, expensePayments, orgId, payment.id, { bankAccountId: bank.id });
  const moved = { ...(payment as ExpensePaymentRow), bankAccountId: bank.id };
  return [{ reverse: { type: "expense_payment", id: payment.id } }, { post: await expensePaymentPosting(tx, doc.row, moved, bankLedger) }];
}

