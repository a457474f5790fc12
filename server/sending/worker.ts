/**
 * The delivery worker (docs/sending.md): sends the queued document deliveries, beside the webhook
 * worker, in `kontor serve` and `kontor worker`, any number of them on one database.
 *
 * A due row is claimed under a lease (`leased_by`, `lease_until`) in an IMMEDIATE transaction, so
 * two workers never send it at once; its document is rendered, handed to its channel, and the
 * outcome written with the attempt. At-least-once, as webhooks: a worker that dies after the
 * channel accepted the document but before the outcome was written leaves its row leased, and it
 * is sent again when the lease runs out; so a crash at the worst moment makes one duplicate
 * e-mail (same Message-ID, which mail clients use to fold it) and never loses one.
 * Accepted: the delivery is `accepted`, a finalized invoice becomes `sent`, event `invoice.sent`.
 * Refused for good, or out of attempts: `failed`, event `invoice.delivery_failed`.
 */
import { Cron } from "croner";
import { and, asc, eq, inArray, isNull, lt, lte, notInArray, or } from "drizzle-orm";
import { hostname } from "node:os";
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

export type DeliveryWorker = { stop: () => Promise<void>; /** claims what is due now (tests, `kontor deliveries send`) */ poke: () => void };

/** A lease outlasts an attempt's own limit by this much (at most the limit again); should it run out anyway, the worst case is a second send. */
const LEASE_MARGIN_MS = 5000;

const SYSTEM_ACTOR = { type: "system" as const, id: null, ip: null, requestId: null };

function scopeOf(db: Db, org: OrganizationRow): Scope {
  return { db, org: { id: org.id, name: org.name, currency: org.currency, country: org.country, apiAccess: org.apiAccess }, actor: SYSTEM_ACTOR };
}

/** The delay before the next attempt after `attemptsMade`, or null when there is none left. */
export function deliveryRetryDelay(attemptsMade: number, config: Pick<Config, "deliveryBackoffMs" | "deliveryMaxAttempts">): number | null {
  if (attemptsMade >= config.deliveryMaxAttempts) return null;
  const steps = config.deliveryBackoffMs;
  return steps[Math.min(attemptsMade, steps.length) - 1] ?? 0;
}

/** The server's SMTP transport, or the organisation's own (opened from its sealed URL). */
export function mailTransportFor(org: OrganizationRow, config: Config, secrets: SecretBox): MailTransport | null {
  if (org.smtpUrl) return { url: secrets.open(org.smtpUrl, smtpSecretContext(org.id)), from: config.mailFrom ?? org.email ?? "" };
  if (config.smtpUrl && config.mailFrom) return { url: config.smtpUrl, from: config.mailFrom };
  return null;
}

export function startDeliveryWorker(db: Db, config: Config, options: DeliveryWorkerOptions): DeliveryWorker {
  const concurrency = options.concurrency ?? 4;
  const log = options.log ?? ((line: string) => console.error(line));
  const workerId = `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
  const leaseMs = config.deliveryTimeoutMs + Math.min(LEASE_MARGIN_MS, config.deliveryTimeoutMs);
  const turns = new RenderTurns();
  const inFlight = new Set<Promise<void>>();
  /** the rows in flight here: never claimed again by this worker, even should their lease run out */
  const sending = new Set<string>();
  const timers = new Set<Timer>();
  let stopping = false;
  let scheduled = false;
  /** a pump is claiming (its claim awaits a unit of work); a pump asked for meanwhile runs after it */
  let pumping = false;
  let pumpAgain = false;

  const schedule = () => {
    if (scheduled || stopping) return;
    scheduled = true;
    setImmediate(pump);
  };

  function pump(): void {
    scheduled = false;
    if (stopping) return;
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = true;
    void claimAndDeliver().finally(() => {
      pumping = false;
      if (pumpAgain) {
        pumpAgain = false;
        schedule();
      }
    });
  }

  async function claimAndDeliver(): Promise<void> {
    const free = concurrency - inFlight.size;
    if (free <= 0) return;
    let claimed: DeliveryRow[];
    try {
      claimed = await claim(db, workerId, free, leaseMs, [...sending]);
    } catch (error) {
      log(`[kontor] delivery worker: claiming failed (the next tick tries again): ${(error as Error).message}`);
      return;
    }
    for (const row of claimed) {
      sending.add(row.id);
      const attempt = deliver(row)
        .catch((error) => log(`[kontor] delivery worker: delivery ${row.id} failed unexpectedly: ${(error as Error)?.stack ?? error}`))
        .finally(() => {
          inFlight.delete(attempt);
          sending.delete(row.id);
          schedule();
        });
      inFlight.add(attempt);
    }
  }

  async function deliver(row: DeliveryRow): Promise<void> {
    const attemptedAt = nowIso();
    const started = performance.now();
    const result = await attempt(row);
    if (options.pauseBeforeRecordMs) await Bun.sleep(options.pauseBeforeRecordMs);
    const durationMs = Math.round(performance.now() - started);
    try {
      const retryAt = await record(db, config, workerId, row, result, attemptedAt, durationMs, options);
      if (retryAt !== null) wakeAt(retryAt);
    } catch (error) {
      // the row stays leased: when the lease runs out it is sent again (at-least-once)
      log(`[kontor] delivery worker: recording delivery ${row.id} failed: ${(error as Error).message}`);
    }
  }

  /** Renders and sends; never throws: what went wrong is the attempt's outcome. */
  async function attempt(row: DeliveryRow): Promise<ChannelResult> {
    try {
      const org = await firstRow(db.select().from(organizations).where(eq(organizations.id, row.organizationId)));
      if (!org) return { outcome: "failed", detail: "The organisation no longer exists." };
      const { outgoing, mail } = await render(row, org);
      // the limit is the channel's (as a webhook's is the receiver's); rendering comes before it
      const timeout = new Promise<ChannelResult>((resolve) => {
        const timer = setTimeout(() => resolve({ outcome: "retry", detail: `No answer within ${config.deliveryTimeoutMs} ms.` }), config.deliveryTimeoutMs);
        timers.add(timer);
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

  function wakeAt(at: number): void {
    const delay = at - Date.now();
    if (stopping || delay >= TICK_MS) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      schedule();
    }, Math.max(0, delay));
    timers.add(timer);
  }

  const cron = new Cron("* * * * * *", { protect: true }, schedule);
  const unsubscribe = db.connection.outbox.subscribe(schedule);
  schedule();

  let stopped: Promise<void> | null = null;
  return {
    poke: schedule,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        cron.stop();
        unsubscribe();
        // an attempt in flight finishes (at most the attempt's limit): cutting an SMTP dialogue short after DATA could send twice
        await Promise.allSettled([...inFlight]);
        for (const timer of timers) clearTimeout(timer);
        try {
          await unitOfWork(db, async (tx) =>
            await tx.update(documentDeliveries).set({ leasedBy: null, leaseUntil: null }).where(and(eq(documentDeliveries.status, "pending"), eq(documentDeliveries.leasedBy, workerId))),
          );
        } catch (error) {
          log(`[kontor] delivery worker: releasing leases failed (they run out by themselves): ${(error as Error).message}`);
        }
      })();
      return stopped;
    },
  };
}

const TICK_MS = 1000;

/** Claims up to `limit` due rows (pending, due, no live lease), oldest due first, under a lease. */
async function claim(db: Db, workerId: string, limit: number, leaseMs: number, inFlight: string[]): Promise<DeliveryRow[]> {
  const now = Date.now();
  const due = and(
    eq(documentDeliveries.status, "pending"),
    lte(documentDeliveries.nextAttemptAt, now),
    or(isNull(documentDeliveries.leaseUntil), lt(documentDeliveries.leaseUntil, now)),
    inFlight.length > 0 ? notInArray(documentDeliveries.id, inFlight) : undefined,
  );
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
    if (!row || row.leasedBy !== workerId || row.leaseUntil !== claimed.leaseUntil) return null;
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
