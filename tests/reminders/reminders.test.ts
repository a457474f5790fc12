/**
 * Reminder runs (issue 30 items 1 and 3) over a month and a half of an organisation's life, at
 * chosen dates: every level recorded once per open invoice, the highest due one sent and the
 * older ones skipped, nothing for paid, credited or paused invoices; a consumer's charges
 * withheld until 14 days after the first reminder was accepted; preview writes nothing; two
 * `kontor reminders run` processes at once, and one killed midway and run again, record each
 * reminder once; the letter reads in the customer's language.
 *
 * The organisation's life is in 2025: every run is dated in the past, as a real one is (an
 * interest note is never issued with a date after today), so the test does not change as the
 * calendar moves on.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, count, eq } from "drizzle-orm";
import { join } from "node:path";
import { documentDeliveries, events, reminders } from "../../db/schema.ts";
import { unitOfWork } from "../../server/lib/scope.ts";
import { onReminderAccepted, runReminders } from "../../server/reminders/run.ts";
import { firstReminderAcceptedOn } from "../../server/interest/note.ts";
import { renderReminderForDelivery } from "../../server/reminders/read.ts";
import { createTestEnv, asTx, databaseEnv } from "../helpers.ts";
import { firstRow } from "../../db/client.ts";
const TESTS_ROOT = join(import.meta.dir, "..");

const env = await createTestEnv();
afterAll(() => env.close());

async function call(method: string, path: string, body?: unknown, status = 200, token?: string) {
  const r = await env.api(method, path, body, token);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBe(status);
  return r.body;
}
const act = async (id: string, action: string, body?: unknown, status = 200) => (await call("POST", `/api/v1/invoices/${id}/${action}`, body, status))?.data;

let rate21: string;
/** 100.00 at 21 %: 121.00, issued 2025-10-01 */
async function invoice(customerId: string, dueDate: string, issueDate = "2025-10-01") {
  const token = undefined;
  const d = (await call("POST", "/api/v1/invoices", { customer_id: customerId, issue_date: issueDate, due_date: dueDate, lines: [{ description: "Consulting", quantity: "1", unit_price: "100.00", vat_rate_id: rate21 }] }, 201, token)).data;
  return (await call("POST", `/api/v1/invoices/${d.id}/finalize`, undefined, 200, token)).data;
}
const customer = async (body: Record<string, unknown>, token?: string) => (await call("POST", "/api/v1/customers", { country: "BE", ...body }, 201, token)).data;

/** Non-skipped and skipped levels recorded per invoice. */
async function recorded(invoiceId: string) {
  const rows = await env.db.select().from(reminders).where(eq(reminders.invoiceId, invoiceId));
  return {
    sent: rows.filter((r) => !r.skipped).map((r) => r.level).sort(),
    skipped: rows.filter((r) => r.skipped).map((r) => r.level).sort(),
  };
}
const countOf = async (table: typeof reminders | typeof documentDeliveries | typeof events) => (await firstRow(env.db.select({ n: count() }).from(table)))!.n;

/** What the delivery worker does when a channel accepted a reminder's delivery (issue 29's worker is the integrator's). */
async function accept(invoiceId: string, level: number, acceptedAt: string) {
  await unitOfWork(env.db, async (tx) => {
    const reminder = (await firstRow(tx.select().from(reminders).where(and(eq(reminders.invoiceId, invoiceId), eq(reminders.level, level)))))!;
    const delivery = (await firstRow(tx.update(documentDeliveries).set({ status: "accepted", acceptedAt }).where(eq(documentDeliveries.id, reminder.deliveryId!)).returning()))!;
    await onReminderAccepted(tx, delivery);
  });
}

const inv: Record<string, any> = {};
let policy: any;

beforeAll(async () => {
  rate21 = (await call("GET", "/api/v1/vat-rates")).data.find((r: any) => r.rate === "21.00" && r.category === "S").id;
  const business = await customer({ name: "Brasserie Dupont SA", vat_number: "BE0404795549", email: "ap@dupont.test" });
  const consumer = await customer({ name: "Marie Lambert", email: "marie@lambert.test", language: "fr" });
  const paused = await customer({ name: "Paused BV", vat_number: "BE0428759497", email: "x@paused.test", reminders_paused: true, reminders_paused_reason: "in dispute" });
  expect(paused.reminders_paused).toBe(true);
  expect(paused.reminders_paused_reason).toBe("in dispute");
  // issued in this order: the series is chronological
  inv.late = await invoice(business.id, "2025-09-01", "2025-08-15"); // already 41 days overdue at the first run
  inv.business = await invoice(business.id, "2025-10-15");
  inv.consumer = await invoice(consumer.id, "2025-10-15");
  inv.paid = await invoice(business.id, "2025-10-15");
  inv.credited = await invoice(business.id, "2025-10-15");
  inv.paused = await invoice(business.id, "2025-10-15");
  inv.pausedCustomer = await invoice(paused.id, "2025-10-15");
  inv.partial = await invoice(business.id, "2025-10-15");
  await act(inv.paid.id, "record-payment", { amount: "121.00", payment_date: "2025-10-10" }, 201);
  await act(inv.partial.id, "record-payment", { amount: "21.00", payment_date: "2025-10-10" }, 201);
  const note = await act(inv.credited.id, "credit-note", undefined, 201);
  await act(note.id, "finalize");
  const pausedInvoice = (await call("PUT", `/api/v1/invoices/${inv.paused.id}/reminders-pause`, { paused: true, reason: "payment plan agreed" })).data;
  expect([pausedInvoice.reminders_paused, pausedInvoice.reminders_paused_reason]).toEqual([true, "payment plan agreed"]);
});

describe("the policy", () => {
  test("the defaults, disabled until saved; saving needs increasing days", async () => {
    policy = (await call("GET", "/api/v1/reminder-policy")).data;
    expect(policy.is_default).toBe(true);
    expect(policy.enabled).toBe(false);
    expect(policy.levels.map((l: any) => [l.days_after_due, l.charge_interest, l.charge_compensation])).toEqual([
      [-3, false, false],
      [7, false, false],
      [24, true, true],
      [45, true, true],
    ]);
    expect(policy.levels[1].texts.nl.subject).toBe("Herinnering: factuur {number} is vervallen");
    // nothing runs while disabled
    expect(await runReminders(env.db, { date: "2025-12-31" })).toEqual([]);
    const r = await env.api("PUT", "/api/v1/reminder-policy", { enabled: true, channel: "email", levels: [{ days_after_due: 7, charge_interest: false, charge_compensation: false }, { days_after_due: 7, charge_interest: false, charge_compensation: false }] });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(["levels.1.days_after_due"]);
    const bad = await env.api("PUT", "/api/v1/reminder-policy", { enabled: true, channel: "fax", levels: [] });
    expect(bad.status).toBe(422);
    // a letter does not travel over Peppol (BIS Billing 3.0 carries invoices and credit notes)
    const overPeppol = await env.api("PUT", "/api/v1/reminder-policy", { enabled: true, channel: "peppol", levels: [] });
    expect(overPeppol.status).toBe(422);
    expect(overPeppol.body.errors.channel[0]).toContain("Peppol");
    const { is_default: _d, updated_at: _u, ...body } = policy;
    const saved = (await call("PUT", "/api/v1/reminder-policy", { ...body, enabled: true })).data;
    expect([saved.enabled, saved.is_default, saved.channel]).toEqual([true, false, "email"]);
  });

  test("the organisation's timezone is an IANA name", async () => {
    expect((await call("GET", "/api/v1/organization")).data.timezone).toBe("Europe/Brussels");
    const r = await env.api("PUT", "/api/v1/organization", { timezone: "Mars/Olympus" });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(["timezone"]);
  });
});

describe("runs over a month", () => {
  test("preview writes nothing and says what a run would send", async () => {
    const before = [countOf(reminders), countOf(documentDeliveries), countOf(events)];
    const preview = await call("GET", "/api/v1/reminders/preview?date=2025-10-12");
    expect(preview.date).toBe("2025-10-12");
    // 12 October is 3 days before the 15th: the friendly note for the three open ones; the late one's +24
    const planned = Object.fromEntries(preview.data.map((p: any) => [p.invoice_number, [p.level, p.skipped_levels, p.channel]]));
    expect(planned).toEqual({
      [inv.late.number]: [2, [0, 1], "email"],
      [inv.business.number]: [0, [], "email"],
      [inv.consumer.number]: [0, [], "email"],
      [inv.partial.number]: [0, [], "email"],
    });
    expect([countOf(reminders), countOf(documentDeliveries), countOf(events)]).toEqual(before);
    const bad = await env.api("GET", "/api/v1/reminders/preview?date=2025-13-01");
    expect(bad.status).toBe(422);
  });

  test("each level once, the highest due one sent, nothing for paid, credited or paused invoices", async () => {
    // the late invoice (due 1 September): +24 is due on 12 October, +45 not yet; -3 and +7 are skipped
    await runReminders(env.db, { date: "2025-10-12" });
    expect(await recorded(inv.late.id)).toEqual({ sent: [2], skipped: [0, 1] });
    for (const key of ["business", "consumer", "partial"]) expect(await recorded(inv[key].id)).toEqual({ sent: [0], skipped: [] });
    // the same day again: nothing new
    const again = await runReminders(env.db, { date: "2025-10-12" });
    expect(again[0]!.data).toEqual([]);
    // 16 October: the late invoice's +45 (1 September + 45); the others' +7 is not due yet
    expect((await runReminders(env.db, { date: "2025-10-16" }))[0]!.data.map((p) => [p.invoice_number, p.level])).toEqual([[inv.late.number, 3]]);
    await runReminders(env.db, { date: "2025-10-22" });
    for (const key of ["business", "consumer", "partial"]) expect(await recorded(inv[key].id)).toEqual({ sent: [0, 1], skipped: [] });
    for (const key of ["paid", "credited", "paused", "pausedCustomer"]) expect(await recorded(inv[key].id)).toEqual({ sent: [], skipped: [] });
    // each sent one queued one e-mail delivery to the customer; skipped ones none
    const deliveries = await env.db.select().from(documentDeliveries);
    // the late one's +24 and +45, the three others' -3 and +7
    expect(deliveries.length).toBe(2 + 3 * 2);
    const consumerFirst = (await firstRow(env.db.select().from(reminders).where(and(eq(reminders.invoiceId, inv.consumer.id), eq(reminders.level, 1)))))!;
    const delivery = deliveries.find((d) => d.id === consumerFirst.deliveryId)!;
    expect([delivery.subject, delivery.reminderId, delivery.invoiceId, delivery.channel, delivery.recipients]).toEqual([
      "reminder", consumerFirst.id, inv.consumer.id, "email", { to: ["marie@lambert.test"], cc: [] },
    ]);
  });

  test("a consumer's charges wait 14 days after the first reminder was accepted (Book XIX)", async () => {
    // accepted late (retried) on 29 October 23:30 UTC: 30 October in Brussels (UTC+1 since 25 October)
    await accept(inv.consumer.id, 1, "2025-10-29T23:30:00.000000Z");
    await accept(inv.business.id, 1, "2025-10-22T08:00:00.000000Z");
    expect(await firstReminderAcceptedOn(asTx(env.db), env.org.id, inv.consumer.id)).toBe("2025-10-30");
    // the friendly note before the due date is not the first reminder
    expect(await firstReminderAcceptedOn(asTx(env.db), env.org.id, inv.partial.id)).toBeNull();
    const preview = (await call("GET", "/api/v1/reminders/preview?date=2025-11-08")).data;
    const of = (id: string) => preview.find((p: any) => p.invoice_id === id);
    // +24 = 8 November; the consumer's 14 days run 31 October to 13 November: charges from the 14th
    expect(of(inv.consumer.id)).toMatchObject({ level: 2, customer_type: "individual", first_reminder_accepted_on: "2025-10-30", charges_withheld_until: "2025-11-14", interest: "0.00", compensation: "0.00" });
    expect(of(inv.business.id)).toMatchObject({ level: 2, customer_type: "organization", first_reminder_accepted_on: "2025-10-22", charges_withheld_until: null });
    await runReminders(env.db, { date: "2025-11-08" });
    const second = (await firstRow(env.db.select().from(reminders).where(and(eq(reminders.invoiceId, inv.consumer.id), eq(reminders.level, 2)))))!;
    expect([second.interestNoteId, second.interestCents, second.compensationCents]).toEqual([null, 0, 0]);
    // the event of a delivery comes when its channel accepted it
    const sentEvents = await env.db.select().from(events).where(eq(events.type, "invoice.reminder_sent"));
    expect(sentEvents.map((e) => e.resourceId).sort()).toEqual([inv.business.id, inv.consumer.id].sort());
  });

  test("the invoice's reminders, the list and the final level", async () => {
    await runReminders(env.db, { date: "2025-12-01" });
    for (const key of ["business", "consumer", "partial"]) expect(await recorded(inv[key].id)).toEqual({ sent: [0, 1, 2, 3], skipped: [] });
    expect(await recorded(inv.late.id)).toEqual({ sent: [2, 3], skipped: [0, 1] });
    // a friendly note that was not sent before the due date is skipped, not sent late
    const paidLate = await invoice((await customer({ name: "Latecomer NV", vat_number: "BE0404795549", email: "l@late.test" })).id, "2025-11-20", "2025-11-01");
    expect((await runReminders(env.db, { date: "2025-11-28" }))[0]!.data.map((p) => [p.invoice_number, p.level, p.skipped_levels])).toEqual([[paidLate.number, 1, [0]]]);
    const shown = await call("GET", `/api/v1/invoices/${inv.consumer.id}/reminders`);
    expect(shown.data.map((r: any) => [r.level, r.status, r.run_date])).toEqual([
      [0, "queued", "2025-10-12"],
      [1, "sent", "2025-10-22"],
      [2, "queued", "2025-11-08"],
      [3, "queued", "2025-12-01"],
    ]);
    expect(shown.data[1]).toMatchObject({ invoice_number: inv.consumer.number, language: "fr", amount_due: "121.00", channel: "email", sent_at: "2025-10-29T23:30:00.000000Z" });
    expect(shown.late_claim.invoice_id).toBe(inv.consumer.id);
    // partially paid: 121.00 − 21.00
    expect((await call("GET", `/api/v1/invoices/${inv.partial.id}/reminders`)).data[0].amount_due).toBe("100.00");
    const page = await call("GET", "/api/v1/reminders?per_page=5");
    // the late one's four (two skipped), the three others' four, the latecomer's two (one skipped)
    expect(page.meta.total).toBe(4 + 3 * 4 + 2);
    expect(page.data.length).toBe(5);
    const next = await call("GET", `/api/v1/reminders?per_page=5&cursor=${encodeURIComponent(page.meta.next_cursor)}`);
    expect(next.data.length).toBe(5);
    expect(next.data.map((r: any) => r.id)).not.toContain(page.data[0].id);
    expect((await env.api("GET", `/api/v1/invoices/${inv.paid.id}/reminders`)).body.data).toEqual([]);
  });

  test("the letter names the invoice and the amount in the customer's language", async () => {
    const first = (await firstRow(env.db.select().from(reminders).where(and(eq(reminders.invoiceId, inv.consumer.id), eq(reminders.level, 1)))))!;
    const r = await env.request("GET", `/api/v1/reminders/${first.id}/pdf`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/pdf");
    const path = join(env.dir, "reminder.pdf");
    await Bun.write(path, await (await env.app.handle(new Request(`http://localhost/api/v1/reminders/${first.id}/pdf`, { headers: { authorization: `Bearer ${env.token}` } }))).arrayBuffer());
    const text = Bun.spawnSync(["pdftotext", "-layout", path, "-"]).stdout.toString();
    expect(text).toContain(`Rappel : la facture ${inv.consumer.number} est échue`);
    // 121.00 in French: a decimal comma, the symbol after
    expect(text).toContain("121,00 €");
    expect(text).toContain("Montant dû");
    // the consumer's first reminder: what art. XIX.2 requires (free, 14 days, until 22 October + 14)
    expect(text).toContain("Ce premier rappel est gratuit");
    // run on 22 October: 14 days, until 5 November
    expect(text).toContain("jusqu'au 05/11/2025");
    const mail = await renderReminderForDelivery(env.db, first.id);
    expect([mail.documentType, mail.language, mail.number]).toEqual(["reminder", "fr", inv.consumer.number]);
    expect(mail.email.subject).toBe(`Rappel : la facture ${inv.consumer.number} est échue`);
    expect(mail.email.text.replace(/\u00a0/g, " ")).toContain("121,00 €");
    // a business customer's first reminder carries no consumer notice
    const business = (await firstRow(env.db.select().from(reminders).where(and(eq(reminders.invoiceId, inv.business.id), eq(reminders.level, 1)))))!;
    expect((await renderReminderForDelivery(env.db, business.id)).email.text).not.toContain("XIX");
  });
});

describe("manual channel", () => {
  test("recorded as sent at once, with its event", async () => {
    const { org, token } = await env.newOrg("Manual BV");
    const rate = (await call("GET", "/api/v1/vat-rates", undefined, 200, token)).data.find((r: any) => r.rate === "21.00" && r.category === "S").id;
    const c = await customer({ name: "No Mail NV", vat_number: "BE0404795549" }, token);
    const d = (await call("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2025-10-01", due_date: "2025-10-15", lines: [{ description: "x", quantity: "1", unit_price: "10.00", vat_rate_id: rate }] }, 201, token)).data;
    await call("POST", `/api/v1/invoices/${d.id}/finalize`, undefined, 200, token);
    // by e-mail it cannot go: the run leaves it and says why
    const levels = [{ days_after_due: 7, charge_interest: false, charge_compensation: false }];
    await call("PUT", "/api/v1/reminder-policy", { enabled: true, channel: "email", levels }, 200, token);
    expect((await runReminders(env.db, { date: "2025-10-22", orgId: org.id }))[0]!.data.map((p) => p.problem)).toEqual(["The customer has no e-mail address."]);
    expect((await recorded(d.id)).sent).toEqual([]);
    await call("PUT", "/api/v1/reminder-policy", { enabled: true, channel: "manual", levels }, 200, token);
    await runReminders(env.db, { date: "2025-10-22", orgId: org.id });
    const shown = (await call("GET", `/api/v1/invoices/${d.id}/reminders`, undefined, 200, token)).data;
    expect(shown.map((r: any) => [r.channel, r.status, r.delivery_id])).toEqual([["manual", "sent", null]]);
    expect(await firstReminderAcceptedOn(asTx(env.db), org.id, d.id)).toBe("2025-10-22");
    const event = (await firstRow(env.db.select().from(events).where(and(eq(events.organizationId, org.id), eq(events.type, "invoice.reminder_sent")))))!;
    expect(event.resourceId).toBe(d.id);
  });
});

describe("processes", () => {
  const cli = join(TESTS_ROOT, "../cli/main.ts");
  const start = (args: string[], extra: Record<string, string> = {}) =>
    Bun.spawn(["bun", cli, "reminders", "run", "--db", env.config.dbPath, ...args], { env: { ...process.env, KONTOR_ENV: "test", ...databaseEnv(env.config.dbPath), ...extra }, stdout: "pipe", stderr: "pipe" });

  test("two runs at once and a run killed midway: each reminder recorded and queued once", async () => {
    const { org, token } = await env.newOrg("Busy BV");
    const rate = (await call("GET", "/api/v1/vat-rates", undefined, 200, token)).data.find((r: any) => r.rate === "21.00" && r.category === "S").id;
    const c = await customer({ name: "Many Invoices NV", vat_number: "BE0404795549", email: "ap@many.test" }, token);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const d = (await call("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2025-10-01", due_date: "2025-10-15", lines: [{ description: "x", quantity: "1", unit_price: "10.00", vat_rate_id: rate }] }, 201, token)).data;
      ids.push((await call("POST", `/api/v1/invoices/${d.id}/finalize`, undefined, 200, token)).data.id);
    }
    await call("PUT", "/api/v1/reminder-policy", { enabled: true, channel: "email", levels: [{ days_after_due: 7, charge_interest: false, charge_compensation: false }, { days_after_due: 24, charge_interest: true, charge_compensation: true }] }, 200, token);
    const ofOrg = async (level: number) => ({
      reminders: (await firstRow(env.db.select({ n: count() }).from(reminders).where(and(eq(reminders.organizationId, org.id), eq(reminders.level, level)))))!.n,
      deliveries: (await firstRow(env.db.select({ n: count() }).from(documentDeliveries).innerJoin(reminders, eq(reminders.id, documentDeliveries.reminderId)).where(and(eq(reminders.organizationId, org.id), eq(reminders.level, level)))))!.n,
      queued: (await firstRow(env.db.select({ n: count() }).from(documentDeliveries).where(eq(documentDeliveries.organizationId, org.id))))!.n,
    });

    // two at once, each pausing between reminders so that they interleave
    const both = [start(["--date", "2025-10-22", "--org", org.id, "--json"], { KONTOR_TEST_REMINDER_PAUSE_MS: "30" }), start(["--date", "2025-10-22", "--org", org.id, "--json"], { KONTOR_TEST_REMINDER_PAUSE_MS: "30" })];
    const outputs = await Promise.all(both.map(async (p) => ({ code: await p.exited, out: await new Response(p.stdout).text(), err: await new Response(p.stderr).text() })));
    for (const o of outputs) expect(o.code, o.err).toBe(0);
    // between them they recorded the six, each once
    const sentBy = outputs.map((o) => JSON.parse(o.out)[0].data.length);
    expect(sentBy[0]! + sentBy[1]!).toBe(6);
    expect(await ofOrg(0)).toEqual({ reminders: 6, deliveries: 6, queued: 6 });

    // a dry run shows the six of 8 November and writes nothing
    const dry = start(["--date", "2025-11-08", "--org", org.id, "--dry-run", "--json"]);
    expect(await dry.exited).toBe(0);
    expect(JSON.parse(await new Response(dry.stdout).text())[0].data.map((p: any) => p.level)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(await ofOrg(1)).toEqual({ reminders: 0, deliveries: 0, queued: 6 });

    // killed after two, then run again: the rest, nothing twice
    const slow = start(["--date", "2025-11-08", "--org", org.id], { KONTOR_TEST_REMINDER_PAUSE_MS: "400" });
    const deadline = Date.now() + 15_000;
    while ((await ofOrg(1)).reminders < 2 && Date.now() < deadline) await Bun.sleep(20);
    slow.kill("SIGKILL");
    await slow.exited;
    const partial = await ofOrg(1);
    expect(partial.reminders).toBeGreaterThanOrEqual(2);
    expect(partial.reminders).toBeLessThan(6);
    expect(partial.deliveries).toBe(partial.reminders);
    const rerun = start(["--date", "2025-11-08", "--org", org.id]);
    expect(await rerun.exited).toBe(0);
    expect(await ofOrg(1)).toEqual({ reminders: 6, deliveries: 6, queued: 12 });
    for (const id of ids) expect(await recorded(id)).toEqual({ sent: [0, 1], skipped: [] });
  }, 30_000);
});
