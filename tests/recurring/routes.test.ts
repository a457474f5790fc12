/**
 * Recurring invoices over HTTP: every 4xx the served document lists for the feature's routes,
 * provoked and checked (status, code, the field named), and the template's states: active ⇄
 * paused, ended when no period is left (by a run, an update or a resume), active again when an
 * update leaves periods; the transitions that are refused (409) from each state. Runs go
 * through the real CLI.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv, runCli } from "../helpers.ts";
import { IDEMPOTENCY_409, refusalsOf, UNKNOWN_ID } from "../refusals.ts";

const env = await createTestEnv();
const BASE = "/api/v1/recurring-invoices";
const LIST = { method: "GET", path: BASE };
const CREATE = { method: "POST", path: BASE };
const SHOW = { method: "GET", path: `${BASE}/{id}` };
const UPDATE = { method: "PUT", path: `${BASE}/{id}` };
const DELETE = { method: "DELETE", path: `${BASE}/{id}` };
const PAUSE = { method: "POST", path: `${BASE}/{id}/pause` };
const RESUME = { method: "POST", path: `${BASE}/{id}/resume` };
const refusals = refusalsOf(env, [LIST, CREATE, SHOW, UPDATE, DELETE, PAUSE, RESUME]);
afterAll(() => {
  refusals.close();
  env.close();
});

const LINE = { description: "Hosting", quantity: "1", unit_price: "100.00" };

async function setUp() {
  const { org, token } = await env.newOrg();
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  expect((await api("PUT", "/api/v1/organization", SELLER_IDENTITY)).status).toBe(200);
  const c = await api("POST", "/api/v1/customers", { name: "Klant BV", address: "Markt 1", city: "Brugge", postal_code: "8000", country: "BE", email: "billing@klant.example" });
  expect(c.status, c.text).toBe(201);
  const template = async (fields: Record<string, unknown>) => {
    const r = await api("POST", BASE, { customer_id: c.body.data.id, lines: [LINE], interval: "monthly", ...fields });
    expect(r.status, r.text).toBe(201);
    return r.body.data;
  };
  const run = async (date: string) => {
    const r = await runCli(["recurring", "run", "--db", env.config.dbPath, "--json", "--date", date, "--org", org.id]);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };
  return { org, token, api, template, run, customerId: c.body.data.id as string };
}

describe("refusals", () => {
  test("create: 422 naming the field; the shared refusals", async () => {
    const { api, customerId } = await setUp();
    const post = (fields: Record<string, unknown>) => api("POST", BASE, { customer_id: customerId, lines: [LINE], interval: "monthly", start_date: "2026-01-01", ...fields });
    refusals.refused(CREATE, await post({ count: 2, end_date: "2026-05-01" }), 422, "count");
    refusals.refused(CREATE, await post({ end_date: "2025-12-31" }), 422, "end_date");
    refusals.refused(CREATE, await post({ auto_send: "email" }), 422, "auto_send");
    refusals.refused(CREATE, await post({ customer_id: UNKNOWN_ID }), 422, "customer_id");
    refusals.refused(CREATE, await post({ start_date: "2026-02-30" }), 422, "start_date");
    expect((await api("GET", BASE)).body.data).toEqual([]);
    await refusals.shared(CREATE, BASE, { customer_id: customerId, lines: [LINE], interval: "monthly", start_date: "2026-01-01" });
  });

  test("create with an Idempotency-Key sent twice at once: one template, the second answer a replay, never a 409", async () => {
    const { token, customerId, api } = await setUp();
    const send = () =>
      env.request("POST", BASE, { body: { customer_id: customerId, lines: [LINE], interval: "monthly", start_date: "2026-01-01" }, token, headers: { "idempotency-key": "tpl-1" } });
    const [a, b] = await Promise.all([send(), send()]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.data.id).toBe(a.body.data.id);
    // whichever came second (on PostgreSQL the two run on two connections, in either order) replays the other
    expect([a, b].map((r) => r.headers.get("idempotent-replayed")).sort()).toEqual(["true", null].sort());
    expect((await api("GET", BASE)).body.data).toHaveLength(1);
  });

  test("list: 422 naming an unknown filter value or sort", async () => {
    refusals.refused(LIST, await env.api("GET", `${BASE}?filter[status]=sleeping`), 422, "filter.status");
    refusals.refused(LIST, await env.api("GET", `${BASE}?sort=amount`), 422, "sort");
    await refusals.shared(LIST, BASE);
  });

  test("show, update, delete, pause, resume: 404 for an unknown id and another organisation's template", async () => {
    const { template, api } = await setUp();
    const t = await template({ start_date: "2026-01-01" });
    const cases = [
      [SHOW, "GET", "", undefined],
      [UPDATE, "PUT", "", { notes: "x" }],
      [PAUSE, "POST", "/pause", undefined],
      [RESUME, "POST", "/resume", undefined],
      [DELETE, "DELETE", "", undefined],
    ] as const;
    for (const [op, method, suffix, body] of cases) {
      refusals.refused(op, await env.api(method, `${BASE}/${UNKNOWN_ID}${suffix}`, body), 404);
      // env.token is the first organisation's
      refusals.refused(op, await env.api(method, `${BASE}/${t.id}${suffix}`, body), 404);
    }
    // nothing of it changed
    expect((await api("GET", `${BASE}/${t.id}`)).body.data).toEqual(t);
    for (const [op, method, suffix, body] of cases) await refusals.shared(op, `${BASE}/${t.id}${suffix}`, body ?? (method === "POST" ? {} : undefined));
  });

  test("update: 422 naming the field, nothing changed", async () => {
    const { template, api } = await setUp();
    const t = await template({ start_date: "2026-01-10", end_date: "2026-06-10" });
    refusals.refused(UPDATE, await api("PUT", `${BASE}/${t.id}`, { count: 3 }), 422, "count");
    refusals.refused(UPDATE, await api("PUT", `${BASE}/${t.id}`, { end_date: "2026-01-09" }), 422, "end_date");
    refusals.refused(UPDATE, await api("PUT", `${BASE}/${t.id}`, { auto_send: "email" }), 422, "auto_send");
    refusals.refused(UPDATE, await api("PUT", `${BASE}/${t.id}`, { lines: [{ ...LINE, unit_price: "abc" }] }), 422, "lines.0.unit_price");
    expect((await api("GET", `${BASE}/${t.id}`)).body.data).toEqual(t);
  });

  test("pause and resume take no body fields; resume's catch_up is true or false", async () => {
    const { template, api } = await setUp();
    const t = await template({ start_date: "2026-01-10" });
    refusals.refused(PAUSE, await api("POST", `${BASE}/${t.id}/pause`, { until: "2027-01-01" }), 422, "until");
    expect((await api("POST", `${BASE}/${t.id}/pause`)).status).toBe(200);
    refusals.refused(RESUME, await api("POST", `${BASE}/${t.id}/resume`, { catch_up: true }), 422, "catch_up");
    refusals.refused(RESUME, await api("POST", `${BASE}/${t.id}/resume?catch_up=yes`), 422, "catch_up");
    expect((await api("GET", `${BASE}/${t.id}`)).body.data.status).toBe("paused");
  });
});

describe("a template's states", () => {
  // the run's date: today (a run after today is refused); the periods are in the past
  const today = new Date().toISOString().slice(0, 10);

  test("active → paused → active; pausing a paused one and resuming an active one are 409s naming the state", async () => {
    const { template, api } = await setUp();
    const t = await template({ start_date: "2026-01-10" });
    expect(t.status).toBe("active");
    refusals.refused(RESUME, await api("POST", `${BASE}/${t.id}/resume`), 409, "active");
    expect((await api("POST", `${BASE}/${t.id}/pause`)).body.data.status).toBe("paused");
    refusals.refused(PAUSE, await api("POST", `${BASE}/${t.id}/pause`), 409, "paused");
    // an update of a paused template keeps it paused
    expect((await api("PUT", `${BASE}/${t.id}`, { notes: "still paused" })).body.data.status).toBe("paused");
    expect((await api("POST", `${BASE}/${t.id}/resume?catch_up=true`)).body.data).toMatchObject({ status: "active", next_issue_date: "2026-01-10" });
  });

  test("active → ended by the run that generates its last period; ended → active by a longer count; pause and resume of an ended one are 409s", async () => {
    const { template, api, run } = await setUp();
    const t = await template({ start_date: "2026-01-10", count: 2 });
    const report = await run(today);
    expect(report.generated.map((g: any) => g.period_start)).toEqual(["2026-01-10", "2026-02-10"]);
    expect((await api("GET", `${BASE}/${t.id}`)).body.data).toMatchObject({ status: "ended", next_issue_date: null, generated_count: 2 });
    refusals.refused(PAUSE, await api("POST", `${BASE}/${t.id}/pause`), 409, "ended");
    refusals.refused(RESUME, await api("POST", `${BASE}/${t.id}/resume`), 409, "ended");
    const more = await api("PUT", `${BASE}/${t.id}`, { count: 3 });
    expect(more.body.data).toMatchObject({ status: "active", next_issue_date: "2026-03-10" });
    // the next run generates the third and ends it again
    expect((await run(today)).generated.map((g: any) => g.period_start)).toEqual(["2026-03-10"]);
    expect((await api("GET", `${BASE}/${t.id}`)).body.data.status).toBe("ended");
  });

  test("paused → ended by resuming after its last period has passed (without catch_up); active → ended by an update leaving no period", async () => {
    const { template, api } = await setUp();
    const past = await template({ start_date: "2026-01-10", end_date: "2026-03-10" });
    expect((await api("POST", `${BASE}/${past.id}/pause`)).status).toBe(200);
    // the periods of January to March started while it was paused: skipped, and none is left
    expect((await api("POST", `${BASE}/${past.id}/resume`)).body.data).toMatchObject({ status: "ended", next_issue_date: null });

    const t = await template({ start_date: "2026-01-10" });
    // a count of 0 periods is no series; an end date before the next period leaves none
    const cut = await api("PUT", `${BASE}/${t.id}`, { start_date: "2026-01-10", end_date: "2026-01-09" });
    expect(cut.status).toBe(422);
    const ended = await api("PUT", `${BASE}/${t.id}`, { day_of_period: 20, end_date: "2026-01-15" });
    expect(ended.body.data).toMatchObject({ status: "ended", next_issue_date: null });
    expect((await api("PUT", `${BASE}/${t.id}`, { end_date: null })).body.data).toMatchObject({ status: "active", next_issue_date: "2026-01-20" });
  });
});

test("every 4xx the document lists for recurring invoices was provoked", async () => {
  await refusals.expectEveryRefusalProvoked({ [`POST ${BASE} 409`]: IDEMPOTENCY_409 });
});
