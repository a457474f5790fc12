/**
 * Payment runs over HTTP: every 4xx the served document lists for the feature's routes,
 * provoked and checked (status, code, the field named), and a run's states: open while one of
 * its expenses has something due, completed once all are paid, open again when a payment is
 * deleted; an expense in an open run is in no other run.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createTestEnv, TEST_IBAN } from "../helpers.ts";
import { IDEMPOTENCY_409, refusalsOf, UNKNOWN_ID } from "../refusals.ts";

const env = await createTestEnv();
const CREATE = { method: "POST", path: "/api/v1/payment-runs" };
const LIST = { method: "GET", path: "/api/v1/payment-runs" };
const SHOW = { method: "GET", path: "/api/v1/payment-runs/{id}" };
const FILE = { method: "GET", path: "/api/v1/payment-runs/{id}/file" };
const refusals = refusalsOf(env, [CREATE, LIST, SHOW, FILE]);
afterAll(() => {
  refusals.close();
  env.close();
});

const EXECUTION = "2030-01-02";

async function books(name: string) {
  const { token } = await env.newOrg(name, { country: "BE", currency: "EUR" });
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  const bankId = (await api("GET", "/api/v1/bank-accounts")).body.data.find((a: any) => a.iban === TEST_IBAN).id as string;
  const expense = async (fields: Record<string, unknown>) => {
    const created = await api("POST", "/api/v1/expenses", { category: "Supplies", date: "2026-11-01", payee_iban: "BE68539007547034", ...fields });
    expect(created.status, created.text).toBe(201);
    expect((await api("POST", `/api/v1/expenses/${created.body.data.id}/approve`)).status).toBe(200);
    return created.body.data.id as string;
  };
  return { token, api, bankId, expense };
}

describe("refusals", () => {
  test("POST /payment-runs: 422 naming bank_account_id (unknown, another currency), execution_date (past), due_by (nothing due), a missing field", async () => {
    const b = await books("Refusing BV");
    await b.expense({ amount: "100.00", vendor: "A", due_date: "2026-12-01" });
    const post = (body: unknown) => b.api("POST", "/api/v1/payment-runs", body);
    refusals.refused(CREATE, await post({ bank_account_id: UNKNOWN_ID, due_by: "2026-12-31" }), 422, "bank_account_id");
    // an organisation keeping its books in dollars: its bank account is in USD, which SEPA does not carry
    const dollars = await env.newOrg("Dollar Inc", { country: "US", currency: "USD", iban: "NL91ABNA0417164300" });
    const usdBank = (await env.api("GET", "/api/v1/bank-accounts", undefined, dollars.token)).body.data[0];
    expect(usdBank.currency).toBe("USD");
    const inUsd = await env.api("POST", "/api/v1/payment-runs", { bank_account_id: usdBank.id, due_by: "2026-12-31" }, dollars.token);
    refusals.refused(CREATE, inUsd, 422, "bank_account_id");
    expect(inUsd.body.errors.bank_account_id[0]).toContain("USD");
    refusals.refused(CREATE, await post({ bank_account_id: b.bankId, due_by: "2026-12-31", execution_date: "2020-01-01" }), 422, "execution_date");
    // due on 1 December: nothing is due by 30 November
    refusals.refused(CREATE, await post({ bank_account_id: b.bankId, due_by: "2026-11-30", execution_date: EXECUTION }), 422, "due_by");
    refusals.refused(CREATE, await post({ bank_account_id: b.bankId }), 422, "due_by");
    refusals.refused(CREATE, await post({ bank_account_id: b.bankId, due_by: "2026-12-31", surprise: 1 }), 422, "surprise");
    // none of these stored a run
    expect((await b.api("GET", "/api/v1/payment-runs")).body.data).toEqual([]);
    await refusals.shared(CREATE, "/api/v1/payment-runs", { bank_account_id: b.bankId, due_by: "2026-12-31" });
  });

  test("POST /payment-runs with an Idempotency-Key sent twice at once: the second waits and replays the first (one run), it is never a 409", async () => {
    const b = await books("Twice BV");
    await b.expense({ amount: "40.00", vendor: "A", due_date: "2026-12-01" });
    const send = () =>
      env.request("POST", "/api/v1/payment-runs", { body: { bank_account_id: b.bankId, due_by: "2026-12-31", execution_date: EXECUTION }, token: b.token, headers: { "idempotency-key": "run-1" } });
    const [first, second] = await Promise.all([send(), send()]);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.data.id).toBe(first.body.data.id);
    // whichever came second (on PostgreSQL the two run on two connections, in either order) replays the other
    expect([first, second].map((r) => r.headers.get("idempotent-replayed")).sort()).toEqual(["true", null].sort());
    expect((await b.api("GET", "/api/v1/payment-runs")).body.data).toHaveLength(1);
    // the same key with another body
    const other = await env.request("POST", "/api/v1/payment-runs", { body: { bank_account_id: b.bankId, due_by: "2027-12-31" }, token: b.token, headers: { "idempotency-key": "run-1" } });
    refusals.refused(CREATE, other, 422, "Idempotency-Key");
  });

  test("GET /payment-runs: 422 naming an unknown sort, filter or a bad limit", async () => {
    refusals.refused(LIST, await env.api("GET", "/api/v1/payment-runs?sort=amount"), 422, "sort");
    refusals.refused(LIST, await env.api("GET", "/api/v1/payment-runs?limit=0"), 422, "limit");
    await refusals.shared(LIST, "/api/v1/payment-runs");
  });

  test("GET /payment-runs/{id} and its file: 404 for an unknown id and for another organisation's run", async () => {
    const b = await books("Owner BV");
    await b.expense({ amount: "10.00", vendor: "A", due_date: "2026-12-01" });
    const run = (await b.api("POST", "/api/v1/payment-runs", { bank_account_id: b.bankId, due_by: "2026-12-31", execution_date: EXECUTION })).body.data;
    for (const [op, suffix] of [[SHOW, ""], [FILE, "/file"]] as const) {
      refusals.refused(op, await env.api("GET", `/api/v1/payment-runs/${UNKNOWN_ID}${suffix}`), 404);
      // env.token is the first organisation's: the run is Owner BV's
      refusals.refused(op, await env.api("GET", `/api/v1/payment-runs/${run.id}${suffix}`), 404);
      expect((await b.api("GET", `/api/v1/payment-runs/${run.id}${suffix}`)).status).toBe(200);
      await refusals.shared(op, `/api/v1/payment-runs/${run.id}${suffix}`);
    }
  });

  test("every 4xx the document lists for payment runs was provoked", async () => {
    await refusals.expectEveryRefusalProvoked({ "POST /api/v1/payment-runs 409": IDEMPOTENCY_409 });
  });
});

describe("a run's states", () => {
  test("open while an expense has something due; completed when all are paid; open again when a payment is deleted", async () => {
    const b = await books("States BV");
    const a = await b.expense({ amount: "100.00", vat_amount: "21.00", vendor: "A", due_date: "2026-12-01" });
    const c = await b.expense({ amount: "50.00", vendor: "C", due_date: "2026-12-02" });
    const created = await b.api("POST", "/api/v1/payment-runs", { bank_account_id: b.bankId, due_by: "2026-12-31", execution_date: EXECUTION });
    expect(created.status, created.text).toBe(201);
    const run = created.body.data;
    // 121.00 + 50.00
    expect([run.status, run.total, run.item_count]).toEqual(["open", "171.00", 2]);
    const status = async () => (await b.api("GET", `/api/v1/payment-runs/${run.id}`)).body.data.status;
    const pay = async (id: string, amount: string) => {
      const r = await b.api("POST", `/api/v1/expenses/${id}/record-payment`, { amount, payment_date: "2030-01-02", bank_account_id: b.bankId });
      expect(r.status, r.text).toBe(201);
      return r.body.data.payments.at(-1).id as string;
    };

    // part of A paid: both still have something due
    await pay(a, "21.00");
    expect(await status()).toBe("open");
    // an expense with something left in an open run is in no other run
    const again = await b.api("POST", "/api/v1/payment-runs", { bank_account_id: b.bankId, due_by: "2026-12-31", execution_date: EXECUTION });
    expect(again.status).toBe(422);
    expect(Object.keys(again.body.errors)).toEqual(["due_by"]);
    await pay(a, "100.00");
    expect(await status()).toBe("open");
    const last = await pay(c, "50.00");
    expect(await status()).toBe("completed");
    expect((await b.api("GET", "/api/v1/payment-runs")).body.data.map((r: any) => r.status)).toEqual(["completed"]);

    // the last payment deleted: C has 50.00 due again, the run is open again and C is still its own
    expect((await b.api("DELETE", `/api/v1/expenses/${c}/payments/${last}`)).status).toBe(204);
    expect(await status()).toBe("open");
    const none = await b.api("POST", "/api/v1/payment-runs", { bank_account_id: b.bankId, due_by: "2026-12-31", execution_date: EXECUTION });
    expect(none.status).toBe(422);
  });
});
