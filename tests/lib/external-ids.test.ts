/**
 * External ids and metadata (issue 28 item 3) on customers, suppliers, invoices (credit notes
 * too) and expenses, and the list filters a connector matches on: external_id, metadata keys,
 * email and vat_number (customers, suppliers), number and order_reference (invoices).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { customers, webhookDeliveries } from "../../db/schema.ts";
import { createTestEnv, type ApiResponse } from "../helpers.ts";
import { slowListSteps } from "../query-plan.ts";
import { firstRow } from "../../db/client.ts";
import { rawSql } from "../raw-sql.ts";

const env = await createTestEnv();
afterAll(() => env.close());

let rate21: string;
let customerId: string;
beforeAll(async () => {
  rate21 = (await env.api("GET", "/api/v1/vat-rates")).body.data.find((r: any) => r.rate === "21.00").id;
  customerId = (await created("/api/v1/customers", { name: "Invoiced NV" })).id;
});

async function created(path: string, body: unknown, token?: string) {
  const r = await env.api("POST", path, body, token);
  expect(r.status, r.text).toBe(201);
  return r.body.data;
}

const invoiceBody = (over: Record<string, unknown> = {}) => ({
  customer_id: customerId,
  issue_date: "2026-03-01",
  lines: [{ description: "Work", quantity: "1", unit_price: "100.00", vat_rate_id: rate21 }],
  ...over,
});
const expenseBody = (over: Record<string, unknown> = {}) => ({ category: "Travel", amount: "12.50", date: "2026-03-01", ...over });

/** Each resource with external ids: where it lives and a valid body to create one. */
const RESOURCES = {
  customers: { path: "/api/v1/customers", body: (over: object = {}) => ({ name: "Ext NV", ...over }), resource: "customer" },
  suppliers: { path: "/api/v1/suppliers", body: (over: object = {}) => ({ name: "Ext Supplier", ...over }), resource: "supplier" },
  invoices: { path: "/api/v1/invoices", body: invoiceBody, resource: "invoice" },
  expenses: { path: "/api/v1/expenses", body: expenseBody, resource: "expense" },
};

const errorKeys = (r: ApiResponse) => [r.status, Object.keys(r.body?.errors ?? {})];
const ids = (r: ApiResponse) => r.body.data.map((row: any) => row.id).sort();

describe.each(Object.entries(RESOURCES))("%s", (name, { path, body, resource }) => {
  test("external_id and metadata are stored and shown; without them null and {}", async () => {
    const plain = await created(path, body());
    expect(plain.external_id).toBeNull();
    expect(plain.metadata).toEqual({});
    const tagged = await created(path, body({ external_id: `${name}-1`, metadata: { shop: "webshop", "order.source": "Ünïcode ✓" } }));
    expect(tagged).toMatchObject({ external_id: `${name}-1`, metadata: { shop: "webshop", "order.source": "Ünïcode ✓" } });
    expect((await env.api("GET", `${path}/${tagged.id}`)).body.data).toMatchObject({ external_id: `${name}-1`, metadata: { shop: "webshop" } });
  });

  test("a taken external_id is a 409 naming the holder, on create and on update; nothing is stored", async () => {
    const holder = await created(path, body({ external_id: `${name}-taken` }));
    const before = (await env.api("GET", `${path}?per_page=1`)).body.meta.total;
    const duplicate = await env.api("POST", path, body({ external_id: `${name}-taken` }));
    expect(duplicate.status).toBe(409);
    expect(duplicate.body).toEqual({ code: "conflict", message: expect.stringContaining(`${resource} ${holder.id}`), holder_id: holder.id });
    expect((await env.api("GET", `${path}?per_page=1`)).body.meta.total).toBe(before);

    const other = await created(path, body());
    const update = await env.api("PUT", `${path}/${other.id}`, { external_id: `${name}-taken`, metadata: { lost: "yes" } });
    expect(update.status).toBe(409);
    expect(update.body.holder_id).toBe(holder.id);
    expect((await env.api("GET", `${path}/${other.id}`)).body.data).toMatchObject({ external_id: null, metadata: {} });
    // its own external id sent back is no conflict; null frees it for another
    expect((await env.api("PUT", `${path}/${holder.id}`, { external_id: `${name}-taken` })).status).toBe(200);
    expect((await env.api("PUT", `${path}/${holder.id}`, { external_id: null })).body.data.external_id).toBeNull();
    expect((await env.api("PUT", `${path}/${other.id}`, { external_id: `${name}-taken` })).body.data.external_id).toBe(`${name}-taken`);
  });

  test("metadata is replaced as a whole on update; {} clears it; left out, it stays", async () => {
    const row = await created(path, body({ metadata: { a: "1", b: "2" } }));
    expect((await env.api("PUT", `${path}/${row.id}`, { metadata: { c: "3" } })).body.data.metadata).toEqual({ c: "3" });
    expect((await env.api("PUT", `${path}/${row.id}`, { external_id: `${name}-kept` })).body.data.metadata).toEqual({ c: "3" });
    expect((await env.api("PUT", `${path}/${row.id}`, { metadata: {} })).body.data.metadata).toEqual({});
  });

  test("limits: 50 keys of 40 characters, values of 500, strings only; external_id 1 to 255: else a 422 naming the field", async () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`key${i}`, "v"]));
    expect((await env.api("POST", path, body({ metadata: keys(50), external_id: "x".repeat(255) }))).status).toBe(201);
    for (const metadata of [keys(51), { ["k".repeat(41)]: "v" }, { a: "v".repeat(501) }, { a: 1 }, { a: null }, { "a[b]": "v" }, { "": "v" }, { $a: "v" }, ["a"], "a"]) {
      const r = await env.api("POST", path, body({ metadata }));
      expect(r.status, JSON.stringify(metadata)).toBe(422);
      expect(Object.keys(r.body.errors).every((key) => key.startsWith("metadata")), r.text).toBe(true);
    }
    for (const external_id of ["", "x".repeat(256), "line\nbreak", 42]) expect(errorKeys(await env.api("POST", path, body({ external_id })))).toEqual([422, ["external_id"]]);
  });

  test("filter[external_id] and filter[metadata][KEY] (several keys: all of them)", async () => {
    const [a, b, c] = [
      await created(path, body({ external_id: `${name}-f1`, metadata: { channel: "shop", region: "north" } })),
      await created(path, body({ metadata: { channel: "shop", region: "south" } })),
      await created(path, body({ metadata: { channel: "phone" } })),
    ];
    expect(ids(await env.api("GET", `${path}?filter[external_id]=${name}-f1`))).toEqual([a.id]);
    const shop = await env.api("GET", `${path}?filter[metadata][channel]=shop&per_page=100`);
    expect(ids(shop)).toEqual([a.id, b.id].sort());
    expect(ids(await env.api("GET", `${path}?filter[metadata][channel]=shop&filter[metadata][region]=south`))).toEqual([b.id]);
    expect(ids(await env.api("GET", `${path}?filter[metadata][channel]=phone`))).toEqual([c.id]);
    expect(ids(await env.api("GET", `${path}?filter[metadata][nothing]=shop`))).toEqual([]);
    // a key that is not one, and a name no filter has, are 422s naming them
    expect(errorKeys(await env.api("GET", `${path}?filter[metadata][${"k".repeat(41)}]=x`))).toEqual([422, [`filter.metadata.${"k".repeat(41)}`]]);
    expect(errorKeys(await env.api("GET", `${path}?filter[metadatum][a]=x`))).toEqual([422, ["filter.metadatum.a"]]);
    expect(errorKeys(await env.api("GET", `${path}?colour=red`))).toEqual([422, ["colour"]]);
    // a cursor carries the metadata filter, and refuses another one
    const first = await env.api("GET", `${path}?filter[metadata][channel]=shop&per_page=1`);
    const next = await env.api("GET", `${path}?per_page=1&cursor=${first.body.meta.next_cursor}`);
    expect([...first.body.data, ...next.body.data].map((row: any) => row.id).sort()).toEqual([a.id, b.id].sort());
    expect(errorKeys(await env.api("GET", `${path}?filter[metadata][channel]=phone&cursor=${first.body.meta.next_cursor}`))).toEqual([422, ["cursor"]]);
  });

  test("another organisation and another resource type may use the same external_id", async () => {
    await created(path, body({ external_id: "shared-42" }));
    const stranger = await env.newOrg();
    const foreignCustomer = (await created("/api/v1/customers", { name: "Theirs" }, stranger.token)).id;
    const theirRate = (await env.api("GET", "/api/v1/vat-rates", undefined, stranger.token)).body.data.find((r: any) => r.rate === "21.00").id;
    const theirLines = [{ description: "Work", quantity: "1", unit_price: "100.00", vat_rate_id: theirRate }];
    const theirs = name === "invoices" ? body({ external_id: "shared-42", customer_id: foreignCustomer, lines: theirLines }) : body({ external_id: "shared-42" });
    await created(path, theirs, stranger.token);
    for (const [otherName, other] of Object.entries(RESOURCES)) {
      if (otherName !== name) await created(other.path, other.body({ external_id: `${name}-cross` }));
    }
    await created(path, body({ external_id: `${name}-cross` }));
  });
});

describe("credit notes are invoices", () => {
  test("a credit note takes external_id and metadata; an invoice's external_id is taken for it too", async () => {
    const invoice = await created("/api/v1/invoices", invoiceBody({ external_id: "order-77" }));
    expect((await env.api("POST", `/api/v1/invoices/${invoice.id}/finalize`)).status).toBe(200);
    const taken = await env.api("POST", `/api/v1/invoices/${invoice.id}/credit-note`, { external_id: "order-77" });
    expect(taken.status).toBe(409);
    expect(taken.body.holder_id).toBe(invoice.id);
    const note = await created(`/api/v1/invoices/${invoice.id}/credit-note`, { external_id: "refund-77", metadata: { reason: "damaged" } });
    expect(note).toMatchObject({ type: "credit_note", external_id: "refund-77", metadata: { reason: "damaged" } });
    expect(ids(await env.api("GET", "/api/v1/invoices?filter[external_id]=refund-77"))).toEqual([note.id]);
  });
});

describe("the connector's other matches", () => {
  test("customers and suppliers by email and vat_number (as sent, or spaced and dotted)", async () => {
    for (const path of ["/api/v1/customers", "/api/v1/suppliers"]) {
      const row = await created(path, { name: "Anker", email: "Finance@Anker.example", vat_number: "BE0897290877" });
      await created(path, { name: "Other", email: "other@anker.example", vat_number: "NL006375054B01" });
      expect(ids(await env.api("GET", `${path}?filter[email]=finance@anker.example`))).toEqual([row.id]);
      expect(ids(await env.api("GET", `${path}?filter[vat_number]=BE0897290877`))).toEqual([row.id]);
      expect(ids(await env.api("GET", `${path}?filter[vat_number]=${encodeURIComponent("BE 0897.290.877")}`))).toEqual([row.id]);
      expect(ids(await env.api("GET", `${path}?filter[vat_number]=BE0000000000`))).toEqual([]);
    }
  });

  test("invoices by number and order_reference", async () => {
    const ordered = await created("/api/v1/invoices", invoiceBody({ order_reference: "PO-2026-0042" }));
    await created("/api/v1/invoices", invoiceBody({ order_reference: "PO-2026-0043" }));
    const finalized = (await env.api("POST", `/api/v1/invoices/${ordered.id}/finalize`)).body.data;
    expect(ids(await env.api("GET", "/api/v1/invoices?filter[order_reference]=PO-2026-0042"))).toEqual([ordered.id]);
    expect(ids(await env.api("GET", `/api/v1/invoices?filter[number]=${finalized.number}`))).toEqual([ordered.id]);
    expect(ids(await env.api("GET", "/api/v1/invoices?filter[number]=INV-1999-00001"))).toEqual([]);
  });

  test("the exact-match filters are index searches with no sort step", async () => {
    for (const [table, path, seekOn] of [
      ["customers", "/api/v1/customers?filter[vat_number]=BE0897290877", ["vat_number"]],
      ["customers", "/api/v1/customers?filter[email]=finance@anker.example", ["email"]],
      ["customers", "/api/v1/customers?filter[external_id]=customers-f1", ["external_id"]],
      ["suppliers", "/api/v1/suppliers?filter[vat_number]=BE0897290877", ["vat_number"]],
      ["suppliers", "/api/v1/suppliers?filter[external_id]=suppliers-f1", ["external_id"]],
      ["invoices", "/api/v1/invoices?filter[order_reference]=PO-2026-0042", ["order_reference"]],
      ["invoices", "/api/v1/invoices?filter[number]=INV-2026-00001", ["number"]],
      ["invoices", "/api/v1/invoices?filter[external_id]=order-77", ["external_id"]],
      ["expenses", "/api/v1/expenses?filter[external_id]=expenses-f1", ["external_id"]],
    ] as const) {
      expect(await slowListSteps(env, table, path, undefined, [...seekOn])).toEqual([]);
    }
  });
});

describe("webhook payloads", () => {
  test("carry external_id and metadata (the read side's show)", async () => {
    const hook = await created("/api/v1/webhooks", { url: "https://hooks.example.com/kontor", events: ["customer.created", "invoice.updated"] });
    const customer = await created("/api/v1/customers", { name: "Hooked NV", external_id: "crm-9", metadata: { tier: "gold" } });
    const invoice = await created("/api/v1/invoices", invoiceBody());
    await env.api("PUT", `/api/v1/invoices/${invoice.id}`, { external_id: "erp-9", metadata: { batch: "7" } });
    const payloads = (await env.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, hook.id)))
      .map((d) => JSON.parse(d.payload));
    expect(payloads.find((p) => p.event === "customer.created").data).toMatchObject({ id: customer.id, external_id: "crm-9", metadata: { tier: "gold" } });
    expect(payloads.find((p) => p.event === "invoice.updated").data).toMatchObject({ id: invoice.id, external_id: "erp-9", metadata: { batch: "7" } });
  });

  test("the database stores metadata as a JSON object", async () => {
    const row = await firstRow(env.db.select({ metadata: customers.metadata }).from(customers).where(eq(customers.externalId, "crm-9")));
    expect(row?.metadata).toEqual({ tier: "gold" });
    const raw = await rawSql(env.db).get<{ metadata: string }>("SELECT metadata FROM customers WHERE external_id = 'crm-9'");
    expect(JSON.parse(raw!.metadata)).toEqual({ tier: "gold" });
  });
});
