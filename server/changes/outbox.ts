/**
 * The transactional outbox: the one place a webhook delivery is written. `emit` runs inside
 * the caller's transaction, so the change and its deliveries commit (or roll back) together,
 * and the connection's outbox signal wakes the worker, on whichever thread, once they have.
 */
import { and, eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { webhookDeliveries, webhooks } from "../../db/schema.ts";
import { updateInOrg, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import type { WebhookEvent } from "./events.ts";

/** Queues one delivery per active webhook of the organisation subscribed to `event`. */
export function emit(tx: Tx, scope: Scope, event: WebhookEvent, data: unknown, links?: Record<string, string>): number {
  const subscribed = tx
    .select({ id: webhooks.id, events: webhooks.events })
    .from(webhooks)
    .where(and(eq(webhooks.organizationId, scope.org.id), eq(webhooks.isActive, true)))
    .all()
    .filter((w) => w.events.includes(event));
  if (subscribed.length === 0) return 0;
  const now = nowIso();
  const payload = JSON.stringify(links ? { event, timestamp: now, data, links } : { event, timestamp: now, data });
  for (const webhook of subscribed) {
    tx.insert(webhookDeliveries)
      .values({
        id: newId(),
        organizationId: scope.org.id,
        webhookId: webhook.id,
        event,
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
