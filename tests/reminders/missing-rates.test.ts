/**
 * Statutory rates never silently missing (docs/reminders.md#rates-table): Belgium's table ends on
 * 30 June 2026 (the last half year published in the repository's sources), so a reminder that
 * charges interest for days after it reports them: the preview's `missing_rates` and `problem`,
 * the run's output (`kontor reminders run`, and a warning on stderr), the scheduled run's log
 * warning, the reminder and the late claim in the API, and the `invoice.reminder_sent` event's
 * data. The reminder still goes: it charges the days with a rate and the compensation.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { join } from "node:path";
import { events, reminders } from "../../db/schema.ts";
import { computeClaim, type ClaimInput } from "../../server/interest/claim.ts";
import { runReminders } from "../../server/reminders/run.ts";
import { createTestEnv, databaseEnv } from "../helpers.ts";
import { firstRow } from "../../db/client.ts";

const env = await createTestEnv();
afterAll(() => env.close());

type Org = Awaited<ReturnType<typeof env.newOrg>>;
const call = async (org: Org, method: string, path: string, body?: unknown) => {
  const r = await env.api(method, path, body, org.token);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBeLessThan(300);
  return r.body;
};

/** 1000.00 + 21 % = 1210.00 to a business customer, and a policy of one level at due + 10 charging interest and the compensation, by `manual` (sent at the run). */
async function lateInvoice(org: Org, issueDate: string, dueDate: string) {
  const rate = (await call(org, "GET", "/api/v1/vat-rates")).data.find((r: any) => r.rate === "21.00").id;
  const customer = (await call(org, "POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", vat_number: "BE0404795549" })).data;
  const draft = (await call(org, "POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: issueDate, due_date: dueDate, lines: [{ description: "Beer", quantity: "1", unit_price: "1000.00", vat_rate_id: rate }] })).data;
  const invoice = (await call(org, "POST", `/api/v1/invoices/${draft.id}/finalize`)).data;
  await call(org, "PUT", "/api/v1/reminder-policy", { enabled: true, channel: "manual", levels: [{ days_after_due: 10, charge_interest: true, charge_compensation: true }] });
  return invoice;
}

const cli = join(import.meta.dir, "../../cli/main.ts");

describe("a half year without a published rate", () => {
  let org: Org;
  let invoice: any;

  beforeAll(async () => {
    org = await env.newOrg("Rateless BV", { country: "BE" });
    // due 10 June 2026: 11 to 30 June at 10.50 %, 1 July on without a rate
    invoice = await lateInvoice(org, "2026-05-11", "2026-06-10");
  });

  test("the preview reports the days without a rate as a problem, and charges the rest", async () => {
    const preview = await call(org, "GET", "/api/v1/reminders/preview?date=2026-07-10");
    const planned = preview.data.find((p: any) => p.invoice_id === invoice.id);
    // 11 to 30 June: 20 days on 1210.00 at 10.50 %: 121000 × 1050 × 20 / 3 650 000 = 696.16 → 6.96
    expect(planned).toMatchObject({ interest: "6.96", compensation: "40.00", missing_rates: [{ from: "2026-07-01", to: "2026-07-10" }], total_to_pay: "1256.96" });
    expect(planned.problem).toContain("No statutory interest rate for BE covers 2026-07-01 to 2026-07-10");
    expect(planned.problem).toContain("kontor rates add");
  });

  test("kontor reminders run: the output names the problem, stderr warns; the reminder is recorded with its note", async () => {
    const proc = Bun.spawn(["bun", cli, "reminders", "run", "--db", env.config.dbPath, "--date", "2026-07-10", "--org", org.org.id, "--json"], {
      env: { ...process.env, KONTOR_ENV: "test", ...databaseEnv(env.config.dbPath) },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, out, err] = [await proc.exited, await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
    expect(code, err).toBe(0);
    const [run] = JSON.parse(out);
    expect(run.recorded).toBe(1);
    expect(run.data[0]).toMatchObject({ invoice_id: invoice.id, interest: "6.96", missing_rates: [{ from: "2026-07-01", to: "2026-07-10" }] });
    expect(run.data[0].problem).toContain("2026-07-01 to 2026-07-10");
    expect(err).toContain("warning");
    expect(err).toContain(invoice.number);
    const reminder = (await firstRow(env.db.select().from(reminders).where(and(eq(reminders.invoiceId, invoice.id), eq(reminders.level, 0)))))!;
    const note = (await call(org, "GET", `/api/v1/invoices/${reminder.interestNoteId}`)).data;
    // 6.96 of interest through 30 June and the 40.00: the days after it wait for the rate
    expect(note.total).toBe("46.96");
    expect(note.lines.map((l: any) => l.amount)).toEqual(["6.96", "40.00"]);
  });

  test("the invoice.reminder_sent event's data carries the missing days and the problem; the reminder and the late claim show them", async () => {
    const event = (await firstRow(env.db.select().from(events).where(and(eq(events.organizationId, org.org.id), eq(events.type, "invoice.reminder_sent")))))!;
    const data = JSON.parse(event.data as unknown as string);
    expect(data.id).toBe(invoice.id);
    expect(data.reminder).toMatchObject({ level: 0, interest: "6.96", compensation: "40.00", missing_rates: [{ from: "2026-07-01", to: "2026-07-10" }] });
    expect(data.reminder.problem).toContain("No statutory interest rate for BE covers 2026-07-01 to 2026-07-10");
    const shown = await call(org, "GET", `/api/v1/invoices/${invoice.id}/reminders`);
    expect(shown.data[0].missing_rates).toEqual([{ from: "2026-07-01", to: "2026-07-10" }]);
    // the claim as of today: every day from 1 July on is still without a rate
    expect(shown.late_claim.missing_rates[0].from).toBe("2026-07-01");
  });
});

describe("the scheduled run's log", () => {
  test("a reminder whose every day lacks a rate: only the compensation, and a warning in the log", async () => {
    const org = await env.newOrg("Later BV", { country: "BE" });
    // due 15 July 2026: 16 July to 20 August, no rate at all
    const invoice = await lateInvoice(org, "2026-06-15", "2026-07-15");
    const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
    const [run] = await runReminders(env.db, { date: "2026-08-20", orgId: org.org.id, log: { warn: (message, fields) => warnings.push({ message, fields }) } });
    expect(run!.data[0]).toMatchObject({ interest: "0.00", compensation: "40.00", total_to_pay: "1250.00", missing_rates: [{ from: "2026-07-16", to: "2026-08-20" }] });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.fields).toMatchObject({ invoice: invoice.number, missing_rates: "2026-07-16..2026-08-20" });
  });

  test("a level that charges no interest reports nothing", async () => {
    const org = await env.newOrg("Friendly BV", { country: "BE" });
    await lateInvoice(org, "2026-06-15", "2026-07-15");
    await call(org, "PUT", "/api/v1/reminder-policy", { enabled: true, channel: "manual", levels: [{ days_after_due: 10, charge_interest: false, charge_compensation: true }] });
    const planned = (await call(org, "GET", "/api/v1/reminders/preview?date=2026-08-20")).data[0];
    expect([planned.missing_rates, planned.problem]).toEqual([[], null]);
  });
});

describe("the claim's missing_rates (pure)", () => {
  const base: ClaimInput = {
    invoiceId: "x", asOf: "2026-03-31", dueDate: "2026-01-31", currency: "EUR", totalCents: 10_000, customerType: "organization", reductions: [],
    country: "FR", hasTable: false, rates: [], compensationCents: null, compensationByCurrency: {},
    firstReminderAcceptedOn: null, already: { interestCents: 0, compensationCents: 0, through: null },
  };

  test("a country without a table: every day from the day after the due date", () => {
    expect(computeClaim(base).claim.missing_rates).toEqual([{ from: "2026-02-01", to: "2026-03-31" }]);
  });

  test("a stretch paid off needs no rate", () => {
    // paid in full on 1 March: nothing is due from then on
    const paid = computeClaim({ ...base, hasTable: true, reductions: [{ date: "2026-03-01", cents: 10_000 }] });
    expect(paid.claim.missing_rates).toEqual([{ from: "2026-02-01", to: "2026-02-28" }]);
  });

  test("a table covering every day: none", () => {
    const covered = computeClaim({ ...base, country: "BE", hasTable: true, rates: [{ from: "2026-01-01", to: "2026-06-30", rateBp: 1050 }] });
    expect(covered.claim.missing_rates).toEqual([]);
  });
});
