/**
 * Deliveries of an issued document (docs/sending.md): `POST /invoices/{id}/send` with a channel
 * (server/invoices/commands/send.ts) queues a delivery in the request's transaction (server/changes/deliveries.ts) and
 * answers 202; the delivery worker (server/sending/worker.ts) sends it. What can be refused at
 * once is refused here, before anything is queued: an e-mail with no address, a Peppol send whose
 * issued buyer has no participant id, whose organisation has no access point, or whose document
 * is not a valid e-invoice. `GET /invoices/{id}/deliveries` lists them with their attempts.
 */
import { asc, eq, inArray, or, sql } from "drizzle-orm";
import { t } from "elysia";
import type { Tx } from "../../db/client.ts";
import { customers, documentDeliveries, documentDeliveryAttempts, invoices, organizations, reminders } from "../../db/schema.ts";
import { DELIVERY_ATTEMPT_OUTCOMES, DOCUMENT_DELIVERY_STATUSES, SEND_CHANNELS, type DeliveryRecipients, type InvoiceStatus, type SendChannel } from "../../db/values.ts";
import { recordChange } from "../changes/record.ts";
import { enqueueDelivery, type QueuedDelivery } from "../changes/deliveries.ts";
import { missingForUbl } from "../documents/ubl.ts";
import { ApiError, Conflict, FieldErrorBag } from "../lib/errors.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { Email, Text, Timestamp, Uuid as Id, strictObject, withoutDefault } from "../lib/schemas.ts";
import { clipServerText } from "../lib/counts.ts";
import { findInOrg, updateInOrg, type Scope } from "../lib/scope.ts";
import { isoFromMicros, nowIso } from "../lib/time.ts";
import { showInvoice } from "./read.ts";
import { readDocument } from "./document.ts";
import { firstRow } from "../../db/client.ts";

type InvoiceRow = typeof invoices.$inferSelect;

export const SEND_CHOICES = [...SEND_CHANNELS, "preferred", "manual"] as const;
export type SendChoice = (typeof SEND_CHOICES)[number];

const EmailList = t.Array(Email, { minItems: 1, maxItems: 20, description: "e-mail addresses" });

export const SendBody = t.Optional(
  strictObject(
    {
      channel: t.Optional(
        withoutDefault(t.UnionEnum([...SEND_CHOICES], {
          description:
            "`email` or `peppol` queue a delivery (202); `preferred`: the customer's `preferred_channel` (default: peppol when it has a peppol_id, else email); `manual` or none: only marks the invoice sent (200)",
        })),
      ),
      to: t.Optional(EmailList),
      cc: t.Optional(t.Array(Email, { maxItems: 20 })),
      message: t.Optional(Text({ maxLength: 5000, multiline: true, description: "the sender's own words, above the e-mail's generated text" })),
    },
    { title: "SendRequest", description: "Without `channel` (or `{}`, or no body) the invoice is only marked sent, as before." },
  ),
);
export type SendRequest = NonNullable<typeof SendBody.static>;

const Attempt = t.Object(
  {
    attempted_at: Timestamp,
    outcome: t.UnionEnum([...DELIVERY_ATTEMPT_OUTCOMES], {
      description: "`accepted`; `retry`: refused for now (SMTP 4xx, no connection, a timeout), tried again; `failed`: refused for good; `interrupted`: cut short by a shutdown, tried again",
    }),
    detail: t.Union([t.String(), t.Null()], { description: "the other side's answer, as given" }),
    duration_ms: t.Integer(),
  },
  { title: "DeliveryAttempt" },
);

export const Delivery = t.Object(
  {
    id: Id,
    invoice_id: Id,
    subject: t.UnionEnum(["invoice", "reminder"]),
    reminder_id: t.Union([Id, t.Null()]),
    channel: t.UnionEnum([...SEND_CHANNELS]),
    recipients: t.Union([t.Object({ to: t.Array(t.String()), cc: t.Array(t.String()) }), t.Object({ peppol_id: t.String() })]),
    message: t.Union([t.String(), t.Null()]),
    status: t.UnionEnum([...DOCUMENT_DELIVERY_STATUSES], {
      description: "`pending`: queued or to be retried; `accepted`: the channel took the document (the invoice is then `sent`); `failed`: refused for good or out of attempts",
    }),
    attempt_count: t.Integer(),
    next_attempt_at: t.Union([Timestamp, t.Null()]),
    accepted_at: t.Union([Timestamp, t.Null()]),
    provider_reference: t.Union([t.String(), t.Null()], { description: "the channel's receipt: the e-mail's Message-ID, the access point's document id" }),
    last_error: t.Union([t.String(), t.Null()]),
    attempts: t.Array(Attempt),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: "DocumentDelivery" },
);

type AttemptRow = typeof documentDeliveryAttempts.$inferSelect;

export function presentDelivery(row: QueuedDelivery, attempts: AttemptRow[]) {
  return {
    id: row.id,
    invoice_id: row.invoiceId!,
    subject: row.subject,
    reminder_id: row.reminderId,
    channel: row.channel,
    recipients: row.recipients,
    message: row.message,
    status: row.status,
    attempt_count: row.attempts,
    next_attempt_at: row.status === "pending" && row.nextAttemptAt !== null ? isoFromMicros(row.nextAttemptAt * 1000) : null,
    accepted_at: row.acceptedAt,
    provider_reference: row.providerReference,
    last_error: row.lastError,
    attempts: attempts.map((a) => ({ attempted_at: a.attemptedAt, outcome: a.outcome, detail: a.detail, duration_ms: a.durationMs })),
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}
export type ShownDelivery = ReturnType<typeof presentDelivery>;

/** The deliveries with their attempts, oldest attempt first, in one query for the page. */
export async function presentDeliveries(tx: Tx, rows: QueuedDelivery[]): Promise<ShownDelivery[]> {
  if (rows.length === 0) return [];
  const attempts = await tx
    .select()
    .from(documentDeliveryAttempts)
    .where(inArray(documentDeliveryAttempts.deliveryId, rows.map((r) => r.id)))
    .orderBy(asc(documentDeliveryAttempts.attemptedAt), asc(documentDeliveryAttempts.id));
  const byDelivery = Map.groupBy(attempts, (a) => a.deliveryId);
  return rows.map((row) => presentDelivery(row, byDelivery.get(row.id) ?? []));
}

export const deliveryListSpec: ListSpec<typeof documentDeliveries> = {
  table: documentDeliveries,
  // served by document_deliveries_invoice (organization_id, invoice_id, created_at, id)
  sorts: { created_at: documentDeliveries.createdAt },
  defaultSort: "-created_at",
  filters: { status: { column: documentDeliveries.status, schema: t.UnionEnum([...DOCUMENT_DELIVERY_STATUSES]) } },
  updatedAt: documentDeliveries.updatedAt,
};

/**
 * The document's deliveries: its own, and for an interest note the reminder e-mails that carried
 * it attached (subject `reminder`, the invoice it reminds of as `invoice_id`).
 */
export async function listDeliveries(scope: Scope, invoiceId: string, query: ListQuery, url: string) {
  const carriedBy = sql`${documentDeliveries.reminderId} IN (SELECT ${reminders.id} FROM ${reminders} WHERE ${reminders.interestNoteId} = ${invoiceId})`;
  return await listPage(scope, deliveryListSpec, query, url, async (rows, tx) => await presentDeliveries(tx, rows), [or(eq(documentDeliveries.invoiceId, invoiceId), carriedBy)]);
}

const filled = (value: string | null | undefined): value is string => typeof value === "string" && value.trim() !== "";

export { issuedAsEinvoice } from "./readiness.ts";

/**
 * The channel `preferred` means for this customer: its `preferred_channel`, else Peppol when it has
 * a peppol_id, else e-mail; a customer that prefers Peppol but has no peppol_id is sent e-mail.
 */
export function preferredChannel(customer: { preferredChannel: SendChannel | null; peppolId: string | null }): SendChannel {
  const reachable = filled(customer.peppolId);
  if (customer.preferredChannel === "peppol") return reachable ? "peppol" : "email";
  return customer.preferredChannel ?? (reachable ? "peppol" : "email");
}

/** What the send needs of the server and the organisation, named by the field the client fixes. */
export type SendSetup = {
  /** an SMTP transport is configured (KONTOR_SMTP_URL, or the organisation's own) */
  email: boolean;
};

/**
 * Checks a send and says where it goes (the delivery's frozen recipients), or throws the 422 of
 * what the client must fix. `tx` reads the invoice as issued: a Peppol send goes to the buyer as
 * finalized, an e-mail to the address given, else the customer's as it is now.
 */
export async function addressSend(tx: Tx, scope: Scope, invoice: typeof invoices.$inferSelect, request: SendRequest, setup: SendSetup): Promise<{ channel: SendChannel; recipients: DeliveryRecipients }> {
  const customer = await findInOrg(tx, customers, scope.org.id, invoice.customerId);
  const choice = request.channel ?? "manual";
  const channel: SendChannel = choice === "preferred" ? preferredChannel(customer) : (choice as SendChannel);
  const bag = new FieldErrorBag();
  if (channel === "email") {
    if (request.to === undefined && request.cc !== undefined && !filled(customer.email)) bag.add("to", "The customer has no e-mail address: give `to` (cc alone is not enough).");
    const to = request.to ?? (filled(customer.email) ? [customer.email] : []);
    if (to.length === 0) bag.add("to", "The customer has no e-mail address: give `to`, or set the customer's email.");
    if (!setup.email) bag.add("channel", "No SMTP server is configured: set KONTOR_SMTP_URL and KONTOR_MAIL_FROM (docs/sending.md), or the organisation's own with `kontor org set --smtp-url`.");
    bag.throwIfAny();
    return { channel, recipients: { to: [...new Set(to.map((a) => a.trim()))], cc: [...new Set((request.cc ?? []).map((a) => a.trim()))] } };
  }
  // peppol: the buyer as issued, and a document the access point would take
  if (request.to !== undefined || request.cc !== undefined) bag.add(request.to !== undefined ? "to" : "cc", "A Peppol send goes to the buyer's participant id as issued; `to` and `cc` are for e-mail.");
  const doc = await readDocument(tx, scope.org.id, invoice.id);
  if (!filled(doc.buyer.peppolId)) {
    bag.add("channel", `The ${invoice.number} was issued to a buyer without a peppol_id, so it cannot travel over Peppol: send it by e-mail, or credit it and issue it again after setting the customer's peppol_id.`);
  } else {
    for (const [field, messages] of Object.entries(missingForUbl(doc))) for (const message of messages) bag.add(field, message);
  }
  const org = (await firstRow(tx.select().from(organizations).where(eq(organizations.id, scope.org.id))))!;
  for (const [field, message] of Object.entries(peppolSetupProblems(org))) bag.add(field, message);
  bag.throwIfAny();
  return { channel, recipients: { peppol_id: doc.buyer.peppolId! } };
}

/** What a send over Peppol says of an organisation without an access point (the worker's channel says the same). */
export const NO_ACCESS_POINT =
  "The organisation has no Peppol access point: an administrator sets one with kontor org set <org> --peppol-provider recommand --peppol-api-key … --peppol-api-secret … --peppol-company-id ….";

/**
 * Why a Peppol send would be refused at once, as far as the organisation goes: its access point
 * (set through the CLI, server/sending/peppol/settings.ts) and its own participant id.
 */
export function peppolSetupProblems(org: typeof organizations.$inferSelect): Record<string, string> {
  const problems: string[] = [];
  if (!org.peppolProvider || !org.peppolCredentials) problems.push(NO_ACCESS_POINT);
  if (!filled(org.peppolId)) problems.push("The organisation has no Peppol participant id of its own (peppol_id): set it with PUT /api/v1/organization or kontor org set <org> --peppol-id <scheme:id>.");
  return problems.length > 0 ? { channel: problems.join(" ") } : {};
}

/**
 * The states a document can be sent from: any issued one. Sending does not depend on the
 * settlement: a paid invoice, or a credit note that settled its invoice, is sent (and sent again)
 * like any other; a draft has no number yet and a cancelled document asks nothing.
 */
export const SENDABLE_STATES: readonly InvoiceStatus[] = ["finalized", "sent", "partially_paid", "paid"];

/** The invoice, credit note or interest note `invoiceId` (404), if it can be sent (else a 409 naming its state). */
export async function findSendable(tx: Tx, orgId: string, invoiceId: string): Promise<InvoiceRow> {
  const invoice = await findInOrg(tx, invoices, orgId, invoiceId);
  if (!SENDABLE_STATES.includes(invoice.status)) {
    const noun = invoice.type.replace("_", " ");
    throw new Conflict(`The ${noun} is ${invoice.status}; only an issued one (finalized, sent, partially paid or paid) can be sent.`);
  }
  return invoice;
}

/** A send happened (by hand, or a channel accepted it): `sent_at` records it, and a `finalized` document becomes `sent`. */
export async function markSent(tx: Tx, orgId: string, invoice: InvoiceRow, at: string): Promise<void> {
  await updateInOrg(tx, invoices, orgId, invoice.id, invoice.status === "finalized" ? { status: "sent", sentAt: at, updatedAt: at } : { sentAt: at, updatedAt: at });
}

/** Queues a delivery of the invoice, credit note or interest note `invoiceId` in `tx` (a send or a resend). */
export async function queueSend(tx: Tx, scope: Scope, invoiceId: string, request: SendRequest, setup: SendSetup): Promise<ShownDelivery> {
  const invoice = await findSendable(tx, scope.org.id, invoiceId);
  const { channel, recipients } = await addressSend(tx, scope, invoice, request, setup);
  const row = await enqueueDelivery(tx, scope.org.id, { subject: "invoice", invoiceId }, channel, recipients, request.message ?? null);
  await recordChange(tx, scope, { action: "invoice.delivery_queued", resource: { type: "invoice", id: invoiceId } });
  return presentDelivery(row, []);
}

/**
 * A channel accepted the document (the delivery worker, in the transaction that records it): a
 * finalized one is now `sent`; any other keeps its status; `sent_at` records the send. Event
 * `invoice.sent`.
 */
export async function deliveryAccepted(tx: Tx, scope: Scope, invoiceId: string): Promise<void> {
  await markSent(tx, scope.org.id, await findInOrg(tx, invoices, scope.org.id, invoiceId), nowIso());
  await recordChange(tx, scope, { action: "invoice.sent", resource: { type: "invoice", id: invoiceId }, event: "invoice.sent", data: await showInvoice(tx, scope.org.id, invoiceId) });
}

/** A delivery failed for good (refused, or out of attempts): event `invoice.delivery_failed`. */
export async function deliveryFailed(tx: Tx, scope: Scope, invoiceId: string): Promise<void> {
  await recordChange(tx, scope, {
    action: "invoice.delivery_failed",
    resource: { type: "invoice", id: invoiceId },
    event: "invoice.delivery_failed",
    data: await showInvoice(tx, scope.org.id, invoiceId),
  });
}

/**
 * An organisation that sends at finalize (`send_on_finalize`): the delivery is queued in the
 * finalize's transaction. What the send would refuse (no e-mail address, no peppol_id) does not
 * undo the finalize: the delivery is recorded as failed, with the reason, and
 * `invoice.delivery_failed` says so.
 */
export async function sendOnFinalize(tx: Tx, scope: Scope, invoiceId: string, channel: SendChannel | "preferred"): Promise<void> {
  try {
    await queueSend(tx, scope, invoiceId, { channel }, { email: true });
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const reasons = error.errors ? Object.values(error.errors).flat().join(" ") : error.message;
    const customer = await findInOrg(tx, customers, scope.org.id, (await findInOrg(tx, invoices, scope.org.id, invoiceId)).customerId);
    const resolved = channel === "preferred" ? preferredChannel(customer) : channel;
    const row = await enqueueDelivery(tx, scope.org.id, { subject: "invoice", invoiceId }, resolved, resolved === "email" ? { to: [], cc: [] } : { peppol_id: "" }, null);
    await tx.update(documentDeliveries).set({ status: "failed", nextAttemptAt: null, lastError: clipServerText(`Not sent at finalize: ${reasons}`) }).where(eq(documentDeliveries.id, row.id));
    await deliveryFailed(tx, scope, invoiceId);
  }
}
