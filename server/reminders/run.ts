/**
 * Reminder runs (docs/reminders.md#reminder-runs): for each organisation with an enabled policy, each open invoice and
 * the highest level of its policy that is due at the run's local date and not yet recorded.
 *
 * Exactly once: reminders are recorded a few at a time (RECORD_BATCH) in a transaction of their
 * own (SQLite's write lock), which reads the invoices' recorded levels again before it inserts, and
 * the UNIQUE (invoice_id, level) key is the backstop. Two runs at once therefore record each level
 * once between them, and a run killed midway has committed whole reminders only: the next run
 * records the rest. The reminder, its interest note and its queued delivery commit together; the
 * delivery then follows the sending outbox's own guarantee.
 *
 * In bounded memory (docs/reminders.md#runs-at-scale): the open invoices are walked in keyset
 * batches (RUN_BATCH, by due date and id), what a batch already has is read in one query per
 * table, and nothing is rendered: a letter's PDF, its interest note's PDF and e-invoice are drawn
 * when the outbox sends them (or, manual, when someone downloads them).
 */
import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { awaitingPayment, customers, invoices, organizations, reminderPolicies, reminders } from "../../db/schema.ts";
import type { DatePeriod, DeliveryRecipients, DocumentLanguage, ReminderLevel, ReminderNoteDue, SendChannel } from "../../db/values.ts";
import { recordChange } from "../changes/record.ts";
import { computeClaim, readClaimInput, type ClaimInput } from "../interest/claim.ts";
import { firstRemindersAcceptedOn, issueInterestNote } from "../interest/note.ts";
import { showInvoice } from "../invoices/read.ts";
import { deliveryAccepted, markSent, peppolSetupProblems, preferredChannel, queueSend } from "../invoices/deliveries.ts";
import type { Logger } from "../log.ts";
import { ValidationFailed } from "../lib/errors.ts";
import { formatCents, toCents } from "../lib/money.ts";
import { findInOrg, inOrg, snapshot, unitOfWork, type Organization, type Scope } from "../lib/scope.ts";
import { addDays, isValidDate, localDate, localHour, newId, nowIso } from "../lib/time.ts";
import { CLI_ACTOR } from "../orgs/service.ts";
import { enqueueDelivery, type QueuedDelivery } from "../changes/deliveries.ts";
import { invoiceDueCents } from "../settlement/due.ts";
import type { PlannedReminder } from "./model.ts";
import { readPolicy, type ReminderPolicy } from "./policy.ts";
import { totalToPayCents } from "./read.ts";
import { firstRow } from "../../db/client.ts";

type InvoiceRow = typeof invoices.$inferSelect;
type CustomerRow = typeof customers.$inferSelect;

/**
 * `notBeforeHour`: the schedule's, skip the organisations whose local time is before this hour (and
 * `date` unset). `log`: where a reminder recorded with a problem (a period without a statutory
 * rate) is reported as a warning.
 */
export type RunOptions = {
  date?: string;
  dryRun?: boolean;
  orgId?: string;
  notBeforeHour?: number;
  log?: Pick<Logger, "warn">;
  /** only the counts (`recorded`), no `data`: the daily schedule's, whose memory stays that of one batch however many it records */
  countOnly?: boolean;
  /** invoices read at a time (RUN_BATCH); tests lower it to cross a batch's boundary with few invoices */
  batchSize?: number;
  /** reminders recorded per transaction (RECORD_BATCH) */
  recordBatch?: number;
};
/** One organisation's run: its local date and what was (or, dry, would be) sent. */
export type OrgRun = { organization_id: string; date: string; enabled: boolean; data: PlannedReminder[] };
/** A run's organisation: also how many reminders it recorded (0 when dry). */
export type OrgRunResult = OrgRun & { recorded: number };

/** Book XIX: a consumer may be charged nothing before the 15th day after the first reminder was accepted (the 14 days run from the day after). */
const CONSUMER_TERM_DAYS = 14;

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

/** `blocked`: it cannot go (no e-mail address) and is not recorded; a missing rate does not block it. */
type Plan = PlannedReminder & {
  skippedLevels: number[];
  recipients: DeliveryRecipients | null;
  firstAccepted: string | null;
  levelRow: ReminderLevel;
  blocked: boolean;
  earlierNotes: ReminderNoteDue[];
  claimInput: ClaimInput | null;
};

/**
 * The invoices' interest notes still open (issued, something due), oldest first, by invoice, in
 * one query: the letter asks for them with the invoice, one total that one bank line carrying the
 * invoice's payment reference pays (docs/banking.md#suspense: an invoice and its interest notes paid by one line).
 */
export async function openInterestNotes(tx: Tx, orgId: string, invoiceIds: readonly string[]): Promise<Map<string, ReminderNoteDue[]>> {
  const byInvoice = new Map<string, ReminderNoteDue[]>();
  if (invoiceIds.length === 0) return byInvoice;
  const rows = await tx
    .select()
    .from(invoices)
    .where(inOrg(invoices, orgId, awaitingPayment, inArray(invoices.relatedInvoiceId, [...invoiceIds]), eq(invoices.type, "interest_note")))
    .orderBy(asc(invoices.issueDate), asc(invoices.id));
  for (const note of rows) {
    const due = invoiceDueCents(note);
    if (due <= 0) continue;
    const list = byInvoice.get(note.relatedInvoiceId!) ?? [];
    list.push({ id: note.id, number: note.number, issue_date: note.issueDate, amount_due_cents: due });
    byInvoice.set(note.relatedInvoiceId!, list);
  }
  return byInvoice;
}

/**
 * What a batch of invoices already has, read in one query each rather than one per invoice: the
 * levels recorded (skipped ones too), the date the first reminder was accepted (Book XIX), the
 * interest notes still open.
 */
type Known = { recorded: Map<string, number[]>; firstAccepted: Map<string, string | null>; notes: Map<string, ReminderNoteDue[]> };

async function readKnown(tx: Tx, orgId: string, invoiceIds: readonly string[]): Promise<Known> {
  const recorded = new Map<string, number[]>();
  if (invoiceIds.length > 0) {
    const rows = await tx
      .select({ invoiceId: reminders.invoiceId, level: reminders.level })
      .from(reminders)
      .where(inOrg(reminders, orgId, inArray(reminders.invoiceId, [...invoiceIds])));
    for (const r of rows) recorded.set(r.invoiceId, [...(recorded.get(r.invoiceId) ?? []), r.level]);
  }
  return { recorded, firstAccepted: await firstRemindersAcceptedOn(tx, orgId, invoiceIds), notes: await openInterestNotes(tx, orgId, invoiceIds) };
}

/** What a run says of days without a statutory rate: the reminder goes, those days are not charged yet. */
export function missingRateProblem(country: string, missing: readonly DatePeriod[]): string | null {
  if (missing.length === 0) return null;
  const days = missing.map((m) => (m.from === m.to ? m.from : `${m.from} to ${m.to}`)).join(", ");
  return `No statutory interest rate for ${country} covers ${days}: no interest is charged for those days until the published rate is added (kontor rates add --country ${country} --from … --to … --rate … --source …; see kontor rates add --help).`;
}

/**
 * What is due for one invoice at `date`: the highest level due and not yet recorded (earlier
 * levels due at the same time are skipped: one letter, the latest, rather than a pile), or null.
 * A level before the due date is not sent once the due date has passed.
 */
async function planInvoice(tx: Tx, org: Organization & { language: DocumentLanguage }, policy: ReminderPolicy, invoice: InvoiceRow, customer: CustomerRow, date: string, known: Known): Promise<Plan | null> {
  const recorded = known.recorded.get(invoice.id) ?? [];
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
  let missingRates: DatePeriod[] = [];
  // read once: the interest note the reminder issues in the same transaction charges from it
  let claimInput: ClaimInput | null = null;
  const level = top.level;
  // only late payment is charged for: never with a level on or before the due date
  if ((level.charge_interest || level.charge_compensation) && level.days_after_due > 0) {
    firstAccepted = known.firstAccepted.get(invoice.id) ?? null;
    claimInput = await readClaimInput(tx, org.id, invoice.id, date, { firstReminderAcceptedOn: firstAccepted });
    const claim = computeClaim(claimInput).claim;
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
      // interest it would charge for days no rate covers: never silently nothing
      if (level.charge_interest) missingRates = claim.missing_rates;
    }
  }
  const earlierNotes = known.notes.get(invoice.id) ?? [];
  const amountDueCents = invoiceDueCents(invoice);
  const total = totalToPayCents({ amountDueCents, earlierNotes, interestCents, compensationCents });
  const problems = [problem, missingRateProblem(org.country, missingRates)].filter((p): p is string => p !== null);
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
    amount_due: formatCents(amountDueCents),
    interest: formatCents(interestCents),
    compensation: formatCents(compensationCents),
    total_to_pay: formatCents(total),
    first_reminder_accepted_on: firstAccepted,
    charges_withheld_until: withheldUntil,
    missing_rates: missingRates,
    problem: problems.length > 0 ? problems.join(" ") : null,
    skippedLevels,
    recipients,
    firstAccepted,
    levelRow: level,
    blocked: problem !== null,
    earlierNotes,
    claimInput,
  };
}

/** Where a walk through the open invoices is: the last one read, by the walk's order (due date, id). */
export type RunPosition = { dueDate: string; id: string };

/** How many open invoices a run reads, plans and lets go of at a time: its memory is this batch's, whatever the count. */
export const RUN_BATCH = 500;
/**
 * How many reminders one write transaction records: planned again together under the write lock,
 * which is held for a few tens of milliseconds at most, so that the API's writes wait little.
 */
export const RECORD_BATCH = 50;

/**
 * The invoices a run may remind of: open, something due, not paused, nor their customer; due
 * early enough for the policy's first level. In (due date, id) order, `limit` of them after
 * `after` (a keyset walk: each batch starts where the last one ended, on the index).
 */
async function openInvoices(
  tx: Tx,
  orgId: string,
  policy: ReminderPolicy,
  date: string,
  page: { invoiceIds?: string[]; after?: RunPosition | null; limit?: number },
): Promise<{ invoice: InvoiceRow; customer: CustomerRow }[]> {
  if (policy.levels.length === 0) return [];
  const earliest = Math.min(...policy.levels.map((l) => l.days_after_due));
  const query = tx
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
        page.invoiceIds === undefined ? undefined : inArray(invoices.id, page.invoiceIds),
        page.after ? sql`(${invoices.dueDate}, ${invoices.id}) > (${page.after.dueDate}, ${page.after.id})` : undefined,
      ),
    )
    .orderBy(asc(invoices.dueDate), asc(invoices.id));
  return page.limit === undefined ? (await query) : (await query.limit(page.limit));
}

type OrgRow = typeof organizations.$inferSelect;
const orgOf = (row: OrgRow): Organization & { language: DocumentLanguage; timezone: string } => ({
  id: row.id, name: row.name, currency: row.currency, country: row.country, apiAccess: row.apiAccess, language: row.language, timezone: row.timezone,
});

/**
 * One batch of an organisation's run: the next `limit` open invoices after `after`, what they
 * already have read for the whole batch, and the reminders due. `last`: where the next batch
 * starts; null when no invoice was left.
 */
async function planBatch(tx: Tx, row: OrgRow, date: string, after: RunPosition | null, limit: number): Promise<{ policy: ReminderPolicy; plans: Plan[]; last: RunPosition | null }> {
  const org = orgOf(row);
  const policy = await readPolicy(tx, org.id);
  const batch = await openInvoices(tx, org.id, policy, date, { after, limit });
  const known = await readKnown(tx, org.id, batch.map((b) => b.invoice.id));
  const plans: Plan[] = [];
  for (const { invoice, customer } of batch) {
    const plan = await planInvoice(tx, org, policy, invoice, customer, date, known);
    if (plan) plans.push(plan);
  }
  const end = batch.at(-1)?.invoice;
  return { policy, plans, last: end && batch.length === limit ? { dueDate: end.dueDate, id: end.id } : null };
}

const shown = ({ skippedLevels: _s, recipients: _r, firstAccepted: _f, levelRow: _l, blocked: _b, earlierNotes: _e, claimInput: _c, ...planned }: Plan): PlannedReminder => planned;

/** The preview's page: at most PREVIEW_LIMIT reminders unless asked for fewer. */
export const PREVIEW_LIMIT = 1000;
export type PreviewPage = { limit?: number; after?: string; batchSize?: number };
/** The preview's cursor: where the next page's walk starts, opaque to the client. */
const encodePosition = (p: RunPosition) => Buffer.from(`${p.dueDate}|${p.id}`).toString("base64url");
function decodePosition(cursor: string): RunPosition {
  const [dueDate, id] = Buffer.from(cursor, "base64url").toString().split("|");
  if (!dueDate || !id || !isValidDate(dueDate)) throw ValidationFailed.field("after", "The after field must be a preview's next_after, as it was given.");
  return { dueDate, id };
}

/**
 * `GET /reminders/preview?date=`: what a run at `date` would send for this organisation; nothing
 * is written. At most `limit` reminders (PREVIEW_LIMIT by default), read in batches: `next_after`
 * says where the next page starts (send it back as `after`), null when it is the last.
 */
export async function previewReminders(scope: Scope, date?: string, page: PreviewPage = {}): Promise<OrgRun & { next_after: string | null }> {
  if (date !== undefined && !isValidDate(date)) throw ValidationFailed.field("date", "The date field must be a valid date (YYYY-MM-DD).");
  const limit = Math.min(page.limit ?? PREVIEW_LIMIT, PREVIEW_LIMIT);
  const batchSize = page.batchSize ?? RUN_BATCH;
  let after = page.after === undefined || page.after === "" ? null : decodePosition(page.after);
  return await snapshot(scope.db, async (tx) => {
    const row = (await firstRow(tx.select().from(organizations).where(eq(organizations.id, scope.org.id))))!;
    const runDate = date ?? localDate(row.timezone);
    const data: PlannedReminder[] = [];
    let enabled = false;
    for (;;) {
      // a batch no larger than what the page still holds: a page ends on the invoice of its last reminder
      const { policy, plans, last } = await planBatch(tx, row, runDate, after, Math.min(batchSize, limit - data.length));
      enabled = policy.enabled;
      for (const plan of plans) data.push(shown(plan));
      after = last;
      if (last === null || data.length >= limit) break;
    }
    return { organization_id: row.id, date: runDate, enabled, data, next_after: after === null ? null : encodePosition(after) };
  });
}

/** A test's hook: a pause between reminders, so a test can kill a run midway (KONTOR_TEST_REMINDER_PAUSE_MS). */
const pauseMs = () => Number(process.env.KONTOR_TEST_REMINDER_PAUSE_MS ?? 0);

/**
 * Runs the reminder policies: every organisation with an enabled one (or `orgId`'s), at
 * `date` (each organisation's local today by default). `dryRun` writes nothing.
 */
export async function runReminders(db: Db, options: RunOptions = {}): Promise<OrgRunResult[]> {
  if (options.date !== undefined && !isValidDate(options.date)) throw ValidationFailed.field("date", "The date must be a valid date (YYYY-MM-DD).");
  const orgRows = (await db
    .select({ org: organizations })
    .from(organizations)
    .innerJoin(reminderPolicies, eq(reminderPolicies.organizationId, organizations.id))
    .where(and(eq(reminderPolicies.enabled, true), options.orgId ? eq(organizations.id, options.orgId) : undefined))
    .orderBy(asc(organizations.createdAt)))
    .map((r) => r.org);
  const runs: OrgRunResult[] = [];
  for (const row of orgRows) {
    if (options.date === undefined && options.notBeforeHour !== undefined && localHour(row.timezone) < options.notBeforeHour) continue;
    const date = options.date ?? localDate(row.timezone);
    const done: PlannedReminder[] = [];
    const keep = options.countOnly !== true;
    const pause = pauseMs();
    // the tests' pause hook records one reminder a transaction, so that a kill falls between two commits
    const recordBatch = options.recordBatch ?? (pause > 0 ? 1 : RECORD_BATCH);
    let count = 0;
    // a batch at a time, each planned in a read snapshot of its own and let go of once recorded
    let after: RunPosition | null = null;
    do {
      const batch = await snapshot(db, (tx) => planBatch(tx, row, date, after, options.batchSize ?? RUN_BATCH));
      after = batch.last;
      const toRecord: string[] = [];
      for (const plan of batch.plans) {
        if (plan.blocked || options.dryRun) {
          if (keep) done.push(shown(plan));
        } else toRecord.push(plan.invoice_id);
      }
      for (let i = 0; i < toRecord.length; i += recordBatch) {
        for (const recorded of await recordReminders(db, row, toRecord.slice(i, i + recordBatch), date)) {
          if (keep) done.push(recorded);
          count++;
          if (recorded.missing_rates.length > 0) {
            options.log?.warn("reminder charges no interest for days without a statutory rate", {
              organization_id: row.id,
              invoice: recorded.invoice_number,
              level: recorded.level,
              missing_rates: recorded.missing_rates.map((m) => `${m.from}..${m.to}`).join(", "),
              problem: recorded.problem,
            });
          }
        }
        if (pause > 0) Bun.sleepSync(pause);
      }
    } while (after !== null);
    runs.push({ organization_id: row.id, date, enabled: true, data: done, recorded: count });
  }
  return runs;
}

/**
 * Records the reminders of these invoices in one transaction, planned again under the write lock
 * (another run may have recorded one, a payment may have settled an invoice since the plan), with
 * what they already have read once for all of them: for each, the skipped levels, the reminder,
 * its interest note, its delivery (or, manual, its event). Returns those recorded.
 */
async function recordReminders(db: Db, orgRow: OrgRow, invoiceIds: string[], date: string): Promise<PlannedReminder[]> {
  return await unitOfWork(db, async (tx) => {
    const org = orgOf(orgRow);
    const policy = await readPolicy(tx, org.id);
    if (!policy.enabled) return [];
    const found = await openInvoices(tx, org.id, policy, date, { invoiceIds });
    const known = await readKnown(tx, org.id, invoiceIds);
    const recorded: PlannedReminder[] = [];
    // one after the other: each sees what the one before recorded
    for (const { invoice, customer } of found) {
      const plan = await planInvoice(tx, org, policy, invoice, customer, date, known);
      const reminder = plan && !plan.blocked ? await recordOne(tx, org, policy, plan, invoice, customer, date) : null;
      if (reminder) recorded.push(reminder);
    }
    return recorded;
  });
}

/** One reminder of a plan, in the caller's transaction; null when its level is recorded already. */
async function recordOne(tx: Tx, org: ReturnType<typeof orgOf>, policy: ReminderPolicy, plan: Plan, invoice: InvoiceRow, customer: CustomerRow, date: string): Promise<PlannedReminder | null> {
  const invoiceId = invoice.id;
  const scope: Scope = { db: tx, org, actor: CLI_ACTOR };
  const now = nowIso();
  const base = {
    organizationId: org.id,
    invoiceId,
    customerId: customer.id,
    runDate: date,
    channel: plan.channel,
    language: plan.language,
    amountDueCents: invoiceDueCents(invoice),
    interestNoteId: null,
    deliveryId: null,
    createdAt: now,
    earlierNotes: [] as ReminderNoteDue[],
    missingRates: [] as DatePeriod[],
  };
  for (const level of plan.skippedLevels) {
    await tx.insert(reminders)
      .values({ ...base, id: newId(), level, daysAfterDue: policy.levels[level]!.days_after_due, skipped: true, interestCents: 0, compensationCents: 0 })
      .onConflictDoNothing();
  }
  const interestCents = toCents(plan.interest)!;
  const compensationCents = toCents(plan.compensation)!;
  const id = newId();
  const inserted = await firstRow(tx
    .insert(reminders)
    .values({ ...base, id, level: plan.level, daysAfterDue: plan.days_after_due, skipped: false, interestCents, compensationCents, earlierNotes: plan.earlierNotes, missingRates: plan.missing_rates })
    .onConflictDoNothing()
    .returning({ id: reminders.id }));
  if (!inserted) return null;
  let noteId: string | null = null;
  if (interestCents > 0 || compensationCents > 0) {
    // recorded only: its PDF and e-invoice are rendered when the outbox sends it, with the reminder
    noteId = (
      await issueInterestNote(tx, scope, invoiceId, date, {
        firstReminderAcceptedOn: plan.firstAccepted,
        // planned in this transaction: the claim the reminder charges is the note's
        input: plan.claimInput ?? undefined,
        interest: interestCents > 0,
        compensation: compensationCents > 0,
      })
    ).id;
    await tx.update(reminders).set({ interestNoteId: noteId }).where(eq(reminders.id, id));
  }
  let delivery: QueuedDelivery | null = null;
  if (plan.channel !== "manual") {
    delivery = await enqueueDelivery(tx, org.id, { subject: "reminder", reminderId: id, invoiceId }, plan.channel, plan.recipients!);
    await tx.update(reminders).set({ deliveryId: delivery.id }).where(eq(reminders.id, id));
    if (noteId !== null) await queueNoteOverPeppol(tx, scope, customer, noteId);
  } else if (noteId !== null) {
    // a manual reminder is sent as recorded, its interest note with it (printed beside the letter)
    await markSent(tx, org.id, await findInOrg(tx, invoices, org.id, noteId), now);
    await recordChange(tx, scope, { action: "invoice.sent", resource: { type: "invoice", id: noteId }, event: "invoice.sent", data: await showInvoice(tx, org.id, noteId) });
  }
  // manual: sent as it is recorded, so its event now; a delivery's when its channel accepts it
  const record = { action: "reminder.recorded", resource: { type: "reminder", id } };
  // the event's reminder as just written (read back, it is the same row)
  const written: SentReminder = { id, level: plan.level, interestNoteId: noteId, interestCents, compensationCents, amountDueCents: base.amountDueCents, earlierNotes: plan.earlierNotes, missingRates: plan.missing_rates };
  await recordChange(tx, scope, delivery === null ? { ...record, ...await reminderSentEvent(tx, org, invoiceId, written) } : record);
  return shown(plan);
}

/**
 * A Peppol customer (its preferred channel resolves to Peppol) receives the interest note over
 * Peppol too, as a delivery of its own: an interest note travels as an invoice. Only when the
 * organisation has an access point and a Peppol id of its own; without them the reminder's e-mail
 * carries the note and its UBL.
 */
async function queueNoteOverPeppol(tx: Tx, scope: Scope, customer: CustomerRow, noteId: string): Promise<void> {
  if (preferredChannel(customer) !== "peppol") return;
  const org = (await firstRow(tx.select().from(organizations).where(eq(organizations.id, scope.org.id))))!;
  if (Object.keys(peppolSetupProblems(org)).length > 0) return;
  await queueSend(tx, scope, noteId, { channel: "peppol" }, { email: true });
}

/**
 * The event's data: the invoice, and the reminder that was sent (its level, the interest note it
 * issued, the total it asks, and the days it could not charge for want of a statutory rate).
 */
type SentReminder = Pick<typeof reminders.$inferSelect, "id" | "level" | "interestNoteId" | "interestCents" | "compensationCents" | "amountDueCents" | "earlierNotes" | "missingRates">;

async function reminderSentEvent(tx: Tx, org: Pick<Organization, "id" | "country">, invoiceId: string, reminder: SentReminder) {
  const orgId = org.id;
  const country = org.country;
  const reminderId = reminder.id;
  const total = totalToPayCents(reminder);
  return {
    event: "invoice.reminder_sent" as const,
    data: {
      ...await showInvoice(tx, orgId, invoiceId),
      reminder: {
        id: reminder.id,
        level: reminder.level,
        interest_note_id: reminder.interestNoteId,
        interest: formatCents(reminder.interestCents),
        compensation: formatCents(reminder.compensationCents),
        total_to_pay: formatCents(total),
        missing_rates: reminder.missingRates,
        problem: missingRateProblem(country, reminder.missingRates),
      },
    },
    links: { reminder: `/api/v1/reminders/${reminderId}`, reminder_pdf: `/api/v1/reminders/${reminderId}/pdf` },
  };
}

/**
 * The delivery worker's call when a channel accepted a reminder's delivery (in the worker's
 * transaction that marks it accepted): the event invoice.reminder_sent.
 */
export async function onReminderAccepted(tx: Tx, delivery: QueuedDelivery): Promise<void> {
  if (delivery.subject !== "reminder" || !delivery.reminderId || !delivery.invoiceId) return;
  const row = await firstRow(tx.select().from(organizations).where(eq(organizations.id, delivery.organizationId)));
  if (!row) return;
  const scope: Scope = { db: tx, org: orgOf(row), actor: CLI_ACTOR };
  // the interest note went with it, attached: sent as an invoice is (a finalized one becomes sent)
  const noteId = (await firstRow(tx.select({ id: reminders.interestNoteId }).from(reminders).where(eq(reminders.id, delivery.reminderId))))?.id;
  if (noteId) await deliveryAccepted(tx, scope, noteId);
  await recordChange(tx, scope, {
    action: "reminder.sent",
    resource: { type: "reminder", id: delivery.reminderId },
    ...await reminderSentEvent(tx, scope.org, delivery.invoiceId, (await firstRow(tx.select().from(reminders).where(eq(reminders.id, delivery.reminderId))))!),
  });
}
