/**
 * The document channel of the outbox worker (server/outbox/worker.ts; docs/sending.md): sends the
 * queued document deliveries by e-mail or Peppol, beside the webhooks, in `kontor serve` and
 * `kontor worker`, any number of them on one database.
 *
 * A due row is claimed under the worker's lease, so two workers never send it at once; its
 * document is rendered, handed to its channel (e-mail, Peppol), and the outcome written with the
 * attempt. An attempt in flight is never cut short by a stop (cutting an SMTP dialogue short
 * after DATA could send twice): it ends within its own limit. At-least-once, as webhooks: a worker that dies after the
 * channel accepted the document but before the outcome was written leaves its row leased, and it
 * is sent again when the lease runs out; so a crash at the worst moment makes one duplicate
 * e-mail (same Message-ID, which mail clients use to fold it) and never loses one.
 * Accepted: the delivery is `accepted`, a finalized invoice becomes `sent`, event `invoice.sent`.
 * Refused for good, or out of attempts: `failed`, event `invoice.delivery_failed`.
 */
import { and, asc, eq, inArray, notInArray } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { customers, documentDeliveries, documentDeliveryAttempts, invoices, organizations } from "../../db/schema.ts";
import type { DeliveryRecipients } from "../../db/values.ts";
import type { Config } from "../config.ts";
import { issuedFacturX, issuedPdf, issuedUbl } from "../documents/service.ts";
import { asIssued, readDocument } from "../invoices/document.ts";
import { deliveryAccepted, deliveryFailed, issuedAsEinvoice } from "../invoices/deliveries.ts";
import { ApiError } from "../lib/errors.ts";
import { smtpSecretContext } from "../orgs/service.ts";
import { RenderTurns } from "../lib/render-turns.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import { snapshot, unitOfWork, type Scope } from "../lib/scope.ts";
import { dueAt, holdsLease, releaseLeases } from "../outbox/leases.ts";
import { retryDelay, startOutboxWorker, type OutboxChannel, type OutboxWorker } from "../outbox/worker.ts";
import { newId, nowIso } from "../lib/time.ts";
import { clipServerText } from "../lib/counts.ts";
import type { ChannelResult, Outgoing, OutgoingFile } from "./channel.ts";
import { sendEmail, type MailTransport } from "./email.ts";
import { documentEmail } from "./messages.ts";
import { sendOverPeppol } from "./peppol/channel.ts";
import { firstRow } from "../../db/client.ts";

type DeliveryRow = typeof documentDeliveries.$inferSelect;
type OrganizationRow = typeof organizations.$inferSelect;

/**
 * A reminder rendered for its delivery (the reminders feature hands the worker its renderer): its
 * letter, the number of the invoice it reminds of, the e-mail's words, and the interest note it
 * issued, which the worker renders as the invoice it is and attaches.
 */
export type RenderedReminder = Pick<Outgoing, "number" | "language"> & { pdf: Uint8Array; email: { subject: string; text: string }; interestNoteId?: string | null };

export type DeliveryWorkerOptions = {
  secrets: SecretBox;
  /** deliveries in flight at once (default 4: a document is rendered on this thread) */
  concurrency?: number;
  log?: (line: string) => void;
  /** renders what other features send: a reminder (server/reminders) */
  renderReminder?: (db: Db, reminderId: string) => Promise<RenderedReminder>;
  /** told, in the transaction that records it, that a reminder's delivery was accepted */
  onReminderAccepted?: (tx: Tx, delivery: DeliveryRow) => void | Promise<void>;
  /** tests only: a pause between the channel's answer and its record, to kill the worker in between */
  pauseBeforeRecordMs?: number;
};


/** A lease outlasts an attempt's own limit by this much (at most the limit again); should it run out anyway, the worst case is a second send. */
const LEASE_MARGIN_MS = 5000;

const SYSTEM_ACTOR = { type: "system" as const, id: null, ip: null, requestId: null };

function scopeOf(db: Db, org: OrganizationRow): Scope {
  return { db, org: { id: org.id, name: org.name, currency: org.currency, country: org.country, apiAccess: org.apiAccess }, actor: SYSTEM_ACTOR };
}

/** The delay before the next attempt after `attemptsMade`, or null when there is none left (KONTOR_DELIVERY_BACKOFF, KONTOR_DELIVERY_MAX_ATTEMPTS). */
export function deliveryRetryDelay(attemptsMade: number, config: Pick<Config, "deliveryBackoffMs" | "deliveryMaxAttempts">): number | null {
  return retryDelay(attemptsMade, { backoffMs: config.deliveryBackoffMs, maxAttempts: config.deliveryMaxAttempts });
}

/** The server's SMTP transport, or the organisation's own (opened from its sealed URL). */
export function mailTransportFor(org: OrganizationRow, config: Config, secrets: SecretBox): MailTransport | null {
  if (org.smtpUrl) return { url: secrets.open(org.smtpUrl, smtpSecretContext(org.id)), from: config.mailFrom ?? org.email ?? "" };
  if (config.smtpUrl && config.mailFrom) return { url: config.smtpUrl, from: config.mailFrom };
  return null;
}

export function documentChannel(db: Db, config: Config, options: DeliveryWorkerOptions): OutboxChannel<DeliveryRow, ChannelResult> {
  const turns = new RenderTurns();

  /** Renders and sends; never throws: what went wrong is the attempt's outcome. */
  async function attempt(row: DeliveryRow): Promise<ChannelResult> {
    let timer: Timer | undefined;
    try {
      const org = await firstRow(db.select().from(organizations).where(eq(organizations.id, row.organizationId)));
      if (!org) return { outcome: "failed", detail: "The organisation no longer exists." };
      const { outgoing, mail } = await render(row, org);
      // the limit is the channel's (as a webhook's is the receiver's); rendering comes before it
      const timeout = new Promise<ChannelResult>((resolve) => {
        timer = setTimeout(() => resolve({ outcome: "retry", detail: `No answer within ${config.deliveryTimeoutMs} ms.` }), config.deliveryTimeoutMs);
      });
      const send = async (): Promise<ChannelResult> => {
        if (row.channel === "email") {
          const transport = mailTransportFor(org, config, options.secrets);
          if (!transport) return { outcome: "failed", detail: "No SMTP server is configured (KONTOR_SMTP_URL and KONTOR_MAIL_FROM, or the organisation's own)." };
          const to = row.recipients as Extract<DeliveryRecipients, { to: string[] }>;
          return sendEmail(
            transport,
            {
              fromName: org.mailSenderName ?? org.name,
              replyTo: org.mailReplyTo ?? org.email,
              to: to.to,
              cc: to.cc,
              subject: mail.subject,
              text: mail.text,
              attachments: [outgoing.pdf, ...(outgoing.einvoice ? [outgoing.einvoice] : []), ...(outgoing.attachments ?? [])],
              deliveryId: row.id,
            },
            config.deliveryTimeoutMs,
          );
        }
        if (!outgoing.einvoice || !org.peppolId) return { outcome: "failed", detail: "The organisation has no Peppol participant id of its own (peppol_id)." };
        return sendOverPeppol(
          { db, secrets: options.secrets, timeoutMs: config.deliveryTimeoutMs },
          {
            ...outgoing,
            ubl: new TextDecoder().decode(outgoing.einvoice.content),
            profile: outgoing.einvoiceProfile === "xrechnung" ? "xrechnung" : "peppol",
            recipientPeppolId: (row.recipients as { peppol_id: string }).peppol_id,
            senderPeppolId: org.peppolId,
          },
        );
      };
      return await Promise.race([send(), timeout]);
    } catch (error) {
      // a document that cannot be rendered any more (e.g. issued before its e-invoice was checked) will not render on a retry
      if (error instanceof ApiError) return { outcome: "failed", detail: error.message };
      return { outcome: "retry", detail: `Rendering failed: ${(error as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
  }

  async function render(row: DeliveryRow, org: OrganizationRow): Promise<{ outgoing: Outgoing; mail: { subject: string; text: string } }> {
    const base = { organizationId: row.organizationId, deliveryId: row.id, subject: row.subject };
    if (row.subject === "reminder") {
      if (!options.renderReminder || !row.reminderId) throw new ApiError(422, "This Kontor cannot render reminders.");
      const reminder = await options.renderReminder(db, row.reminderId);
      const pdf: OutgoingFile = { filename: `${reminder.number}-reminder.pdf`, contentType: "application/pdf", content: reminder.pdf };
      // the interest note it issued travels with it, as the customer receives an invoice by e-mail
      const note = reminder.interestNoteId ? await issuedFiles(reminder.interestNoteId, row.channel, org) : null;
      const attachments = note ? [note.pdf, ...(note.einvoice ? [note.einvoice] : [])] : [];
      return { outgoing: { ...base, documentType: "reminder", number: reminder.number, language: reminder.language, pdf, einvoice: null, attachments }, mail: reminder.email };
    }
    const { doc, pdf, einvoice, profile } = await issuedFiles(row.invoiceId!, row.channel, org);
    return { outgoing: { ...base, documentType: doc.type, number: doc.number, language: doc.language, pdf, einvoice, einvoiceProfile: profile }, mail: documentEmail(doc, row.message) };
  }

  /**
   * An issued document's files as its customer receives them over `channel`: the e-invoice of its
   * einvoice_profile on every channel, the XRechnung UBL (over Peppol under XRechnung's document
   * type); by e-mail the Factur-X PDF (its CII inside, no separate file); else the Peppol UBL when
   * it is issued as an e-invoice (or goes over Peppol); and the PDF.
   */
  async function issuedFiles(invoiceId: string, channel: DeliveryRow["channel"], org: OrganizationRow) {
    const { doc, profile } = await snapshot(db, async (tx) => {
      const doc = asIssued(await readDocument(tx, org.id, invoiceId));
      const customer = await firstRow(tx.select({ profile: customers.einvoiceProfile }).from(customers).innerJoin(invoices, eq(invoices.customerId, customers.id)).where(eq(invoices.id, invoiceId)));
      return { doc, profile: customer?.profile ?? null };
    });
    const xml = (text: string): OutgoingFile => ({ filename: `${doc.number}.xml`, contentType: "application/xml", content: new TextEncoder().encode(text) });
    const asEinvoice = channel === "peppol" || issuedAsEinvoice(doc, org.einvoiceBusinessCustomers);
    if (channel === "email" && profile === "facturx") {
      const pdf: OutgoingFile = { filename: `${doc.number}.pdf`, contentType: "application/pdf", content: await issuedFacturX(doc, turns) };
      return { doc, profile, pdf, einvoice: null };
    }
    const pdf: OutgoingFile = { filename: `${doc.number}.pdf`, contentType: "application/pdf", content: await issuedPdf(doc, turns) };
    const einvoice: OutgoingFile | null = profile === "xrechnung" ? xml(issuedUbl(doc, "xrechnung")) : asEinvoice ? xml(issuedUbl(doc)) : null;
    return { doc, profile, pdf, einvoice };
  }

  return {
    name: "delivery",
    slots: options.concurrency ?? 4,
    leaseMs: config.deliveryTimeoutMs + Math.min(LEASE_MARGIN_MS, config.deliveryTimeoutMs),
    graceMs: Infinity,
    claim: async (db, request) => ({ rows: await claim(db, request.workerId, request.free, request.leaseMs, [...request.sending]), more: false }),
    async deliver(row) {
      const result = await attempt(row);
      if (options.pauseBeforeRecordMs) await Bun.sleep(options.pauseBeforeRecordMs);
      return result;
    },
    async record(db, workerId, attempts) {
      let earliest: number | null = null;
      // each in a unit of its own: one that cannot be written does not hold back the others
      for (const { row, result, attemptedAt, durationMs } of attempts) {
        try {
          const retryAt = await record(db, config, workerId, row, result, attemptedAt, durationMs, options);
          if (retryAt !== null) earliest = Math.min(earliest ?? retryAt, retryAt);
        } catch (error) {
          // the row stays leased: when the lease runs out it is sent again (at-least-once)
          (options.log ?? console.error)(`[kontor] delivery worker: recording delivery ${row.id} failed: ${(error as Error).message}`);
        }
      }
      return earliest;
    },
    async release(db, workerId) {
      await releaseLeases(db, documentDeliveries, workerId);
    },
  };
}

/** An outbox worker with the document channel alone (tests). */
export function startDeliveryWorker(db: Db, config: Config, options: DeliveryWorkerOptions): OutboxWorker {
  return startOutboxWorker(db, [documentChannel(db, config, options)], { log: options.log });
}

/** Claims up to `limit` due rows (pending, due, no live lease), oldest due first, under a lease. */
async function claim(db: Db, workerId: string, limit: number, leaseMs: number, inFlight: string[]): Promise<DeliveryRow[]> {
  const now = Date.now();
  const due = and(dueAt(documentDeliveries, now), inFlight.length > 0 ? notInArray(documentDeliveries.id, inFlight) : undefined);
  // an idle tick only reads (document_deliveries_due): the write lock is taken when something is due
  if (!(await firstRow(db.select({ id: documentDeliveries.id }).from(documentDeliveries).where(due).limit(1)))) return [];
  return await unitOfWork(db, async (tx) => {
    const ids = (await tx.select({ id: documentDeliveries.id }).from(documentDeliveries).where(due).orderBy(asc(documentDeliveries.nextAttemptAt)).limit(limit)).map((r) => r.id);
    if (ids.length === 0) return [];
    return await tx
      .update(documentDeliveries)
      .set({ leasedBy: workerId, leaseUntil: now + leaseMs })
      .where(inArray(documentDeliveries.id, ids))
      .returning();
  });
}

/**
 * Writes an attempt and moves the delivery on, when this worker still holds its lease (a worker
 * whose lease ran out and was taken over only logs its attempt). Returns when to retry, or null.
 */
async function record(
  db: Db,
  config: Config,
  workerId: string,
  claimed: DeliveryRow,
  result: ChannelResult,
  attemptedAt: string,
  durationMs: number,
  options: DeliveryWorkerOptions,
): Promise<number | null> {
  return await unitOfWork(db, async (tx) => {
    await tx.insert(documentDeliveryAttempts)
      .values({ id: newId(), organizationId: claimed.organizationId, deliveryId: claimed.id, attemptedAt, outcome: result.outcome, detail: clipServerText(result.detail), durationMs });
    const row = await firstRow(tx.select().from(documentDeliveries).where(eq(documentDeliveries.id, claimed.id)));
    if (!row || !holdsLease(row, workerId, claimed.leaseUntil)) return null;
    const updatedAt = nowIso();
    const attempts = row.attempts + 1;
    const released = { leasedBy: null, leaseUntil: null, updatedAt, attempts };
    const org = (await firstRow(tx.select().from(organizations).where(eq(organizations.id, row.organizationId))))!;
    const scope = scopeOf(db, org);
    if (result.outcome === "accepted") {
      await tx.update(documentDeliveries)
        .set({ ...released, status: "accepted", acceptedAt: updatedAt, providerReference: clipServerText(result.providerReference), lastError: null, nextAttemptAt: null })
        .where(eq(documentDeliveries.id, row.id));
      if (row.subject === "invoice") await deliveryAccepted(tx, scope, row.invoiceId!);
      else await options.onReminderAccepted?.(tx, row);
      return null;
    }
    const delay = result.outcome === "retry" ? deliveryRetryDelay(attempts, config) : null;
    if (delay !== null) {
      await tx.update(documentDeliveries).set({ ...released, lastError: clipServerText(result.detail), nextAttemptAt: Date.now() + delay }).where(eq(documentDeliveries.id, row.id));
      return Date.now() + delay;
    }
    await tx.update(documentDeliveries).set({ ...released, status: "failed", lastError: clipServerText(result.detail), nextAttemptAt: null }).where(eq(documentDeliveries.id, row.id));
    if (row.invoiceId) await deliveryFailed(tx, scope, row.invoiceId);
    return null;
  });
}
