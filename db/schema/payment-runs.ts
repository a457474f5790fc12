/** Payment runs and their credit transfers (server/payment-runs). */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt, id, updatedAt } from "./columns.ts";
import { orgId } from "./orgs.ts";
import { bankAccounts } from "./bank-accounts.ts";
import { expenses } from "./expenses.ts";

/**
 * A payment run (docs/banking.md#paying-suppliers): the approved expenses due by a date, paid from one bank account by a
 * SEPA credit transfer file (pain.001.001.09) stored as produced. While a run is open its
 * expenses are selected by no other run.
 */
export const paymentRuns = sqliteTable(
  "payment_runs",
  {
    id: id(),
    organizationId: orgId(),
    bankAccountId: text("bank_account_id")
      .notNull()
      .references(() => bankAccounts.id),
    /** the file's MsgId and PmtInfId */
    messageId: text("message_id").notNull(),
    dueBy: text("due_by").notNull(),
    executionDate: text("execution_date").notNull(),
    currency: text("currency").notNull(),
    totalCents: integer("total_cents").notNull(),
    itemCount: integer("item_count").notNull(),
    /** the pain.001.001.09 document as produced (UTF-8 XML) */
    file: text("file").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("payment_runs_org_created").on(t.organizationId, t.createdAt, t.id),
    index("payment_runs_org_execution").on(t.organizationId, t.executionDate, t.id),
    index("payment_runs_org_updated").on(t.organizationId, t.updatedAt, t.id),
  ],
);

/** One credit transfer of a payment run: the expense it pays, how much, and the EndToEndId a statement line brings back. */
export const paymentRunItems = sqliteTable(
  "payment_run_items",
  {
    id: id(),
    organizationId: orgId(),
    paymentRunId: text("payment_run_id")
      .notNull()
      .references(() => paymentRuns.id, { onDelete: "cascade" }),
    expenseId: text("expense_id")
      .notNull()
      .references(() => expenses.id),
    amountCents: integer("amount_cents").notNull(),
    endToEndId: text("end_to_end_id").notNull(),
    /** structured (`+++…+++` or `RF…`) or free text as sent in RmtInf; null when the expense had none */
    reference: text("reference"),
    creditorName: text("creditor_name").notNull(),
    creditorIban: text("creditor_iban").notNull(),
  },
  (t) => [
    index("payment_run_items_run").on(t.paymentRunId, t.id),
    index("payment_run_items_expense").on(t.expenseId),
    uniqueIndex("payment_run_items_org_end_to_end").on(t.organizationId, t.endToEndId),
  ],
);
