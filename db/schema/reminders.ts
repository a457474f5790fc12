/** Reminder policies and the reminders recorded (server/reminders). */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { type DatePeriod, DOCUMENT_LANGUAGES, REMINDER_CHANNELS, type ReminderLevel, type ReminderNoteDue } from "../values.ts";
import { bool, createdAt, id, updatedAt } from "./columns.ts";
import { organizations, orgId } from "./orgs.ts";
import { customers } from "./customers.ts";
import { invoices } from "./invoices.ts";

/** An organisation's reminder policy (docs/reminders.md#reminder-policy); none stored: the defaults, disabled (server/reminders/policy.ts). */
export const reminderPolicies = sqliteTable("reminder_policies", {
  organizationId: text("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  enabled: bool("enabled").notNull(),
  channel: text("channel", { enum: REMINDER_CHANNELS }).notNull(),
  levels: text("levels", { mode: "json" }).$type<ReminderLevel[]>().notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * A level of the reminder policy, recorded for one invoice: sent (through its delivery,
 * or `manual`), or `skipped` because a later level was due at the same run. At most one row per
 * invoice and level: the unique key is what makes two runs at once, or a run killed midway and
 * run again, record each level once.
 */
export const reminders = sqliteTable(
  "reminders",
  {
    id: id(),
    organizationId: orgId(),
    invoiceId: text("invoice_id")
      .notNull()
      .references(() => invoices.id, { onDelete: "cascade" }),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    /** the level's index in the policy when recorded, and its days after the due date */
    level: integer("level").notNull(),
    daysAfterDue: integer("days_after_due").notNull(),
    /** the run's local date (the organisation's time zone) */
    runDate: text("run_date").notNull(),
    /** the channel it went over (`preferred` resolved), or `manual` */
    channel: text("channel", { enum: REMINDER_CHANNELS }).notNull(),
    skipped: bool("skipped").notNull(),
    language: text("language", { enum: DOCUMENT_LANGUAGES }).notNull(),
    /** the invoice's amount due, and what this reminder charged through its interest note, at the run */
    amountDueCents: integer("amount_due_cents").notNull(),
    interestCents: integer("interest_cents").notNull(),
    compensationCents: integer("compensation_cents").notNull(),
    interestNoteId: text("interest_note_id").references(() => invoices.id),
    /** the document delivery that carries it (null: manual or skipped) */
    deliveryId: text("delivery_id"),
    createdAt: createdAt(),
    /**
     * The invoice's earlier interest notes still open at the run, with what each had due: the
     * letter asks for them with the invoice and the note it issued, one total to pay
     */
    earlierNotes: text("earlier_notes", { mode: "json" }).$type<ReminderNoteDue[]>().notNull().default([]),
    /** the days the claim would charge interest for and no statutory rate covers, at the run */
    missingRates: text("missing_rates", { mode: "json" }).$type<DatePeriod[]>().notNull().default([]),
  },
  (t) => [
    uniqueIndex("reminders_invoice_level").on(t.invoiceId, t.level),
    index("reminders_org_created").on(t.organizationId, t.createdAt, t.id),
    index("reminders_org_invoice").on(t.organizationId, t.invoiceId, t.level),
  ],
);
