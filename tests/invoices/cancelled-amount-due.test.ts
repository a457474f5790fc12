/**
 * A cancelled document owes nothing: its `amount_due` is 0.00 (its PDF says nothing is due), its
 * total stays what it was issued for, and its e-invoice keeps the figures it was issued with. It
 * is in no receivable: aged receivables and the overdue filter leave it out.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv, type TestEnv } from "../helpers.ts";

let env: TestEnv;
let customerId: string;
let vat21: string;
beforeAll(async () => {
  env = await createTestEnv();
  expect((await env.api("PUT", "/api/v1/organization", SELLER_IDENTITY)).status).toBe(200);
  const c = await env.api("POST", "/api/v1/customers", {
    name: "Klant BV", address: "Markt 1", city: "Brugge", postal_code: "8000", country: "BE", vat_number: "BE0404795549", peppol_id: "0208:0404795549",
  });
  customerId = c.body.data.id;
  vat21 = (await env.api("GET", "/api/v1/vat-rates")).body.data.find((r: { rate: string }) => r.rate === "21.00").id;
});
afterAll(() => env.close());

/** An issued invoice of 2 × 50.00 at 21 %: total 121.00, due on 2025-02-01 (long past). */
async function issued() {
  const draft = await env.api("POST", "/api/v1/invoices", {
    customer_id: customerId,
    issue_date: "2025-01-02",
    due_date: "2025-02-01",
    buyer_reference: "PO-1",
    lines: [{ description: "Work", quantity: "2", unit_price: "50.00", vat_rate_id: vat21 }],
  });
  expect(draft.status, draft.text).toBe(201);
  const r = await env.api("POST", `/api/v1/invoices/${draft.body.data.id}/finalize`);
  expect(r.status, r.text).toBe(200);
  expect(r.body.data).toMatchObject({ total: "121.00", amount_due: "121.00" });
  return r.body.data;
}

test("a cancelled invoice's amount_due is 0.00 in its GET, the list and its event; its total stays", async () => {
  const inv = await issued();
  const cancelled = await env.api("POST", `/api/v1/invoices/${inv.id}/cancel`);
  expect(cancelled.status).toBe(200);
  expect(cancelled.body.data).toMatchObject({ status: "cancelled", total: "121.00", amount_paid: "0.00", amount_credited: "0.00", amount_due: "0.00" });
  expect((await env.api("GET", `/api/v1/invoices/${inv.id}`)).body.data.amount_due).toBe("0.00");
  const listed = (await env.api("GET", "/api/v1/invoices?filter[status]=cancelled")).body.data;
  expect(listed.find((i: { id: string }) => i.id === inv.id).amount_due).toBe("0.00");
  const events = (await env.api("GET", "/api/v1/events?per_page=100")).body.data as { type: string; data: { id: string; status: string; amount_due: string } }[];
  const last = events.filter((e) => e.type === "invoice.updated" && e.data.id === inv.id).at(-1)!;
  expect(last.data).toMatchObject({ status: "cancelled", amount_due: "0.00" });
  // its e-invoice keeps the figures it was issued with: payable 121.00, nothing prepaid
  const ubl = await env.request("GET", `/api/v1/invoices/${inv.id}/ubl`);
  expect(ubl.status, ubl.text).toBe(200);
  expect(ubl.text).toContain('<cbc:PayableAmount currencyID="EUR">121.00</cbc:PayableAmount>');
  expect(ubl.text).not.toContain("PrepaidAmount");
});

test("a cancelled credit note's amount_due is 0.00; its invoice is owed its total again", async () => {
  const inv = await issued();
  const note = await env.api("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines: [{ description: "Work", quantity: "1", unit_price: "50.00", vat_rate_id: vat21 }] });
  expect(note.status, note.text).toBe(201);
  const finalized = await env.api("POST", `/api/v1/invoices/${note.body.data.id}/finalize`);
  // 50.00 + 21 % = 60.50 credited, all of it set off against the invoice
  expect(finalized.body.data).toMatchObject({ total: "60.50", amount_credited: "60.50", amount_due: "0.00" });
  expect((await env.api("GET", `/api/v1/invoices/${inv.id}`)).body.data.amount_due).toBe("60.50");
  const cancelled = await env.api("POST", `/api/v1/invoices/${note.body.data.id}/cancel`);
  expect(cancelled.status, cancelled.text).toBe(200);
  expect(cancelled.body.data).toMatchObject({ status: "cancelled", total: "60.50", amount_due: "0.00" });
  expect((await env.api("GET", `/api/v1/invoices/${inv.id}`)).body.data.amount_due).toBe("121.00");
});

test("aged receivables and the overdue filter leave a cancelled invoice out", async () => {
  const { token } = await env.newOrg("Cancelling BV");
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  expect((await api("PUT", "/api/v1/organization", SELLER_IDENTITY)).status).toBe(200);
  const c = (await api("POST", "/api/v1/customers", { name: "Enige Klant", address: "Markt 1", city: "Brugge", postal_code: "8000", country: "BE" })).body.data;
  const rate = (await api("GET", "/api/v1/vat-rates")).body.data.find((r: { rate: string }) => r.rate === "21.00").id;
  const draft = (await api("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2025-01-02", due_date: "2025-02-01", lines: [{ description: "Work", quantity: "1", unit_price: "100.00", vat_rate_id: rate }] })).body.data;
  expect((await api("POST", `/api/v1/invoices/${draft.id}/finalize`)).status).toBe(200);
  expect((await api("GET", "/api/v1/reports/aged-receivables?date=2025-12-31")).body.data.totals.total).toBe("121.00");
  expect((await api("POST", `/api/v1/invoices/${draft.id}/cancel`)).status).toBe(200);
  const aged = (await api("GET", "/api/v1/reports/aged-receivables?date=2025-12-31")).body.data;
  expect(aged.customers).toEqual([]);
  expect(aged.totals.total).toBe("0.00");
  expect((await api("GET", "/api/v1/invoices?filter[overdue]=true")).body.data).toEqual([]);
});
