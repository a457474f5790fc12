/** Payments of invoices and expenses, and what a bank line pays (server/settlement). */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { PAYMENT_LINKS, PAYMENT_METHODS } from "../values.ts";
import { createdAt, id } from "./columns.ts";
import { orgId } from "./orgs.ts";
import { accounts } from "./accounts.ts";
import { bankAccounts } from "./bank-accounts.ts";
import { bankTransactions } from "./banking.ts";
import { expenses } from "./expenses.ts";
import { invoices } from "./invoices.ts";
import { vatRates } from "./vat-rates.ts";

export const payments = sqliteTable(
  "payments",
  {
    id: id(),
    organizationId: orgId(),
    invoiceId: text("invoice_id")
      .notNull()
      .references(() => invoices.id, { onDelete: "cascade" }),
    amountCents: integer("amount_cents").notNull(),
    paymentDate: text("payment_date").notNull(),
    paymentMethod: text("payment_method", { enum: PAYMENT_METHODS }).notNull(),
    reference: text("reference"),
    /** the bank account the money came in on (or went out of, for a credit note's refund) */
    bankAccountId: text("bank_account_id").references(() => bankAccounts.id),
    createdAt: createdAt(),
  },
  // an invoice's payments in list order, id as the tiebreak: no sort step
  (t) => [index("payments_invoice").on(t.invoiceId, t.createdAt, t.id)],
);

export const expensePayments = sqliteTable(
  "expense_payments",
  {
    id: id(),
    organizationId: orgId(),
    expenseId: text("expense_id")
      .notNull()
      .references(() => expenses.id, { onDelete: "cascade" }),
    amountCents: integer("amount_cents").notNull(),
    paymentDate: text("payment_date").notNull(),
    paymentMethod: text("payment_method", { enum: PAYMENT_METHODS }).notNull(),
    reference: text("reference"),
    bankAccountId: text("bank_account_id").references(() => bankAccounts.id),
    createdAt: createdAt(),
  },
  (t) => [index("expense_payments_expense").on(t.expenseId, t.createdAt, t.id)],
);

/**
 * What a bank line pays (docs/banking.md#suspense): an invoice, credit note, interest note or
 * expense (with the payment that records the money) or an account of the chart (with the entry
 * that posts it), for part of the line or all of it. The line's first allocation (by position)
 * also shows in its invoice_id / expense_id / payment_id / matched_cents.
 */
export const bankTransactionAllocations = sqliteTable(
  "bank_transaction_allocations",
  {
    id: id(),
    organizationId: orgId(),
    bankTransactionId: text("bank_transaction_id")
      .notNull()
      .references(() => bankTransactions.id),
    position: integer("position").notNull(),
    invoiceId: text("invoice_id").references(() => invoices.id),
    expenseId: text("expense_id").references(() => expenses.id),
    accountId: text("account_id").references(() => accounts.id),
    vatRateId: text("vat_rate_id").references(() => vatRates.id),
    amountCents: integer("amount_cents").notNull(),
    /** payments.id or expense_payments.id */
    paymentId: text("payment_id"),
    paymentLink: text("payment_link", { enum: PAYMENT_LINKS }),
    /** an account's allocation: its entry; a payment recorded by hand taken over later: the entry that moved it out of suspense */
    journalEntryId: text("journal_entry_id"),
    /** false: posted against the bank account directly (matched on import, or before suspense existed); undoing it puts its amount into suspense */
    viaSuspense: integer("via_suspense", { mode: "boolean" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("bank_transaction_allocations_line_position").on(t.bankTransactionId, t.position),
    index("bank_transaction_allocations_payment").on(t.paymentId).where(sql`${t.paymentId} IS NOT NULL`),
  ],
);
