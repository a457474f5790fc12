/**
 * A filed period stays filed: the organisation cannot change its vat_period once a return is
 * filed; filed periods are found by their dates, not by their names, so a period of the other
 * kind (an older database whose vat_period changed) neither shows again what was filed nor can be
 * filed over it; a document cancelled after its period was filed is reported as a correction in
 * the next open period, which can be filed. Also: Ask Restitution only of a VAT credit, and a
 * document allowance shared between goods and services pro rata.
 */
import { afterAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { organizations } from "../../db/schema.ts";
import { createTestEnv, runCli } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

async function setup(name: string) {
  const { org, token } = await env.newOrg(name, { country: "BE" });
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  expect((await api("PUT", "/api/v1/organization", { vat_number: "BE0477472701" })).status).toBe(200);
  const rates = (await api("GET", "/api/v1/vat-rates")).body.data as { id: string; category: string; rate: string }[];
  const rate = (category: string, r: string) => rates.find((x) => x.category === category && x.rate === r)!.id;
  const customer = (await api("POST", "/api/v1/customers", { name: "Klant NV", country: "BE", vat_number: "BE0417497106" })).body.data.id as string;
  const invoice = async (date: string, unitPrice: string, rateId = rate("S", "21.00")) => {
    const inv = (await api("POST", "/api/v1/invoices", { customer_id: customer, issue_date: date, lines: [{ description: "Work", quantity: "1", unit_price: unitPrice, vat_rate_id: rateId }] })).body.data;
    const done = await api("POST", `/api/v1/invoices/${inv.id}/finalize`);
    expect(done.status).toBe(200);
    return inv.id as string;
  };
  return { org, token, api, rate, invoice };
}

test("vat_period cannot change once a return is filed: 422 on vat_period, by the API and the CLI", async () => {
  const { org, api, invoice } = await setup("Switch BV");
  // before any filing it may change, back and forth
  expect((await api("PUT", "/api/v1/organization", { vat_period: "monthly" })).status).toBe(200);
  expect((await api("PUT", "/api/v1/organization", { vat_period: "quarterly" })).status).toBe(200);
  await invoice("2026-01-10", "1000.00");
  expect((await api("POST", "/api/v1/vat-returns/2026-Q1/file")).status).toBe(201);
  const refused = await api("PUT", "/api/v1/organization", { vat_period: "monthly" });
  expect(refused.status).toBe(422);
  expect(Object.keys(refused.body.errors)).toEqual(["vat_period"]);
  expect(refused.body.errors.vat_period[0]).toContain("filed");
  // the same value is no change
  expect((await api("PUT", "/api/v1/organization", { vat_period: "quarterly" })).status).toBe(200);
  expect((await api("GET", "/api/v1/organization")).body.data.vat_period).toBe("quarterly");
  const cli = await runCli(["org", "set", org.id, "--vat-period", "monthly", "--db", env.config.dbPath]);
  expect(cli.code).not.toBe(0);
  expect(cli.stderr).toContain("VAT period cannot change once a VAT return is filed");
});

test("a filed quarter is found by its dates: its documents do not show again in a month of it, which cannot be filed (409)", async () => {
  const { org, api, invoice } = await setup("Legacy Switch BV");
  await invoice("2026-01-10", "1000.00");
  expect((await api("POST", "/api/v1/vat-returns/2026-Q1/file")).status).toBe(201);
  // an older database changed vat_period after a filing: the API no longer allows it
  await env.db.update(organizations).set({ vatPeriod: "monthly" }).where(eq(organizations.id, org.id));
  const jan = await api("GET", "/api/v1/vat-returns/2026-01");
  expect(jan.status).toBe(200);
  // 1,000.00 at 21 % was declared in 2026-Q1: nothing is left for January
  expect(jan.body.data.grids).toEqual({ "71": "0.00" });
  expect(jan.body.data.can_file).toBe(false);
  const filed = await api("POST", "/api/v1/vat-returns/2026-01/file");
  expect(filed.status).toBe(409);
  expect(filed.body.message ?? filed.text).toContain("2026-Q1");
  // a document of January approved now is reported in the first month after the filed quarter
  await invoice("2026-01-20", "200.00");
  const apr = await api("GET", "/api/v1/vat-returns/2026-04");
  expect(apr.body.data.grids).toEqual({ "03": "200.00", "54": "42.00", "71": "42.00" });
});

test("an invoice cancelled after its quarter was filed: a negative correction in the next open quarter (49 and 64), which can be filed", async () => {
  const { api, invoice } = await setup("Cancel After Filing BV");
  const inv = await invoice("2026-01-10", "1000.00");
  const q1 = await api("POST", "/api/v1/vat-returns/2026-Q1/file");
  expect(q1.status).toBe(201);
  // 1,000.00 at 21 %: 03 = 1,000.00, 54 = 210.00, 71 = 210.00
  expect(q1.body.data.grids).toEqual({ "03": "1000.00", "54": "210.00", "71": "210.00" });
  expect((await api("POST", `/api/v1/invoices/${inv}/cancel`)).status).toBe(200);
  const q2 = (await api("GET", "/api/v1/vat-returns/2026-Q2")).body.data;
  // the cancellation takes back what 2026-Q1 declared: 49 = 1,000.00, 64 = 210.00; XX = 0, YY = 210.00, so 72 = 210.00
  expect(q2.grids).toEqual({ "49": "1000.00", "64": "210.00", "72": "210.00" });
  expect(q2.can_file).toBe(true);
  expect(q2.warnings.some((w: string) => w.includes("in the filed period 2026-Q1"))).toBe(true);
  expect((await api("POST", "/api/v1/vat-returns/2026-Q2/file")).status).toBe(201);
  // what 2026-Q1 filed did not change
  expect((await api("GET", "/api/v1/vat-returns/2026-Q1")).body.data.grids).toEqual({ "03": "1000.00", "54": "210.00", "71": "210.00" });
});

test("an invoice cancelled in its own open quarter nets to nothing there", async () => {
  const { api, invoice } = await setup("Cancel Same Quarter BV");
  const inv = await invoice("2026-01-10", "1000.00");
  expect((await api("POST", `/api/v1/invoices/${inv}/cancel`)).status).toBe(200);
  expect((await api("GET", "/api/v1/vat-returns/2026-Q1")).body.data.grids).toEqual({ "71": "0.00" });
});

test("Ask Restitution is YES only when asked and grid 72 is positive; asked with 71 it is ignored (NO)", async () => {
  const owed = await setup("Restitution Owed BV");
  await owed.invoice("2026-01-10", "1000.00");
  // 71 = 210.00: nothing to pay back
  const withOwed = await env.request("GET", "/api/v1/vat-returns/2026-Q1/xml?ask_restitution=true", { token: owed.token });
  expect(withOwed.text).toContain('<ns2:Amount GridNumber="71">210.00</ns2:Amount>');
  expect(withOwed.text).toContain('Restitution="NO"');

  const credit = await setup("Restitution Credit BV");
  const e = await credit.api("POST", "/api/v1/expenses", { category: "rent", amount: "500.00", vat_amount: "105.00", vat_rate_id: credit.rate("S", "21.00"), date: "2026-02-15", vendor: "Verhuur BV" });
  expect((await credit.api("POST", `/api/v1/expenses/${e.body.data.id}/approve`)).status).toBe(200);
  // 59 = 105.00, so 72 = 105.00
  const asked = await env.request("GET", "/api/v1/vat-returns/2026-Q1/xml?ask_restitution=true", { token: credit.token });
  expect(asked.text).toContain('<ns2:Amount GridNumber="72">105.00</ns2:Amount>');
  expect(asked.text).toContain('Restitution="YES"');
  const notAsked = await env.request("GET", "/api/v1/vat-returns/2026-Q1/xml", { token: credit.token });
  expect(notAsked.text).toContain('Restitution="NO"');
});

test("a document allowance on an invoice of goods and services to another member state is shared pro rata between 46 and 44", async () => {
  const { api, rate } = await setup("Allowance Split BV");
  const de = (await api("POST", "/api/v1/customers", { name: "Kunde GmbH", country: "DE", vat_number: "DE814060619" })).body.data.id;
  const k = rate("K", "0.00");
  const inv = await api("POST", "/api/v1/invoices", {
    customer_id: de,
    issue_date: "2026-01-20",
    lines: [
      { description: "Machine", quantity: "1", unit_price: "3000.00", vat_rate_id: k, supply_type: "goods" },
      { description: "Installation", quantity: "1", unit_price: "1000.00", vat_rate_id: k, supply_type: "services" },
    ],
    allowances_charges: [{ type: "allowance", amount: "100.01", reason: "Discount", vat_rate_id: k }],
  });
  expect(inv.status, inv.text).toBe(201);
  expect((await api("POST", `/api/v1/invoices/${inv.body.data.id}/finalize`)).status).toBe(200);
  // base 4,000.00 − 100.01 = 3,899.99; goods 3/4 of it = 2,924.9925 → 2,924.99; services the rest, 975.00
  expect((await api("GET", "/api/v1/vat-returns/2026-Q1")).body.data.grids).toEqual({ "44": "975.00", "46": "2924.99", "71": "0.00" });
});

test("an expense from a supplier outside the EU at 0 %: in 82, with a warning naming it that services from outside the EU go to 87 at AE", async () => {
  const { api, rate } = await setup("Non-EU Supplier BV");
  const e = await api("POST", "/api/v1/expenses", { category: "software", amount: "300.00", vat_amount: "0.00", vat_rate_id: rate("Z", "0.00"), date: "2026-02-10", vendor: "Cloud Inc" });
  expect(e.status, e.text).toBe(201);
  expect((await api("PUT", `/api/v1/suppliers/${e.body.data.supplier_id}`, { country: "US" })).status).toBe(200);
  expect((await api("POST", `/api/v1/expenses/${e.body.data.id}/approve`)).status).toBe(200);
  const q1 = (await api("GET", "/api/v1/vat-returns/2026-Q1")).body.data;
  expect(q1.grids).toEqual({ "71": "0.00", "82": "300.00" });
  const warning = q1.warnings.find((w: string) => w.includes("Cloud Inc"));
  expect(warning).toContain("services from outside the EU are reported in 87 when recorded at the reverse-charge rate (AE)");
});
