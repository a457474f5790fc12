/**
 * What each event posts (docs/books.md): one function per rule, each returning a balanced
 * draft that `recordChange` posts in the change's own transaction. Used by the services and by
 * the migration that posts the data written before the ledger existed (./backfill.ts).
 *
 * | event                            | debit                              | credit                          |
 * |----------------------------------|------------------------------------|---------------------------------|
 * | invoice finalized                | receivables (total)                | sales (base), VAT payable (VAT), per category and rate |
 * | credit note finalized            | the invoice's credits              | the invoice's debits            |
 * | invoice payment                  | bank                               | receivables                     |
 * | credit note refund (its payment) | receivables                        | bank                            |
 * | expense approved                 | category's expense account (net), VAT receivable, per category and rate | payables (gross) |
 * | supplier credit note approved    | payables (gross)                   | the expense account, VAT receivable |
 * | expense payment                  | payables                           | bank                            |
 * | supplier credit note refund      | bank                               | payables                        |
 * | cancel, payment deleted          | the reversal of what was posted, on the same date                    |
 */
import { and, between, desc, eq, inArray, sql } from "drizzle-orm";
import { plainRows, prepared, type Tx } from "../../db/client.ts";
import { accountDays, accounts, expenses, expenseVatLines, invoiceLines, invoices, payments, vatRates } from "../../db/schema.ts";
import type { VatCategory } from "../documents/model.ts";
import { vatBreakdown, type VatBreakdownGroup, type VatBreakdownLine } from "../documents/vat-breakdown.ts";
import { categoryAccount, systemAccount } from "./accounts.ts";
import type { DraftLine, EntryDraft } from "./draft.ts";

type InvoiceRow = typeof invoices.$inferSelect;
type PaymentRow = typeof payments.$inferSelect;
type ExpenseRow = typeof expenses.$inferSelect;

const documentName = (invoice: InvoiceRow) => (invoice.type === "credit_note" ? `Credit note ${invoice.number}` : `Invoice ${invoice.number}`);

/**
 * The journal's order of an invoice's VAT groups: by category code, higher rates first (the order
 * its posting has had since the ledger began, kept so that an entry's lines are numbered as before;
 * the document shows the same groups in the order of VAT_CATEGORIES).
 */
const journalOrder = (a: VatBreakdownGroup, b: VatBreakdownGroup) => (a.category < b.category ? -1 : a.category > b.category ? 1 : 0) || b.rateBp - a.rateBp;

/**
 * Finalizing an invoice (or, mirrored, a credit note): receivables against sales and VAT payable,
 * one pair of lines per group of its VAT breakdown, the document's (server/documents/vat-breakdown.ts):
 * per VAT category and rate of its lines, a line without a VAT rate zero rated, Z, as on the
 * e-invoice (server/invoices/document.ts). Its groups add up to the invoice's stored subtotal and
 * VAT, so the entry balances against its total.
 */
export function invoicePosting(tx: Tx, invoice: InvoiceRow): EntryDraft {
  const sign = invoice.type === "credit_note" ? -1 : 1;
  const note = invoice.type === "credit_note";
  const vatLines = prepared(tx, "ledger: invoice VAT lines", (tx) =>
    plainRows<VatBreakdownLine>(
      tx,
      tx
        .select({
          vatCategory: sql<VatCategory>`coalesce(${vatRates.category}, 'Z')`.as("vatCategory"),
          vatRateBp: sql<number>`${invoiceLines.vatRateBp}`.as("vatRateBp"),
          amountCents: sql<number>`${invoiceLines.amountCents}`.as("amountCents"),
          vatCents: sql<number>`${invoiceLines.vatCents}`.as("vatCents"),
        })
        .from(invoiceLines)
        .leftJoin(vatRates, eq(vatRates.id, invoiceLines.vatRateId))
        .where(eq(invoiceLines.invoiceId, sql.placeholder("invoiceId"))),
    ),
  ).all({ invoiceId: invoice.id });
  const groups = vatBreakdown(vatLines).sort(journalOrder);
  const sales = systemAccount(tx, invoice.organizationId, "sales").id;
  const vatPayable = systemAccount(tx, invoice.organizationId, "vat_payable").id;
  const lines: DraftLine[] = [{ accountId: systemAccount(tx, invoice.organizationId, "receivables").id, cents: sign * invoice.totalCents, description: documentName(invoice) }];
  for (const g of groups) {
    const rate = `${g.category} ${(g.rateBp / 100).toFixed(2)} %`;
    const tag = { side: "sales" as const, category: g.category, rateBp: g.rateBp, note };
    lines.push({ accountId: sales, cents: -sign * g.taxableCents, description: `Sales, VAT ${rate}`, vat: { ...tag, role: "base" } });
    lines.push({ accountId: vatPayable, cents: -sign * g.vatCents, description: `VAT ${rate}`, vat: { ...tag, role: "vat" } });
  }
  return {
    date: invoice.issueDate,
    description: documentName(invoice),
    currency: invoice.currency,
    source: { type: "invoice", id: invoice.id },
    lines,
  };
}

/** A payment of an invoice (money in), or the refund of a credit note (money out), through `bankLedgerId`. */
export function paymentPosting(tx: Tx, invoice: InvoiceRow, payment: PaymentRow, bankLedgerId: string): EntryDraft {
  const sign = invoice.type === "credit_note" ? -1 : 1;
  const what = invoice.type === "credit_note" ? `Refund of credit note ${invoice.number}` : `Payment of invoice ${invoice.number}`;
  return {
    date: payment.paymentDate,
    description: payment.reference ? `${what} (${payment.reference})` : what,
    currency: invoice.currency,
    source: { type: "payment", id: payment.id },
    lines: [
      { accountId: bankLedgerId, cents: sign * payment.amountCents, description: what },
      { accountId: systemAccount(tx, invoice.organizationId, "receivables").id, cents: -sign * payment.amountCents, description: what },
    ],
  };
}

/**
 * The VAT rate an expense is reported at: its `vat_rate_id`'s, else its effective rate (VAT over
 * amount, to 0.01 %), as `vat_amount` is what the client sent.
 */
function expenseRate(tx: Tx, expense: ExpenseRow): { category: VatCategory; rateBp: number } {
  if (expense.vatRateId) {
    const rate = tx.select().from(vatRates).where(eq(vatRates.id, expense.vatRateId)).get();
    if (rate) return { category: rate.category, rateBp: rate.rateBp };
  }
  if (expense.vatCents === 0) return { category: "Z", rateBp: 0 };
  return { category: "S", rateBp: Number((BigInt(expense.vatCents) * 1_000_000n + BigInt(expense.amountCents) * 50n) / (BigInt(expense.amountCents) * 100n)) };
}

const expenseName = (expense: ExpenseRow) => `Expense: ${expense.category}${expense.vendor ? `, ${expense.vendor}` : ""}`;

/**
 * Approving an expense: its category's expense account (amount) and VAT receivable against
 * payables (amount + VAT), one base and VAT pair per category and rate of its VAT breakdown when
 * it has one (an imported e-invoice), else one pair at its rate. A supplier's credit note posts
 * the reverse (payables debited; the expense account and VAT receivable credited), tagged as a note.
 */
export function expensePosting(tx: Tx, expense: ExpenseRow): EntryDraft {
  const sign = expense.documentType === "credit_note" ? -1 : 1;
  const note = expense.documentType === "credit_note";
  const breakdown = tx
    .select()
    .from(expenseVatLines)
    .where(eq(expenseVatLines.expenseId, expense.id))
    .orderBy(expenseVatLines.category, desc(expenseVatLines.rateBp))
    .all();
  const rates = breakdown.length > 0 ? breakdown : [{ ...expenseRate(tx, expense), baseCents: expense.amountCents, vatCents: expense.vatCents }];
  const name = expenseName(expense);
  const expenseAccount = categoryAccount(tx, expense.organizationId, expense.category).id;
  const vatReceivable = systemAccount(tx, expense.organizationId, "vat_receivable").id;
  const lines: DraftLine[] = [];
  for (const r of rates) {
    const tag = { side: "purchases" as const, category: r.category, rateBp: r.rateBp, note };
    const rate = breakdown.length > 0 ? `, VAT ${r.category} ${(r.rateBp / 100).toFixed(2)} %` : "";
    lines.push({ accountId: expenseAccount, cents: sign * r.baseCents, description: `${name}${rate}`, vat: { ...tag, role: "base" } });
    lines.push({ accountId: vatReceivable, cents: sign * r.vatCents, description: `Input VAT${rate}`, vat: { ...tag, role: "vat" } });
  }
  lines.push({ accountId: systemAccount(tx, expense.organizationId, "payables").id, cents: -sign * (expense.amountCents + expense.vatCents), description: name });
  return {
    date: expense.date,
    description: expense.description ? `${name}: ${expense.description}`.slice(0, 1000) : name,
    currency: expense.currency,
    source: { type: "expense", id: expense.id },
    lines,
  };
}

/** Paying an approved expense: payables against the bank (a supplier's credit note: its refund, the bank against payables). */
export function expensePaymentPosting(
  tx: Tx,
  expense: ExpenseRow,
  payment: { id: string; amountCents: number; paymentDate: string; reference: string | null },
  bankLedgerId: string,
): EntryDraft {
  const sign = expense.documentType === "credit_note" ? -1 : 1;
  const lowerName = `${expenseName(expense).charAt(0).toLowerCase()}${expenseName(expense).slice(1)}`;
  const what = expense.documentType === "credit_note" ? `Refund of ${lowerName}` : `Payment of ${lowerName}`;
  return {
    date: payment.paymentDate,
    description: payment.reference ? `${what} (${payment.reference})` : what,
    currency: expense.currency,
    source: { type: "expense_payment", id: payment.id },
    lines: [
      { accountId: systemAccount(tx, expense.organizationId, "payables").id, cents: sign * payment.amountCents, description: what },
      { accountId: bankLedgerId, cents: -sign * payment.amountCents, description: what },
    ],
  };
}

/**
 * Closing a year: per currency, every revenue and expense account's result of the year moved to
 * retained earnings, dated the last day of the year. Marked as closing, so that the year's profit
 * and loss still shows what it was.
 */
export function closingPostings(tx: Tx, orgId: string, year: number): EntryDraft[] {
  const balances = tx
    .select({
      accountId: accountDays.accountId,
      currency: accountDays.currency,
      code: accounts.code,
      net: sql<number>`sum(${accountDays.debitCents}) - sum(${accountDays.creditCents})`,
    })
    .from(accountDays)
    .innerJoin(accounts, eq(accounts.id, accountDays.accountId))
    .where(
      and(
        eq(accountDays.organizationId, orgId),
        between(accountDays.date, `${year}-01-01`, `${year}-12-31`),
        inArray(accounts.type, ["revenue", "expense"]),
      ),
    )
    .groupBy(accountDays.currency, accountDays.accountId)
    .orderBy(accountDays.currency, accounts.code)
    .all()
    .filter((b) => b.net !== 0);
  const retained = systemAccount(tx, orgId, "retained_earnings").id;
  const byCurrency = Map.groupBy(balances, (b) => b.currency);
  return [...byCurrency].map(([currency, rows]) => {
    const lines: DraftLine[] = rows.map((r) => ({ accountId: r.accountId, cents: -r.net, description: `Result of ${year}` }));
    lines.push({ accountId: retained, cents: rows.reduce((s, r) => s + r.net, 0), description: `Result of ${year}` });
    return {
      date: `${year}-12-31`,
      description: `Closing of the fiscal year ${year}`,
      currency,
      source: { type: "fiscal_year", id: String(year) },
      lines,
      isClosing: true,
    };
  });
}
