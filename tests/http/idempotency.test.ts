/**
 * `Idempotency-Key` on every POST (contract section 5; server/http/idempotency.ts): the same
 * key with the same body within 24 h returns the first response (status, body, Location)
 * without doing the work again; another body is a 422; keys are per token; parallel requests
 * with one key do the work once; a 4xx outcome is replayed as-is; a 5xx is not kept.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { idempotencyKeys, payments } from "../../db/schema.ts";
import { newId } from "../../server/lib/time.ts";
import { createTestEnv, type ApiResponse } from "../helpers.ts";
import { databaseSnapshot, documentedOperations, fillPath, seedFixture } from "../fixtures.ts";
import { onPostgres, rawSql } from "../raw-sql.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const raw = rawSql(env.db);
const count = async (table: string) => (await raw.get<{ n: number }>(`SELECT count(*) AS n FROM "${table}"`))!.n;

const HEADER = "Idempotency-Key";
let keyCounter = 0;
const freshKey = () => `key-${++keyCounter}-${newId()}`;

/** POST with a key (and a token: default the env's `*` organisation token). */
const post = (path: string, body: unknown, key: string | null, token?: string) =>
  env.request("POST", path, { body, token, headers: key === null ? {} : { [HEADER]: key } });

let customerId: string;
const invoiceBody = () => ({ customer_id: customerId, issue_date: "2026-06-01", lines: [{ description: "Work", quantity: "1", unit_price: "100.00" }] });

beforeAll(async () => {
  customerId = (await env.api("POST", "/api/v1/customers", { name: "Idempotent Customer" })).body.data.id;
});

function expectSame(first: ApiResponse, again: ApiResponse) {
  expect(again.status).toBe(first.status);
  expect(again.text).toBe(first.text);
  expect(again.headers.get("location")).toBe(first.headers.get("location"));
  // the media type; Elysia adds ";charset=utf-8" to the JSON it serialises itself, a replay has the stored body
  const mediaType = (r: ApiResponse) => r.headers.get("content-type")?.split(";")[0];
  expect(mediaType(again)).toBe(mediaType(first)!);
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  expect(first.headers.get("idempotent-replayed")).toBeNull();
}

async function invoiceIn(state: "draft" | "finalized") {
  const inv = (await env.api("POST", "/api/v1/invoices", invoiceBody())).body.data;
  if (state === "finalized") expect((await env.api("POST", `/api/v1/invoices/${inv.id}/finalize`)).status).toBe(200);
  return inv;
}

describe("the same key and body: the first response again, the work done once", () => {
  test("customers: 201, Location and body replayed; one customer, one audit entry", async () => {
    const key = freshKey();
    const body = { name: "Replay Me BV", city: "Gent" };
    const customers = await count("customers");
    const audits = await count("audit_log");
    const first = await post("/api/v1/customers", body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get("location")).toBe(`/api/v1/customers/${first.body.data.id}`);
    const again = await post("/api/v1/customers", body, key);
    expectSame(first, again);
    expect(await post("/api/v1/customers", body, key)).toMatchObject({ status: 201, text: first.text });
    expect(await count("customers")).toBe(customers + 1);
    expect(await count("audit_log")).toBe(audits + 1);
  });

  test("invoices: one invoice, and the numbering does not move", async () => {
    const key = freshKey();
    const before = await count("invoices");
    const first = await post("/api/v1/invoices", invoiceBody(), key);
    expect(first.status, first.text).toBe(201);
    expectSame(first, await post("/api/v1/invoices", invoiceBody(), key));
    expect(await count("invoices")).toBe(before + 1);
    const next = (await env.api("POST", "/api/v1/invoices", invoiceBody())).body.data.number;
    const seq = (n: string) => Number(n.split("-")[2]);
    expect(seq(next)).toBe(seq(first.body.data.number) + 1);
  });

  test("record-payment: 201 with the invoice replayed; the payment is recorded once", async () => {
    const inv = await invoiceIn("finalized");
    const key = freshKey();
    const body = { amount: "40.00", payment_date: "2026-06-05" };
    const first = await post(`/api/v1/invoices/${inv.id}/record-payment`, body, key);
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ status: "partially_paid", amount_paid: "40.00" });
    expectSame(first, await post(`/api/v1/invoices/${inv.id}/record-payment`, body, key));
    expect(await env.db.select().from(payments).where(eq(payments.invoiceId, inv.id))).toHaveLength(1);
    expect((await env.api("GET", `/api/v1/invoices/${inv.id}`)).body.data.amount_paid).toBe("40.00");
    // a new key is a new payment
    expect((await post(`/api/v1/invoices/${inv.id}/record-payment`, body, freshKey())).body.data.amount_paid).toBe("80.00");
  });

  test("finalize: a retry gets the 200 of the first, not the 409 of finalizing twice", async () => {
    const inv = await invoiceIn("draft");
    const key = freshKey();
    const first = await post(`/api/v1/invoices/${inv.id}/finalize`, undefined, key);
    expect(first.status).toBe(200);
    expectSame(first, await post(`/api/v1/invoices/${inv.id}/finalize`, undefined, key));
    expect((await post(`/api/v1/invoices/${inv.id}/finalize`, undefined, null)).status).toBe(409);
    const finalizations = await raw.get<{ n: number }>("SELECT count(*) AS n FROM audit_log WHERE resource_id = ? AND action = 'invoice.finalized'", inv.id);
    expect(finalizations!.n).toBe(1);
  });

  test("tokens: the same plain token is returned again, one token is made, and it is not stored in the clear", async () => {
    const key = freshKey();
    const tokens = await count("api_tokens");
    const first = await post("/api/v1/org-tokens", { name: "CI deploy", abilities: ["invoicing.view"] }, key);
    expect(first.status, first.text).toBe(201);
    expectSame(first, await post("/api/v1/org-tokens", { name: "CI deploy", abilities: ["invoicing.view"] }, key));
    expect(await count("api_tokens")).toBe(tokens + 1);
    expect((await env.api("GET", "/api/v1/invoices", undefined, first.body.token)).status).toBe(200);
    const secret = first.body.token.split("|")[1];
    const stored = await raw.get<{ response_body: string }>("SELECT response_body FROM idempotency_keys WHERE key = ?", key);
    expect(stored!.response_body).not.toContain(secret);

    const { token: personal } = await env.userToken("owner");
    const withOwner = await count("api_tokens");
    const pKey = freshKey();
    const mine = await post("/api/v1/tokens", { name: "laptop" }, pKey, personal);
    expect(mine.status, mine.text).toBe(201);
    expectSame(mine, await post("/api/v1/tokens", { name: "laptop" }, pKey, personal));
    expect(await count("api_tokens")).toBe(withOwner + 1);
  });

  test("every documented POST: the replay changes nothing in the database and answers the same", async () => {
    const org = await env.newOrg("Every POST Co");
    const scoped = { ...env, org: org.org, token: org.token, api: (m: string, p: string, b?: unknown, t?: string) => env.api(m, p, b, t ?? org.token) };
    const fixture = await seedFixture(scoped as typeof env);
    const { token: owner } = await env.userToken("owner", undefined, org.org);
    const posts = (await documentedOperations(env)).filter((op) => op.method === "POST");
    expect(posts.length).toBeGreaterThanOrEqual(10);
    for (const op of posts) {
      const path = fillPath(op.path, fixture);
      const key = freshKey();
      const first = await post(path, op.body, key, owner);
      expect(first.status, `${op.path}: ${first.text}`).toBeLessThan(500);
      const snapshot = await databaseSnapshot(env);
      const again = await post(path, op.body, key, owner);
      expect(again.status, op.path).toBe(first.status);
      expect(again.text, op.path).toBe(first.text);
      if (first.status < 300) expect(again.headers.get("idempotent-replayed"), op.path).toBe("true");
      expect(await databaseSnapshot(env), `${op.path} did its work again`).toBe(snapshot);
    }
  });
});

describe("the same key for another request is a 422", () => {
  test("another body, another path: 422 keyed Idempotency-Key, and nothing is done", async () => {
    const key = freshKey();
    expect((await post("/api/v1/customers", { name: "First Body NV" }, key)).status).toBe(201);
    const customers = await count("customers");
    for (const [path, body] of [
      ["/api/v1/customers", { name: "Second Body NV" }],
      ["/api/v1/customers", { name: "First Body NV", city: "Gent" }],
      ["/api/v1/suppliers", { name: "First Body NV" }],
    ] as [string, unknown][]) {
      const r = await post(path, body, key);
      expect(r.status, path).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual([HEADER]);
      expect(r.body.message).toContain(HEADER);
    }
    expect(await count("customers")).toBe(customers);
    expect(await raw.all("SELECT id FROM suppliers WHERE organization_id = ? AND name = ?", env.org.id, "First Body NV")).toEqual([]);
  });

  test("the header itself: 1 to 255 characters", async () => {
    for (const bad of ["", "   ", "k".repeat(256)]) {
      const r = await post("/api/v1/customers", { name: "Bad Key BV" }, bad);
      expect(r.status, JSON.stringify(bad)).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual([HEADER]);
    }
    expect((await post("/api/v1/customers", { name: "Long Key BV" }, "k".repeat(255))).status).toBe(201);
  });

  test("without a key every POST does its work", async () => {
    const before = await count("customers");
    await post("/api/v1/customers", { name: "Twice NV" }, null);
    await post("/api/v1/customers", { name: "Twice NV" }, null);
    expect(await count("customers")).toBe(before + 2);
  });
});

describe("keys are per token", () => {
  test("another token with the same key does the work itself", async () => {
    const key = freshKey();
    const other = await env.orgToken(["*"]);
    const before = await count("invoices");
    const a = await post("/api/v1/invoices", invoiceBody(), key);
    const b = await post("/api/v1/invoices", invoiceBody(), key, other);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect(b.body.data.id).not.toBe(a.body.data.id);
    expect(await count("invoices")).toBe(before + 2);
    // each token replays its own response
    expect((await post("/api/v1/invoices", invoiceBody(), key, other)).body.data.id).toBe(b.body.data.id);
    expect((await post("/api/v1/invoices", invoiceBody(), key)).body.data.id).toBe(a.body.data.id);
    // and a different body under the other token's key is that token's 422 only
    expect((await post("/api/v1/invoices", { ...invoiceBody(), notes: "x" }, key, other)).status).toBe(422);
  });

  test("another organisation's token with the same key does its own work", async () => {
    const key = freshKey();
    const other = await env.newOrg("Same Key Org");
    const a = await post("/api/v1/customers", { name: "Shared Key Customer" }, key);
    const b = await post("/api/v1/customers", { name: "Shared Key Customer" }, key, other.token);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.data.id).not.toBe(a.body.data.id);
    expect((await env.api("GET", `/api/v1/customers/${b.body.data.id}`, undefined, other.token)).status).toBe(200);
  });
});

describe("concurrency", () => {
  test("two parallel requests with one key create exactly one invoice, and both get its 201", async () => {
    const key = freshKey();
    const before = await count("invoices");
    const [a, b] = await Promise.all([post("/api/v1/invoices", invoiceBody(), key), post("/api/v1/invoices", invoiceBody(), key)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.text).toBe(a.text);
    expect([a, b].filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(1);
    expect(await count("invoices")).toBe(before + 1);
  });

  test("ten parallel payments with one key record one payment", async () => {
    const inv = await invoiceIn("finalized");
    const key = freshKey();
    const body = { amount: "10.00", payment_date: "2026-06-05" };
    const responses = await Promise.all(Array.from({ length: 10 }, () => post(`/api/v1/invoices/${inv.id}/record-payment`, body, key)));
    expect(new Set(responses.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(responses.map((r) => r.text)).size).toBe(1);
    expect(await env.db.select().from(payments).where(eq(payments.invoiceId, inv.id))).toHaveLength(1);
  });

  test("a row without an answer (a reservation an older Kontor left) is no answer: the request does the work", async () => {
    const key = freshKey();
    const body = { name: "Left Over NV" };
    const tokenId = env.token.split("|")[0]!;
    const requestHash = createHash("sha256").update(`POST /api/v1/customers\n${JSON.stringify(body)}`).digest("hex");
    await env.db.insert(idempotencyKeys).values({ tokenId, key, requestHash, createdAt: Date.now() });
    const before = await count("customers");
    const first = await post("/api/v1/customers", body, key);
    expect(first.status, first.text).toBe(201);
    expect(await count("customers")).toBe(before + 1);
    expectSame(first, await post("/api/v1/customers", body, key));
    expect(await count("customers")).toBe(before + 1);
  });
});

describe("what is kept", () => {
  test("a 4xx outcome of the handler is replayed as-is, even once the request would succeed", async () => {
    // 409: paying a draft; the draft is finalized afterwards, the retry still gets the 409
    const inv = await invoiceIn("draft");
    const key = freshKey();
    const body = { amount: "5.00", payment_date: "2026-06-05" };
    const first = await post(`/api/v1/invoices/${inv.id}/record-payment`, body, key);
    expect(first.status).toBe(409);
    await env.api("POST", `/api/v1/invoices/${inv.id}/finalize`);
    expectSame(first, await post(`/api/v1/invoices/${inv.id}/record-payment`, body, key));
    expect(await env.db.select().from(payments).where(eq(payments.invoiceId, inv.id))).toEqual([]);

    // 422 of the service: a customer that does not exist (yet)
    const key2 = freshKey();
    const bad = { ...invoiceBody(), customer_id: newId() };
    const refused = await post("/api/v1/invoices", bad, key2);
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["customer_id"]);
    expectSame(refused, await post("/api/v1/invoices", bad, key2));

    // 404
    const key3 = freshKey();
    const missingId = newId();
    const missing = await post(`/api/v1/invoices/${missingId}/finalize`, undefined, key3);
    expect(missing.status).toBe(404);
    expectSame(missing, await post(`/api/v1/invoices/${missingId}/finalize`, undefined, key3));
  });

  test("a 403 raised inside the handler keeps nothing, like one raised before it", async () => {
    // POST /tokens takes any token, and its handler refuses an organisation token
    const orgToken = await env.orgToken(["contacts.view"]);
    const key = freshKey();
    const first = await post("/api/v1/tokens", { name: "mine" }, key, orgToken);
    expect(first.status).toBe(403);
    const again = await post("/api/v1/tokens", { name: "mine" }, key, orgToken);
    expect(again.status).toBe(403);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(await env.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key))).toEqual([]);
  });

  test("a request refused before its handler (schema 422) keeps nothing: the corrected body may use the key", async () => {
    const key = freshKey();
    const invalid = await post("/api/v1/customers", { name: "" }, key);
    expect(invalid.status).toBe(422);
    expect(Object.keys(invalid.body.errors)).toEqual(["name"]);
    const fixed = await post("/api/v1/customers", { name: "Fixed Name NV" }, key);
    expect(fixed.status, fixed.text).toBe(201);
    expect(fixed.headers.get("idempotent-replayed")).toBeNull();
  });

  test("a 5xx is not kept: the retry with the key does the work", async () => {
    const key = freshKey();
    const body = JSON.stringify({ name: "After The Crash NV" });
    const send = () =>
      env.app.handle(
        new Request("http://localhost/api/v1/customers", { method: "POST", headers: { authorization: `Bearer ${env.token}`, "content-type": "application/json", [HEADER]: key }, body }),
      );
    if (onPostgres) {
      await raw.run("CREATE FUNCTION refuse_customer() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk on fire'; END $$");
      await raw.run("CREATE TRIGGER refuse_customer BEFORE INSERT ON customers FOR EACH ROW EXECUTE FUNCTION refuse_customer()");
    } else await raw.run("CREATE TEMP TRIGGER refuse_customer BEFORE INSERT ON customers BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");
    let failed: Response | undefined;
    try {
      failed = await send();
    } finally {
      if (onPostgres) {
        await raw.run("DROP TRIGGER refuse_customer ON customers");
        await raw.run("DROP FUNCTION refuse_customer()");
      } else await raw.run("DROP TRIGGER refuse_customer");
    }
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ code: "server_error", message: "Server error." });
    const retry = await send();
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(((await retry.json()) as { data: { name: string } }).data.name).toBe("After The Crash NV");
  });

  test("after 24 h a key is forgotten: the same key does the work again", async () => {
    const key = freshKey();
    const first = await post("/api/v1/invoices", invoiceBody(), key);
    expect(first.status).toBe(201);
    await env.db.update(idempotencyKeys).set({ createdAt: sql`${idempotencyKeys.createdAt} - ${24 * 60 * 60 * 1000 + 1}` }).where(eq(idempotencyKeys.key, key));
    const before = await count("invoices");
    const again = await post("/api/v1/invoices", invoiceBody(), key);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.data.id).not.toBe(first.body.data.id);
    expect(await count("invoices")).toBe(before + 1);
    // a key aged 23 h is still kept
    const kept = freshKey();
    const k1 = await post("/api/v1/invoices", invoiceBody(), kept);
    await env.db.update(idempotencyKeys).set({ createdAt: sql`${idempotencyKeys.createdAt} - ${23 * 60 * 60 * 1000}` }).where(eq(idempotencyKeys.key, kept));
    expectSame(k1, await post("/api/v1/invoices", invoiceBody(), kept));
  });

  test("GET, PUT and DELETE ignore the header", async () => {
    const c = (await env.api("POST", "/api/v1/customers", { name: "Put Twice NV" })).body.data;
    const key = freshKey();
    const put = (city: string) => env.request("PUT", `/api/v1/customers/${c.id}`, { body: { city }, headers: { [HEADER]: key } });
    expect((await put("Gent")).body.data.city).toBe("Gent");
    const second = await put("Brugge");
    expect(second.body.data.city).toBe("Brugge");
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(await env.db.select().from(idempotencyKeys).where(eq(idempotencyKeys.key, key))).toEqual([]);
  });
});
