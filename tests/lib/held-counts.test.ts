/**
 * What a resource embeds one request at a time has a count limit (docs/api.md#limits): one more
 * than the limit is a 422 naming the field that is full, and nothing is stored. An XML file of
 * more elements than a document may have is refused before its tree is built.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTestEnv, type TestEnv } from "../helpers.ts";

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env.close());

async function customer() {
  const c = await env.api("POST", "/api/v1/customers", { name: "Brouwerij Het Anker", country: "BE", currency: "EUR" });
  expect(c.status, c.text).toBe(201);
  return c.body.data.id as string;
}

describe("counts a resource holds at most", () => {
  test("a customer holds at most 25 contact persons: the 26th is a 422 on contact_persons", async () => {
    const id = await customer();
    for (let i = 1; i <= 25; i++) {
      const r = await env.api("POST", `/api/v1/customers/${id}/contact-persons`, { first_name: `Person ${i}`, last_name: "Anker" });
      expect(r.status, r.text).toBe(201);
    }
    const over = await env.api("POST", `/api/v1/customers/${id}/contact-persons`, { first_name: "Person 26", last_name: "Anker" });
    expect(over.status).toBe(422);
    expect(over.body.errors.contact_persons[0]).toContain("at most 25");
    const shown = await env.api("GET", `/api/v1/customers/${id}`);
    expect(shown.body.data.contact_persons).toHaveLength(25);
  });

  test("an invoice holds at most 100 payments: the 101st is a 422 on payments, its amount still due", async () => {
    const rates = (await env.api("GET", "/api/v1/vat-rates")).body.data as { id: string; rate: string }[];
    const zero = rates.find((r) => r.rate === "0.00")!;
    // 1.01 at 0 %: a hundred payments of 0.01 leave 0.01 due
    const inv = await env.api("POST", "/api/v1/invoices", {
      customer_id: await customer(),
      issue_date: "2026-03-01",
      lines: [{ description: "Tasting", quantity: "1", unit_price: "1.01", vat_rate_id: zero.id }],
    });
    expect(inv.status, inv.text).toBe(201);
    const id = inv.body.data.id;
    expect((await env.api("POST", `/api/v1/invoices/${id}/finalize`)).status).toBe(200);
    for (let i = 1; i <= 100; i++) {
      const r = await env.api("POST", `/api/v1/invoices/${id}/record-payment`, { amount: "0.01", payment_date: "2026-03-10" });
      expect(r.status, r.text).toBe(201);
    }
    const over = await env.api("POST", `/api/v1/invoices/${id}/record-payment`, { amount: "0.01", payment_date: "2026-03-10" });
    expect(over.status, over.text).toBe(422);
    expect(over.body.errors.payments[0]).toContain("at most 100");
    const shown = (await env.api("GET", `/api/v1/invoices/${id}`)).body.data;
    expect(shown.payments).toHaveLength(100);
    expect(shown.amount_due).toBe("0.01");
  }, 30_000);
});

test("an XML file of more than 300,000 elements is refused, naming the limit", async () => {
  const base = readFileSync(join(import.meta.dir, "..", "einvoicing", "examples", "peppol", "base-example.xml"), "utf8");
  const xml = base.replace("<cbc:IssueDate>", "<cbc:Note/>".repeat(300_000) + "<cbc:IssueDate>");
  const r = await env.request("POST", "/api/v1/expenses/import", { rawBody: xml, headers: { "content-type": "application/xml" } });
  expect(r.status, r.text.slice(0, 300)).toBe(422);
  expect(JSON.stringify(r.body.errors)).toContain("more than 300,000 elements");
});
