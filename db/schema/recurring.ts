/** Recurring invoice templates and the periods they generated (server/recurring). */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { RECURRING_INTERVALS, RECURRING_SEND_CHANNELS, RECURRING_STATUSES, type RecurringLine } from "../values.ts";
import { bool, createdAt, id, updatedAt } from "./columns.ts";
import { orgId } from "./orgs.ts";
import { customers } from "./customers.ts";
import { invoices } from "./invoices.ts";

/**
 * Recurring invoices (docs/recurring.md): a template that generates an invoice per period
 * (server/recurring/). `next_issue_date` is the start of the next period to generate; null once ended.
 */
export const recurringInvoices = sqliteTable(
  "recurring_invoices",
  {
    id: id(),
    organizationId: orgId(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    /** the lines as the template's API shows them (quantities and prices as decimal strings), read again at each generation */
    lines: text("lines", { mode: "json" }).$type<RecurringLine[]>().notNull(),
    currency: text("currency"),
    pricesIncludeVat: bool("prices_include_vat"),
    notes: text("notes"),
    paymentTerms: text("payment_terms"),
    paymentDays: integer("payment_days").notNull(),
    buyerReference: text("buyer_reference"),
    orderReference: text("order_reference"),
    interval: text("interval", { enum: RECURRING_INTERVALS }).notNull(),
    every: integer("every").notNull(),
    dayOfPeriod: integer("day_of_period").notNull(),
    startDate: text("start_date").notNull(),
    endDate: text("end_date"),
    count: integer("count"),
    autoFinalize: bool("auto_finalize").notNull(),
    autoSend: text("auto_send", { enum: RECURRING_SEND_CHANNELS }),
    status: text("status", { enum: RECURRING_STATUSES }).notNull(),
    nextIssueDate: text("next_issue_date"),
    generatedCount: integer("generated_count").notNull().default(0),
    lastRunAt: text("last_run_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("recurring_invoices_org_created").on(t.organizationId, t.createdAt, t.id),
    index("recurring_invoices_org_updated").on(t.organizationId, t.updatedAt, t.id),
    index("recurring_invoices_org_status").on(t.organizationId, t.status, t.createdAt, t.id),
    index("recurring_invoices_org_customer").on(t.organizationId, t.customerId, t.createdAt, t.id),
    // what a run reads: the active templates due, of every organisation
    index("recurring_invoices_due").on(t.nextIssueDate).where(sql`"status" = 'active'`),
  ],
);

/**
 * One row per generated period, inserted in the transaction that creates its invoice: the
 * UNIQUE (template, period start) makes generation exactly-once whatever runs, restarts or dies.
 */
export const recurringInvoicePeriods = sqliteTable(
  "recurring_invoice_periods",
  {
    organizationId: orgId(),
    templateId: text("template_id")
      .notNull()
      .references(() => recurringInvoices.id, { onDelete: "cascade" }),
    periodStart: text("period_start").notNull(),
    periodEnd: text("period_end").notNull(),
    /** null when the invoice was deleted since (a draft may be) */
    invoiceId: text("invoice_id").references(() => invoices.id, { onDelete: "set null" }),
    issueDate: text("issue_date").notNull(),
    caughtUp: bool("caught_up").notNull(),
    /** null: finalized as asked, or not asked; else why finalize refused (the invoice stays a draft) */
    finalizeError: text("finalize_error"),
    generatedAt: text("generated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.templateId, t.periodStart] })],
);
