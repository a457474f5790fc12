/**
 * The year's last VAT return says ClientListingNihil YES exactly when the client listing of that
 * year lists nobody: one rule, the listing's. Figures by hand from ../shared/belgium/listings.md.
 */
import { afterAll, expect, test } from "bun:test";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

async function setup(name: string) {
  const { token } = await env.newOrg(name, { country: "BE" });
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  expect((await api("PUT", "/api/v1/organization", { vat_number: "BE0477472701" })).status).toBe(200);
  const rates = (await api("GET", "/api/v1/vat-rates")).body.data as { id: string; category: string; rate: string }[];
  const rate = (category: string, r: string) => rates.find((x) => x.category === category && x.rate === r)!.id;
  const invoice = async (customerId: string, unitPrice: string, rateId: string) => {
    const inv = (await api("POST", "/api/v1/invoices", { customer_id: customerId, issue_date: "2025-05-10", lines: [{ description: "Work", quantity: "1", unit_price: unitPrice, vat_rate_id: rateId }] })).body.data;
    expect((await api("POST", `/api/v1/invoices/${inv.id}/finalize`)).status).toBe(200);
  };
  const nihil = async () => /<ns2:ClientListingNihil>(\w+)</.exec((await env.request("GET", "/api/v1/vat-returns/2025-Q4/xml", { token })).text)?.[1];
  return { api, rate, invoice, nihil };
}

test("two customer records under one VAT number, 200.00 each: listed once at 400.00, so the return says NO", async () => {
  const { api, rate, invoice, nihil } = await setup("Nihil Same Number BV");
  for (const name of ["Alpha NV", "Alpha NV (Gent)"]) {
    const c = (await api("POST", "/api/v1/customers", { name, country: "BE", vat_number: "BE0417497106" })).body.data;
    await invoice(c.id, "200.00", rate("S", "21.00"));
  }
  const listing = (await api("GET", "/api/v1/listings/clients/2025")).body.data;
  // 200.00 + 200.00 = 400.00 > 250.00
  expect(listing.customers.map((c: { vat_number: string; turnover: string }) => [c.vat_number, c.turnover])).toEqual([["BE0417497106", "400.00"]]);
  expect(await nihil()).toBe("NO");
});

test("a Belgian buyer invoiced only at K (intra-Community, not on the client listing): nobody listed, so the return says YES", async () => {
  const { api, rate, invoice, nihil } = await setup("Nihil K BV");
  const c = (await api("POST", "/api/v1/customers", { name: "Beta BV", country: "BE", vat_number: "BE0417497106" })).body.data;
  await invoice(c.id, "1000.00", rate("K", "0.00"));
  expect((await api("GET", "/api/v1/listings/clients/2025")).body.data.customers).toEqual([]);
  expect(await nihil()).toBe("YES");
});
