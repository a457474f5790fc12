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
import { drawSequence } from "../lib/sequences.ts";
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

/** The counter (number_sequences) an organisation's event ids are drawn from. */
export const EVENT_SEQUENCE = "event";

/** An event as the feed, `GET /events/{id}` and the webhook body show it (docs/events.md#an-event). */
export type EventEnvelopeParts = {
  id: number;
  type: string;
  createdAt: string;
  resourceType: string;
  resourceId: string;
  links: Record<string, string> | null;
  paymentId: string | null;
};

/**
 * The envelope as JSON text around `data`, already JSON: one object for the feed and the
 * webhook body alike (docs/webhooks.md#the-body): a superset of `{event, timestamp, data}`
 * (`event` = `type`, `timestamp` = `created_at`). Key order is fixed, so a body and its feed event read the same.
 */
export function envelopeJson(event: EventEnvelopeParts, data: string): string {
  const created = JSON.stringify(event.createdAt);
  return (
    `{"id":${JSON.stringify(String(event.id))},"event":${JSON.stringify(event.type)},"type":${JSON.stringify(event.type)},` +
    `"timestamp":${created},"created_at":${created},` +
    `"resource":${JSON.stringify({ type: event.resourceType, id: event.resourceId })},"data":${data},"links":${JSON.stringify(event.links ?? {})}` +
    (event.paymentId ? `,"payment_id":${JSON.stringify(event.paymentId)}` : "") +
    "}"
  );
}

/**
 * Writes the event to the feed, whether or not a webhook subscribes, and queues one delivery per
 * active webhook of the organisation subscribed to it. Its id is the organisation's next event
 * number, drawn in this transaction (a rolled-back change gives it back). `data` is serialised
 * once: the feed's row and the deliveries' body hold the same bytes, so the two cannot disagree.
 */
export async function emit(tx: Tx, scope: Scope, event: Event): Promise<number> {
  const now = nowIso();
  const data = JSON.stringify(event.data);
  const seq = await drawSequence(tx, scope.org.id, EVENT_SEQUENCE, 0);
  const resourceType = resourceOf(event.type);
  await tx.insert(events)
    .values({
      seq,
      organizationId: scope.org.id,
      type: event.type,
      resourceType,
      resourceId: event.resourceId,
      data,
      links: event.links ?? null,
      paymentId: event.paymentId ?? null,
      createdAt: now,
    });
  const subscribed = (await tx
    .select({ id: webhooks.id, events: webhooks.events })
    .from(webhooks)
    .where(and(eq(webhooks.organizationId, scope.org.id), eq(webhooks.isActive, true))))
    .filter((w) => w.events.includes(event.type));
  if (subscribed.length === 0) return 0;
  const payload = envelopeJson(
    { id: seq, type: event.type, createdAt: now, resourceType, resourceId: event.resourceId, links: event.links ?? null, paymentId: event.paymentId ?? null },
    data,
  );
  for (const webhook of subscribed) {
    await tx.insert(webhookDeliveries)
      .values({
        id: newId(),
        organizationId: scope.org.id,
        webhookId: webhook.id,
        event: event.type,
        eventId: seq,
        payload,
        status: "pending",
        attempts: 0,
        nextAttemptAt: Date.now(),
        createdAt: now,
        updatedAt: now,
      });
    await updateInOrg(tx, webhooks, scope.org.id, webhook.id, { lastTriggeredAt: now });
  }
  tx.connection.outbox.queued();
  return subscribed.length;
}
