/**
 * The document deliveries' outbox (docs/sending.md), beside the webhooks' (outbox.ts): a send queues a row in the request's transaction,
 * and nothing leaves on the request thread. The delivery worker (server/sending/worker.ts) sends it.
 */
import type { Tx } from "../../db/client.ts";
import { documentDeliveries } from "../../db/schema.ts";
import type { DeliveryRecipients, SendChannel } from "../../db/values.ts";
import { newId, nowIso } from "../lib/time.ts";
import { firstRow } from "../../db/client.ts";

/** What a delivery carries: an invoice (credit note, interest note), or a reminder of one. */
export type DeliveryOf = { subject: "invoice"; invoiceId: string } | { subject: "reminder"; reminderId: string; invoiceId: string };

export type QueuedDelivery = typeof documentDeliveries.$inferSelect;

/**
 * Queues a delivery in `tx` (the caller's transaction: it lands with the change that asked for
 * it, or not at all) and wakes the worker once the transaction commits.
 */
export async function enqueueDelivery(
  tx: Tx,
  orgId: string,
  of: DeliveryOf,
  channel: SendChannel,
  recipients: DeliveryRecipients,
  message: string | null = null,
): Promise<QueuedDelivery> {
  const now = nowIso();
  const row = await firstRow(tx
    .insert(documentDeliveries)
    .values({
      id: newId(),
      organizationId: orgId,
      subject: of.subject,
      invoiceId: of.invoiceId,
      reminderId: of.subject === "reminder" ? of.reminderId : null,
      channel,
      recipients,
      message,
      status: "pending",
      attempts: 0,
      nextAttemptAt: Date.now(),
      createdAt: now,
      updatedAt: now,
    })
    .returning());
  tx.connection.outbox.queued();
  return row!;
}
