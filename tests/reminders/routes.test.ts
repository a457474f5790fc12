/**
 * The reminders' routes over HTTP: every 4xx the served document lists for them, provoked and
 * checked (status, code, the field named), and an invoice's reminders pause: paused → no run
 * reminds of it → resumed → the next run does, in every invoice state it is allowed in. Runs go
 * through the real CLI (`kontor reminders run`).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createTestEnv, runCli } from "../helpers.ts";
import { refusalsOf, UNKNOWN_ID } from "../refusals.ts";

const env = await createTestEnv();
const POLICY_SHOW = { method: "GET", path: "/api/v1/reminder-policy" };
const POLICY_PUT = { method: "PUT", path: "/api/v1/reminder-policy" };
const LIST = { method: "GET", path: "/api/v1/reminders" };
const PREVIEW = { method: "GET", path: "/api/v1/reminders/preview" };
const SHOW = { method: "GET", path: "/api/v1/reminders/{id}" };
const PDF = { method: "GET", path: "/api/v1/reminders/{id}/pdf" };
const OF_INVOICE = { method: "GET", path: "/api/v1/invoices/{id}/reminders" };
const PAUSE = { method: "PUT", path: "/api/v1/invoices/{id}/reminders-pause" };
const refusals = refusalsOf(env, [POLICY_SHOW, POLICY_PUT, LIST, PREVIEW, SHOW, PDF, OF_INVOICE, PAUSE]);
afterAll(() => {
  refusals.close();
  env.close();
});

const LEVEL = { days_after_due: 7, charge_interest: false, charge_compensation: false };

async function books(name: string) {
  const { org, token } = await env.newOrg(name, { country: "BE", currency: "EUR" });
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const r = await api(method, path, body);
    expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBe(status);
    return r.body?.data;
  };
  const customer = await call("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", vat_number: "BE0404795549", email: "ap@dupont.test" }, 201);
  const draft = () =>
    call("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2025-09-01", due_date: "2025-10-01", lines: [{ description: "Work", quantity: "1", unit_price: "100.00" }] }, 201);
  const invoice = async () => call("POST", `/api/v1/invoices/${(await draft()).id}/finalize`);
  const run = async (date: string) => {
    const r = await runCli(["reminders", "run", "--db", env.config.dbPath, "--date", date, "--org", org.id, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout)[0]?.data ?? [];
  };
  return { org, token, api, call, draft, invoice, run };
}

describe("refusals", () => {
  test("the policy: 422 naming the level, the channel, an unknown field; reading it refuses only the caller", async () => {
    const b = await books("Policy BV");
    const put = (body: unknown) => b.api("PUT", "/api/v1/reminder-policy", body);
    refusals.refused(POLICY_PUT, await put({ enabled: true, channel: "email", levels: [LEVEL, LEVEL] }), 422, "levels.1.days_after_due");
    refusals.refused(POLICY_PUT, await put({ enabled: true, channel: "peppol", levels: [] }), 422, "channel");
    refusals.refused(POLICY_PUT, await put({ enabled: true, channel: "email", levels: [], sms: true }), 422, "sms");
    refusals.refused(POLICY_PUT, await put({ channel: "email", levels: [] }), 422, "enabled");
    // nothing was saved
    expect((await b.call("GET", "/api/v1/reminder-policy")).is_default).toBe(true);
    await refusals.shared(POLICY_PUT, "/api/v1/reminder-policy", { enabled: false, channel: "email", levels: [] });
    await refusals.shared(POLICY_SHOW, "/api/v1/reminder-policy");
  });

  test("the list and the preview: 422 naming the query parameter", async () => {
    refusals.refused(LIST, await env.api("GET", "/api/v1/reminders?sort=level"), 422, "sort");
    refusals.refused(LIST, await env.api("GET", "/api/v1/reminders?page[size]=0"), 422, "page.size");
    refusals.refused(PREVIEW, await env.api("GET", "/api/v1/reminders/preview?date=2025-02-30"), 422, "date");
    refusals.refused(PREVIEW, await env.api("GET", "/api/v1/reminders/preview?limit=1001"), 422, "limit");
    refusals.refused(PREVIEW, await env.api("GET", "/api/v1/reminders/preview?after=nonsense"), 422, "after");
    await refusals.shared(LIST, "/api/v1/reminders");
    await refusals.shared(PREVIEW, "/api/v1/reminders/preview");
  });

  test("a reminder and its letter: 404 for an unknown id and another organisation's reminder", async () => {
    const b = await books("Letters BV");
    const inv = await b.invoice();
    await b.call("PUT", "/api/v1/reminder-policy", { enabled: true, channel: "manual", levels: [LEVEL] });
    const [sent] = await b.run("2025-10-08");
    const id = (await b.call("GET", `/api/v1/invoices/${inv.id}/reminders`))[0].id;
    expect(sent.invoice_id).toBe(inv.id);
    for (const [op, suffix] of [[SHOW, ""], [PDF, "/pdf"]] as const) {
      refusals.refused(op, await env.api("GET", `/api/v1/reminders/${UNKNOWN_ID}${suffix}`), 404);
      refusals.refused(op, await env.api("GET", `/api/v1/reminders/${id}${suffix}`), 404);
      expect((await b.api("GET", `/api/v1/reminders/${id}${suffix}`)).status).toBe(200);
      await refusals.shared(op, `/api/v1/reminders/${id}${suffix}`);
    }
  });

  test("an invoice's reminders: 404 unknown or another organisation's; 409 for a draft, a cancelled invoice, a credit note, naming it", async () => {
    const b = await books("Invoices BV");
    const inv = await b.invoice();
    const path = (id: string) => `/api/v1/invoices/${id}/reminders`;
    refusals.refused(OF_INVOICE, await b.api("GET", path(UNKNOWN_ID)), 404);
    refusals.refused(OF_INVOICE, await env.api("GET", path(inv.id)), 404);
    refusals.refused(OF_INVOICE, await b.api("GET", path((await b.draft()).id)), 409, "draft");
    const cancelled = await b.invoice();
    await b.call("POST", `/api/v1/invoices/${cancelled.id}/cancel`);
    refusals.refused(OF_INVOICE, await b.api("GET", path(cancelled.id)), 409, "cancelled");
    const credit = await b.call("POST", `/api/v1/invoices/${inv.id}/credit-note`, {}, 201);
    await b.call("POST", `/api/v1/invoices/${credit.id}/finalize`);
    refusals.refused(OF_INVOICE, await b.api("GET", path(credit.id)), 409, "credit note");
    await refusals.shared(OF_INVOICE, path(inv.id));
  });

  test("the pause: 404 unknown or another organisation's invoice; 422 naming paused, reason, an unknown field", async () => {
    const b = await books("Pause BV");
    const inv = await b.invoice();
    const path = (id: string) => `/api/v1/invoices/${id}/reminders-pause`;
    refusals.refused(PAUSE, await b.api("PUT", path(UNKNOWN_ID), { paused: true }), 404);
    refusals.refused(PAUSE, await env.api("PUT", path(inv.id), { paused: true }), 404);
    refusals.refused(PAUSE, await b.api("PUT", path(inv.id), { reason: "no flag" }), 422, "paused");
    refusals.refused(PAUSE, await b.api("PUT", path(inv.id), { paused: true, reason: "x".repeat(501) }), 422, "reason");
    refusals.refused(PAUSE, await b.api("PUT", path(inv.id), { paused: true, until: "2026-01-01" }), 422, "until");
    expect((await b.call("GET", `/api/v1/invoices/${inv.id}`)).reminders_paused).toBe(false);
    await refusals.shared(PAUSE, path(inv.id), { paused: false });
  });
});

describe("an invoice's reminders pause", () => {
  test("paused: no run reminds of it; resumed: the next run does; the pause is allowed on a draft and a paid invoice too", async () => {
    const b = await books("Paused BV");
    const inv = await b.invoice();
    await b.call("PUT", "/api/v1/reminder-policy", { enabled: true, channel: "manual", levels: [LEVEL, { ...LEVEL, days_after_due: 20 }] });
    const paused = await b.call("PUT", `/api/v1/invoices/${inv.id}/reminders-pause`, { paused: true, reason: "  payment plan  " });
    expect([paused.reminders_paused, paused.reminders_paused_reason]).toEqual([true, "payment plan"]);
    expect(await b.run("2025-10-08")).toEqual([]);
    const resumed = await b.call("PUT", `/api/v1/invoices/${inv.id}/reminders-pause`, { paused: false, reason: "ignored" });
    // resumed, the reason goes with the pause
    expect([resumed.reminders_paused, resumed.reminders_paused_reason]).toEqual([false, null]);
    expect((await b.run("2025-10-08")).map((r: any) => [r.invoice_id, r.level])).toEqual([[inv.id, 0]]);
    // the next level on its day, the first not twice
    expect((await b.run("2025-10-21")).map((r: any) => [r.invoice_id, r.level])).toEqual([[inv.id, 1]]);
    expect((await b.call("GET", `/api/v1/invoices/${inv.id}/reminders`)).map((r: any) => [r.level, r.status])).toEqual([
      [0, "sent"],
      [1, "sent"],
    ]);

    const draft = await b.draft();
    expect((await b.call("PUT", `/api/v1/invoices/${draft.id}/reminders-pause`, { paused: true })).reminders_paused).toBe(true);
    const paid = await b.invoice();
    await b.call("POST", `/api/v1/invoices/${paid.id}/record-payment`, { amount: "100.00", payment_date: "2025-10-02" }, 201);
    expect((await b.call("PUT", `/api/v1/invoices/${paid.id}/reminders-pause`, { paused: true })).status).toBe("paid");
  });
});

test("every 4xx the document lists for reminders was provoked", async () => {
  await refusals.expectEveryRefusalProvoked();
});
