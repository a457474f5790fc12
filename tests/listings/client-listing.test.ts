/**
 * The annual client listing on a year of activity written out by hand (Acme, BE, EUR, year 2025),
 * every figure computed here from the rules of ../shared/belgium/listings.md, not read from
 * Kontor:
 *
 *   Alpha NV   BE0417497106  invoice 2025-02-01 1000.00 @21 %            +1000.00  +210.00
 *                             credit note 2025-03-01 200.00 @21 %           −200.00   −42.00
 *                             exempt invoice (E) 2025-04-01 100.00          not counted (art. 44)
 *                             invoice 2025-05-01 5000.00 @21 %, cancelled   not counted
 *                             invoice 2024-12-31 and 2026-01-02 300.00      other years
 *                             interest note 2025-06-01                      outside the scope of VAT
 *   Alpha (Gent), a second record with the same VAT number: 2025-06-01 100.00 @21 %  +100.00 +21.00
 *                             → BE0417497106: 900.00, VAT 189.00: listed
 *   Beta BV    BE0203201340  250.00 @21 % = 52.50                       exactly 250.00: not listed
 *   Gamma SRL  BE0400000086  300.00 @21 % = 63.00, credit note 49.99 @21 % = 10.50 (10.4979 rounded)
 *                             → 250.01, VAT 52.50: listed
 *   Delta BV   BE0410000093  1000.00 reverse charge (AE, co-contractor, grid 45) → 1000.00, VAT 0.00: listed
 *   Dutch BV   NL004495445B01 2000.00 AE: foreign, not listed
 *   A consumer (BE, no VAT number, no enterprise number): 500.00 @21 %: not listed, no warning
 *   Zeta       BE business with an enterprise number, no VAT number: 400.00 @21 % → warning
 *   Epsilon    invoiced under BE0420000004 (mod 97 fails): 600.00 @21 % → warning
 *
 *   Listed: 3 clients, turnover 900.00 + 250.01 + 1000.00 = 2150.01, VAT 189.00 + 52.50 + 0.00 = 241.50
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { customers } from "../../db/schema.ts";
import { createTestEnv } from "../helpers.ts";
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
const customer = (body: Record<string, unknown>) => ok("POST", "/api/v1/customers", { country: "BE", currency: "EUR", ...body }, 201);

async function invoice(c: any, issue_date: string, lines: unknown[]) {
  const d = await ok("POST", "/api/v1/invoices", { customer_id: c.id, issue_date, due_date: issue_date, lines }, 201);
  return ok("POST", `/api/v1/invoices/${d.id}/finalize`);
}
async function creditNote(inv: any, issue_date: string, lines: unknown[]) {
  const cn = await ok("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines }, 201);
  await ok("PUT", `/api/v1/invoices/${cn.id}`, { issue_date, due_date: issue_date });
  return ok("POST", `/api/v1/invoices/${cn.id}/finalize`);
}

const ids: Record<string, string> = {};

beforeAll(async () => {
  rates = await ok("GET", "/api/v1/vat-rates");
  const s21 = rateOf("S", "21.00");
  await ok("PUT", "/api/v1/organization", {
    vat_number: "BE0477472701",
    address: "Voorbeeldstraat 1",
    postal_code: "9000",
    city: "Gent",
    email: "boekhouding@example.be",
    phone: "+32 9 000 00 00",
  });

  const alpha = await customer({ name: "Alpha NV", vat_number: "BE0417497106" });
  const alphaGent = await customer({ name: "Alpha NV (Gent)", vat_number: "BE 0417.497.106" });
  const beta = await customer({ name: "Beta BV", vat_number: "BE0203201340" });
  const gamma = await customer({ name: "Gamma SRL", vat_number: "BE0400000086" });
  const delta = await customer({ name: "Delta BV", vat_number: "BE0410000093" });
  const dutch = await customer({ name: "Dutch BV", country: "NL", vat_number: "NL004495445B01" });
  const consumer = await customer({ name: "Jan Peeters" });
  const zeta = await customer({ name: "Zeta CommV", company_number: "0430000010" });
  const epsilon = await customer({ name: "Epsilon VOF", vat_number: "BE0420000003" });
  Object.assign(ids, { alpha: alpha.id, alphaGent: alphaGent.id, zeta: zeta.id, epsilon: epsilon.id });
  // a number that fails mod 97, as older data may hold (the API refuses it today): written under the API
  await env.db.update(customers).set({ vatNumber: "BE0420000004" }).where(eq(customers.id, epsilon.id));

  await invoice(alpha, "2024-12-31", [line("300.00", s21)]);
  const a1 = await invoice(alpha, "2025-02-01", [line("1000.00", s21)]);
  await creditNote(a1, "2025-03-01", [line("200.00", s21)]);
  await invoice(alpha, "2025-04-01", [line("100.00", rateOf("E"))]);
  const cancelled = await invoice(alpha, "2025-05-01", [line("5000.00", s21)]);
  await ok("POST", `/api/v1/invoices/${cancelled.id}/cancel`);
  await invoice(alphaGent, "2025-06-01", [line("100.00", s21)]);
  await invoice(beta, "2025-06-02", [line("250.00", s21)]);
  const g1 = await invoice(gamma, "2025-07-01", [line("300.00", s21)]);
  await creditNote(g1, "2025-08-01", [line("49.99", s21)]);
  await invoice(delta, "2025-09-01", [line("1000.00", rateOf("AE"))]);
  await invoice(dutch, "2025-09-02", [line("2000.00", rateOf("AE"))]);
  await invoice(consumer, "2025-10-01", [line("500.00", s21)]);
  await invoice(zeta, "2025-10-02", [line("400.00", s21)]);
  await invoice(epsilon, "2025-11-01", [line("600.00", s21)]);
  await invoice(alpha, "2026-01-02", [line("300.00", s21)]);

  // an interest note on Alpha's late invoice, issued in 2025: outside the scope of VAT, never listed
  const note = await ok("POST", `/api/v1/invoices/${a1.id}/interest-note`, { as_of: "2025-06-01" }, 201);
  await ok("PUT", `/api/v1/invoices/${note.id}`, { issue_date: "2025-06-01", due_date: "2025-06-15" });
  expect(await ok("POST", `/api/v1/invoices/${note.id}/finalize`)).toMatchObject({ type: "interest_note" });
});

describe("client listing 2025", () => {
  test("the listed customers, their turnover and VAT, the totals", async () => {
    const listing = await ok("GET", "/api/v1/listings/clients/2025");
    expect(listing.year).toBe(2025);
    expect(listing.declarant).toEqual({ vat_number: "BE0477472701", name: "Acme" });
    expect(listing.threshold).toBe("250.00");
    expect(listing.customers.map((c: any) => [c.vat_number, c.turnover, c.vat_amount])).toEqual([
      ["BE0400000086", "250.01", "52.50"],
      ["BE0410000093", "1000.00", "0.00"],
      ["BE0417497106", "900.00", "189.00"],
    ]);
    const alpha = listing.customers.find((c: any) => c.vat_number === "BE0417497106");
    expect(alpha.customer_ids).toEqual([ids.alpha, ids.alphaGent].sort());
    expect(listing.totals).toEqual({ clients: 3, turnover: "2150.01", vat_amount: "241.50" });
    // exactly 250.00 is not more than 250.00
    expect(listing.below_threshold.map((c: any) => [c.vat_number, c.turnover, c.vat_amount])).toEqual([["BE0203201340", "250.00", "52.50"]]);
  });

  test("a Belgian business without a VAT number and an invalid Belgian VAT number are warned of, by name", async () => {
    const listing = await ok("GET", "/api/v1/listings/clients/2025");
    const byCode = Object.fromEntries(listing.warnings.map((w: any) => [w.code, w]));
    expect(Object.keys(byCode).sort()).toEqual(["invalid_vat_number", "missing_vat_number"]);
    expect(byCode.invalid_vat_number).toMatchObject({ customer_id: ids.epsilon, customer_name: "Epsilon VOF" });
    expect(byCode.invalid_vat_number.message).toContain("BE0420000004");
    expect(byCode.invalid_vat_number.message).toContain("600.00");
    expect(byCode.missing_vat_number).toMatchObject({ customer_id: ids.zeta, customer_name: "Zeta CommV" });
    expect(byCode.missing_vat_number.message).toContain("400.00");
  });

  test("the XML validates against NewLK-in_v0_9.xsd and says what the JSON says", async () => {
    const r = await env.request("GET", "/api/v1/listings/clients/2025/xml");
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    expect(r.headers.get("content-disposition")).toBe('attachment; filename="client-listing-2025.xml"');
    const result = await validateIntervat(r.text, "NewLK-in_v0_9.xsd");
    expect(result.output).not.toContain("fails to validate");
    expect(result.ok).toBe(true);
    expect(r.text).toContain('ClientsNbr="3"');
    expect(r.text).toContain('TurnOverSum="2150.01"');
    expect(r.text).toContain('VATAmountSum="241.50"');
    expect(r.text).toContain("<VATNumber>0477472701</VATNumber>");
    expect(r.text).toContain("<ns2:Period>2025</ns2:Period>");
    expect(r.text).toContain('<ns2:CompanyVATNumber issuedBy="BE">0417497106</ns2:CompanyVATNumber>');
    expect(r.text).not.toContain("0203201340");
  });

  test("a year with nobody to list: no XML (409), and a warning that the last return says ClientListingNihil", async () => {
    const listing = await ok("GET", "/api/v1/listings/clients/2023");
    expect(listing.customers).toEqual([]);
    expect(listing.totals).toEqual({ clients: 0, turnover: "0.00", vat_amount: "0.00" });
    expect(listing.warnings.map((w: any) => w.code)).toEqual(["no_client"]);
    const r = await env.request("GET", "/api/v1/listings/clients/2023/xml");
    expect(r.status).toBe(409);
    expect(r.body.message ?? r.text).toContain("ClientListingNihil YES");
  });
});

describe("client listing refusals", () => {
  test("a year not yet ended, or not a year: 422 on year", async () => {
    const thisYear = new Date().getUTCFullYear();
    for (const year of [String(thisYear + 1), "25", "abcd"]) {
      const r = await env.api("GET", `/api/v1/listings/clients/${year}`);
      expect(r.status, year).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual(["year"]);
    }
    // the current year is refused while it runs (the listing is filed after it), as JSON and as XML
    for (const path of [`/api/v1/listings/clients/${thisYear}`, `/api/v1/listings/clients/${thisYear}/xml`]) {
      const r = await env.api("GET", path);
      expect(r.status).toBe(422);
      expect(r.body.errors.year[0]).toContain("has not ended");
    }
  });

  test("an organisation without a Belgian VAT number: 422 on vat_number", async () => {
    const other = await env.newOrg("Nummerloos");
    for (const path of ["/api/v1/listings/clients/2025", "/api/v1/listings/clients/2025/xml"]) {
      const r = await env.api("GET", path, undefined, other.token);
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual(["vat_number"]);
    }
    await ok("PUT", "/api/v1/organization", { vat_number: "NL004495445B01" }, 200, other.token);
    expect((await env.api("GET", "/api/v1/listings/clients/2025", undefined, other.token)).body.errors).toHaveProperty("vat_number");
  });

  test("reporting.view is needed", async () => {
    const r = await env.api("GET", "/api/v1/listings/clients/2025", undefined, await env.orgToken(["invoicing.view"]));
    expect(r.status).toBe(403);
    expect((await env.api("GET", "/api/v1/listings/clients/2025", undefined, await env.orgToken(["reporting.view"]))).status).toBe(200);
  });
});
