/**
 * Reminders as the API shows them, their list, an invoice's reminders with its late claim, and
 * the reminder as a letter: its PDF and its e-mail in the customer's language.
 */
import { asc, eq, inArray, lt, sql } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { documentDeliveries, invoices, organizations, reminders } from "../../db/schema.ts";
import type { DocumentLanguage, ReminderText } from "../../db/values.ts";
import { recordChange } from "../changes/record.ts";
import { LABELS, formatMoney } from "../documents/i18n.ts";
import { paymentReferenceLabel } from "../documents/wording.ts";
import type { LateClaim } from "../interest/claim.ts";
import { showInvoice, type ShownInvoice } from "../invoices/read.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { formatCents } from "../lib/money.ts";
import { findInOrg, inOrg, snapshot, unitOfWork, updateInOrg, type Scope } from "../lib/scope.ts";
import { addDays, localDate, nowIso } from "../lib/time.ts";
import type { RemindersPause } from "./model.ts";
import { readPolicy } from "./policy.ts";
import { CONSUMER_FIRST_REMINDER, LETTER_LABELS, defaultTexts, fillText, type TextValues } from "./texts.ts";
import { firstRow } from "../../db/client.ts";

/** The interest code, loaded by the first invoice's reminders read (synchronously: the read is one snapshot). */
const interestClaims = () => require("../interest/claim.ts") as typeof import("../interest/claim.ts");
const interestNotes = () => require("../interest/note.ts") as typeof import("../interest/note.ts");

type ReminderRow = typeof reminders.$inferSelect;

/**
 * What a reminder asks to be paid, in cents: the invoice's amount due, its earlier interest notes
 * still open at the run and the note the reminder issued (its interest and compensation). The bank
 * import pays them all with one line of exactly this amount carrying the invoice's reference.
 */
export const totalToPayCents = (row: Pick<ReminderRow, "amountDueCents" | "earlierNotes" | "interestCents" | "compensationCents">): number =>
  row.amountDueCents + row.earlierNotes.reduce((sum, n) => sum + n.amount_due_cents, 0) + row.interestCents + row.compensationCents;

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Reminders with their invoice's number and their delivery's state, one query each for the page. */
export async function presentReminders(tx: Tx, orgId: string, rows: ReminderRow[]) {
  const invoiceIds = [...new Set(rows.map((r) => r.invoiceId))];
  const deliveryIds = rows.flatMap((r) => (r.deliveryId ? [r.deliveryId] : []));
  const numbers = new Map(
    invoiceIds.length === 0
      ? []
      : (await tx.select({ id: invoices.id, number: invoices.number }).from(invoices).where(inOrg(invoices, orgId, inArray(invoices.id, invoiceIds)))).map((r) => [r.id, r.number] as const),
  );
  const deliveries = new Map(
    deliveryIds.length === 0
      ? []
      : (await tx
          .select({ id: documentDeliveries.id, status: documentDeliveries.status, acceptedAt: documentDeliveries.acceptedAt })
          .from(documentDeliveries)
          .where(inOrg(documentDeliveries, orgId, inArray(documentDeliveries.id, deliveryIds))))
          .map((d) => [d.id, d] as const),
  );
  return rows.map((row) => {
    const delivery = row.deliveryId ? deliveries.get(row.deliveryId) : undefined;
    const status = row.skipped
      ? ("skipped" as const)
      : row.channel === "manual"
        ? ("sent" as const)
        : delivery?.status === "accepted"
          ? ("sent" as const)
          : delivery?.status === "failed"
            ? ("failed" as const)
            : ("queued" as const);
    return {
      id: row.id,
      invoice_id: row.invoiceId,
      invoice_number: numbers.get(row.invoiceId) ?? "",
      customer_id: row.customerId,
      level: row.level,
      days_after_due: row.daysAfterDue,
      run_date: row.runDate,
      channel: row.channel === "preferred" ? ("email" as const) : row.channel,
      status,
      sent_at: row.skipped ? null : row.channel === "manual" ? row.createdAt : (delivery?.acceptedAt ?? null),
      language: row.language,
      amount_due: formatCents(row.amountDueCents),
      interest: formatCents(row.interestCents),
      compensation: formatCents(row.compensationCents),
      interest_note_id: row.interestNoteId,
      total_to_pay: formatCents(totalToPayCents(row)),
      missing_rates: row.missingRates,
      delivery_id: row.deliveryId,
      created_at: row.createdAt,
    };
  });
}

/** `GET /reminders`: newest first (reminders_org_created). */
export const reminderList: ListSpec<typeof reminders> = {
  table: reminders,
  sorts: { created_at: reminders.createdAt },
  defaultSort: "-created_at",
  updatedAt: reminders.createdAt,
};

export async function listReminders(scope: Scope, query: ListQuery, url: string) {
  return await listPage(scope, reminderList, query, url, async (rows, tx) => await presentReminders(tx, scope.org.id, rows));
}

export async function showReminder(scope: Scope, id: string) {
  return await snapshot(scope.db, async (tx) => (await presentReminders(tx, scope.org.id, [await findInOrg(tx, reminders, scope.org.id, id)]))[0]!);
}

/** `GET /invoices/{id}/reminders`: what was recorded, in level order, and the late claim as of today (the organisation's). */
export async function invoiceReminders(scope: Scope, invoiceId: string): Promise<{ data: Awaited<ReturnType<typeof presentReminders>>; late_claim: LateClaim }> {
  return await snapshot(scope.db, async (tx) => {
    await findInOrg(tx, invoices, scope.org.id, invoiceId);
    const rows = await tx.select().from(reminders).where(inOrg(reminders, scope.org.id, eq(reminders.invoiceId, invoiceId))).orderBy(asc(reminders.level));
    const timezone = (await firstRow(tx.select({ tz: organizations.timezone }).from(organizations).where(eq(organizations.id, scope.org.id))))!.tz;
    const { lateClaim } = interestClaims();
    const { firstReminderAcceptedOn } = interestNotes();
    const claim = await lateClaim(tx, scope.org.id, invoiceId, localDate(timezone), { firstReminderAcceptedOn: await firstReminderAcceptedOn(tx, scope.org.id, invoiceId) });
    return { data: await presentReminders(tx, scope.org.id, rows), late_claim: claim };
  });
}

/** `PUT /invoices/{id}/reminders-pause`: not part of the document, so allowed in every state. */
export async function pauseInvoiceReminders(scope: Scope, invoiceId: string, input: RemindersPause): Promise<ShownInvoice> {
  return await unitOfWork(scope.db, async (tx) => {
    await findInOrg(tx, invoices, scope.org.id, invoiceId);
    await updateInOrg(tx, invoices, scope.org.id, invoiceId, {
      remindersPaused: input.paused,
      remindersPausedReason: input.paused ? input.reason?.trim() || null : null,
      updatedAt: nowIso(),
    });
    const shown = await showInvoice(tx, scope.org.id, invoiceId);
    await recordChange(tx, scope, {
      action: input.paused ? "invoice.reminders_paused" : "invoice.reminders_resumed",
      resource: { type: "invoice", id: invoiceId },
      event: "invoice.updated",
      data: shown,
    });
    return shown;
  });
}

// ---------------------------------------------------------------------------------------------
// the letter

type RenderedReminder = {
  pdf: Uint8Array;
  number: string;
  language: DocumentLanguage;
  documentType: "reminder";
  email: { subject: string; text: string };
  /** the interest note it issued: the worker attaches it, rendered as the invoice it is */
  interestNoteId: string | null;
};

/** What a reminder says, in its language: subject, paragraphs, and the PDF's table. */
async function compose(tx: Tx, reminder: ReminderRow) {
  const invoice = await findInOrg(tx, invoices, reminder.organizationId, reminder.invoiceId);
  const parties = invoice.issuedParties!;
  const language = reminder.language;
  const labels = LABELS[language];
  const letter = LETTER_LABELS[language];
  const policy = await readPolicy(tx, reminder.organizationId);
  const texts: ReminderText =
    policy.levels[reminder.level]?.texts?.[language] ?? defaultTexts(policy.levels[reminder.level] ? policy.levels : [{ days_after_due: reminder.daysAfterDue }], policy.levels[reminder.level] ? reminder.level : 0)[language];
  const money = (cents: number) => formatMoney(labels, cents, invoice.currency);
  const values: TextValues = {
    customer: parties.buyer.name,
    organization: parties.seller.name,
    number: invoice.number,
    issue_date: labels.date(invoice.issueDate),
    due_date: labels.date(invoice.dueDate),
    amount_due: money(reminder.amountDueCents),
    pay_by: labels.date(addDays(reminder.runDate, 14)),
  };
  const paragraphs = fillText(texts.body, values).split(/\n{2,}/);
  // a consumer's first reminder after the due date carries what art. XIX.2 §1 requires
  const earlier = await firstRow(tx
    .select({ id: reminders.id })
    .from(reminders)
    .where(inOrg(reminders, reminder.organizationId, eq(reminders.invoiceId, reminder.invoiceId), eq(reminders.skipped, false), sql`${reminders.daysAfterDue} > 0`, lt(reminders.level, reminder.level))));
  if (!parties.buyer.vatNumber && reminder.daysAfterDue > 0 && !earlier) paragraphs.splice(Math.max(1, paragraphs.length - 1), 0, CONSUMER_FIRST_REMINDER[language](values));
  const note = reminder.interestNoteId ? (await firstRow(tx.select({ number: invoices.number }).from(invoices).where(eq(invoices.id, reminder.interestNoteId)))) : undefined;
  const rows = [[invoice.number, labels.date(invoice.issueDate), labels.date(invoice.dueDate), money(reminder.amountDueCents)]];
  // the invoice's earlier interest notes still open: asked with it, so that one transfer pays all
  for (const earlier of reminder.earlierNotes) rows.push([capitalized(letter.interestNote(earlier.number)), labels.date(earlier.issue_date), "", money(earlier.amount_due_cents)]);
  const noteSuffix = note ? ` (${letter.interestNote(note.number)})` : "";
  if (reminder.interestCents > 0) rows.push([`${letter.interest}${noteSuffix}`, "", "", money(reminder.interestCents)]);
  if (reminder.compensationCents > 0) rows.push([`${letter.compensation}${noteSuffix}`, "", "", money(reminder.compensationCents)]);
  return { invoice, parties, language, labels, letter, subject: fillText(texts.subject, values), paragraphs, rows, total: money(totalToPayCents(reminder)) };
}

async function renderComposed(c: Awaited<ReturnType<typeof compose>>, reminder: ReminderRow): Promise<Uint8Array> {
  // the PDF code (pdf-lib, fonts, QR codes) is loaded when a letter is first drawn
  const { renderLetter } = await import("../documents/pdf.ts");
  return await renderLetter({
    language: c.language,
    title: c.subject,
    date: reminder.runDate,
    id: reminder.id,
    seller: c.parties.seller,
    buyer: c.parties.buyer,
    paragraphs: c.paragraphs,
    table: { head: [c.labels.number, c.labels.issueDate, c.labels.dueDate, c.labels.amountDue], rows: c.rows, total: [c.letter.totalToPay, c.total] },
    // the invoice's own reference with the whole total: how the bank import recognises the transfer
    payment: c.parties.payee ? { ...c.parties.payee, reference: c.invoice.paymentReference, amount: [c.letter.totalToPay, c.total] } : null,
  });
}

/** `GET /reminders/{id}/pdf`: the letter, rendered on demand. */
export async function reminderPdf(scope: Scope, id: string): Promise<{ pdf: Uint8Array; number: string }> {
  const { composed, reminder } = await snapshot(scope.db, async (tx) => {
    const reminder = await findInOrg(tx, reminders, scope.org.id, id);
    return { reminder, composed: await compose(tx, reminder) };
  });
  return { pdf: await renderComposed(composed, reminder), number: `reminder-${composed.invoice.number}-${reminder.level + 1}` };
}

/**
 * What the delivery worker sends for a reminder's delivery (handed to it by the composition
 * root): the PDF, and the e-mail's subject and text, in the reminder's language.
 */
export async function renderReminderForDelivery(db: Db, reminderId: string): Promise<RenderedReminder> {
  const { composed, reminder } = await snapshot(db, async (tx) => {
    const reminder = await firstRow(tx.select().from(reminders).where(eq(reminders.id, reminderId)));
    if (!reminder) throw new Error(`No reminder ${reminderId}.`);
    return { reminder, composed: await compose(tx, reminder) };
  });
  const table = composed.rows.map((row) => `${row[0]}: ${row[3]}`).join("\n");
  const { labels, parties, invoice } = composed;
  const payment = parties.payee
    ? `\n${labels.iban}: ${parties.payee.iban}${parties.payee.bic ? `\n${labels.bic}: ${parties.payee.bic}` : ""}${invoice.paymentReference ? `\n${paymentReferenceLabel(composed.language, invoice.paymentReference)}: ${invoice.paymentReference}` : ""}\n`
    : "";
  return {
    pdf: await renderComposed(composed, reminder),
    number: composed.invoice.number,
    language: composed.language,
    documentType: "reminder",
    email: { subject: composed.subject, text: `${composed.paragraphs.join("\n\n")}\n\n${table}\n${composed.letter.totalToPay}: ${composed.total}\n${payment}` },
    interestNoteId: reminder.interestNoteId,
  };
}


