/**
 * What each event posts (docs/books.md): one function per rule, each returning a balanced
 * draft that `recordChange` posts in the change's own transaction. Used by the services and by
 * the migration that posts the data written before the ledger existed (./backfill.ts).
 *
 * Each rule is two parts. The rule itself is pure (`invoiceEntry`, `paymentEntry`,
 * `expenseEntry`, `expensePaymentEntry`, `closingEntries`): plain figures of the document and the
 * accounts of the chart it posts to, as ids, in; the draft out; no database, no clock
 * (tests/ledger/posting-rules.test.ts). Its reader (`read…`) gathers those inputs in the transaction:
 * the document's VAT lines, the accounts by role or expense category (./accounts.ts), the year's
 * results. The exported `…Posting` functions, which callers use, are the reader and the rule.
 *
 * | event                            | debit                              | credit                          |
 * |----------------------------------|------------------------------------|---------------------------------|
 * | invoice finalized                | receivables (total)                | sales (base), VAT payable (VAT), per category and rate |
 * | credit note finalized            | the invoice's credits              | the invoice's debits            |
 * | interest note finalized          | receivables (total)                | late-payment income (no VAT: outside its scope) |
 * | invoice payment                  | bank                               | receivables                     |
 * | credit note refund (its payment) | receivables                        | bank                            |
 * | expense approved                 | category's expense account (net), VAT receivable, per category and rate | payables (gross) |
 * | … reverse charged (K, AE)        | VAT receivable (self-assessed, deductible) | VAT payable (self-assessed, due) |
 * | … its document's prepaid amount  | payables (prepaid)                 | advances to suppliers (prepaid) |
 * | … its document's rounding        | category's expense account         | payables                        |
 * | supplier credit note approved    | payables (gross)                   | the expense account, VAT receivable |
 * | expense payment                  | payables                           | bank                            |
 * | supplier credit note refund      | bank                               | payables                        |
 * | … an invoice's excess prepayment refunded (BT-115 < 0) | bank                  | payables                        |
 * | bank account's first statement   | bank (its opening balance, less what the books held) | opening balances (equity) |
 * | bank line imported unmatched, in | bank                               | suspense                        |
 * | bank line imported unmatched, out| suspense                           | bank                            |
 * | bank line booked, money out      | the account (net), VAT receivable  | suspense (gross; bank when booked on import) |
 * | bank line booked, money in       | suspense (gross; bank when booked on import) | the account (net), VAT payable |
 * | bank line allocated to a document| the payment's entry above, with suspense in place of bank                  |
 * | … taking over a hand payment     | suspense (money in) / bank (out)   | bank (money in) / suspense (out) |
 * | bank line allocated to an account| as booked, for the allocation's amount, against suspense                   |
 * | allocation undone, unmatched     | its entry reversed; one made on import: its amount back into suspense      |
 * | transfer between own accounts    | the receiving bank account         | the paying bank account (suspense when the line sat there) |
 * | fiscal year closed, per currency | each revenue account (its year's credit balance) | each expense account (its year's debit balance) |
 * |                                  | retained earnings (a loss)         | retained earnings (a profit)    |
 * | cancel, payment deleted          | the reversal of what was posted, on the same date                    |
 */
import { and, between, desc, eq, inArray, sql } from "drizzle-orm";
import { firstRow, plainRows, prepared, type Tx } from "../../db/client.ts";
import { accountDays, accounts, bankAccounts, expenses, expenseVatLines, invoiceAllowanceCharges, invoiceLines, invoices, payments, vatRates } from "../../db/schema.ts";
import type { EXPENSE_DOCUMENT_TYPES, InvoiceType } from "../../db/values.ts";
import type { VatCategory } from "../documents/model.ts";
import { itemShares, vatBreakdown } from "../documents/vat-breakdown.ts";
import { lineAmountCents, vatCents } from "../lib/money.ts";
import { addDays } from "../lib/time.ts";
import { fiscalCalendar } from "../lib/fiscal-year.ts";
import { categoryAccount, lateIncomeAccountId, openingBalanceAccountId, supplierAdvancesAccountId, systemAccount } from "./accounts.ts";
import { debitBalanceBefore } from "./balances.ts";
import type { DraftLine, EntryDraft, VatTag } from "./draft.ts";

type InvoiceRow = typeof invoices.$inferSelect;
type BankAccountRow = typeof bankAccounts.$inferSelect;
type PaymentRow = typeof payments.$inferSelect;
type ExpenseRow = typeof expenses.$inferSelect;
type ExpenseDocumentType = (typeof EXPENSE_DOCUMENT_TYPES)[number];

// ---------------------------------------------------------------------------------------------
// The rules' inputs: plain figures and account ids

/** One line of an invoice as its posting reads it: its VAT category and rate (Z, 0 % without a VAT rate), amount and VAT. */
export type PostingVatLine = { category: VatCategory; rateBp: number; amountCents: number; vatCents: number };

/** What an invoice's or a credit note's posting reads of it. */
export type InvoiceFigures = {
  id: string;
  type: InvoiceType;
  number: string;
  issueDate: string;
  currency: string;
  totalCents: number;
  /** its lines, in any order: the rule groups them by category and rate */
  vatLines: readonly PostingVatLine[];
};

/** The accounts an invoice posts to; an interest note, to late-payment income (read for interest notes only). */
export type SalesChart = { receivables: string; sales: string; vatPayable: string; lateIncome?: string };

/** What a payment's (or a refund's) posting reads of it. */
export type PaymentFigures = { id: string; amountCents: number; paymentDate: string; reference: string | null };

/** One group of an expense's VAT breakdown (an imported e-invoice's): base and VAT at a category and rate, signed as on the document. */
export type ExpenseVatGroup = { category: VatCategory; rateBp: number; baseCents: number; vatCents: number };

/** What an expense's or a supplier credit note's posting reads of it. */
export type ExpenseFigures = {
  id: string;
  documentType: ExpenseDocumentType;
  category: string;
  vendor: string | null;
  description: string | null;
  date: string;
  currency: string;
  amountCents: number;
  vatCents: number;
  /** an imported document's prepaid amount (BT-113) and rounding (BT-114), signed as amountCents; 0 otherwise */
  prepaidCents: number;
  roundingCents: number;
  /** its VAT breakdown when it has one (an imported e-invoice); else empty, and it posts one pair at its rate */
  vatLines: readonly ExpenseVatGroup[];
  /** the rate of its `vat_rate_id`, when it has one (read only without a breakdown); else its effective rate is reported */
  vatRate: { category: VatCategory; rateBp: number } | null;
  /**
   * the rate the purchaser self-assesses VAT at on its reverse-charged groups (K, AE): its
   * `self_assessed_vat_rate_id`'s, else the organisation's standard rate; null: none self-assessed
   */
  selfAssessedRateBp?: number | null;
};

/**
 * The accounts an expense posts to: its category's expense account, VAT receivable, payables, and
 * (only read for a document with a prepaid amount) advances to suppliers.
 */
export type PurchasesChart = { expense: string; vatReceivable: string; payables: string; supplierAdvances: string | null; vatPayable?: string };

/** An account's result of a year in one currency: the sum of its debits less its credits. */
export type YearResult = { accountId: string; currency: string; net: number };

// ---------------------------------------------------------------------------------------------
// The rules: pure

const documentName = (invoice: Pick<InvoiceFigures, "type" | "number">) =>
  invoice.type === "credit_note" ? `Credit note ${invoice.number}` : invoice.type === "interest_note" ? `Interest note ${invoice.number}` : `Invoice ${invoice.number}`;

/**
 * The journal's order of VAT groups: by category code, higher rates first (the order an
 * invoice's posting has had since the ledger began, kept so that an entry's lines are numbered as
 * before; the document shows the same groups in the order of VAT_CATEGORIES).
 */
const journalOrder = (a: { category: VatCategory; rateBp: number }, b: { category: VatCategory; rateBp: number }) =>
  (a.category < b.category ? -1 : a.category > b.category ? 1 : 0) || b.rateBp - a.rateBp;

const rateLabel = (g: { category: VatCategory; rateBp: number }) => `${g.category} ${(g.rateBp / 100).toFixed(2)} %`;

/**
 * Finalizing an invoice (or, mirrored, a credit note): receivables against sales and VAT payable,
 * one pair of lines per group of its VAT breakdown, the document's (server/documents/vat-breakdown.ts):
 * per VAT category and rate of its lines, less its document allowances and plus its charges, as
 * on the e-invoice (server/invoices/document.ts). Its groups add up to the invoice's stored
 * subtotal and VAT, so the entry balances against its total.
 */
export function invoiceEntry(invoice: InvoiceFigures, chart: SalesChart): EntryDraft {
  const sign = invoice.type === "credit_note" ? -1 : 1;
  const note = invoice.type === "credit_note";
  const groups = vatBreakdown(
    invoice.vatLines.map((l) => ({ vatCategory: l.category, vatRateBp: l.rateBp, amountCents: l.amountCents, vatCents: l.vatCents })),
  ).sort(journalOrder);
  const lines: DraftLine[] = [{ accountId: chart.receivables, cents: sign * invoice.totalCents, description: documentName(invoice) }];
  // interest and compensation are not the price of a supply: outside the scope of VAT, no VAT
  // tag, so the VAT report does not see them
  if (invoice.type === "interest_note") {
    lines.push({ accountId: chart.lateIncome!, cents: -invoice.totalCents, description: "Late-payment interest and compensation" });
    return { date: invoice.issueDate, description: documentName(invoice), currency: invoice.currency, source: { type: "invoice", id: invoice.id }, lines };
  }
  for (const g of groups) {
    const rate = rateLabel(g);
    const tag = { side: "sales" as const, category: g.category, rateBp: g.rateBp, note };
    lines.push({ accountId: chart.sales, cents: -sign * g.taxableCents, description: `Sales, VAT ${rate}`, vat: { ...tag, role: "base" } });
    lines.push({ accountId: chart.vatPayable, cents: -sign * g.vatCents, description: `VAT ${rate}`, vat: { ...tag, role: "vat" } });
  }
  return {
    date: invoice.issueDate,
    description: documentName(invoice),
    currency: invoice.currency,
    source: { type: "invoice", id: invoice.id },
    lines,
  };
}

/** A payment of an invoice (money in), or the refund of a credit note (money out), through the `bank` ledger account. */
export function paymentEntry(
  invoice: Pick<InvoiceFigures, "type" | "number" | "currency">,
  payment: PaymentFigures,
  chart: { bank: string; receivables: string },
): EntryDraft {
  const sign = invoice.type === "credit_note" ? -1 : 1;
  const what = invoice.type === "credit_note" ? `Refund of credit note ${invoice.number}` : `Payment of invoice ${invoice.number}`;
  return {
    date: payment.paymentDate,
    description: payment.reference ? `${what} (${payment.reference})` : what,
    currency: invoice.currency,
    source: { type: "payment", id: payment.id },
    lines: [
      { accountId: chart.bank, cents: sign * payment.amountCents, description: what },
      { accountId: chart.receivables, cents: -sign * payment.amountCents, description: what },
    ],
  };
}

/**
 * The VAT rate an expense without a breakdown is reported at: its `vat_rate_id`'s, else its
 * effective rate (VAT over amount, to 0.01 %), as `vat_amount` is what the client sent.
 */
function expenseRate(expense: Pick<ExpenseFigures, "vatRate" | "amountCents" | "vatCents">): { category: VatCategory; rateBp: number } {
  if (expense.vatRate) return expense.vatRate;
  if (expense.vatCents === 0) return { category: "Z", rateBp: 0 };
  return { category: "S", rateBp: Number((BigInt(expense.vatCents) * 1_000_000n + BigInt(expense.amountCents) * 50n) / (BigInt(expense.amountCents) * 100n)) };
}

const expenseName = (expense: Pick<ExpenseFigures, "category" | "vendor">) => `Expense: ${expense.category}${expense.vendor ? `, ${expense.vendor}` : ""}`;

/** The VAT a reverse-charged purchase self-assesses: at this rate, VAT payable (due) against VAT receivable (deductible). */
export type SelfAssessment = { rateBp: number; vatPayable: string; vatReceivable: string };

/**
 * A purchase at K or AE is reverse charged: the purchaser owes its VAT and deducts it at once (the
 * Belgian return's 55 or 56, and 59), at the self-assessed rate of its base (`signedBase`: a
 * purchase positive, a credit note or refund negative): VAT receivable debited (role
 * self_assessed_deductible), VAT payable credited (self_assessed_due). Any other category: none.
 */
export function selfAssessedLines(signedBase: number, assessment: SelfAssessment, tag: Omit<VatTag, "role">, rate: string): DraftLine[] {
  if (tag.category !== "K" && tag.category !== "AE") return [];
  const cents = Math.sign(signedBase) * vatCents(Math.abs(signedBase), assessment.rateBp);
  const label = `Self-assessed VAT ${(assessment.rateBp / 100).toFixed(2)} %${rate}`;
  return [
    { accountId: assessment.vatReceivable, cents, description: `${label}, deductible`, vat: { ...tag, role: "self_assessed_deductible" } },
    { accountId: assessment.vatPayable, cents: -cents, description: `${label}, due`, vat: { ...tag, role: "self_assessed_due" } },
  ];
}

/**
 * Approving an expense: its category's expense account (amount) and VAT receivable against
 * payables (amount + VAT), one base and VAT pair per category and rate of its VAT breakdown when
 * it has one (an imported e-invoice; in the journal's order), else one pair at its rate. A
 * supplier's credit note posts the reverse (payables debited; the expense account and VAT
 * receivable credited), tagged as a note.
 *
 * A group at K or AE is reverse charged: the purchaser owes its VAT and deducts it at once (the
 * Belgian return's 55 or 56, and 59), at `selfAssessedRateBp` of its base: VAT payable credited
 * (role self_assessed_due), VAT receivable debited (self_assessed_deductible), so the VAT accounts
 * hold what the return says; a credit note takes both back.
 */
export function expenseEntry(expense: ExpenseFigures, chart: PurchasesChart): EntryDraft {
  const sign = expense.documentType === "credit_note" ? -1 : 1;
  const note = expense.documentType === "credit_note";
  const breakdown = expense.vatLines.length > 0;
  // a stable sort: groups of the same category and rate keep the reader's order
  const rates = breakdown
    ? [...expense.vatLines].sort(journalOrder)
    : [{ ...expenseRate(expense), baseCents: expense.amountCents, vatCents: expense.vatCents }];
  const name = expenseName(expense);
  const lines: DraftLine[] = [];
  for (const r of rates) {
    const tag = { side: "purchases" as const, category: r.category, rateBp: r.rateBp, note };
    const rate = breakdown ? `, VAT ${rateLabel(r)}` : "";
    lines.push({ accountId: chart.expense, cents: sign * r.baseCents, description: `${name}${rate}`, vat: { ...tag, role: "base" } });
    lines.push({ accountId: chart.vatReceivable, cents: sign * r.vatCents, description: `Input VAT${rate}`, vat: { ...tag, role: "vat" } });
    if (expense.selfAssessedRateBp && chart.vatPayable) {
      lines.push(...selfAssessedLines(sign * r.baseCents, { rateBp: expense.selfAssessedRateBp, vatPayable: chart.vatPayable, vatReceivable: chart.vatReceivable }, tag, rate));
    }
  }
  lines.push({ accountId: chart.payables, cents: -sign * (expense.amountCents + expense.vatCents), description: name });
  // BT-114: the rounding the document adds to what is payable is part of what the purchase costs
  if (expense.roundingCents !== 0) {
    lines.push({ accountId: chart.expense, cents: sign * expense.roundingCents, description: `${name}, rounding` });
    lines.push({ accountId: chart.payables, cents: -sign * expense.roundingCents, description: `${name}, rounding` });
  }
  // BT-113: paid to the supplier before the document, so an advance (an asset) it now settles
  if (expense.prepaidCents !== 0) {
    if (chart.supplierAdvances === null) throw new Error("expenseEntry: a prepaid amount needs the advances to suppliers account");
    lines.push({ accountId: chart.payables, cents: sign * expense.prepaidCents, description: `${name}, prepaid` });
    lines.push({ accountId: chart.supplierAdvances, cents: -sign * expense.prepaidCents, description: `${name}, prepaid` });
  }
  return {
    date: expense.date,
    description: expense.description ? `${name}: ${expense.description}`.slice(0, 1000) : name,
    currency: expense.currency,
    source: { type: "expense", id: expense.id },
    lines,
  };
}

/** Paying an approved expense: payables against the bank (a supplier's credit note: its refund, the bank against payables). */
export function expensePaymentEntry(
  expense: Pick<ExpenseFigures, "documentType" | "category" | "vendor" | "currency"> & { refund?: boolean },
  payment: PaymentFigures,
  chart: { bank: string; payables: string },
): EntryDraft {
  // `refund`: an invoice prepaid beyond its total, whose supplier pays the excess back as a credit note's would
  const refund = expense.documentType === "credit_note" || expense.refund === true;
  const sign = refund ? -1 : 1;
  const name = expenseName(expense);
  const lowerName = `${name.charAt(0).toLowerCase()}${name.slice(1)}`;
  const what = refund ? `Refund of ${lowerName}` : `Payment of ${lowerName}`;
  return {
    date: payment.paymentDate,
    description: payment.reference ? `${what} (${payment.reference})` : what,
    currency: expense.currency,
    source: { type: "expense_payment", id: payment.id },
    lines: [
      { accountId: chart.payables, cents: sign * payment.amountCents, description: what },
      { accountId: chart.bank, cents: -sign * payment.amountCents, description: what },
    ],
  };
}

/** A bank account's opening balance in the books: what its first statement opens with, less what the books already held for it. */
export type OpeningFigures = { statementId: string; date: string; currency: string; bankName: string; cents: number };

/**
 * The first statement of a bank account: the difference between the bank's opening balance and
 * the account's ledger balance the day before, against the opening balances account, dated that day.
 */
export function openingBalanceEntry(opening: OpeningFigures, chart: { bank: string; openingBalance: string }): EntryDraft {
  const what = `Opening balance of ${opening.bankName}`;
  return {
    date: opening.date,
    description: what,
    currency: opening.currency,
    source: { type: "bank_statement", id: opening.statementId },
    lines: [
      { accountId: chart.bank, cents: opening.cents, description: what },
      { accountId: chart.openingBalance, cents: -opening.cents, description: what },
    ],
  };
}

/** A bank line booked to an account of the chart: its gross amount, the VAT rate it carries (none: all of it to the account). */
export type BankLineFigures = {
  lineId: string;
  entryId: string;
  date: string;
  currency: string;
  direction: "credit" | "debit";
  amountCents: number;
  description: string;
  /** the rate, and the side of the VAT report: purchases (input VAT) or sales (output VAT) */
  vat: { category: VatCategory; rateBp: number; side: "sales" | "purchases" } | null;
};

/**
 * A bank line booked to an account (a fee, interest, a transfer to another own account): money
 * out debits the account (net) and the VAT, money in credits both; the bank takes the gross. The
 * VAT is the gross amount's share at the rate (server/documents/vat-breakdown.ts), on the side the
 * account is on: a cost's input VAT, a revenue's output VAT; money the other way round (a fee
 * refunded, a sale paid back) is a note on that side.
 */
export function bankLineEntry(line: BankLineFigures, chart: { bank: string; account: string; vat: string | null; selfAssessment?: SelfAssessment | null }): EntryDraft {
  const sign = line.direction === "debit" ? 1 : -1;
  const lines: DraftLine[] = [{ accountId: chart.bank, cents: -sign * line.amountCents, description: line.description }];
  if (line.vat === null || chart.vat === null) {
    lines.push({ accountId: chart.account, cents: sign * line.amountCents, description: line.description });
  } else {
    const [share] = itemShares(true, [{ cents: line.amountCents, rateBp: line.vat.rateBp }]);
    const note = line.vat.side === "purchases" ? line.direction === "credit" : line.direction === "debit";
    const tag = { side: line.vat.side, category: line.vat.category, rateBp: line.vat.rateBp, note };
    const rate = rateLabel(line.vat);
    lines.push({ accountId: chart.account, cents: sign * share!.amountCents, description: `${line.description}, VAT ${rate}`, vat: { ...tag, role: "base" } });
    lines.push({ accountId: chart.vat, cents: sign * share!.vatCents, description: `VAT ${rate}`, vat: { ...tag, role: "vat" } });
    // bought at K or AE: self-assessed as an expense is
    if (line.vat.side === "purchases" && chart.selfAssessment) lines.push(...selfAssessedLines(sign * share!.amountCents, chart.selfAssessment, tag, `, VAT ${rate}`));
  }
  return { id: line.entryId, date: line.date, description: line.description, currency: line.currency, source: { type: "bank_transaction", id: line.lineId }, lines };
}

/** A bank line's money into suspense (`cents` > 0: the bank account takes it) or out of it against the bank (`cents` < 0). */
export type SuspenseFigures = { lineId: string; date: string; currency: string; direction: "credit" | "debit"; cents: number; description: string; id?: string };

/**
 * Suspense (docs/banking.md#suspense): a line nothing holds yet is in the bank account's balance
 * against the suspense account, money in debiting the bank and crediting suspense, money out the
 * reverse; a negative amount takes it back out (a payment recorded by hand that a line in
 * suspense takes over was posted through the bank already).
 */
export function suspenseEntry(line: SuspenseFigures, chart: { bank: string; suspense: string }): EntryDraft {
  const sign = (line.direction === "credit" ? 1 : -1) * Math.sign(line.cents);
  const cents = Math.abs(line.cents);
  const what = line.cents > 0 ? `Into suspense: ${line.description}` : `Out of suspense: ${line.description}`;
  return {
    id: line.id,
    date: line.date,
    description: what.slice(0, 1000),
    currency: line.currency,
    source: { type: "bank_transaction", id: line.lineId },
    lines: [
      { accountId: chart.bank, cents: sign * cents, description: what.slice(0, 1000) },
      { accountId: chart.suspense, cents: -sign * cents, description: what.slice(0, 1000) },
    ],
  };
}

/**
 * Closing a fiscal year: per currency, every revenue and expense account's result of the year
 * moved to retained earnings, dated the last day of the year (`lastDay`: 31 December of a calendar
 * year, 30 June of a year from 1 July). Marked as closing, so that the year's profit and loss still
 * shows what it was. `results` come in the order of the lines (by currency, then account code); an
 * account whose result is nil gets no line.
 */
export function closingEntries(year: number, results: readonly YearResult[], chart: { retainedEarnings: string }, lastDay = `${year}-12-31`): EntryDraft[] {
  const byCurrency = Map.groupBy(
    results.filter((r) => r.net !== 0),
    (r) => r.currency,
  );
  return [...byCurrency].map(([currency, rows]) => {
    const lines: DraftLine[] = rows.map((r) => ({ accountId: r.accountId, cents: -r.net, description: `Result of ${year}` }));
    lines.push({ accountId: chart.retainedEarnings, cents: rows.reduce((s, r) => s + r.net, 0), description: `Result of ${year}` });
    return {
      date: lastDay,
      description: `Closing of the fiscal year ${year}`,
      currency,
      source: { type: "fiscal_year", id: String(year) },
      lines,
      isClosing: true,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// The readers: the rules' inputs from the transaction

/** An invoice's figures, with its lines' VAT categories and rates (Z, 0 % for a line without a VAT rate, as on the e-invoice). */
export async function readInvoiceFigures(tx: Tx, invoice: InvoiceRow): Promise<InvoiceFigures> {
  const vatLines = await prepared(tx, "ledger: invoice VAT lines", (tx) =>
    plainRows<PostingVatLine>(
      tx,
      tx
        .select({
          category: sql<VatCategory>`coalesce(${vatRates.category}, 'Z')`.as("category"),
          rateBp: sql<number>`${invoiceLines.vatRateBp}`.as("rateBp"),
          amountCents: sql<number>`${invoiceLines.amountCents}`.as("amountCents"),
          vatCents: sql<number>`${invoiceLines.vatCents}`.as("vatCents"),
        })
        .from(invoiceLines)
        .leftJoin(vatRates, eq(vatRates.id, invoiceLines.vatRateId))
        .where(eq(invoiceLines.invoiceId, sql.placeholder("invoiceId"))),
    ),
  ).all({ invoiceId: invoice.id });
  const { id, type, number, issueDate, currency, totalCents } = invoice;
  // a net-priced invoice without allowances or charges has none to read (their sums are its columns)
  if (invoice.allowanceCents === 0 && invoice.chargeCents === 0 && !invoice.pricesIncludeVat) return { id, type, number, issueDate, currency, totalCents, vatLines };
  return { id, type, number, issueDate, currency, totalCents, vatLines: [...vatLines, ...await allowanceChargeVatLines(tx, invoice)] };
}

/**
 * An invoice's document allowances (negative) and charges as VAT lines: their net amounts and VAT
 * as the invoice's totals were priced (`itemShares`, over its lines and them, in their order).
 */
async function allowanceChargeVatLines(tx: Tx, invoice: InvoiceRow): Promise<PostingVatLine[]> {
  const acs = await tx
    .select({
      isCharge: invoiceAllowanceCharges.isCharge,
      amountCents: invoiceAllowanceCharges.amountCents,
      rateBp: invoiceAllowanceCharges.vatRateBp,
      category: sql<VatCategory>`coalesce(${vatRates.category}, 'Z')`,
    })
    .from(invoiceAllowanceCharges)
    .leftJoin(vatRates, eq(vatRates.id, invoiceAllowanceCharges.vatRateId))
    .where(eq(invoiceAllowanceCharges.invoiceId, invoice.id))
    .orderBy(invoiceAllowanceCharges.sortOrder, invoiceAllowanceCharges.id);
  if (acs.length === 0) return [];
  const lines = await tx
    .select({ quantityCents: invoiceLines.quantityCents, unitPriceCents: invoiceLines.unitPriceCents, discountCents: invoiceLines.discountCents, rateBp: invoiceLines.vatRateBp })
    .from(invoiceLines)
    .where(eq(invoiceLines.invoiceId, invoice.id))
    .orderBy(invoiceLines.sortOrder, invoiceLines.id);
  const shares = itemShares(invoice.pricesIncludeVat, [
    ...lines.map((l) => ({ cents: lineAmountCents(l.quantityCents, l.unitPriceCents) - l.discountCents, rateBp: l.rateBp })),
    ...acs.map((ac) => ({ cents: ac.isCharge ? ac.amountCents : -ac.amountCents, rateBp: ac.rateBp })),
  ]).slice(lines.length);
  return acs.map((ac, i) => ({ category: ac.category, rateBp: ac.rateBp, amountCents: shares[i]!.amountCents, vatCents: shares[i]!.vatCents }));
}

/** The organisation's sales, VAT payable and receivables accounts (a 409 naming the first it lacks). */
export async function readSalesChart(tx: Tx, orgId: string): Promise<SalesChart> {
  const sales = (await systemAccount(tx, orgId, "sales")).id;
  const vatPayable = (await systemAccount(tx, orgId, "vat_payable")).id;
  return { receivables: (await systemAccount(tx, orgId, "receivables")).id, sales, vatPayable };
}

/** An expense's figures, with its VAT breakdown (in the journal's order) and, without one, its VAT rate. */
export async function readExpenseFigures(tx: Tx, expense: ExpenseRow): Promise<ExpenseFigures> {
  const vatLines = await tx
    .select({ category: expenseVatLines.category, rateBp: expenseVatLines.rateBp, baseCents: expenseVatLines.baseCents, vatCents: expenseVatLines.vatCents })
    .from(expenseVatLines)
    .where(eq(expenseVatLines.expenseId, expense.id))
    .orderBy(expenseVatLines.category, desc(expenseVatLines.rateBp));
  let vatRate: ExpenseFigures["vatRate"] = null;
  if (vatLines.length === 0 && expense.vatRateId) {
    const rate = await firstRow(tx.select({ category: vatRates.category, rateBp: vatRates.rateBp }).from(vatRates).where(eq(vatRates.id, expense.vatRateId)));
    if (rate) vatRate = rate;
  }
  const { id, documentType, category, vendor, description, date, currency, amountCents, vatCents, prepaidCents, roundingCents } = expense;
  const selfAssessedRateBp = await selfAssessedRate(tx, expense);
  return { id, documentType, category, vendor, description, date, currency, amountCents, vatCents, prepaidCents, roundingCents, vatLines, vatRate, selfAssessedRateBp };
}

/**
 * The rate VAT is self-assessed at on a reverse-charged purchase: the expense's
 * `self_assessed_vat_rate_id`, else the organisation's standard rate (its highest S rate; 21 %
 * when it has none).
 */
async function selfAssessedRate(tx: Tx, expense: ExpenseRow): Promise<number> {
  if (expense.selfAssessedVatRateId) {
    const named = await firstRow(tx.select({ rateBp: vatRates.rateBp }).from(vatRates).where(eq(vatRates.id, expense.selfAssessedVatRateId)));
    if (named) return named.rateBp;
  }
  return standardRateBp(tx, expense.organizationId);
}

/** The organisation's standard rate: its highest S rate, 21 % when it has none. */
export async function standardRateBp(tx: Tx, orgId: string): Promise<number> {
  const standard = await firstRow(tx
    .select({ rateBp: vatRates.rateBp })
    .from(vatRates)
    .where(and(eq(vatRates.organizationId, orgId), eq(vatRates.category, "S")))
    .orderBy(desc(vatRates.rateBp)));
  return standard?.rateBp ?? 2100;
}

/** What a bank line booked at K or AE self-assesses: the organisation's standard rate, VAT payable and receivable. */
export async function bankLineSelfAssessment(tx: Tx, orgId: string): Promise<SelfAssessment> {
  return { rateBp: await standardRateBp(tx, orgId), vatPayable: (await systemAccount(tx, orgId, "vat_payable")).id, vatReceivable: (await systemAccount(tx, orgId, "vat_receivable")).id };
}

/** The accounts an expense posts to: its category's (./accounts.ts), VAT receivable, payables, and advances when it has a prepaid amount. */
export async function readPurchasesChart(tx: Tx, orgId: string, category: string, prepaid = false): Promise<PurchasesChart> {
  const expense = (await categoryAccount(tx, orgId, category)).id;
  const vatReceivable = (await systemAccount(tx, orgId, "vat_receivable")).id;
  const supplierAdvances = prepaid ? await supplierAdvancesAccountId(tx, orgId) : null;
  const vatPayable = (await systemAccount(tx, orgId, "vat_payable")).id;
  return { expense, vatReceivable, payables: (await systemAccount(tx, orgId, "payables")).id, supplierAdvances, vatPayable };
}

/** Every revenue and expense account's result of the fiscal year from `start` to `end`, per currency, by currency and account code. */
export async function readYearResults(tx: Tx, orgId: string, start: string, end: string): Promise<YearResult[]> {
  return await tx
    .select({
      accountId: accountDays.accountId,
      currency: accountDays.currency,
      net: sql<number>`sum(${accountDays.debitCents}) - sum(${accountDays.creditCents})`,
    })
    .from(accountDays)
    .innerJoin(accounts, eq(accounts.id, accountDays.accountId))
    .where(
      and(
        eq(accountDays.organizationId, orgId),
        between(accountDays.date, start, end),
        inArray(accounts.type, ["revenue", "expense"]),
      ),
    )
    .groupBy(accountDays.currency, accountDays.accountId, accounts.id)
    .orderBy(accountDays.currency, accounts.code);
}

// ---------------------------------------------------------------------------------------------
// The postings callers use: reader, then rule

/** Finalizing an invoice or a credit note (`invoiceEntry`). */
export async function invoicePosting(tx: Tx, invoice: InvoiceRow): Promise<EntryDraft> {
  const figures = await readInvoiceFigures(tx, invoice);
  const chart = await readSalesChart(tx, invoice.organizationId);
  return invoiceEntry(figures, invoice.type === "interest_note" ? { ...chart, lateIncome: await lateIncomeAccountId(tx, invoice.organizationId) } : chart);
}

/** A payment of an invoice, or the refund of a credit note, through `bankLedgerId` (`paymentEntry`). */
export async function paymentPosting(tx: Tx, invoice: InvoiceRow, payment: PaymentRow, bankLedgerId: string): Promise<EntryDraft> {
  return paymentEntry(invoice, payment, { bank: bankLedgerId, receivables: (await systemAccount(tx, invoice.organizationId, "receivables")).id });
}

/** Approving an expense or a supplier's credit note (`expenseEntry`). */
export async function expensePosting(tx: Tx, expense: ExpenseRow): Promise<EntryDraft> {
  const figures = await readExpenseFigures(tx, expense);
  return expenseEntry(figures, await readPurchasesChart(tx, expense.organizationId, expense.category, expense.prepaidCents !== 0));
}

/** Paying an approved expense, or the refund of a supplier's credit note, through `bankLedgerId` (`expensePaymentEntry`). */
export async function expensePaymentPosting(
  tx: Tx,
  expense: ExpenseRow,
  payment: { id: string; amountCents: number; paymentDate: string; reference: string | null },
  bankLedgerId: string,
): Promise<EntryDraft> {
  // BT-115 negative: more was prepaid than the invoice's total, and this is the supplier's refund of the excess
  const refund = expense.amountCents + expense.vatCents - expense.prepaidCents + expense.roundingCents < 0;
  return expensePaymentEntry({ ...expense, refund }, payment, { bank: bankLedgerId, payables: (await systemAccount(tx, expense.organizationId, "payables")).id });
}

/** Closing the fiscal year `year`, from `start` to `end` (`closingEntries`): one draft per currency. */
export async function closingPostings(tx: Tx, orgId: string, { year, start, end }: { year: number; start: string; end: string }): Promise<EntryDraft[]> {
  const results = await readYearResults(tx, orgId, start, end);
  return closingEntries(year, results, { retainedEarnings: (await systemAccount(tx, orgId, "retained_earnings")).id }, end);
}

/**
 * A bank account's first statement: what the bank says it opened with, less what the books
 * already hold for the account on the day before (payments recorded by hand before the statement),
 * so that the ledger balance equals the bank's; null when they agree.
 */
export async function openingBalancePosting(
  tx: Tx,
  bank: Pick<BankAccountRow, "organizationId" | "accountId" | "currency" | "name">,
  opening: { statementId: string; cents: number; date: string },
): Promise<EntryDraft | null> {
  const held = await debitBalanceBefore(tx, bank.organizationId, bank.accountId, bank.currency, opening.date);
  const cents = opening.cents - held;
  if (cents === 0) return null;
  // the balance the bank held when the day began: the day before, but never before the
  // organisation's first fiscal year (a new company's first statement opens on its first day)
  const firstDay = (await fiscalCalendar(tx, bank.organizationId)).first?.start;
  const before = addDays(opening.date, -1);
  const date = firstDay !== undefined && before < firstDay && opening.date >= firstDay ? firstDay : before;
  return openingBalanceEntry(
    { statementId: opening.statementId, date, currency: bank.currency, bankName: bank.name, cents },
    { bank: bank.accountId, openingBalance: await openingBalanceAccountId(tx, bank.organizationId) },
  );
}
