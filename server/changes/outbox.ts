/**
 * The transactional outbox: the one place an event is written, to the events feed and to the
 * deliveries of the webhooks subscribed to it. `emit` runs inside the caller's transaction, so
 * the change, its event and its deliveries commit (or roll back) together, and the connection's
 * outbox signal wakes the worker, on whichever thread, once they have.
 */
import { and, eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { events, webhookDeliveries, webhooks } from "../../db/schema.ts";
import { updateInOrg, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { resourceOf, type WebhookEvent } from "./events.ts";

export type Event = {
  type: WebhookEvent;
  /** the id of the resource `data` holds */
  resourceId: string;
  data: unknown;
  /** related URLs sent beside `data` (an issued invoice: its PDF and UBL) */
  links?: Record<string, string>;
  /** invoice.payment_recorded: the payment recorded, sent beside `data` */
  paymentId?: string;
};

/**
 * Writes the event to the feed, whether or not a webhook subscribes, and queues one delivery per
 * active webhook of the organisation subscribed to it. `data` is serialised once: the feed's row
 * and the deliveries' body hold the same bytes, so the two cannot disagree.
 */
export function emit(tx: Tx, scope: Scope, event: Event): number {
  const now = nowIso();
  const data = JSON.stringify(event.data);
  tx.insert(events)
    .values({
      organizationId: scope.org.id,
      type: event.type,
      resourceType: resourceOf(event.type),
      resourceId: event.resourceId,
      data,
      links: event.links ?? null,
      paymentId: event.paymentId ?? null,
      createdAt: now,
    })
    .run();
  const subscribed = tx
    .select({ id: webhooks.id, events: webhooks.events })
    .from(webhooks)
    .where(and(eq(webhooks.organizationId, scope.org.id), eq(webhooks.isActive, true)))
    .all()
    .filter((w) => w.events.includes(event.type));
  if (subscribed.length === 0) return 0;
  // {event, timestamp, data, links?, payment_id?}, with `data` as the feed holds it
  const payload =
    `{"event":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(now)},"data":${data}` +
    (event.links ? `,"links":${JSON.stringify(event.links)}` : "") +
    (event.paymentId ? `,"payment_id":${JSON.stringify(event.paymentId)}` : "") +
    "}";
  for (const webhook of subscribed) {
    tx.insert(webhookDeliveries)
      .values({
        id: newId(),
        organizationId: scope.org.id,
        webhookId: webhook.id,
        event: event.type,
        payload,
        status: "pending",
        attempts: 0,
        nextAttemptAt: Date.now(),
        createdAt: now,
        updatedAt: now,
      })
      .run();
    updateInOrg(tx, webhooks, scope.org.id, webhook.id, { lastTriggeredAt: now });
  }
  tx.connection.outbox.queued();
  return subscribed.length;
}
