// The largest page of each list (docs/api.md#the-largest-page): the bounds scripts/page-bounds.ts
// computes from the served OpenAPI document and the limits cover every list, are finite, and hold
// an invoice and a customer built through the API as heavy as the limits let them be.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { clipServerText, MAX_SERVER_TEXT } from "../../server/lib/counts.ts";
import { ENVELOPE_BYTES, PER_PAGE, pageBounds, type ListBound } from "../../scripts/page-bounds.ts";
import { createTestEnv, type TestEnv } from "../helpers.ts";

let env: TestEnv;
let doc: any;
let bounds: ListBound[];
beforeAll(async () => {
  env = await createTestEnv();
  doc = await (await env.app.handle(new Request("http://localhost/docs/openapi.json"))).json();
  bounds = pageBounds(doc);
});
afterAll(() => env.close());

// a code point of 4 bytes in UTF-8, which JSON writes as is: the widest character the API takes
const WIDE = "😀";
const wide = (n: number, tail = "") => WIDE.repeat(n - Array.from(tail).length) + tail;
const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const boundOf = (path: string) => bounds.find((b) => b.path === path)!;

/** Metadata at its limit: 50 keys of 40 characters (its pattern counts UTF-16 units: "€" is the widest of one, 3 bytes), values of 500. */
const fullMetadata = () => Object.fromEntries(Array.from({ length: 50 }, (_, i) => ["€".repeat(38) + String(i).padStart(2, "0"), wide(500)]));

describe("the largest page", () => {
  test("every list of the OpenAPI document has a finite bound, every field of its rows limited", () => {
    const lists = Object.entries<any>(doc.paths)
      .filter(([, item]) => {
        let body = item.get?.responses?.["200"]?.content?.["application/json"]?.schema;
        while (body?.$ref) body = doc.components.schemas[body.$ref.split("/").pop()];
        return body?.properties?.data && body.properties.meta;
      })
      .map(([path]) => path);
    expect(lists.length).toBeGreaterThan(15);
    expect(bounds.map((b) => b.path).sort()).toEqual([...lists].sort());
    for (const b of bounds) {
      expect({ path: b.path, unbounded: b.unbounded }).toEqual({ path: b.path, unbounded: [] });
      expect(Number.isFinite(b.page)).toBe(true);
      expect(b.row).toBeGreaterThan(0);
      expect(b.page).toBe(PER_PAGE * (b.row + 1) + ENVELOPE_BYTES);
    }
    // the feed's row carries a resource: at least the largest invoice
    expect(boundOf("/api/v1/events").row).toBeGreaterThan(boundOf("/api/v1/invoices").row);
  });

  test("a remote server's text is cut to its maximum when stored, by characters, ending in …", () => {
    expect(clipServerText(null)).toBeNull();
    expect(clipServerText("x".repeat(MAX_SERVER_TEXT))).toBe("x".repeat(MAX_SERVER_TEXT));
    const cut = clipServerText(WIDE.repeat(MAX_SERVER_TEXT + 1));
    expect(Array.from(cut).length).toBe(MAX_SERVER_TEXT);
    expect(cut).toBe(WIDE.repeat(MAX_SERVER_TEXT - 1) + "…");
  });

  test("a customer and an invoice built as heavy as the limits allow stay within their rows' bounds", async () => {
    const customer = await env.api("POST", "/api/v1/customers", {
      name: wide(255),
      email: `${"a".repeat(64)}@${"b".repeat(60)}.example`,
      phone: wide(50),
      address: wide(500),
      city: wide(100),
      postal_code: wide(10),
      country: "DE",
      company_number: wide(50),
      currency: "EUR",
      payment_terms: wide(255),
      external_id: wide(255),
      metadata: fullMetadata(),
      buyer_reference: wide(200),
      reminders_paused: true,
      reminders_paused_reason: wide(500),
    });
    expect({ status: customer.status, errors: customer.body.errors }).toEqual({ status: 201, errors: undefined });
    const customerId = customer.body.data.id;
    for (let i = 0; i < 25; i++) {
      const person = await env.api("POST", `/api/v1/customers/${customerId}/contact-persons`, {
        first_name: wide(100),
        last_name: wide(100),
        email: `p${i}.${"c".repeat(60)}@example.test`,
        phone: wide(50),
        position: wide(255),
        notes: wide(5000),
      });
      expect(person.status).toBe(201);
    }
    // one more is refused, naming the field that is full
    const extra = await env.api("POST", `/api/v1/customers/${customerId}/contact-persons`, { first_name: "One", last_name: "More" });
    expect(extra.status).toBe(422);
    expect(Object.keys(extra.body.errors)).toEqual(["contact_persons"]);

    const customers = await env.api("GET", "/api/v1/customers?per_page=100");
    const customerRow = customers.body.data.find((c: any) => c.id === customerId);
    const customerBound = boundOf("/api/v1/customers").row;
    expect(bytesOf(customerRow)).toBeLessThanOrEqual(customerBound);
    // near the bound: the metadata alone is most of it
    expect(bytesOf(customerRow)).toBeGreaterThan(customerBound * 0.8);

    // as many long lines as one request body (1 MiB) takes, with the other texts at their limits
    const line = (i: number) => ({ description: wide(2000, `#${i}`), quantity: 1, unit_price: 100, discount_percent: 10, discount_reason: wide(255), unit_code: "HUR" });
    const head = {
      customer_id: customerId,
      issue_date: "2026-01-05",
      due_date: "2026-02-05",
      notes: wide(5000),
      payment_terms: wide(255),
      buyer_reference: wide(200),
      order_reference: wide(200),
      external_id: wide(255),
      metadata: fullMetadata(),
      allowances_charges: Array.from({ length: 10 }, () => ({ type: "charge", amount: 1, reason: wide(255) })),
    };
    const lines: ReturnType<typeof line>[] = [];
    while (bytesOf({ ...head, lines: [...lines, line(lines.length)] }) < 1024 * 1024 - 1024) lines.push(line(lines.length));
    expect(lines.length).toBeGreaterThan(60);
    const created = await env.api("POST", "/api/v1/invoices", { ...head, lines });
    expect({ status: created.status, errors: created.body.errors }).toEqual({ status: 201, errors: undefined });
    const invoiceId = created.body.data.id;
    const finalized = await env.api("POST", `/api/v1/invoices/${invoiceId}/finalize`);
    expect(finalized.status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const paid = await env.api("POST", `/api/v1/invoices/${invoiceId}/record-payment`, { amount: "1.00", payment_date: "2026-01-10", reference: wide(255) });
      expect(paid.status).toBe(201);
    }

    const invoices = await env.api("GET", "/api/v1/invoices?per_page=100");
    const invoiceRow = invoices.body.data.find((inv: any) => inv.id === invoiceId);
    expect(invoiceRow.lines.length).toBe(lines.length);
    expect(invoiceRow.customer.contact_persons.length).toBe(25);
    expect(invoiceRow.payments.length).toBe(5);
    const invoiceBound = boundOf("/api/v1/invoices").row;
    expect(bytesOf(invoiceRow)).toBeGreaterThan(1_000_000);
    expect(bytesOf(invoiceRow)).toBeLessThanOrEqual(invoiceBound);
    // its page, and the events feed's rows that carry it
    expect(invoices.bytes.length).toBeLessThanOrEqual(boundOf("/api/v1/invoices").page);
    const events = await env.api("GET", "/api/v1/events?per_page=100");
    for (const event of events.body.data) expect(bytesOf(event)).toBeLessThanOrEqual(boundOf("/api/v1/events").row);
    expect(events.body.data.some((e: any) => e.type === "invoice.finalized")).toBe(true);
  }, 20_000);
});
