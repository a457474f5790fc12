/** Imported bank statements and their lines (server/banking). */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { BANK_STATEMENT_FORMATS, BANK_TRANSACTION_DIRECTIONS, BANK_TRANSACTION_STATUSES, PAYMENT_LINKS } from "../values.ts";
import { createdAt, id, updatedAt } from "./columns.ts";
import { orgId } from "./orgs.ts";
import { accounts } from "./accounts.ts";
import { bankAccounts } from "./bank-accounts.ts";
import { expenses } from "./expenses.ts";
import { invoices } from "./invoices.ts";
import { vatRates } from "./vat-rates.ts";

/** One imported statement of a bank account (server/banking): its balances chain from one to the next. */
export const bankStatements = sqliteTable(
  "bank_statements",
  {
    id: id(),
    organizationId: orgId(),
    bankAccountId: text("bank_account_id")
      .notNull()
      .references(() => bankAccounts.id),
    /** the bank's id of the statement (CAMT Stmt/Id; CODA "<year>-<sequence>") */
    statementId: text("statement_id").notNull(),
    format: text("format", { enum: BANK_STATEMENT_FORMATS }).notNull(),
    currency: text("currency").notNull(),
    openingCents: integer("opening_cents").notNull(),
    openingDate: text("opening_date").notNull(),
    closingCents: integer("closing_cents").notNull(),
    closingDate: text("closing_date").notNull(),
    /** of the file as received: the same statement id with other content is a 409 */
    sha256: text("sha256").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("bank_statements_account_statement").on(t.bankAccountId, t.statementId),
    // the last imported statement of an account, whose closing balance the next must open with
    index("bank_statements_account_closing").on(t.bankAccountId, t.closingDate, t.createdAt),
  ],
);

/** A line of an imported statement and what it was reconciled with. */
export const bankTransactions = sqliteTable(
  "bank_transactions",
  {
    id: id(),
    organizationId: orgId(),
    bankAccountId: text("bank_account_id")
      .notNull()
      .references(() => bankAccounts.id),
    statementId: text("statement_id")
      .notNull()
      .references(() => bankStatements.id),
    /** unique per bank account: a line in two overlapping statements is imported once */
    entryRef: text("entry_ref").notNull(),
    bookingDate: text("booking_date").notNull(),
    valueDate: text("value_date").notNull(),
    /** always positive; `direction` gives the sign */
    amountCents: integer("amount_cents").notNull(),
    direction: text("direction", { enum: BANK_TRANSACTION_DIRECTIONS }).notNull(),
    counterpartyName: text("counterparty_name"),
    counterpartyIban: text("counterparty_iban"),
    communication: text("communication"),
    structuredReference: text("structured_reference"),
    status: text("status", { enum: BANK_TRANSACTION_STATUSES }).notNull(),
    /** matched: the invoice (or credit note) or the expense, and the payment that records the money */
    invoiceId: text("invoice_id").references(() => invoices.id),
    expenseId: text("expense_id").references(() => expenses.id),
    /** payments.id or expense_payments.id; cleared by a trigger when that payment is deleted (migration 0018) */
    paymentId: text("payment_id"),
    /** recorded: the match recorded the payment (unmatch deletes it); linked: it took over a payment recorded by hand (unmatch keeps it) */
    paymentLink: text("payment_link", { enum: PAYMENT_LINKS }),
    matchedCents: integer("matched_cents"),
    /** a debit line's likely expense (same amount due, and the supplier's IBAN or reference): suggested, never applied */
    suggestedExpenseId: text("suggested_expense_id").references(() => expenses.id, { onDelete: "set null" }),
    /** booked: the account of the chart the line was booked to, its VAT rate, and the entry that posts it */
    bookedAccountId: text("booked_account_id").references(() => accounts.id),
    bookedVatRateId: text("booked_vat_rate_id").references(() => vatRates.id),
    journalEntryId: text("journal_entry_id"),
    /** a transfer between own accounts: the other account's line of the same money (both hold the one entry) */
    transferLineId: text("transfer_line_id"),
    /**
     * booked: the entry that took the line's money out of suspense (its booking's own entry, or, for
     * the second line of a transfer, a separate one); null when it was booked on import, before it
     * ever sat in suspense (docs/banking.md#suspense)
     */
    suspenseExitEntryId: text("suspense_exit_entry_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // a transfer's second line finds the first: booked to its account's ledger account, unpaired, of its amount
    index("bank_transactions_org_booked").on(t.organizationId, t.bookedAccountId, t.amountCents).where(sql`${t.bookedAccountId} IS NOT NULL`),
    uniqueIndex("bank_transactions_account_entry").on(t.bankAccountId, t.entryRef),
    index("bank_transactions_org_booking").on(t.organizationId, t.bookingDate, t.id),
    index("bank_transactions_org_account").on(t.organizationId, t.bankAccountId, t.bookingDate, t.id),
    index("bank_transactions_org_status").on(t.organizationId, t.status, t.bookingDate, t.id),
    index("bank_transactions_org_amount").on(t.organizationId, t.amountCents, t.id),
    index("bank_transactions_org_created").on(t.organizationId, t.createdAt, t.id),
    index("bank_transactions_org_updated").on(t.organizationId, t.updatedAt, t.id),
    index("bank_transactions_statement").on(t.statementId, t.bookingDate, t.id),
    index("bank_transactions_payment").on(t.paymentId).where(sql`${t.paymentId} IS NOT NULL`),
  ],
);
