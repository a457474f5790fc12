/**
 * What a reminder charges and when it goes (docs/reminders.md#reminder-runs), each figure worked
 * out by hand from the law: Belgium's statutory rate is 10.50 % for the second half of 2025
 * (server/interest/rates-be.ts), actual/365, interest from the day after the due date; the fixed
 * €40 once per invoice for a business customer; for a consumer (Book XIX) nothing before the day
 * after the 14-day term of the first reminder, then the damages at their cap and no €40.
 *
 * Every invoice is 1000.00 without VAT (a line without a VAT rate), issued 1 October 2025 and due
 * 15 October 2025; the runs are dated in 2025, as a real one is (an interest note is never dated
 * after today).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLog, documentDeliveries, events, invoices, organizations, reminders } from "../../db/schema.ts";
import { localHour } from "../../server/lib/time.ts";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { snapshot, unitOfWork } from "../../server/lib/scope.ts";
import { missingRateProblem, onReminderAccepted, openInterestNotes, previewReminders, runReminders } from "../../server/reminders/run.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { createTestEnv } from "../helpers.ts";
import { firstRow } from "../../db/client.ts";

const env = await createTestEnv();
afterAll(() => env.close());

type Org = Awaited<ReturnType<typeof env.newOrg>>;
type Level = { days_after_due: number; charge_interest: boolean; charge_compensation: boolean };
const level = (days_after_due: number, charge_interest = false, charge_compensation = charge_interest): Level => ({ days_after_due, charge_interest, charge_compensation });

async function call(org: Org, method: string, path: string, body?: unknown, status = 200) {
  const r = await env.api(method, path, body, org.token);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBe(status);
  return r.body?.data ?? r.body;
}

/** An organisation of its own (Belgian unless said), its policy, and one customer (a VAT number: a business). */
async function setup(levels: Level[], options: { channel?: string; vat?: boolean; country?: string; email?: boolean } = {}) {
  const org = await env.newOrg(undefined, { country: options.country ?? "BE", currency: "EUR" });
  await call(org, "PUT", "/api/v1/reminder-policy", { enabled: true, channel: options.channel ?? "manual", levels });
  const customer = await call(org, "POST", "/api/v1/customers", {
    name: options.vat === false ? "Jan Peeters" : "Brasserie Dupont SA",
    country: "BE",
    ...(options.vat === false ? {} : { vat_number: "BE0404795549" }),
    ...(options.email === false ? {} : { email: "ap@dupont.test" }),
  }, 201);
  return { org, customer };
}
/** 1000.00 without VAT, issued 2025-10-01, due 2025-10-15 (unless said), finalized. */
async function invoice(org: Org, customerId: string, dueDate = "2025-10-15", extra: Record<string, unknown> = {}) {
  const draft = await call(org, "POST", "/api/v1/invoices", { customer_id: customerId, issue_date: "2025-10-01", due_date: dueDate, lines: [{ description: "Work", quantity: "1", unit_price: "1000.00" }], ...extra }, 201);
  return call(org, "POST", `/api/v1/invoices/${draft.id}/finalize`);
}
const run = async (org: Org, date: string, extra: { dryRun?: boolean } = {}) => await runReminders(env.db, { date, orgId: org.org.id, ...extra });
const planned = async (org: Org, date: string) => (await previewReminders({ db: env.db, org: org.org, actor: CLI_ACTOR }, date)).data;
const rows = async (invoiceId: string) => (await env.db.select().from(reminders).where(eq(reminders.invoiceId, invoiceId))).sort((a, b) => a.level - b.level);
const audited = async (org: Org, resourceId: string) => (await env.db.select().from(auditLog).where(and(eq(auditLog.organizationId, org.org.id), eq(auditLog.resourceId, resourceId)))).map((a) => [a.action, a.resourceType]);
const eventsOf = async (org: Org, type: string) => await env.db.select().from(events).where(and(eq(events.organizationId, org.org.id), eq(events.type, type)));

describe("business customer: interest from the day after the due date, the €40 once", () => {
  test("no charge at a level on or before the due date, even when the level says so", async () => {
    const { org, customer } = await setup([level(-3, true), level(0, true), level(24, true)]);
    const inv = await invoice(org, customer.id);
    // 12 October: three days before the due date; 15 October: the due date itself
    expect((await run(org, "2025-10-12"))[0]!.data.map((p) => [p.level, p.interest, p.compensation, p.total_to_pay])).toEqual([[0, "0.00", "0.00", "1000.00"]]);
    expect((await run(org, "2025-10-15"))[0]!.data.map((p) => [p.level, p.interest, p.compensation, p.total_to_pay])).toEqual([[1, "0.00", "0.00", "1000.00"]]);
    expect((await rows(inv.id)).map((r) => [r.level, r.interestNoteId])).toEqual([[0, null], [1, null]]);
    expect(await env.db.select().from(invoices).where(eq(invoices.relatedInvoiceId, inv.id))).toEqual([]);
  });

  test("+24 charges the interest of the 24 days since the due date and the €40; +45 the interest since, once", async () => {
    const { org, customer } = await setup([level(7), level(24, true, true), level(45, true, false), level(60, true, false)]);
    const inv = await invoice(org, customer.id);
    // 8 November = 15 October + 24; interest 16 October–8 November: 16 + 8 = 24 days on 1000.00 at 10.50 %:
    // 100000 × 1050 × 24 / 3 650 000 = 690.41 cents → 6.90; compensation 40.00; total 1000.00 + 6.90 + 40.00
    const second = (await run(org, "2025-11-08"))[0]!;
    expect(second.recorded).toBe(1);
    expect(second.data.map((p) => [p.level, p.skipped_levels, p.customer_type, p.interest, p.compensation, p.total_to_pay, p.charges_withheld_until])).toEqual([
      [1, [0], "organization", "6.90", "40.00", "1046.90", null],
    ]);
    const [skipped, charged] = await rows(inv.id);
    // the skipped +7 is recorded as skipped, with its own days and no charge
    expect([skipped!.level, skipped!.skipped, skipped!.daysAfterDue, skipped!.interestCents, skipped!.compensationCents, skipped!.deliveryId]).toEqual([0, true, 7, 0, 0, null]);
    expect([charged!.level, charged!.skipped, charged!.daysAfterDue, charged!.interestCents, charged!.compensationCents, charged!.amountDueCents, charged!.runDate]).toEqual([1, false, 24, 690, 4000, 100000, "2025-11-08"]);
    // its interest note: the interest line and the compensation, 46.90; manual: sent with the letter
    const note = (await firstRow(env.db.select().from(invoices).where(eq(invoices.id, charged!.interestNoteId!))))!;
    expect([note.type, note.relatedInvoiceId, note.totalCents, note.compensationCents, note.status]).toEqual(["interest_note", inv.id, 4690, 4000, "sent"]);
    expect((await eventsOf(org, "invoice.sent")).map((e) => [e.resourceId, e.resourceType])).toEqual([[note.id, "invoice"]]);
    expect(await audited(org, note.id)).toContainEqual(["invoice.sent", "invoice"]);
    expect(await audited(org, charged!.id)).toEqual([["reminder.recorded", "reminder"]]);
    // manual: the event at once, with what the letter asks
    const [event] = await eventsOf(org, "invoice.reminder_sent");
    expect(event!.resourceId).toBe(inv.id);
    expect(JSON.parse(event!.data).reminder).toEqual({ id: charged!.id, level: 1, interest_note_id: note.id, interest: "6.90", compensation: "40.00", total_to_pay: "1046.90", missing_rates: [], problem: null });
    expect(event!.links).toEqual({ reminder: `/api/v1/reminders/${charged!.id}`, reminder_pdf: `/api/v1/reminders/${charged!.id}/pdf` });

    // 29 November = +45, interest only: 16 October–29 November = 45 days: 100000 × 1050 × 45 / 3 650 000 = 1294.52 → 12.95,
    // less the 6.90 charged: 6.05; no compensation (this level charges none, and it was charged);
    // the letter asks for the open note too: 1000.00 + 46.90 + 6.05
    const third = (await run(org, "2025-11-29"))[0]!.data;
    expect(third.map((p) => [p.level, p.skipped_levels, p.interest, p.compensation, p.total_to_pay])).toEqual([[2, [], "6.05", "0.00", "1052.95"]]);
    const last = (await rows(inv.id))[2]!;
    expect([last.interestCents, last.compensationCents, last.earlierNotes.map((n) => [n.id, n.amount_due_cents])]).toEqual([605, 0, [[note.id, 4690]]]);
    const secondNote = (await firstRow(env.db.select().from(invoices).where(eq(invoices.id, last.interestNoteId!))))!;
    expect([secondNote.totalCents, secondNote.compensationCents ?? 0]).toEqual([605, 0]);

    // 14 December = +60: 16 October–14 December = 16 + 30 + 14 = 60 days: 100000 × 1050 × 60 / 3 650 000 = 1726.03 → 17.26,
    // less 12.95 charged: 4.31; both notes still open, the oldest first: 1000.00 + 46.90 + 6.05 + 4.31
    // (the first note's 40.00 is paid meanwhile: only what is still due on it is asked)
    await call(org, "POST", `/api/v1/invoices/${note.id}/record-payment`, { amount: "40.00", payment_date: "2025-12-01" }, 201);
    expect((await run(org, "2025-12-14"))[0]!.data.map((p) => [p.level, p.interest, p.total_to_pay])).toEqual([[3, "4.31", "1017.26"]]);
    expect((await rows(inv.id))[3]!.earlierNotes.map((n) => [n.id, n.amount_due_cents])).toEqual([[note.id, 690], [secondNote.id, 605]]);
    // a note paid in full is no longer asked for; the +60 reminder's own note (4.31) is
    const thirdNote = (await rows(inv.id))[3]!.interestNoteId;
    await call(org, "POST", `/api/v1/invoices/${note.id}/record-payment`, { amount: "6.90", payment_date: "2025-12-15" }, 201);
    expect((await (await snapshot(env.db, (tx) => openInterestNotes(tx, org.org.id, [inv.id]))).get(inv.id) ?? []).map((n) => [n.id, n.number, n.amount_due_cents])).toEqual([[secondNote.id, secondNote.number, 605], [thirdNote, expect.any(String), 431]]);
  });

  test("a level charging the compensation only: the €40 and no interest, the note without an interest line", async () => {
    const { org, customer } = await setup([level(24, false, true)]);
    const inv = await invoice(org, customer.id);
    expect((await run(org, "2025-11-08"))[0]!.data.map((p) => [p.interest, p.compensation, p.total_to_pay])).toEqual([["0.00", "40.00", "1040.00"]]);
    const note = await call(org, "GET", `/api/v1/invoices/${(await rows(inv.id))[0]!.interestNoteId}`);
    expect(note.lines.map((l: any) => l.amount)).toEqual(["40.00"]);
  });

  test("a level charging the interest only: no €40", async () => {
    const { org, customer } = await setup([level(24, true, false)]);
    const inv = await invoice(org, customer.id);
    expect((await run(org, "2025-11-08"))[0]!.data.map((p) => [p.interest, p.compensation, p.total_to_pay])).toEqual([["6.90", "0.00", "1006.90"]]);
    const note = await call(org, "GET", `/api/v1/invoices/${(await rows(inv.id))[0]!.interestNoteId}`);
    expect(note.lines.map((l: any) => l.amount)).toEqual(["6.90"]);
  });

  test("the customer type is the buyer's at issue: a VAT number removed later still makes a business", async () => {
    const { org, customer } = await setup([level(24, true)]);
    await invoice(org, customer.id);
    await call(org, "PUT", `/api/v1/customers/${customer.id}`, { vat_number: null });
    expect((await planned(org, "2025-11-08")).map((p) => [p.customer_type, p.compensation])).toEqual([["organization", "40.00"]]);
  });

  test("partly paid before the due date: interest and total on what is still due", async () => {
    const { org, customer } = await setup([level(24, true)]);
    const inv = await invoice(org, customer.id);
    await call(org, "POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "600.00", payment_date: "2025-10-10" }, 201);
    // 24 days on 400.00: 40000 × 1050 × 24 / 3 650 000 = 276.16 → 2.76; total 400.00 + 2.76 + 40.00
    expect((await planned(org, "2025-11-08")).map((p) => [p.amount_due, p.interest, p.compensation, p.total_to_pay])).toEqual([["400.00", "2.76", "40.00", "442.76"]]);
  });
});

describe("consumer (Book XIX): nothing before the first reminder's term has run", () => {
  /** What the delivery worker does when the channel accepted the reminder's e-mail. */
  async function accept(invoiceId: string, level: number, acceptedAt: string) {
    await unitOfWork(env.db, async (tx) => {
      const reminder = (await firstRow(tx.select().from(reminders).where(and(eq(reminders.invoiceId, invoiceId), eq(reminders.level, level)))))!;
      const delivery = (await firstRow(tx.update(documentDeliveries).set({ status: "accepted", acceptedAt }).where(eq(documentDeliveries.id, reminder.deliveryId!)).returning()))!;
      await onReminderAccepted(tx, delivery);
    });
  }

  test("withheld until the day after the term, then the interest from that day and the damages at their cap, no €40", async () => {
    const { org, customer } = await setup([level(7), level(14), level(24, true), level(45, true)], { channel: "email", vat: false });
    const inv = await invoice(org, customer.id);
    await run(org, "2025-10-22");
    // no charge before the first reminder is accepted: nothing is known of its term
    expect((await planned(org, "2025-11-08")).map((p) => [p.level, p.first_reminder_accepted_on, p.charges_withheld_until, p.interest, p.compensation])).toEqual([[2, null, null, "0.00", "0.00"]]);
    // accepted Friday 24 October (noon in Brussels): the term runs from Monday 27 October, 14 days, to 9 November; charges from the 10th
    await accept(inv.id, 0, "2025-10-24T11:00:00.000000Z");
    // a level that charges nothing says nothing of the term
    expect((await planned(org, "2025-10-29")).map((p) => [p.level, p.first_reminder_accepted_on, p.charges_withheld_until])).toEqual([[1, null, null]]);
    expect((await planned(org, "2025-11-08")).map((p) => [p.level, p.customer_type, p.first_reminder_accepted_on, p.charges_withheld_until, p.interest, p.compensation])).toEqual([
      [2, "individual", "2025-10-24", "2025-11-10", "0.00", "0.00"],
    ]);
    await run(org, "2025-11-08");
    expect((await rows(inv.id)).map((r) => [r.level, r.skipped, r.interestCents, r.compensationCents, r.interestNoteId])).toEqual([[0, false, 0, 0, null], [1, true, 0, 0, null], [2, false, 0, 0, null]]);
    // 29 November (+45): interest 10–29 November = 20 days: 100000 × 1050 × 20 / 3 650 000 = 575.34 → 5.75;
    // damages on 1000.00 due: 65.00 + 5 % of 500.00 = 90.00; no €40
    expect((await run(org, "2025-11-29"))[0]!.data.map((p) => [p.level, p.charges_withheld_until, p.interest, p.compensation, p.total_to_pay])).toEqual([[3, "2025-11-10", "5.75", "90.00", "1095.75"]]);
    // by e-mail: the reminder's event, and its note sent, when the channel accepts it
    const noteId = (await rows(inv.id))[3]!.interestNoteId!;
    expect((await firstRow(env.db.select().from(invoices).where(eq(invoices.id, noteId))))!.status).toBe("finalized");
    await accept(inv.id, 3, "2025-11-29T11:00:00.000000Z");
    expect((await firstRow(env.db.select().from(invoices).where(eq(invoices.id, noteId))))!.status).toBe("sent");
    expect((await eventsOf(org, "invoice.reminder_sent")).map((e) => JSON.parse(e.data).reminder.level)).toEqual([0, 3]);
    expect(await audited(org, (await rows(inv.id))[3]!.id)).toEqual([["reminder.recorded", "reminder"], ["reminder.sent", "reminder"]]);
  });

  test("on the day the term ends nothing yet; the day after, the charges", async () => {
    const { org, customer } = await setup([level(7), level(21, true), level(22, true), level(26, true)], { channel: "email", vat: false });
    const inv = await invoice(org, customer.id);
    await run(org, "2025-10-22");
    // accepted Wednesday 22 October: the term runs 23 October to 5 November; charges from the 6th
    await accept(inv.id, 0, "2025-10-22T11:00:00.000000Z");
    expect((await planned(org, "2025-11-05")).map((p) => [p.level, p.charges_withheld_until, p.interest, p.compensation])).toEqual([[1, "2025-11-06", "0.00", "0.00"]]);
    // 6 November: 1 day: 100000 × 1050 × 1 / 3 650 000 = 28.77 → 0.29
    expect((await planned(org, "2025-11-06")).map((p) => [p.level, p.charges_withheld_until, p.interest, p.compensation])).toEqual([[2, "2025-11-06", "0.29", "90.00"]]);
    // +26 = 10 November: 6–10 November = 5 days: 100000 × 1050 × 5 / 3 650 000 = 143.84 → 1.44
    expect((await planned(org, "2025-11-10")).map((p) => [p.charges_withheld_until, p.interest, p.compensation])).toEqual([["2025-11-06", "1.44", "90.00"]]);
  });

  test("outside Belgium: Book XIX's term is counted from the acceptance, and Belgian consumer law charges nothing", async () => {
    const { org, customer } = await setup([level(7), level(24, true)], { channel: "email", vat: false, country: "NL" });
    const inv = await invoice(org, customer.id);
    await run(org, "2025-10-22");
    await accept(inv.id, 0, "2025-10-22T11:00:00.000000Z");
    // 22 October + 15 days
    expect((await planned(org, "2025-11-08")).map((p) => [p.charges_withheld_until, p.interest, p.compensation])).toEqual([["2025-11-06", "0.00", "0.00"]]);
  });
});

describe("which level goes", () => {
  test("a level before the due date is not sent after it; one on the due date is sent that day only", async () => {
    const { org, customer } = await setup([level(-3), level(0), level(7)]);
    const late = await invoice(org, customer.id);
    // the run of the 16th finds a -3 and a 0 that were never sent: neither goes after the due date
    expect(await planned(org, "2025-10-16")).toEqual([]);
    expect((await run(org, "2025-10-16"))[0]!.recorded).toBe(0);
    // +7 on the 22nd exactly: sent, the two earlier ones recorded as skipped
    expect((await run(org, "2025-10-22"))[0]!.data.map((p) => [p.invoice_id, p.level, p.skipped_levels])).toEqual([[late.id, 2, [0, 1]]]);
    expect((await rows(late.id)).map((r) => [r.level, r.skipped])).toEqual([[0, true], [1, true], [2, false]]);
    // the day before +7: nothing for a fresh invoice due the same day
    const other = await invoice(org, customer.id);
    expect((await planned(org, "2025-10-21")).map((p) => p.invoice_id)).toEqual([]);
    expect((await planned(org, "2025-10-15")).map((p) => [p.invoice_id, p.level])).toEqual([[other.id, 1]]);
    expect((await planned(org, "2025-10-12")).map((p) => [p.invoice_id, p.level])).toEqual([[other.id, 0]]);
    expect(await planned(org, "2025-10-11")).toEqual([]);
  });

  test("a dry run records nothing and says so; a second run the same day sends nothing twice", async () => {
    const { org, customer } = await setup([level(7)]);
    const inv = await invoice(org, customer.id);
    const dry = await run(org, "2025-10-22", { dryRun: true });
    expect(dry.map((r) => [r.organization_id, r.date, r.enabled, r.recorded, r.data.length])).toEqual([[org.org.id, "2025-10-22", true, 0, 1]]);
    expect(await rows(inv.id)).toEqual([]);
    expect((await run(org, "2025-10-22"))[0]!.recorded).toBe(1);
    expect((await run(org, "2025-10-22"))[0]!.recorded).toBe(0);
    expect(await planned(org, "2025-10-22")).toEqual([]);
  });

  test("a customer without an e-mail address: the run says why and records nothing", async () => {
    const { org, customer } = await setup([level(7)], { channel: "email", email: false });
    const inv = await invoice(org, customer.id);
    const [result] = await run(org, "2025-10-22");
    expect([result!.recorded, result!.data.map((p) => [p.channel, p.problem])]).toEqual([0, [["email", "The customer has no e-mail address."]]]);
    expect(await rows(inv.id)).toEqual([]);
  });

  test("the run's date: a bad one refused; the schedule's hour skips an organisation before it, unless a date is given", async () => {
    const { org } = await setup([level(7)]);
    const fieldOf = async (f: () => Promise<unknown>) => {
      try {
        await f();
      } catch (error) {
        return (error as { errors?: Record<string, string[]> }).errors;
      }
      return null;
    };
    expect(await fieldOf(async () => await runReminders(env.db, { date: "2025-02-30", orgId: org.org.id }))).toEqual({ date: ["The date must be a valid date (YYYY-MM-DD)."] });
    expect(await fieldOf(async () => await previewReminders({ db: env.db, org: org.org, actor: CLI_ACTOR }, "2025-02-30"))).toEqual({ date: ["The date field must be a valid date (YYYY-MM-DD)."] });
    // without a date: the organisation's local today
    expect((await previewReminders({ db: env.db, org: org.org, actor: CLI_ACTOR })).date).toBe(new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Brussels" }).format(new Date()));
    // the schedule's hour itself: on it, the run goes; an hour before it, not (unless the hour turns meanwhile)
    const hour = localHour("Europe/Brussels");
    expect((await runReminders(env.db, { orgId: org.org.id, notBeforeHour: hour })).length).toBe(1);
    if (hour < 23 && localHour("Europe/Brussels") === hour) expect(await runReminders(env.db, { orgId: org.org.id, notBeforeHour: hour + 1 })).toEqual([]);
    // no local hour is 24 or later: the schedule skips
    expect(await runReminders(env.db, { orgId: org.org.id, notBeforeHour: 24 })).toEqual([]);
    expect((await runReminders(env.db, { orgId: org.org.id, notBeforeHour: 0 })).map((r) => r.organization_id)).toEqual([org.org.id]);
    expect((await runReminders(env.db, { orgId: org.org.id, notBeforeHour: 24, date: "2025-10-01" })).map((r) => r.date)).toEqual(["2025-10-01"]);
    expect(async () => await previewReminders({ db: env.db, org: org.org, actor: CLI_ACTOR }, "2025-13-01")).toThrow("valid date");
  });

  test("only the organisation asked for, only enabled policies", async () => {
    const a = await setup([level(7)]);
    const b = await setup([level(7)]);
    await call(b.org, "PUT", "/api/v1/reminder-policy", { enabled: false, channel: "manual", levels: [level(7)] });
    expect((await runReminders(env.db, { date: "2025-10-01", orgId: a.org.org.id })).map((r) => r.organization_id)).toEqual([a.org.org.id]);
    expect(await runReminders(env.db, { date: "2025-10-01", orgId: b.org.org.id })).toEqual([]);
  });

  test("an accepted delivery that is not a reminder's records nothing", async () => {
    const { org, customer } = await setup([level(7)], { channel: "email" });
    const inv = await invoice(org, customer.id);
    await run(org, "2025-10-22");
    const before = (await eventsOf(org, "invoice.reminder_sent")).length;
    await unitOfWork(env.db, async (tx) => {
      const delivery = (await firstRow(tx.select().from(documentDeliveries).where(eq(documentDeliveries.invoiceId, inv.id))))!;
      await onReminderAccepted(tx, { ...delivery, subject: "invoice" });
      await onReminderAccepted(tx, { ...delivery, reminderId: null });
      await onReminderAccepted(tx, { ...delivery, organizationId: "missing" });
    });
    expect((await eventsOf(org, "invoice.reminder_sent")).length).toBe(before);
    expect(before).toBe(0);
  });

  test("a policy without levels reminds of nothing", async () => {
    const { org, customer } = await setup([]);
    await invoice(org, customer.id);
    expect((await run(org, "2025-12-31")).map((r) => [r.recorded, r.data])).toEqual([[0, []]]);
  });
});

describe("days without a statutory rate", () => {
  test("the problem names each stretch, a single day as a day", () => {
    expect(missingRateProblem("BE", [])).toBeNull();
    const text = missingRateProblem("BE", [{ from: "2026-07-01", to: "2026-07-01" }, { from: "2026-07-03", to: "2026-07-10" }])!;
    expect(text.startsWith("No statutory interest rate for BE covers 2026-07-01, 2026-07-03 to 2026-07-10: no interest is charged for those days")).toBe(true);
    expect(text).toContain("kontor rates add --country BE");
  });

  test("a level that charges the compensation only reports no missing rate: it charges no interest", async () => {
    const { org, customer } = await setup([level(30, false, true)]);
    // due 10 June 2026: Belgium's table ends on 30 June 2026
    const draft = await call(org, "POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-05-11", due_date: "2026-06-10", lines: [{ description: "Work", quantity: "1", unit_price: "1000.00" }] }, 201);
    await call(org, "POST", `/api/v1/invoices/${draft.id}/finalize`);
    expect((await planned(org, "2026-07-10")).map((p) => [p.interest, p.compensation, p.missing_rates, p.problem])).toEqual([["0.00", "40.00", [], null]]);
  });

  test("a reminder that cannot go and lacks rates says both", async () => {
    const { org, customer } = await setup([level(30, true)], { channel: "email", email: false });
    const draft = await call(org, "POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-05-11", due_date: "2026-06-10", lines: [{ description: "Work", quantity: "1", unit_price: "1000.00" }] }, 201);
    await call(org, "POST", `/api/v1/invoices/${draft.id}/finalize`);
    const [problem] = (await planned(org, "2026-07-10")).map((p) => p.problem);
    expect(problem!.startsWith("The customer has no e-mail address. No statutory interest rate for BE covers 2026-07-01 to 2026-07-10")).toBe(true);
  });

  test("a run warns of each reminder recorded without the interest of days without a rate, and of no other", async () => {
    const warnings: [string, Record<string, unknown>][] = [];
    const log = { warn: (message: string, fields: Record<string, unknown>) => void warnings.push([message, fields]) };
    const { org, customer } = await setup([level(30, true)]);
    const draft = await call(org, "POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-05-11", due_date: "2026-06-10", lines: [{ description: "Work", quantity: "1", unit_price: "1000.00" }] }, 201);
    const inv = await call(org, "POST", `/api/v1/invoices/${draft.id}/finalize`);
    const rated = await invoice(org, customer.id, "2026-05-15");
    // 20 June: the invoice due 15 May is at +36, every day rated: recorded, no warning
    expect((await runReminders(env.db, { date: "2026-06-20", orgId: org.org.id, log: log as any }))[0]!.data.map((p) => p.invoice_id)).toEqual([rated.id]);
    expect(warnings).toEqual([]);
    // 10 July: the one due 10 June, with 1–10 July without a rate: recorded, one warning naming it
    const [result] = await runReminders(env.db, { date: "2026-07-10", orgId: org.org.id, log: log as any });
    expect(result!.recorded).toBe(1);
    expect(warnings.map(([message, fields]) => [message, fields.invoice, fields.level, fields.missing_rates])).toEqual([["reminder charges no interest for days without a statutory rate", inv.number, 0, "2026-07-01..2026-07-10"]]);
    // without a log: the same run elsewhere is no error
    const other = await setup([level(30, true)]);
    const d2 = await call(other.org, "POST", "/api/v1/invoices", { customer_id: other.customer.id, issue_date: "2026-05-11", due_date: "2026-06-10", lines: [{ description: "Work", quantity: "1", unit_price: "1000.00" }] }, 201);
    await call(other.org, "POST", `/api/v1/invoices/${d2.id}/finalize`);
    expect((await runReminders(env.db, { date: "2026-07-10", orgId: other.org.org.id }))[0]!.recorded).toBe(1);
  });
});

describe("a Peppol customer's interest note", () => {
  /** An organisation on Peppol (its access point and participant id), a customer reachable there, a reminder by e-mail charging at +24. */
  async function peppolSetup(options: { accessPoint: boolean; customerPrefers?: string }) {
    const { org, customer: _ } = await setup([level(24, true)], { channel: "email" });
    await call(org, "PUT", "/api/v1/organization", SELLER_IDENTITY);
    if (options.accessPoint) await env.db.update(organizations).set({ peppolProvider: "recommand", peppolCredentials: "enc:v1:test" }).where(eq(organizations.id, org.org.id));
    const customer = await call(org, "POST", "/api/v1/customers", {
      name: "Brasserie Dupont SA", country: "BE", vat_number: "BE0404795549", email: "ap@dupont.test", address: "Rue de l'Église 5", city: "Liège", postal_code: "4000", peppol_id: "0208:0404795549",
      ...(options.customerPrefers ? { preferred_channel: options.customerPrefers } : {}),
    }, 201);
    const inv = await invoice(org, customer.id, "2025-10-15", { buyer_reference: "PO-77" });
    await run(org, "2025-11-08");
    const noteId = (await rows(inv.id))[0]!.interestNoteId!;
    expect(noteId).not.toBeNull();
    return (await env.db.select().from(documentDeliveries).where(eq(documentDeliveries.invoiceId, noteId))).map((d) => [d.subject, d.channel]);
  }

  test("goes over Peppol as a delivery of its own when the organisation is on Peppol", async () => {
    expect(await peppolSetup({ accessPoint: true })).toEqual([["invoice", "peppol"]]);
  });

  test("goes with the e-mail only when the organisation has no access point, or the customer prefers e-mail", async () => {
    expect(await peppolSetup({ accessPoint: false })).toEqual([]);
    expect(await peppolSetup({ accessPoint: true, customerPrefers: "email" })).toEqual([]);
  });
});
