/**
 * Recurring invoices (issue 30 item 5): the API, and generation exactly once per period through
 * the real CLI (`kontor recurring run`): a first run and a second, two runs at once, a run killed
 * with SIGKILL between two commits and run again; the calendar (29 February, the 31st), pause and
 * resume, end_date and count. Every expected date is worked out by hand below.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runRecurring } from "../../server/recurring/run.ts";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv, runCli, startCli, type TestEnv } from "../helpers.ts";
import { slowListSteps } from "../query-plan.ts";
import { rawSql } from "../raw-sql.ts";

let env: TestEnv;
let sql: ReturnType<typeof rawSql>;
const children: Bun.Subprocess[] = [];
beforeAll(async () => {
  env = await createTestEnv();
  sql = rawSql(env.db);
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await env.close();
});

const LINE = { description: "Hosting", quantity: "1", unit_price: "100.00" };

/** An organisation of its own (its own number series), with a seller identity and a customer. */
async function setUp(customer: Record<string, unknown> = {}) {
  const { org, token } = await env.newOrg();
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  expect((await api("PUT", "/api/v1/organization", SELLER_IDENTITY)).status).toBe(200);
  const c = await api("POST", "/api/v1/customers", { name: "Klant BV", address: "Markt 1", city: "Brugge", postal_code: "8000", country: "BE", email: "billing@klant.example", ...customer });
  expect(c.status, c.text).toBe(201);
  const rates = (await api("GET", "/api/v1/vat-rates")).body.data;
  const vat21 = rates.find((r: { rate: string }) => r.rate === "21.00").id;
  const template = async (fields: Record<string, unknown>) => {
    const r = await api("POST", "/api/v1/recurring-invoices", { customer_id: c.body.data.id, lines: [{ ...LINE, vat_rate_id: vat21 }], interval: "monthly", ...fields });
    expect(r.status, r.text).toBe(201);
    return r.body.data;
  };
  return { org, token, api, customerId: c.body.data.id as string, template };
}

const cli = (args: string[], extra: Record<string, string> = {}) => runCli(["recurring", "run", "--db", env.config.dbPath, "--json", ...args], extra);

const spawnRun = (args: string[], extra: Record<string, string> = {}) =>
  startCli(["recurring", "run", "--db", env.config.dbPath, "--json", ...args], extra, children);

/** The invoices a template generated, by service period, as the database holds them. */
function generated(templateId: string) {
  return sql.all<{ id: string; issue_date: string; start: string; end: string; status: string }>(
    'SELECT id, issue_date, service_period_start AS "start", service_period_end AS "end", status FROM invoices WHERE recurring_invoice_id = ? ORDER BY service_period_start',
    templateId,
  );
}

const periodRows = async (templateId: string) =>
  (await sql.get<{ n: number }>("SELECT count(*) AS n FROM recurring_invoice_periods WHERE template_id = ?", templateId))!.n;

describe("the API", () => {
  test("create, show, list, update, delete; the refusals name the field", async () => {
    const { api, template, customerId } = await setUp();
    const t = await template({ start_date: "2026-01-31", auto_finalize: true, auto_send: "email", notes: "Monthly hosting" });
    // the defaults: every 1, the start date's day, due in 30 days, the customer's currency
    expect(t).toMatchObject({
      customer_id: customerId,
      interval: "monthly",
      every: 1,
      day_of_period: 31,
      start_date: "2026-01-31",
      end_date: null,
      count: null,
      payment_days: 30,
      currency: "EUR",
      status: "active",
      next_issue_date: "2026-01-31",
      generated_count: 0,
      last_run_at: null,
    });
    expect(t.lines[0]).toMatchObject({ description: "Hosting", quantity: "1.00", unit_price: "100.00", unit_code: "C62" });
    expect((await api("GET", `/api/v1/recurring-invoices/${t.id}`)).body.data).toEqual(t);
    const list = await api("GET", "/api/v1/recurring-invoices?filter[status]=active");
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([t.id]);

    const refused = async (body: Record<string, unknown>, field: string) => {
      const r = await api("POST", "/api/v1/recurring-invoices", { customer_id: customerId, lines: [LINE], interval: "monthly", start_date: "2026-01-01", ...body });
      expect(r.status, r.text).toBe(422);
      expect(Object.keys(r.body.errors)).toContain(field);
    };
    await refused({ end_date: "2026-06-01", count: 3 }, "count");
    await refused({ end_date: "2025-12-31" }, "end_date");
    await refused({ auto_send: "email" }, "auto_send");
    await refused({ interval: "weekly" }, "interval");
    await refused({ day_of_period: 32 }, "day_of_period");
    await refused({ every: 0 }, "every");
    await refused({ lines: [{ ...LINE, quantity: "0" }] }, "lines.0.quantity");
    await refused({ customer_id: crypto.randomUUID() }, "customer_id");
    await refused({ next_issue_date: "2026-01-01" }, "next_issue_date");

    // a day moved: the series starts again from its start date on the new day
    const moved = await api("PUT", `/api/v1/recurring-invoices/${t.id}`, { day_of_period: 15, auto_send: null });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data).toMatchObject({ day_of_period: 15, next_issue_date: "2026-02-15", auto_send: null, notes: "Monthly hosting" });
    expect((await api("PUT", `/api/v1/recurring-invoices/${t.id}`, { auto_finalize: false, auto_send: "peppol" })).status).toBe(422);
    // a customer with a recurring invoice is not deleted under it
    const blocked = await api("DELETE", `/api/v1/customers/${customerId}`);
    expect(blocked.status).toBe(409);
    expect(blocked.body.message).toContain("recurring invoice");
    expect((await api("DELETE", `/api/v1/recurring-invoices/${t.id}`)).status).toBe(204);

    // an invoice's own service period: both ends or neither, the end not before the start
    const invoice = { customer_id: customerId, issue_date: "2026-03-01", lines: [LINE] };
    const half = await api("POST", "/api/v1/invoices", { ...invoice, service_period_start: "2026-02-01" });
    expect(half.status).toBe(422);
    expect(Object.keys(half.body.errors)).toEqual(["service_period_end"]);
    const backwards = await api("POST", "/api/v1/invoices", { ...invoice, service_period_start: "2026-02-01", service_period_end: "2026-01-31" });
    expect(Object.keys(backwards.body.errors)).toEqual(["service_period_end"]);
    const withPeriod = await api("POST", "/api/v1/invoices", { ...invoice, service_period_start: "2026-02-01", service_period_end: "2026-02-28" });
    expect(withPeriod.body.data).toMatchObject({ service_period_start: "2026-02-01", service_period_end: "2026-02-28", recurring_invoice_id: null });
    const cleared = await api("PUT", `/api/v1/invoices/${withPeriod.body.data.id}`, { service_period_start: null, service_period_end: null });
    expect(cleared.body.data).toMatchObject({ service_period_start: null, service_period_end: null });
    expect((await api("PUT", `/api/v1/invoices/${withPeriod.body.data.id}`, { service_period_end: "2026-02-28" })).status).toBe(422);
    expect((await api("GET", `/api/v1/recurring-invoices/${t.id}`)).status).toBe(404);
  });

  test("list queries read through indexes (EXPLAIN QUERY PLAN)", async () => {
    const { token, customerId, template } = await setUp();
    await template({ start_date: "2026-01-01" });
    const slow: string[] = [];
    const queries: [string, string[]][] = [
      ["", []], ["?sort=created_at", []], ["?sort=updated_at", []],
      ["?filter[status]=active", ["status"]], [`?filter[customer_id]=${customerId}`, ["customer_id"]],
    ];
    for (const [q, seekOn] of queries) slow.push(...(await slowListSteps(env, "recurring_invoices", `/api/v1/recurring-invoices${q}`, token, seekOn)));
    expect(slow).toEqual([]);
  });
});

describe("generation, exactly once per period", () => {
  test("a run's date after today is refused before anything is generated: no period spent on a draft that could never be finalized", async () => {
    const { org, template } = await setUp({ vat_number: "BE0404795549", peppol_id: "0208:0404795549" });
    const t = await template({ start_date: "2026-07-20", auto_finalize: true, buyer_reference: "PO-7" });
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const refused = await cli(["--date", tomorrow, "--org", org.id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`The run's date must not be after today`);
    expect(refused.stderr).toContain(tomorrow);
    expect(await generated(t.id)).toEqual([]);
    // the run itself, called with that date (as the worker could be), spends no period either
    const report = await runRecurring(env.db, { date: tomorrow, orgId: org.id });
    expect(report.generated).toEqual([]);
    expect(report.failed.map((f) => [f.recurring_invoice_id, f.period_start])).toEqual([[t.id, "2026-07-20"]]);
    expect(report.failed[0]!.error).toContain("must not be after today");
    expect(await generated(t.id)).toEqual([]);
    // today is a run's date like any other: the periods due are generated and finalized
    const ran = await cli(["--org", org.id]);
    expect(ran.code, ran.stderr).toBe(0);
    const statuses = JSON.parse(ran.stdout).generated.map((g: any) => [g.status, g.finalize_error]);
    expect(statuses.length).toBeGreaterThan(0);
    for (const status of statuses) expect(status).toEqual(["finalized", null]);
    expect((await generated(t.id)).length).toBeGreaterThan(0);
  });

  test("a monthly template started three months ago: three invoices on the first run, none on the second; each names its period and links back", async () => {
    const { org, token, api, template } = await setUp({ vat_number: "BE0404795549", peppol_id: "0208:0404795549" });
    // periods start on the 20th: 20 July, 20 August, 20 September are before the run's 15 October; 20 October is not
    const t = await template({ start_date: "2026-07-20", auto_finalize: true, auto_send: "email", buyer_reference: "PO-7" });
    const first = await cli(["--date", "2026-10-15", "--org", org.id]);
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report.failed).toEqual([]);
    expect(report.generated.map((g: any) => [g.period_start, g.period_end, g.issue_date, g.caught_up, g.status, g.number, g.finalize_error, g.send_error])).toEqual([
      ["2026-07-20", "2026-08-19", "2026-10-15", true, "finalized", "INV-2026-00001", null, null],
      ["2026-08-20", "2026-09-19", "2026-10-15", true, "finalized", "INV-2026-00002", null, null],
      ["2026-09-20", "2026-10-19", "2026-10-15", true, "finalized", "INV-2026-00003", null, null],
    ]);
    const second = await cli(["--date", "2026-10-15", "--org", org.id]);
    expect(JSON.parse(second.stdout).generated).toEqual([]);
    expect((await generated(t.id)).length).toBe(3);

    const invoice = (await api("GET", `/api/v1/invoices/${report.generated[0].invoice_id}`)).body.data;
    expect(invoice).toMatchObject({
      recurring_invoice_id: t.id,
      service_period_start: "2026-07-20",
      service_period_end: "2026-08-19",
      issue_date: "2026-10-15",
      due_date: "2026-11-14",
      buyer_reference: "PO-7",
      total: "121.00",
    });
    const shown = (await api("GET", `/api/v1/recurring-invoices/${t.id}`)).body.data;
    expect(shown).toMatchObject({ generated_count: 3, next_issue_date: "2026-10-20", status: "active" });
    expect(shown.last_run_at).toBeString();
    // auto_send: each finalized invoice queued for e-mail to the customer
    const deliveries = await sql.all<{ channel: string; recipients: string }>(
      "SELECT channel, recipients FROM document_deliveries WHERE invoice_id IN (SELECT id FROM invoices WHERE recurring_invoice_id = ?)",
      t.id,
    );
    expect(deliveries.length).toBe(3);
    expect(deliveries[0]).toEqual({ channel: "email", recipients: JSON.stringify({ to: ["billing@klant.example"], cc: [] }) });
    // invoice.created for each, as for any invoice
    const created = (await sql.get<{ n: number }>("SELECT count(*) AS n FROM events WHERE type = 'invoice.created' AND organization_id = ?", org.id))!.n;
    expect(created).toBe(3);

    // the service period on the e-invoice (BG-14) and the PDF
    const ubl = await env.request("GET", `/api/v1/invoices/${invoice.id}/ubl`, { token });
    expect(ubl.status, ubl.text.slice(0, 300)).toBe(200);
    expect(ubl.text.replace(/>\s+</g, "><")).toContain("<cac:InvoicePeriod><cbc:StartDate>2026-07-20</cbc:StartDate><cbc:EndDate>2026-08-19</cbc:EndDate></cac:InvoicePeriod>");
    // (tests/documents/ubl.test.ts validates a service period against the official rules)

    const pdf = await env.app.handle(new Request(`http://localhost/api/v1/invoices/${invoice.id}/pdf`, { headers: { authorization: `Bearer ${token}` } }));
    const file = join(env.dir, "recurring.pdf");
    writeFileSync(file, new Uint8Array(await pdf.arrayBuffer()));
    const text = Bun.spawnSync(["pdftotext", "-enc", "UTF-8", file, "-"]).stdout.toString().replace(/[\s\u00a0]+/g, " ");
    expect(text).toContain("Service period");
    expect(text).toContain("20 July 2026 – 19 August 2026");
    // a change applies from the next period: the invoices generated keep their price
    expect((await api("PUT", `/api/v1/recurring-invoices/${t.id}`, { lines: [{ ...LINE, unit_price: "150.00" }] })).status).toBe(200);
    const later = await runRecurring(env.db, { date: "2026-10-20", orgId: org.id });
    expect(later.generated.map((g) => [g.period_start, g.caught_up])).toEqual([["2026-10-20", false]]);
    expect((await api("GET", `/api/v1/invoices/${later.generated[0]!.invoice_id}`)).body.data.total).toBe("150.00");
    expect((await api("GET", `/api/v1/invoices/${invoice.id}`)).body.data.total).toBe("121.00");
  });

  test("two runs at once make each period once: three invoices, not six", async () => {
    const { org, template } = await setUp();
    const t = await template({ start_date: "2026-07-20" });
    const runs = [spawnRun(["--date", "2026-10-15", "--org", org.id]), spawnRun(["--date", "2026-10-15", "--org", org.id])];
    const outputs = await Promise.all(runs.map(async (p) => ({ code: await p.exited, out: await new Response(p.stdout).text(), err: await new Response(p.stderr).text() })));
    for (const o of outputs) expect(o.code, o.err).toBe(0);
    const counts = outputs.map((o) => JSON.parse(o.out).generated.length);
    expect(counts[0]! + counts[1]!).toBe(3);
    expect((await generated(t.id)).map((i) => i.start)).toEqual(["2026-07-20", "2026-08-20", "2026-09-20"]);
    expect(await periodRows(t.id)).toBe(3);
  });

  test("a run killed with SIGKILL between two periods, then run again: nothing twice, nothing missed", async () => {
    const { org, template } = await setUp();
    // the 5th of each month from January 2025 to October 2026: 22 periods
    const t = await template({ start_date: "2025-01-05" });
    const killed = spawnRun(["--date", "2026-10-15", "--org", org.id], { KONTOR_TEST_RECURRING_PAUSE_MS: "400" });
    // killed once its first period has committed (it then waits 400 ms before the next)
    const deadline = Date.now() + 15_000;
    while ((await periodRows(t.id)) === 0 && Date.now() < deadline) await Bun.sleep(20);
    killed.kill("SIGKILL");
    expect(await killed.exited).not.toBe(0);
    const before = (await generated(t.id)).length;
    expect(before).toBeGreaterThanOrEqual(1);
    expect(before).toBeLessThan(22);
    expect(await periodRows(t.id)).toBe(before);

    const rerun = await cli(["--date", "2026-10-15", "--org", org.id]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(JSON.parse(rerun.stdout).generated.length).toBe(22 - before);
    const starts = (await generated(t.id)).map((i) => i.start);
    const expected = Array.from({ length: 22 }, (_, i) => `${2025 + Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, "0")}-05`);
    expect(starts).toEqual(expected);
  }, 30_000);
});

describe("the calendar", () => {
  test("yearly on 29 February: 28 February in a common year, 29 February again in a leap year", async () => {
    const { org, template } = await setUp();
    const t = await template({ start_date: "2024-02-29", interval: "yearly" });
    expect(t.day_of_period).toBe(29);
    const report = await runRecurring(env.db, { date: "2028-03-01", orgId: org.id });
    expect(report.generated.map((g) => [g.period_start, g.period_end])).toEqual([
      ["2024-02-29", "2025-02-27"],
      ["2025-02-28", "2026-02-27"],
      ["2026-02-28", "2027-02-27"],
      ["2027-02-28", "2028-02-28"],
      ["2028-02-29", "2029-02-27"],
    ]);
  });

  test("the 31st falls on a shorter month's last day and comes back to the 31st", async () => {
    const { org, template } = await setUp();
    await template({ start_date: "2026-01-31" });
    const report = await runRecurring(env.db, { date: "2026-05-31", orgId: org.id });
    expect(report.generated.map((g) => [g.period_start, g.period_end, g.caught_up])).toEqual([
      ["2026-01-31", "2026-02-27", true],
      ["2026-02-28", "2026-03-30", true],
      ["2026-03-31", "2026-04-29", true],
      ["2026-04-30", "2026-05-30", true],
      ["2026-05-31", "2026-06-29", false],
    ]);
  });

  test("every 2 quarters on the 10th", async () => {
    const { org, template } = await setUp();
    await template({ start_date: "2025-11-10", interval: "quarterly", every: 2 });
    const report = await runRecurring(env.db, { date: "2026-11-10", orgId: org.id });
    expect(report.generated.map((g) => [g.period_start, g.period_end])).toEqual([
      ["2025-11-10", "2026-05-09"],
      ["2026-05-10", "2026-11-09"],
      ["2026-11-10", "2027-05-09"],
    ]);
  });
});

describe("pause, resume, end_date, count", () => {
  test("a paused template generates nothing; resuming skips the paused periods unless catch_up=true", async () => {
    const { org, api, template } = await setUp();
    const skip = await template({ start_date: "2026-07-20" });
    const catchUp = await template({ start_date: "2026-07-20" });
    for (const t of [skip, catchUp]) expect((await api("POST", `/api/v1/recurring-invoices/${t.id}/pause`)).body.data.status).toBe("paused");
    expect((await api("POST", `/api/v1/recurring-invoices/${skip.id}/pause`)).status).toBe(409);
    expect((await runRecurring(env.db, { date: "2026-10-15", orgId: org.id })).generated).toEqual([]);

    // without catch_up: the first 20th on or after today
    const now = new Date();
    const day = now.getUTCDate();
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + (day > 20 ? 1 : 0), 20)).toISOString().slice(0, 10);
    const resumed = await api("POST", `/api/v1/recurring-invoices/${skip.id}/resume`);
    expect(resumed.body.data).toMatchObject({ status: "active", next_issue_date: first });
    expect((await api("POST", `/api/v1/recurring-invoices/${skip.id}/resume`)).status).toBe(409);
    // with catch_up: where it stood, and the next run generates the three periods
    const caught = await api("POST", `/api/v1/recurring-invoices/${catchUp.id}/resume?catch_up=true`);
    expect(caught.body.data).toMatchObject({ status: "active", next_issue_date: "2026-07-20" });
    const report = await runRecurring(env.db, { date: "2026-10-15", orgId: org.id });
    expect(report.generated.map((g) => [g.recurring_invoice_id, g.period_start])).toEqual([
      [catchUp.id, "2026-07-20"],
      [catchUp.id, "2026-08-20"],
      [catchUp.id, "2026-09-20"],
    ]);
  });

  test("count and end_date end the series; a refused finalize leaves a draft and is reported", async () => {
    // a customer with a Peppol id is sent an e-invoice, which needs a buyer or order reference: finalize refuses without one
    const { org, api, template } = await setUp({ vat_number: "BE0404795549", peppol_id: "0208:0404795549" });
    const counted = await template({ start_date: "2026-01-10", count: 2, auto_finalize: true });
    const until = await template({ start_date: "2026-01-10", end_date: "2026-03-10" });
    const report = await runRecurring(env.db, { date: "2026-10-15", orgId: org.id });
    const of = (id: string) => report.generated.filter((g) => g.recurring_invoice_id === id);
    expect(of(counted.id).map((g) => [g.period_start, g.status])).toEqual([
      ["2026-01-10", "draft"],
      ["2026-02-10", "draft"],
    ]);
    for (const g of of(counted.id)) expect(g.finalize_error).toContain("reference");
    expect(of(until.id).map((g) => g.period_start)).toEqual(["2026-01-10", "2026-02-10", "2026-03-10"]);
    for (const t of [counted, until]) {
      expect((await api("GET", `/api/v1/recurring-invoices/${t.id}`)).body.data).toMatchObject({ status: "ended", next_issue_date: null });
    }
    expect((await api("POST", `/api/v1/recurring-invoices/${until.id}/pause`)).status).toBe(409);
    // a longer count takes it up again from the period after the last generated
    const more = await api("PUT", `/api/v1/recurring-invoices/${counted.id}`, { count: 3 });
    expect(more.body.data).toMatchObject({ status: "active", next_issue_date: "2026-03-10", generated_count: 2 });
  });
});
