/**
 * Sending an issued document, one command: `POST /invoices/{id}/send` calls it and presents what
 * it answers. Without a channel (or `manual`) nothing leaves Kontor: the document is marked sent
 * (200). With `email`, `peppol` or `preferred` a delivery is queued in the same transaction (202)
 * and the worker sends it. Sending does not depend on the settlement: any issued document
 * (finalized, sent, partially paid or paid; a credit note that settled its invoice too) can be
 * sent and sent again; only a `finalized` one becomes `sent`, and every send sets `sent_at`
 * (docs/sending.md).
 * Refuses: 404 for no such invoice; 409 for a draft or a cancelled document; 422 naming the field
 * (`to`, `cc`, `message` without a channel that sends; no recipient, no SMTP server, a buyer
 * without a peppol_id, what the access point would refuse: deliveries.ts).
 * Records: marked, invoice.sent (audit; event invoice.updated); queued, invoice.delivery_queued
 * (audit) with the delivery's outbox row, and invoice.sent when the channel accepts it.
 */
import { eq } from "drizzle-orm";
import { organizations } from "../../../db/schema.ts";
import { recordChange } from "../../changes/record.ts";
import { FieldErrorBag } from "../../lib/errors.ts";
import { unitOfWork, type Scope } from "../../lib/scope.ts";
import { nowIso } from "../../lib/time.ts";
import { findSendable, markSent, queueSend, type SendRequest, type ShownDelivery } from "../deliveries.ts";
import { showInvoice, type ShownInvoice } from "../read.ts";
import { firstRow } from "../../../db/client.ts";

/** What the server offers for e-mail: its own SMTP relay and sender address (KONTOR_SMTP_URL, KONTOR_MAIL_FROM). */
export type MailServer = { smtpUrl: string | null; mailFrom: string | null };

export type SendOutcome = { kind: "marked"; invoice: ShownInvoice } | { kind: "queued"; delivery: ShownDelivery };

/** Sends the document `id` as `request` asks; see the module comment. */
export async function sendDocument(scope: Scope, id: string, request: SendRequest, server: MailServer): Promise<SendOutcome> {
  return await unitOfWork(scope.db, async (tx) => {
    if (request.channel === undefined || request.channel === "manual") {
      const bag = new FieldErrorBag();
      for (const field of ["to", "cc", "message"] as const) {
        if (request[field] !== undefined) bag.add(field, `\`${field}\` goes with a channel that sends (email, peppol or preferred); without one the invoice is only marked sent.`);
      }
      bag.throwIfAny();
      const row = await findSendable(tx, scope.org.id, id);
      const now = nowIso();
      await markSent(tx, scope.org.id, row, now);
      const shown = await showInvoice(tx, scope.org.id, id);
      await recordChange(tx, scope, { action: "invoice.sent", resource: { type: "invoice", id }, event: "invoice.updated", data: shown });
      return { kind: "marked", invoice: shown };
    }
    const org = (await firstRow(tx.select({ smtpUrl: organizations.smtpUrl, email: organizations.email }).from(organizations).where(eq(organizations.id, scope.org.id))))!;
    // the organisation's own relay works alone; it sends from KONTOR_MAIL_FROM, else its own address
    const email = (org.smtpUrl !== null && (server.mailFrom !== null || org.email !== null)) || (server.smtpUrl !== null && server.mailFrom !== null);
    return { kind: "queued", delivery: await queueSend(tx, scope, id, request, { email }) };
  });
}
