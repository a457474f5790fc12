/**
 * The intra-Community listing of a quarter written out by hand (Acme, BE, EUR, quarterly,
 * 2026-Q1), every figure computed here from ../shared/belgium/listings.md and
 * vat-return-grids.md, not read from Kontor:
 *
 *   Dutch BV    NL004495445B01  2026-01-10 services, reverse charge (AE) 2000.00   grid 44, S
 *                               2026-02-10 credit note on it 300.00 (AE)           grid 48, S
 *                               2026-02-01 intra-Community goods (K) 1000.00      grid 46, L
 *   German GmbH DE136695976     2026-01-20 K 500.00 and 2026-03-05 K 250.00        grid 46, L
 *                               2026-03-06 K 9999.00, cancelled                   46 and back: 0
 *                               2026-04-01 K 700.00                               the next quarter
 *   Greek AE    EL094259216 (country GR)  2026-02-15 AE services 400.00            grid 44, S (issuedBy EL)
 *   French SARL without a VAT number      2026-03-01 AE services 100.00            grid 44: a warning, not listed
 *   Belgian NV  2026-01-15 1000.00 @21 %, US Inc 2026-01-16 export (G) 800.00     not on the listing
 *
 *   Lines: DE136695976 L 750.00 · EL094259216 S 400.00 · NL004495445B01 L 1000.00 · NL004495445B01 S 1700.00
 *   Total 3850.00, unlisted 100.00; grid 44 = 2000 + 400 + 100 = 2500.00, grid 46 = 1000 + 500 + 250 = 1750.00,
 *   48 on them = 300.00: 2500.00 + 1750.00 − 300.00 = 3950.00 = 3850.00 + 100.00.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { organizations } from "../../db/schema.ts";
import { snapshot } from "../../server/lib/scope.ts";
import { parseVatPeriod } from "../../server/lib/vat-period.ts";
import { periodContributions } from "../../server/vat-returns/contributions.ts";
import { createTestEnv, runCli } from "../helpers.ts";
import { validateIntervat } from "../fixtures/intervat/validate.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const ok = async (method: string, path: string, body?: unknown, status = 200, token?: string) => {
  const r = await env.api(method, path, body, token);
  expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
  return r.body?.data;
};

let rates: any[];
const rateOf = (category: string, percent = "0.00") => rates.find((r) => r.category === category && r.rate === percent)!.id as string;
const line = (unit_price: string, vat_rate_id: string) => ({ description: "Work", quantity: "1", unit_price, vat_rate_id });
const customer = (body: Record<string, unknown>) => ok("POST", "/api/v1/customers", { currency: "EUR", ...body }, 201);
async function invoice(c: any, issue_date: string, lines: unknown[]) {
  const d = await ok("POST", "/api/v1/invoices", { customer_id: c.id, issue_date, due_date: issue_date, lines }, 201);
  return ok("POST", `/api/v1/invoices/${d.id}/finalize`);
}

const ids: Record<string, string> = {};

beforeAll(async () => {
  rates = await ok("GET", "/api/v1/vat-rates");
  await ok("PUT", "/api/v1/organization", { vat_number: "BE0477472701", address: "Voorbeeldstraat 1", postal_code: "9000", city: "Gent" });
  // a PUT that does not name vat_period leaves it as it was (the default, quarterly)
  expect((await ok("GET", "/api/v1/organization")).vat_period).toBe("quarterly");
  const dutch = await customer({ name: "Dutch BV", country: "NL", vat_number: "NL004495445B01" });
  const german = await customer({ name: "German GmbH", country: "DE", vat_number: "DE136695976" });
  const greek = await customer({ name: "Greek AE", country: "GR", vat_number: "EL094259216" });
  const french = await customer({ name: "French SARL", country: "FR" });
  const belgian = await customer({ name: "Belgian NV", country: "BE", vat_number: "BE0417497106" });
  const american = await customer({ name: "US Inc", country: "US" });
  Object.assign(ids, { dutch: dutch.id, french: french.id });
  const ae = rateOf("AE");
  const k = rateOf("K");

  const d1 = await invoice(dutch, "2026-01-10", [line("2000.00", ae)]);
  await invoice(belgian, "2026-01-15", [line("1000.00", rateOf("S", "21.00"))]);
  await invoice(american, "2026-01-16", [line("800.00", rateOf("G"))]);
  await invoice(german, "2026-01-20", [line("500.00", k)]);
  await invoice(dutch, "2026-02-01", [line("1000.00", k)]);
  const cn = await ok("POST", `/api/v1/invoices/${d1.id}/credit-note`, { lines: [line("300.00", ae)] }, 201);
  await ok("PUT", `/api/v1/invoices/${cn.id}`, { issue_date: "2026-02-10", due_date: "2026-02-10" });
  await ok("POST", `/api/v1/invoices/${cn.id}/finalize`);
  await invoice(greek, "2026-02-15", [line("400.00", ae)]);
  await invoice(french, "2026-03-01", [line("100.00", ae)]);
  await invoice(german, "2026-03-05", [line("250.00", k)]);
  const cancelled = await invoice(german, "2026-03-06", [line("9999.00", k)]);
  await ok("POST", `/api/v1/invoices/${cancelled.id}/cancel`);
  await invoice(german, "2026-04-01", [line("700.00", k)]);
});

describe("intra-Community listing 2026-Q1", () => {
  test("one line per customer VAT number and code, credit notes deducted, the customer without a VAT number warned of", async () => {
    const listing = await ok("GET", "/api/v1/listings/intra-community/2026-Q1");
    expect(listing).toMatchObject({ period: "2026-Q1", from: "2026-01-01", to: "2026-03-31", declarant: { vat_number: "BE0477472701", name: "Acme" } });
    expect(listing.lines.map((l: any) => [l.country, l.vat_number, l.code, l.amount])).toEqual([
      ["DE", "DE136695976", "L", "750.00"],
      ["EL", "EL094259216", "S", "400.00"],
      ["NL", "NL004495445B01", "L", "1000.00"],
      ["NL", "NL004495445B01", "S", "1700.00"],
    ]);
    expect(listing.lines.find((l: any) => l.code === "S" && l.country === "NL").customer_ids).toEqual([ids.dutch]);
    expect(listing.totals).toEqual({ clients: 4, amount: "3850.00", unlisted: "100.00", grid_44: "2500.00", grid_46: "1750.00", grid_48_on_44_46: "300.00" });
    expect(listing.warnings).toHaveLength(1);
    expect(listing.warnings[0]).toMatchObject({ code: "no_vat_number", customer_id: ids.french, customer_name: "French SARL" });
    expect(listing.warnings[0].message).toContain("100.00");
  });

  test("its total with what it could not list is the return's 44 + 46 − their part of 48, read from GET /vat-returns", async () => {
    const listing = await ok("GET", "/api/v1/listings/intra-community/2026-Q1");
    const vatReturn = await ok("GET", "/api/v1/vat-returns/2026-Q1");
    // the hand-computed grids of the quarter (48 holds only the credit note on the Dutch services)
    expect([vatReturn.grids["44"], vatReturn.grids["46"], vatReturn.grids["48"]]).toEqual(["2500.00", "1750.00", "300.00"]);
    const cents = (m: string) => Math.round(Number(m) * 100);
    const intra48 = vatReturn.sources["48"].filter((s: any) => s.intra_code !== null).reduce((sum: number, s: any) => sum + cents(s.amount), 0);
    expect(intra48).toBe(30000);
    expect(cents(listing.totals.amount) + cents(listing.totals.unlisted)).toBe(cents(vatReturn.grids["44"]) + cents(vatReturn.grids["46"]) - intra48);
    expect([listing.totals.grid_44, listing.totals.grid_46, listing.totals.grid_48_on_44_46]).toEqual([vatReturn.grids["44"], vatReturn.grids["46"], "300.00"]);
    // the same rows the return adds up, read directly
    const rows = await snapshot(env.db, (tx) => periodContributions(tx, env.org.id, parseVatPeriod("2026-Q1")!));
    expect(rows.filter((r) => r.grid === "46").reduce((sum, r) => sum + r.cents, 0)).toBe(175000);
  });

  test("the XML validates against NewICO-in_v0_9.xsd: the quarter, the lines, AmountSum", async () => {
    const r = await env.request("GET", "/api/v1/listings/intra-community/2026-Q1/xml");
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get("content-disposition")).toBe('attachment; filename="intra-community-listing-2026-Q1.xml"');
    const result = await validateIntervat(r.text, "NewICO-in_v0_9.xsd");
    expect(result.output).not.toContain("fails to validate");
    expect(result.ok).toBe(true);
    expect(r.text).toContain('ClientsNbr="4"');
    expect(r.text).toContain('AmountSum="3850.00"');
    expect(r.text).toContain("<ns2:Quarter>1</ns2:Quarter>");
    expect(r.text).toContain("<ns2:Year>2026</ns2:Year>");
    expect(r.text).toContain('<ns2:CompanyVATNumber issuedBy="EL">094259216</ns2:CompanyVATNumber>');
    expect(r.text).toContain('<ns2:CompanyVATNumber issuedBy="NL">004495445B01</ns2:CompanyVATNumber>');
    expect(r.text).not.toContain("French");
  });

  test("a period without any intra-Community supply: an empty listing, and no XML to file (409)", async () => {
    expect((await ok("GET", "/api/v1/listings/intra-community/2025-Q4")).lines).toEqual([]);
    expect((await env.api("GET", "/api/v1/listings/intra-community/2025-Q4/xml")).status).toBe(409);
  });

  test("the CLI prints the same listing, as JSON and as XML", async () => {
    const cli = (...args: string[]) => runCli([...args, "--org", "Acme", "--db", env.config.dbPath]);
    const json = await cli("listing", "intra-community", "2026-Q1", "--json");
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).totals.amount).toBe("3850.00");
    const xml = await cli("listing", "intra-community", "2026-Q1", "--xml");
    expect((await validateIntervat(xml.stdout, "NewICO-in_v0_9.xsd")).ok).toBe(true);
    const table = await cli("listing", "intra-community", "2026-Q1");
    expect(table.stdout).toContain("NL004495445B01");
    expect(table.stderr).toContain("French SARL");
    const refused = await cli("listing", "intra-community", "2026-13");
    expect(refused.code).toBe(1);
    const clients = await cli("listing", "clients", "2025", "--json");
    expect(clients.code, clients.stderr).toBe(0);
    expect(JSON.parse(clients.stdout).year).toBe(2025);
  });
});

describe("intra-Community listing refusals", () => {
  test("a period of the other kind, not yet ended or not a period: 422 on period", async () => {
    const thisYear = new Date().getUTCFullYear();
    for (const period of ["2026-01", `${thisYear + 1}-Q1`, "2026-Q5", "Q1-2026"]) {
      for (const suffix of ["", "/xml"]) {
        const r = await env.api("GET", `/api/v1/listings/intra-community/${period}${suffix}`);
        expect(r.status, period).toBe(422);
        expect(Object.keys(r.body.errors)).toEqual(["period"]);
      }
    }
  });

  test("a monthly filer names months: its quarter is a 422, its month a listing", async () => {
    const monthly = await env.newOrg("Maandelijks");
    await ok("PUT", "/api/v1/organization", { vat_number: "BE0417497106" }, 200, monthly.token);
    await env.db.update(organizations).set({ vatPeriod: "monthly" }).where(eq(organizations.id, monthly.org.id));
    expect((await env.api("GET", "/api/v1/listings/intra-community/2026-Q1", undefined, monthly.token)).body.errors).toHaveProperty("period");
    expect(await ok("GET", "/api/v1/listings/intra-community/2026-01", undefined, 200, monthly.token)).toMatchObject({ period: "2026-01", lines: [] });
  });

  test("an organisation without a Belgian VAT number: 422 on vat_number", async () => {
    const other = await env.newOrg("Zonder nummer");
    const r = await env.api("GET", "/api/v1/listings/intra-community/2026-Q1", undefined, other.token);
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(["vat_number"]);
  });
});
