/**
 * Reminder runs (issue 30): for each organisation with an enabled policy, each open invoice and
 * the highest level of its policy that is due at the run's local date and not yet recorded.
 *
 * Exactly once: each reminder is recorded in a transaction of its own (SQLite's write lock), which
 * reads the invoice's recorded levels again before it inserts, and the UNIQUE (invoice_id, level)
 * key is the backstop. Two runs at once therefore record each level once between them, and a run
 * killed midway has committed whole reminders only: the next run records the rest. The reminder,
 * its interest note and its queued delivery commit together; the delivery then follows the
 * sending outbox's own guarantee.
 */
import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { awaitingPayment, customers, invoices, organizations, reminderPolicies, reminders } from "../../db/schema.ts";
import type { DeliveryRecipients, DocumentLanguage, ReminderLevel, SendChannel } from "../../db/values.ts";
import { recordChange } from "../changes/record.ts";
import { lateClaim } from "../interest/claim.ts";
import { firstReminderAcceptedOn, issueInterestNote } from "../interest/note.ts";
import { showInvoice } from "../invoices/read.ts";
import { ValidationFailed } from "../lib/errors.ts";
import { formatCents, toCents } from "../lib/money.ts";
import { inOrg, snapshot, transaction, type Organization, type Scope } from "../lib/scope.ts";
import { addDays, isValidDate, localDate, localHour, newId, nowIso } from "../lib/time.ts";
import { CLI_ACTOR } from "../orgs/service.ts";
import { enqueueDelivery, type QueuedDelivery } from "../changes/deliveries.ts";
import { invoiceDueCents } from "../settlement/due.ts";
import type { PlannedReminder } from "./model.ts";
import { readPolicy, type ReminderPolicy } from "./policy.ts";

type InvoiceRow = typeof invoices.$inferSelect;
type CustomerRow = typeof customers.$inferSelect;

/** `notBeforeHour`: the schedule's, skip the organisations whose local time is before this hour (and `date` unset). */
export type RunOptions = { date?: string; dryRun?: boolean; orgId?: string; notBeforeHour?: number };
/** One organisation's run: its local date and what was (or, dry, would be) sent. */
export type OrgRun = { organization_id: string; date: string; enabled: boolean; data: PlannedReminder[] };

/** Book XIX: a consumer may be charged nothing before the 15th day after the first reminder was accepted (the 14 days run from the day after). */
const CONSUMER_TERM_DAYS = 14;

/** The channel a reminder goes over and to whom, or why it cannot go. */
/**
 * The channel a reminder goes over and to whom, or why it cannot go. A reminder letter goes by
 * e-mail: Peppol BIS Billing 3.0 carries invoices and credit notes, not letters, so a customer
 * whose preferred channel is Peppol gets its reminders by e-mail too (the policy cannot say `peppol`).
 */
function route(policy: ReminderPolicy, _invoice: InvoiceRow, customer: CustomerRow): { channel: SendChannel | "manual"; recipients: DeliveryRecipients | null; problem: string | null } {
  if (policy.channel === "manual") return { channel: "manual", recipients: null, problem: null };
  return customer.email
    ? { channel: "email", recipients: { to: [customer.email], cc: [] }, problem: null }
    : { channel: "email", recipients: null, problem: "The customer has no e-mail address." };
}

type Plan = PlannedReminder & { skippedLevels: number[]; recipients: DeliveryRecipients | null; firstAccepted: string | null; levelRow: ReminderLevel };

/**
 * What is due for one invoice at `date`: the highest level due and not yet recorded (earlier
 * levels due at the same time are skipped: one letter, the latest, rather than a pile), or null.
 * A level before the due date is not sent once the due date has passed.
 */
function planInvoice(tx: Tx, org: Organization & { language: DocumentLanguage }, policy: ReminderPolicy, invoice: InvoiceRow, customer: CustomerRow, date: string): Plan | null {
  const recorded = tx
    .select({ level: reminders.level })
    .from(reminders)
    .where(inOrg(reminders, org.id, eq(reminders.invoiceId, invoice.id)))
    .all()
    .map((r) => r.level);
  const highestRecorded = Math.max(-1, ...recorded);
  const reached = policy.levels.map((level, index) => ({ level, index })).filter(({ level }) => addDays(invoice.dueDate, level.days_after_due) <= date);
  const top = reached.filter(({ level }) => level.days_after_due > 0 || date <= invoice.dueDate).at(-1);
  if (!top || top.index <= highestRecorded) return null;
  const skippedLevels = reached.filter(({ index }) => index < top.index && index > highestRecorded && !recorded.includes(index)).map(({ index }) => index);
  const { channel, recipients, problem } = route(policy, invoice, customer);
  const customerType = (invoice.issuedParties?.buyer.vatNumber ?? customer.vatNumber) ? ("organization" as const) : ("individual" as const);
  let interestCents = 0;
  let compensationCents = 0;
  let withheldUntil: string | null = null;
  let firstAccepted: string | null = null;
  const level = top.level;
  // only late payment is charged for: never with a level on or before the due date
  if ((level.charge_interest || level.charge_compensation) && level.days_after_due > 0) {
    firstAccepted = firstReminderAcceptedOn(tx, org.id, invoice.id);
    const claim = lateClaim(tx, org.id, invoice.id, date, { firstReminderAcceptedOn: firstAccepted });
    let allowed = true;
    if (customerType === "individual") {
      // art. XIX.2 §1: nothing before 14 days after the first, free reminder was sent (accepted)
      withheldUntil = firstAccepted === null ? null : addDays(firstAccepted, CONSUMER_TERM_DAYS + 1);
      if (claim.chargeable_from && (withheldUntil === null || claim.chargeable_from > withheldUntil)) withheldUntil = claim.chargeable_from;
      allowed = withheldUntil !== null && date >= withheldUntil;
    }
    if (allowed) {
      if (level.charge_interest) interestCents = toCents(claim.chargeable.interest) ?? 0;
      if (level.charge_compensation) compensationCents = toCents(claim.chargeable.compensation) ?? 0;
    }
  }
  return {
    invoice_id: invoice.id,
    invoice_number: invoice.number,
    customer_id: customer.id,
    customer_type: customerType,
    level: top.index,
    days_after_due: level.days_after_due,
    skipped_levels: skippedLevels,
    channel,
    language: customer.language ?? org.language,
    amount_due: formatCents(invoiceDueCents(invoice)),
    interest: formatCents(interestCents),
    compensation: formatCents(compensationCents),
    first_reminder_accepted_on: firstAccepted,
    charges_withheld_until: withheldUntil,
    problem,
    skippedLevels,
    recipients,
    firstAccepted,
    levelRow: level,
  };
}

/** The invoices a run may remind of: open, something due, not paused, nor their customer; due early enough for the policy's first level. */
function openInvoices(tx: Tx, orgId: string, policy: ReminderPolicy, date: string, invoiceId?: string): { invoice: InvoiceRow; customer: CustomerRow }[] {
  if (policy.levels.length === 0) return [];
  const earliest = Math.min(...policy.levels.map((l) => l.days_after_due));
  return tx
    .select({ invoice: invoices, customer: customers })
    .from(invoices)
    .innerJoin(customers, eq(customers.id, invoices.customerId))
    .where(
      and(
        // invoices_org_awaiting_due: the open invoices by due date
        inOrg(invoices, orgId, awaitingPayment, lte(invoices.dueDate, addDays(date, -earliest))),
        eq(invoices.type, "invoice"),
        sql`${invoices.totalCents} - ${invoices.paidCents} - ${invoices.creditedCents} > 0`,
        eq(invoices.remindersPaused, false),
        eq(customers.remindersPaused, false),
        invoiceId === undefined ? undefined : eq(invoices.id, invoiceId),
      ),
    )
    .orderBy(asc(invoices.dueDate), asc(invoices.id))
    .all();
}

type OrgRow = typeof organizations.$inferSelect;
const orgOf = (row: OrgRow): Organization & { language: DocumentLanguage; timezone: string } => ({
  id: row.id, name: row.name, currency: row.currency, country: row.country, apiAccess: row.apiAccess, language: row.language, timezone: row.timezone,
});

function planOrg(tx: Tx, row: OrgRow, date: string): { policy: ReminderPolicy; plans: Plan[] } {
  const org = orgOf(row);
  const policy = readPolicy(tx, org.id);
  const plans = openInvoices(tx, org.id, policy, date).flatMap(({ invoice, customer }) => planInvoice(tx, org, policy, invoice, customer, date) ?? []);
  return { policy, plans };
}

const shown = ({ skippedLevels: _s, recipients: _r, firstAccepted: _f, levelRow: _l, ...planned }: Plan): PlannedReminder => planned;

/** `GET /reminders/preview?date=`: what a run at `date` would send for this organisation; nothing is written. */
export function previewReminders(scope: Scope, date?: string): OrgRun {
  if (date !== undefined && !isValidDate(date)) throw ValidationFailed.field("date", "The date field must be a valid date (YYYY-MM-DD).");
  return snapshot(scope.db, (tx) => {
    const row = tx.select().from(organizations).where(eq(organizations.id, scope.org.id)).get()!;
    const runDate = date ?? localDate(row.timezone);
    const { policy, plans } = planOrg(tx, row, runDate);
    return { organization_id: row.id, date: runDate, enabled: policy.enabled, data: plans.map(shown) };
  });
}

/** A test's hook: a pause between reminders, so a test can kill a run midway (KONTOR_TEST_REMINDER_PAUSE_MS). */
const pauseMs = () => Number(process.env.KONTOR_TEST_REMINDER_PAUSE_MS ?? 0);

/**
 * Runs the reminder policies: every organisation with an enabled one (or `orgId`'s), at
 * `date` (each organisation's local today by default). `dryRun` writes nothing.
 */
export function runReminders(db: Db, options: RunOptions = {}): OrgRun[] {
  if (options.date !== undefined && !isValidDate(options.date)) throw ValidationFailed.field("date", "The date must be a valid date (YYYY-MM-DD).");
  const orgRows = db
    .select({ org: organizations })
    .from(organizations)
    .innerJoin(reminderPolicies, eq(reminderPolicies.organizationId, organizations.id))
    .where(and(eq(reminderPolicies.enabled, true), options.orgId ? eq(organizations.id, options.orgId) : undefined))
    .orderBy(asc(organizations.createdAt))
    .all()
    .map((r) => r.org);
  const runs: OrgRun[] = [];
  for (const row of orgRows) {
    if (options.date === undefined && options.notBeforeHour !== undefined && localHour(row.timezone) < options.notBeforeHour) continue;
    const date = options.date ?? localDate(row.timezone);
    const { plans } = snapshot(db, (tx) => planOrg(tx, row, date));
    const done: PlannedReminder[] = [];
    for (const plan of plans) {
      if (plan.problem) {
        done.push(shown(plan));
        continue;
      }
      if (options.dryRun) {
        done.push(shown(plan));
        continue;
      }
      const recorded = recordReminder(db, row, plan.invoice_id, date);
      if (recorded) done.push(recorded);
      const pause = pauseMs();
      if (pause > 0) Bun.sleepSync(pause);
    }
    runs.push({ organization_id: row.id, date, enabled: true, data: done });
  }
  return runs;
}

/**
 * Records one invoice's reminder in one transaction, planned again under the write lock (another
 * run may have recorded it, a payment may have settled the invoice since the plan): the skipped
 * levels, the reminder, its interest note, its delivery (or, manual, its event). null: nothing
 * left to do.
 */
function recordReminder(db: Db, orgRow: OrgRow, invoiceId: string, date: string): PlannedReminder | null {
  return transaction(db, (tx) => {
    const org = orgOf(orgRow);
    const policy = readPolicy(tx, org.id);
    if (!policy.enabled) return null;
    const [found] = openInvoices(tx, org.id, policy, date, invoiceId);
    if (!found) return null;
    const plan = planInvoice(tx, org, policy, found.invoice, found.customer, date);
    if (!plan || plan.problem) return null;
    const scope: Scope = { db: tx, org, actor: CLI_ACTOR };
    const now = nowIso();
    const base = {
      organizationId: org.id,
      invoiceId,
      customerId: found.customer.id,
      runDate: date,
      channel: plan.channel,
      language: plan.language,
      amountDueCents: invoiceDueCents(found.invoice),
      interestNoteId: null,
      deliveryId: null,
      createdAt: now,
    };
    for (const level of plan.skippedLevels) {
      tx.insert(reminders)
        .values({ ...base, id: newId(), level, daysAfterDue: policy.levels[level]!.days_after_due, skipped: true, interestCents: 0, compensationCents: 0 })
        .onConflictDoNothing()
        .run();
    }
    const interestCents = toCents(plan.interest)!;
    const compensationCents = toCents(plan.compensation)!;
    const id = newId();
    const inserted = tx
      .insert(reminders)
      .values({ ...base, id, level: plan.level, daysAfterDue: plan.days_after_due, skipped: false, interestCents, compensationCents })
      .onConflictDoNothing()
      .returning({ id: reminders.id })
      .get();
    if (!inserted) return null;
    if (interestCents > 0 || compensationCents > 0) {
      const note = issueInterestNote(tx, scope, invoiceId, date, {
        firstReminderAcceptedOn: plan.firstAccepted,
        interest: interestCents > 0,
        compensation: compensationCents > 0,
      });
      tx.update(reminders).set({ interestNoteId: note.id }).where(eq(reminders.id, id)).run();
    }
    let delivery: QueuedDelivery | null = null;
    if (plan.channel !== "manual") {
      delivery = enqueueDelivery(tx, org.id, { subject: "reminder", reminderId: id, invoiceId }, plan.channel, plan.recipients!);
      tx.update(reminders).set({ deliveryId: delivery.id }).where(eq(reminders.id, id)).run();
    }
    // manual: sent as it is recorded, so its event now; a delivery's when its channel accepts it
    const record = { action: "reminder.recorded", resource: { type: "reminder", id } };
    recordChange(tx, scope, delivery === null ? { ...record, ...reminderSentEvent(tx, org.id, invoiceId, id) } : record);
    return shown(plan);
  });
}

function reminderSentEvent(tx: Tx, orgId: string, invoiceId: string, reminderId: string) {
  return {
    event: "invoice.reminder_sent" as const,
    data: showInvoice(tx, orgId, invoiceId),
    links: { reminder: `/api/v1/reminders/${reminderId}`, reminder_pdf: `/api/v1/reminders/${reminderId}/pdf` },
  };
}

/**
 * The delivery worker's call when a channel accepted a reminder's delivery (in the worker's
 * transaction that marks it accepted): the event invoice.reminder_sent.
 */
export function onReminderAccepted(tx: Tx, delivery: QueuedDelivery): void {
  if (delivery.subject !== "reminder" || !delivery.reminderId || !delivery.invoiceId) return;
  const row = tx.select().from(organizations).where(eq(organizations.id, delivery.organizationId)).get();
  if (!row) return;
  const scope: Scope = { db: tx, org: orgOf(row), actor: CLI_ACTOR };
  recordChange(tx, scope, {
    action: "reminder.sent",
    resource: { type: "reminder", id: delivery.reminderId },
    ...reminderSentEvent(tx, row.id, delivery.invoiceId, delivery.reminderId),
  });
}

/** The reminders of these invoices (a page of the list): for read.ts. */
export function remindersOf(tx: Tx, orgId: string, invoiceIds: string[]) {
  return invoiceIds.length === 0 ? [] : tx.select().from(reminders).where(inOrg(reminders, orgId, inArray(reminders.invoiceId, invoiceIds))).all();
}
