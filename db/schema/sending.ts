/** Documents on their way to a customer and each attempt (server/sending). */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { DELIVERY_ATTEMPT_OUTCOMES, DELIVERY_SUBJECTS, type DeliveryRecipients, DOCUMENT_DELIVERY_STATUSES, SEND_CHANNELS } from "../values.ts";
import { createdAt, id, updatedAt } from "./columns.ts";
import { orgId } from "./orgs.ts";
import { invoices } from "./invoices.ts";

/**
 * Documents on their way to a customer (docs/sending.md): an outbox row per send, written in the
 * request's transaction and sent by the delivery worker (server/sending/worker.ts) under a lease,
 * as webhook deliveries are. `recipients` is frozen at queueing.
 */
export const documentDeliveries = sqliteTable(
  "document_deliveries",
  {
    id: id(),
    organizationId: orgId(),
    subject: text("subject", { enum: DELIVERY_SUBJECTS }).notNull(),
    /** the invoice, credit note or interest note sent; a reminder's delivery names the invoice it reminds of first */
    invoiceId: text("invoice_id").references(() => invoices.id, { onDelete: "cascade" }),
    /** subject `reminder`: the reminder sent (no foreign key: the reminders feature owns that table) */
    reminderId: text("reminder_id"),
    channel: text("channel", { enum: SEND_CHANNELS }).notNull(),
    recipients: text("recipients", { mode: "json" }).$type<DeliveryRecipients>().notNull(),
    /** the sender's own words, above the generated text of an e-mail */
    message: text("message"),
    status: text("status", { enum: DOCUMENT_DELIVERY_STATUSES }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** epoch ms; null once accepted or failed */
    nextAttemptAt: integer("next_attempt_at"),
    leaseUntil: integer("lease_until"),
    leasedBy: text("leased_by"),
    lastError: text("last_error"),
    /** the channel's receipt: SMTP's Message-ID, the access point's document id */
    providerReference: text("provider_reference"),
    acceptedAt: text("accepted_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("document_deliveries_due").on(t.status, t.nextAttemptAt),
    index("document_deliveries_invoice").on(t.organizationId, t.invoiceId, t.createdAt, t.id),
    index("document_deliveries_reminder").on(t.organizationId, t.reminderId),
  ],
);

export const documentDeliveryAttempts = sqliteTable(
  "document_delivery_attempts",
  {
    id: id(),
    organizationId: orgId(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => documentDeliveries.id, { onDelete: "cascade" }),
    attemptedAt: text("attempted_at").notNull(),
    outcome: text("outcome", { enum: DELIVERY_ATTEMPT_OUTCOMES }).notNull(),
    /** the channel's answer, e.g. "550 5.1.1 <x@example.com>: Recipient address rejected" */
    detail: text("detail"),
    durationMs: integer("duration_ms").notNull(),
  },
  (t) => [index("document_delivery_attempts_delivery").on(t.deliveryId, t.attemptedAt)],
);
