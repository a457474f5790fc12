/** The aged receivables' running totals (server/reports reads them; triggers on invoices keep them). */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { orgId } from "./orgs.ts";

/**
 * Running totals of what customers owe (aged receivables, server/reports), kept by triggers on
 * invoices (migration 0020) from the open documents' signed amounts due: per customer, and per
 * due date. A report reads a page of customers and a few thousand days, not every open document.
 */
export const customerReceivables = sqliteTable(
  "customer_receivables",
  {
    organizationId: orgId(),
    currency: text("currency").notNull(),
    customerId: text("customer_id").notNull(),
    openCents: integer("open_cents").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.customerId, t.currency] }),
    // the customers owing most first, ties by id: a page without a sort step
    index("customer_receivables_org_open").on(t.organizationId, t.currency, sql`${t.openCents} DESC`, t.customerId),
  ],
);

export const receivableDueDays = sqliteTable(
  "receivable_due_days",
  {
    organizationId: orgId(),
    currency: text("currency").notNull(),
    dueDate: text("due_date").notNull(),
    openCents: integer("open_cents").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.currency, t.dueDate] })],
);
