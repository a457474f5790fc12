/**
 * Batches (issue 28 item 4; server/http/batch.ts): POST /customers/batch and /invoices/batch
 * take up to 100 items, each checked and created on its own with its own result; idempotent
 * as a whole; one request against the rate limit. And `finalize: true` on invoice create.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestEnv } from "../helpers.ts";
import { databaseSnapshot } from "../fixtures.ts";
import { rawSql } from "../raw-sql.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const raw = rawSql(env.db);
const count = async (table: string, where = "1 = 1") => (await raw.get<{ n: number }>(`SELECT count(*) AS n FROM "${table}" WHERE ${where}`))!.n;

let customerId: string;
const invoice = (extra: Record<string, unknown> = {}) => ({
  customer_id: customerId,
  issue_date: "2026-06-01",
  lines: [{ description: "Work", quantity: "1", unit_price: "100.00" }],
  ...extra,
});

beforeAll(async () => {
  customerId = (await env.api("POST", "/api/v1/customers", { name: "Batch Customer" })).body.data.id;
});

describe("POST /customers/batch", () => {
  test("each item is created or refused on its own, in order; a refused item stores nothing", async () => {
    const before = await count("customers");
    const audits = await count("audit_log");
    const r = await env.api("POST", "/api/v1/customers/batch", {
      items: [{ name: "First BV", city: "Gent" }, { name: "" }, { name: "Typo BV", nmae: "x", postal_code: 9000 }, "not an object", { name: "Last BV" }],
    });
    expect(r.status).toBe(200);
    expect(r.body.data.map((d: { status: number }) => d.status)).toEqual([201, 422, 422, 422, 201]);
    expect(r.body.data[0].data).toMatchObject({ name: "First BV", city: "Gent" });
    expect(r.body.data[4].data.name).toBe("Last BV");
    // the single create's 422, keyed by the item's own field paths
    expect(r.body.data[1]).toEqual({ status: 422, code: "validation_failed", message: "The name field must not be empty.", errors: { name: ["The name field must not be empty."] } });
    expect(Object.keys(r.body.data[2].errors).sort()).toEqual(["nmae", "postal_code"]);
    expect(r.body.data[2].errors.postal_code).toEqual(["The postal_code field must be a string."]);
    expect(r.body.data[3]).toMatchObject({ status: 422, code: "validation_failed" });
    expect(await count("customers")).toBe(before + 2);
    expect(await count("audit_log")).toBe(audits + 2);
    const shown = await env.api("GET", `/api/v1/customers/${r.body.data[0].data.id}`);
    expect(shown.body.data).toEqual(r.body.data[0].data);
  });

  test("the envelope is checked as a whole: 1 to 100 items, nothing else", async () => {
    const before = await count("customers");
    for (const body of [{ items: [] }, { items: Array.from({ length: 101 }, (_, i) => ({ name: `Too many ${i}` })) }, {}, { items: [{ name: "X" }], extra: 1 }]) {
      const r = await env.api("POST", "/api/v1/customers/batch", body);
      expect(r.status).toBe(422);
      expect(r.body.code).toBe("validation_failed");
    }
    expect(await count("customers")).toBe(before);
    const hundred = await env.api("POST", "/api/v1/customers/batch", { items: Array.from({ length: 100 }, (_, i) => ({ name: `Hundred ${i}` })) });
    expect(hundred.body.data.filter((d: { status: number }) => d.status === 201)).toHaveLength(100);
  });

  test("a taken external_id is that item's 409 naming the holder (holder_id), as the single create's; the same id twice in one batch too", async () => {
    const holder = (await env.api("POST", "/api/v1/customers", { name: "Holder BV", external_id: "batch-taken-1" })).body.data.id;
    const r = await env.api("POST", "/api/v1/customers/batch", {
      items: [{ name: "Taker BV", external_id: "batch-taken-1" }, { name: "Twin A", external_id: "batch-twin" }, { name: "Twin B", external_id: "batch-twin" }],
    });
    expect(r.body.data.map((d: { status: number }) => d.status)).toEqual([409, 201, 409]);
    const single = await env.api("POST", "/api/v1/customers", { name: "Taker BV", external_id: "batch-taken-1" });
    expect(single.status).toBe(409);
    expect(r.body.data[0]).toEqual({ status: 409, ...single.body });
    expect(r.body.data[0]).toMatchObject({ code: "conflict", holder_id: holder });
    expect(r.body.data[2].holder_id).toBe(r.body.data[1].data.id);
  });

  test("needs contacts.create", async () => {
    const viewer = await env.orgToken(["contacts.view"]);
    const r = await env.api("POST", "/api/v1/customers/batch", { items: [{ name: "Nope" }] }, viewer);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("forbidden");
  });

  test("idempotent as a whole: the same key replays every result and creates nothing again", async () => {
    const body = { items: [{ name: "Once A" }, { name: "" }, { name: "Once B" }] };
    const headers = { "Idempotency-Key": "batch-once-1" };
    const first = await env.request("POST", "/api/v1/customers/batch", { body, headers });
    const again = await env.request("POST", "/api/v1/customers/batch", { body, headers });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    expect(await count("customers", "name LIKE 'Once %'")).toBe(2);
    const other = await env.request("POST", "/api/v1/customers/batch", { body: { items: [{ name: "Once C" }] }, headers });
    expect(other.status).toBe(422);
    expect(await count("customers", "name LIKE 'Once %'")).toBe(2);
  });

  test("counted once against the rate limit", async () => {
    const limited = await createTestEnv({ KONTOR_RATE_LIMIT: "3" });
    try {
      const r = await limited.api("POST", "/api/v1/customers/batch", { items: Array.from({ length: 50 }, (_, i) => ({ name: `Limited ${i}` })) });
      expect(r.status).toBe(200);
      expect(r.headers.get("x-ratelimit-remaining")).toBe("2");
      expect(r.body.data).toHaveLength(50);
    } finally {
      limited.close();
    }
  });
});

describe("finalize: true", () => {
  test("creates and finalizes in one step: numbered, posted, both events", async () => {
    const r = await env.api("POST", "/api/v1/invoices", invoice({ finalize: true }));
    expect(r.status).toBe(201);
    expect(r.body.data.status).toBe("finalized");
    expect(r.body.data.number).toMatch(/^INV-2026-\d{5}$/);
    expect(r.body.data.payment_reference).toBeString();
    const actions = await raw.all<{ action: string }>("SELECT action FROM audit_log WHERE resource_id = ? ORDER BY created_at, id", r.body.data.id);
    expect(actions.map((a) => a.action)).toEqual(["invoice.created", "invoice.finalized"]);
    expect(await count("journal_entries", `source_id = '${r.body.data.id}'`)).toBe(1);
    // false and absent: a draft
    expect((await env.api("POST", "/api/v1/invoices", invoice({ finalize: false }))).body.data.status).toBe("draft");
  });

  test("every finalize check applies (its readiness too), and a refused finalize stores nothing", async () => {
    // a customer with a Peppol id needs an e-invoice, which a new organisation cannot yet carry
    const fresh = await env.newOrg("Unready BV");
    const peppolCustomer = (await env.api("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", peppol_id: "0208:0404795549" }, fresh.token)).body.data.id;
    const draft = await env.api("POST", "/api/v1/invoices", { ...invoice(), customer_id: peppolCustomer }, fresh.token);
    const readiness = (await env.api("GET", `/api/v1/invoices/${draft.body.data.id}`, undefined, fresh.token)).body.data.readiness;
    expect(readiness.ready).toBe(false);

    const before = await databaseSnapshot(env);
    const refused = await env.api("POST", "/api/v1/invoices", { ...invoice({ finalize: true }), customer_id: peppolCustomer }, fresh.token);
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual(readiness.problems);
    const future = await env.api("POST", "/api/v1/invoices", invoice({ finalize: true, issue_date: "2999-01-01" }));
    expect(future.status).toBe(422);
    expect(Object.keys(future.body.errors)).toEqual(["issue_date"]);
    // no draft, no audit entry, no event, no number drawn
    expect(await databaseSnapshot(env)).toBe(before);
  });

  test("needs the invoicing.finalize ability as well", async () => {
    const creator = await env.orgToken(["invoicing.create", "invoicing.view"]);
    const before = await count("invoices");
    const r = await env.api("POST", "/api/v1/invoices", invoice({ finalize: true }), creator);
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ code: "forbidden", message: "This action requires the invoicing.finalize ability." });
    expect(await count("invoices")).toBe(before);
    expect((await env.api("POST", "/api/v1/invoices", invoice(), creator)).status).toBe(201);
  });
});

describe("POST /invoices/batch", () => {
  test("drafts, finalized invoices and refusals side by side; each refusal stores nothing", async () => {
    const creator = await env.orgToken(["invoicing.create", "invoicing.view"]);
    const before = await count("invoices");
    const items = [
      invoice(),
      invoice({ finalize: true }),
      invoice({ lines: [{ description: "Bad", quantity: "1", unit_price: "abc" }] }),
      invoice({ finalize: true, issue_date: "2999-01-01" }),
      invoice({ customer_id: "01900000-0000-7000-8000-000000000000" }),
    ];
    const r = await env.api("POST", "/api/v1/invoices/batch", { items });
    expect(r.status).toBe(200);
    expect(r.body.data.map((d: { status: number }) => d.status)).toEqual([201, 201, 422, 422, 422]);
    expect(r.body.data[0].data.status).toBe("draft");
    expect(r.body.data[1].data.status).toBe("finalized");
    // field paths as sent, in keys and messages
    expect(r.body.data[2].errors["lines.0.unit_price"][0]).toStartWith("The lines.0.unit_price field");
    expect(r.body.data[3].errors.issue_date).toBeArray();
    expect(r.body.data[4].errors.customer_id).toEqual(["The selected customer_id is invalid."]);
    expect(await count("invoices")).toBe(before + 2);

    // an item asking to finalize without the ability is that item's 403
    const mixed = await env.api("POST", "/api/v1/invoices/batch", { items: [invoice({ finalize: true }), invoice()] }, creator);
    expect(mixed.body.data.map((d: { status: number }) => d.status)).toEqual([403, 201]);
    expect(mixed.body.data[0]).toEqual({ status: 403, code: "forbidden", message: "This action requires the invoicing.finalize ability." });
    expect(await count("invoices")).toBe(before + 3);
  });

  test("a taken external_id is that item's 409 with holder_id", async () => {
    const holder = (await env.api("POST", "/api/v1/invoices", invoice({ external_id: "batch-order-1" }))).body.data.id;
    const r = await env.api("POST", "/api/v1/invoices/batch", { items: [invoice({ external_id: "batch-order-1" }), invoice({ external_id: "batch-order-2" })] });
    expect(r.body.data.map((d: { status: number }) => d.status)).toEqual([409, 201]);
    expect(r.body.data[0]).toMatchObject({ status: 409, code: "conflict", holder_id: holder });
    expect(r.body.data[0].message).toContain("batch-order-1");
  });

  test("under an Idempotency-Key a retry numbers nothing again", async () => {
    const body = { items: [invoice({ finalize: true }), invoice({ finalize: true })] };
    const headers = { "Idempotency-Key": "invoice-batch-1" };
    const first = await env.request("POST", "/api/v1/invoices/batch", { body, headers });
    const numbers = first.body.data.map((d: { data: { number: string } }) => d.data.number);
    const again = await env.request("POST", "/api/v1/invoices/batch", { body, headers });
    expect(again.text).toBe(first.text);
    const next = await env.api("POST", "/api/v1/invoices", invoice({ finalize: true }));
    const last = (n: string) => Number(n.slice(-5));
    expect(last(next.body.data.number)).toBe(last(numbers[1]) + 1);
  });
});
