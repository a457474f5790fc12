/** Webhook endpoints, their deliveries and each attempt (server/webhooks; recordChange queues the deliveries). */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { DELIVERY_STATUSES } from "../values.ts";
import { bool, createdAt, id, updatedAt } from "./columns.ts";
import { orgId } from "./orgs.ts";

export const webhooks = sqliteTable(
  "webhooks",
  {
    id: id(),
    organizationId: orgId(),
    url: text("url").notNull(),
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    isActive: bool("is_active").notNull(),
    secret: text("secret").notNull(),
    lastTriggeredAt: text("last_triggered_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("webhooks_org_created").on(t.organizationId, t.createdAt, t.id)],
);

export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: id(),
    organizationId: orgId(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    /** The frozen `{event, timestamp, data}` body, byte for byte what is sent. */
    payload: text("payload").notNull(),
    /**
     * The event's id in its organisation (events.seq): the Standard Webhooks `webhook-id` of
     * every attempt. Null for deliveries queued before events had per-organisation ids, which
     * keep sending their own id.
     */
    eventId: integer("event_id"),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull(),
    attempts: integer("attempts").notNull(),
    /** Epoch milliseconds; the worker's claim query reads these two columns. */
    nextAttemptAt: integer("next_attempt_at"),
    leaseUntil: integer("lease_until"),
    leasedBy: text("leased_by"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    deliveredAt: text("delivered_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // the workers' claim: pending rows in next_attempt_at order
    index("deliveries_due").on(t.status, t.nextAttemptAt),
    // a webhook's deliveries list, newest first, alone and per filter: no sort step
    index("deliveries_webhook_created").on(t.organizationId, t.webhookId, t.createdAt, t.id),
    index("deliveries_webhook_status").on(t.organizationId, t.webhookId, t.status, t.createdAt, t.id),
    index("deliveries_webhook_event").on(t.organizationId, t.webhookId, t.event, t.createdAt, t.id),
    index("deliveries_org_status").on(t.organizationId, t.status, t.createdAt),
  ],
);

export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: id(),
    organizationId: orgId(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attemptedAt: text("attempted_at").notNull(),
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms").notNull(),
    error: text("error"),
    responseBody: text("response_body"),
  },
  (t) => [index("attempts_delivery").on(t.deliveryId, t.attemptedAt)],
);
