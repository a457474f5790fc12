/**
 * A supply to a customer in another member state invoiced in another currency is not in the VAT
 * return (Kontor keeps no exchange rates): the intra-Community listing names it in a warning
 * rather than leaving it out silently.
 */
import { afterAll, expect, test } from "bun:test";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

test("a K supply to a German customer in USD: not listed, and warned of (other_currency)", async () => {
  const { token } = await env.newOrg("Currency Intra BV", { country: "BE" });
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  expect((await api("PUT", "/api/v1/organization", { vat_number: "BE0477472701" })).status).toBe(200);
  const rates = (await api("GET", "/api/v1/vat-rates")).body.data as { id: string; category: string; rate: string }[];
  const k = rates.find((r) => r.category === "K" && r.rate === "0.00")!.id;
  const invoice = async (customerId: string, price: string) => {
    const inv = await api("POST", "/api/v1/invoices", { customer_id: customerId, issue_date: "2026-01-20", lines: [{ description: "Goods", quantity: "1", unit_price: price, vat_rate_id: k }] });
    expect(inv.status, inv.text).toBe(201);
    const done = await api("POST", `/api/v1/invoices/${inv.body.data.id}/finalize`);
    expect(done.status, done.text).toBe(200);
    return done.body.data.number as string;
  };
  const usd = (await api("POST", "/api/v1/customers", { name: "Kunde GmbH", country: "DE", vat_number: "DE814060619", currency: "USD" })).body.data;
  const eur = (await api("POST", "/api/v1/customers", { name: "Klant BV", country: "NL", vat_number: "NL806753742B01" })).body.data;
  const number = await invoice(usd.id, "2500.00");
  await invoice(eur.id, "1000.00");
  const listing = (await api("GET", "/api/v1/listings/intra-community/2026-Q1")).body.data;
  // only the euro supply is listed: 1,000.00 under L
  expect(listing.lines.map((l: { vat_number: string; code: string; amount: string }) => [l.vat_number, l.code, l.amount])).toEqual([["NL806753742B01", "L", "1000.00"]]);
  const warning = listing.warnings.find((w: { code: string }) => w.code === "other_currency");
  expect(warning).toMatchObject({ customer_id: usd.id, customer_name: "Kunde GmbH" });
  expect(warning.message).toContain(number);
  expect(warning.message).toContain("USD");
});
