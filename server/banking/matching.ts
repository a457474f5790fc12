/**
 * Which document a bank line pays (the rules in service.ts's header): by the payment references
 * it carries, or, for a debit line, a suggestion of the approved expense it likely pays.
 * Settling the match is server/settlement's.
 */
import { asc, eq, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { AWAITING_PAYMENT, bankAccounts, bankTransactions, expenses, invoices, paymentRunItems } from "../../db/schema.ts";
import { canonicalPaymentReference } from "../documents/payment-reference.ts";
import { inOrg } from "../lib/scope.ts";
import { handPayment } from "../settlement/bank-matches.ts";
import { expenseDueCents, invoiceDueCents } from "../settlement/due.ts";
import { firstRow } from "../../db/client.ts";

type BankAccountRow = typeof bankAccounts.$inferSelect;
type TransactionRow = typeof bankTransactions.$inferSelect;

type InvoiceRow = typeof invoices.$inferSelect;
type ExpenseRow = typeof expenses.$inferSelect;

// Payment references

/**
 * The valid payment references a line carries: its structured reference, and any written into
 * its free text (`+++…+++`, `***…***`, twelve digits with or without slashes, `RF…` in groups).
 */
export function referencesOf(line: Pick<TransactionRow, "structuredReference" | "communication">): string[] {
  const found: string[] = [];
  const add = (text: string) => {
    const reference = canonicalPaymentReference(text);
    if (reference && !found.includes(reference)) found.push(reference);
  };
  if (line.structuredReference) add(line.structuredReference);
  const text = line.communication ?? "";
  for (const m of text.matchAll(/[+*]{3}\s*\d{3}\s*\/?\s*\d{4}\s*\/?\s*\d{5}\s*[+*]{3}|\b\d{3}\/?\d{4}\/?\d{5}\b/g)) add(m[0].replace(/\s+/g, ""));
  for (const m of text.matchAll(/\bRF\d{2}(?:\s?[A-Z0-9]{1,4}){1,6}\b/gi)) add(m[0]);
  return found;
}

// Matching

/**
 * The invoice (or interest note) a credit line pays by reference, or the credit note a debit line refunds (a refund
 * to a customer names the credit note's payment reference): one awaiting payment whose amount due
 * the whole line fits in, or one already holding a hand-recorded payment of exactly the line's amount.
 */
export async function invoicePaidBy(tx: Tx, orgId: string, bank: BankAccountRow, line: TransactionRow): Promise<InvoiceRow | null> {
  // money in pays an invoice or an interest note, money out refunds a credit note
  const types: readonly string[] = line.direction === "credit" ? ["invoice", "interest_note"] : ["credit_note"];
  for (const reference of referencesOf(line)) {
    // the unique index invoices_org_payment_reference
    const invoice = await firstRow(tx.select().from(invoices).where(inOrg(invoices, orgId, eq(invoices.paymentReference, reference))));
    if (!invoice || !types.includes(invoice.type) || invoice.currency !== bank.currency) continue;
    // paid by hand already for this money: the line takes that payment over (applyMatch)
    if (await handPayment(tx, orgId, bank, { kind: "invoice", row: invoice }, line.amountCents, line.bookingDate)) return invoice;
    if (!(AWAITING_PAYMENT as readonly string[]).includes(invoice.status)) continue;
    if (line.amountCents <= invoiceDueCents(invoice)) return invoice;
  }
  return null;
}

/**
 * An invoice and the open interest notes that name it (their related invoice), paid by one credit
 * line, as the reminder letter asks: the line carries the invoice's payment reference and its
 * amount is exactly the invoice's amount due plus each note's. The invoice first, then the notes
 * by issue date; null unless there is at least one such note and the sum is exact.
 */
export async function invoiceWithNotesPaidBy(tx: Tx, orgId: string, bank: BankAccountRow, line: TransactionRow): Promise<InvoiceRow[] | null> {
  if (line.direction !== "credit") return null;
  const awaiting = (row: InvoiceRow) => (AWAITING_PAYMENT as readonly string[]).includes(row.status) && row.currency === bank.currency && invoiceDueCents(row) > 0;
  for (const reference of referencesOf(line)) {
    const invoice = await firstRow(tx.select().from(invoices).where(inOrg(invoices, orgId, eq(invoices.paymentReference, reference))));
    if (!invoice || invoice.type !== "invoice" || !awaiting(invoice)) continue;
    const notes = (await tx
      .select()
      .from(invoices)
      .where(inOrg(invoices, orgId, eq(invoices.relatedInvoiceId, invoice.id), eq(invoices.type, "interest_note")))
      .orderBy(asc(invoices.issueDate), asc(invoices.id)))
      .filter(awaiting);
    if (notes.length === 0) continue;
    const total = notes.reduce((s, n) => s + invoiceDueCents(n), invoiceDueCents(invoice));
    if (total === line.amountCents) return [invoice, ...notes];
  }
  return null;
}

/**
 * The expense a debit line pays as a payment run's credit transfer: the line carries the
 * EndToEndId of a run's item (payment_run_items), the expense is approved in the account's
 * currency, and the line is at most its amount due.
 */
export async function expensePaidBy(tx: Tx, orgId: string, bank: BankAccountRow, line: TransactionRow, endToEndId: string | undefined): Promise<ExpenseRow | null> {
  if (!endToEndId) return null;
  // the unique index payment_run_items_org_end_to_end
  const item = await firstRow(tx.select().from(paymentRunItems).where(inOrg(paymentRunItems, orgId, eq(paymentRunItems.endToEndId, endToEndId))));
  if (!item) return null;
  const expense = await firstRow(tx.select().from(expenses).where(inOrg(expenses, orgId, eq(expenses.id, item.expenseId))));
  if (!expense || expense.currency !== bank.currency) return null;
  if (await handPayment(tx, orgId, bank, { kind: "expense", row: expense }, line.amountCents, line.bookingDate)) return expense;
  if (expense.status !== "approved" || line.amountCents > expenseDueCents(expense)) return null;
  return expense;
}

/**
 * The approved supplier invoices of an organisation in `currency` that still have something due,
 * by amount due: read once per statement (the suggestions of its debit lines), not per line.
 */
export async function openExpensesByDue(tx: Tx, orgId: string, currency: string): Promise<Map<number, ExpenseRow[]>> {
  const open = await tx
    .select()
    .from(expenses)
    .where(
      inOrg(
        expenses,
        orgId,
        eq(expenses.status, "approved"),
        eq(expenses.documentType, "invoice"),
        eq(expenses.currency, currency),
        // what the document asks to be paid (BT-115): its total less the prepaid amount, plus rounding
        sql`${expenses.paidCents} < ${expenses.amountCents} + ${expenses.vatCents} - ${expenses.prepaidCents} + ${expenses.roundingCents}`,
      ),
    )
    .orderBy(asc(expenses.date), asc(expenses.id));
  return Map.groupBy(open, expenseDueCents);
}

/** The expense's payment reference as lines carry it: canonical when it is a structured one, else as written. */
const expenseReference = (e: ExpenseRow) => (e.paymentReference ? (canonicalPaymentReference(e.paymentReference) ?? e.paymentReference.trim()) : null);

/**
 * A line names a reference: a structured one it carries, or one of at least six characters written
 * in its free text as a word of its own ("202601" is not in "Invoice 2026012"; a shorter one, "1234", is found by chance).
 */
const namesReference = (line: TransactionRow, references: string[], reference: string | null) =>
  reference !== null &&
  (references.includes(reference) ||
    (reference.length >= 6 && new RegExp(`(?<![\\p{L}\\p{N}])${RegExp.escape(reference)}(?![\\p{L}\\p{N}])`, "u").test(line.communication ?? "")));

/**
 * The approved expense a debit line pays without a payment run: the only open one whose payment
 * reference the line carries and whose amount due the line fits in; else the only one of exactly
 * the line's amount due whose payee IBAN is the line's counterparty. Anything less certain is a
 * suggestion (suggestedExpense), never a match.
 */
export function expensePaidByReference(line: TransactionRow, openByDue: Map<number, ExpenseRow[]>): ExpenseRow | null {
  const references = referencesOf(line);
  const byReference = [...openByDue.entries()].flatMap(([due, list]) => (line.amountCents <= due ? list.filter((e) => namesReference(line, references, expenseReference(e))) : []));
  if (byReference.length === 1) return byReference[0]!;
  if (byReference.length > 1 || !line.counterpartyIban) return null;
  const byIban = (openByDue.get(line.amountCents) ?? []).filter((e) => e.payeeIban === line.counterpartyIban);
  return byIban.length === 1 ? byIban[0]! : null;
}

/** An approved expense a debit line likely pays: the same amount due, and the supplier's IBAN or payment reference. */
export function suggestedExpense(line: TransactionRow, openByDue: Map<number, ExpenseRow[]>): string | null {
  const references = referencesOf(line);
  const match = (openByDue.get(line.amountCents) ?? []).find(
    (e) => (line.counterpartyIban && e.payeeIban === line.counterpartyIban) || namesReference(line, references, expenseReference(e)),
  );
  return match?.id ?? null;
}

/** Takes an expense a line has just paid out of the statement's open expenses: its amount due changed. */
export function forgetExpense(openByDue: Map<number, ExpenseRow[]>, expense: ExpenseRow): void {
  for (const [due, list] of openByDue) {
    const rest = list.filter((e) => e.id !== expense.id);
    if (rest.length !== list.length) rest.length === 0 ? openByDue.delete(due) : openByDue.set(due, rest);
  }
}
