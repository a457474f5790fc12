/**
 * What is still owed on a document, in one place: the invoice and expense read sides, payments,
 * bank matching and the issued documents all ask here. (The aging index holds the same figure in
 * SQL, signed by the money's direction: db/schema/invoices.ts `signedAmountDue`.)
 */
import type { expenses, invoices } from "../../db/schema.ts";
import type { InvoiceStatus } from "../../db/values.ts";

type InvoiceRow = typeof invoices.$inferSelect;
type ExpenseRow = typeof expenses.$inferSelect;

/**
 * An invoice's or credit note's total less what was paid (or refunded) on it and what was settled
 * by credit allocation (docs/invoicing.md#credit-notes): on an invoice its finalized credit notes, on a credit
 * note the part of it allocated to its invoice, so a credit note owes back only the rest (a refund).
 * The figures' balance whatever the status: what the e-invoice of the document says is payable (BT-115).
 */
export const invoiceBalanceCents = (row: Pick<InvoiceRow, "totalCents" | "paidCents" | "creditedCents">): number =>
  row.totalCents - row.paidCents - row.creditedCents;

/**
 * What is still owed on an invoice or credit note (amount_due): its balance, except that a
 * cancelled document owes nothing, as its PDF says (docs/invoicing.md#states-and-payments).
 */
export const invoiceDueCents = (row: Pick<InvoiceRow, "status" | "totalCents" | "paidCents" | "creditedCents">): number =>
  row.status === "cancelled" ? 0 : invoiceBalanceCents(row);

type ExpensePayable = Pick<ExpenseRow, "amountCents" | "vatCents" | "prepaidCents" | "roundingCents">;

/**
 * What an expense asks to be paid, EN 16931 BT-115: its total with VAT less what was prepaid
 * (BT-113) plus the rounding (BT-114); an expense entered by hand has neither. Negative when more
 * was prepaid than the invoice's total: the supplier owes the difference back (its refund_due).
 */
export const expensePayableCents = (row: ExpensePayable): number => row.amountCents + row.vatCents - row.prepaidCents + row.roundingCents;

type Approved = ExpensePayable & Pick<ExpenseRow, "status" | "paidCents">;
const settles = (row: Pick<ExpenseRow, "status">) => row.status === "approved" || row.status === "paid";

/**
 * An approved (or paid) expense's payable amount less its payments (amount_due), never below
 * 0.00; nothing is owed on a pending or rejected one. A supplier's credit note owes its total back
 * under this name (its document_type says which way the money goes).
 */
export const expenseDueCents = (row: Approved): number => (settles(row) ? Math.max(0, expensePayableCents(row) - row.paidCents) : 0);

/**
 * What the supplier owes back on an approved invoice prepaid beyond its total (BT-115 negative):
 * the excess less the refunds recorded on it (refund_due); 0 on every other expense.
 */
export const expenseRefundDueCents = (row: Approved): number => (settles(row) ? Math.max(0, -expensePayableCents(row) - row.paidCents) : 0);

/** What still settles the expense, in the direction `expenseMoneyComesIn` says: its amount due or its refund due. */
export const expenseOpenCents = (row: Approved): number => expenseDueCents(row) + expenseRefundDueCents(row);

/**
 * Whether settling the expense brings money in: a supplier's credit note (refunded), or an
 * invoice prepaid beyond its total (the excess refunded); else the organisation pays it.
 */
export const expenseMoneyComesIn = (row: ExpensePayable & Pick<ExpenseRow, "documentType">): boolean =>
  row.documentType === "credit_note" || expensePayableCents(row) < 0;

/**
 * An approved expense's status once `paidCents` is paid (or refunded) on it (docs/payables.md#expenses):
 * paid when the payments cover its payable amount, or the refunds its excess (all of it prepaid:
 * paid on approval), approved again when a deleted payment leaves something due.
 */
export const expenseStatusAfterPayments = (row: ExpensePayable, paidCents: number): "approved" | "paid" =>
  paidCents >= Math.abs(expensePayableCents(row)) ? "paid" : "approved";

/**
 * An issued invoice's or credit note's status once `settledCents` (its payments plus its credit
 * allocation) is settled on it: finalized or sent while nothing is, paid when all of it is (an
 * invoice credited in full is paid: settled by payments and credit notes), else partially paid.
 */
export function statusAfterPayments(row: Pick<InvoiceRow, "totalCents" | "sentAt">, settledCents: number): InvoiceStatus {
  if (settledCents === 0) return row.sentAt ? "sent" : "finalized";
  return settledCents >= row.totalCents ? "paid" : "partially_paid";
}

/** The status of an issued document with `paidCents` paid and `creditedCents` allocated (the one rule above). */
export const settledStatus = (row: Pick<InvoiceRow, "totalCents" | "sentAt">, paidCents: number, creditedCents: number): InvoiceStatus =>
  statusAfterPayments(row, paidCents + creditedCents);
