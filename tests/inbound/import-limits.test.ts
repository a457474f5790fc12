/**
 * Imported texts within the API's own limits (docs/api.md, "Limits"): every text of a supplier's
 * e-invoice that Kontor keeps is refused with a 422 naming its element path and its EN 16931
 * business term when it is longer than the API field it becomes takes, never cut short; one of
 * exactly the limit is taken whole. Hostile sizes (a 9 MiB invoice number, a 1 MiB seller name)
 * are refused the same way. Documents are built here from the Peppol base example, element by
 * element.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { IMPORTED_TEXT_LIMITS, MAX_IMPORTED_LINES, type ImportedTerm } from "../../server/inbound/import-limits.ts";
import { createTestEnv, type TestEnv } from "../helpers.ts";

const EXAMPLES = join(import.meta.dir, "..", "einvoicing", "examples");
const UBL = readFileSync(join(EXAMPLES, "peppol", "base-example.xml"), "utf8");
const CII = readFileSync(join(EXAMPLES, "cen-cii", "CII_example1.xml"), "utf8");
const SUPPLIER = "/Invoice/cac:AccountingSupplierParty/cac:Party";

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await createTestEnv();
  token = (await env.newOrg("Limits", { country: "BE", currency: "EUR" })).token;
});
afterAll(() => env.close());

const importXml = (xml: string) => env.request("POST", "/api/v1/expenses/import", { rawBody: xml, token, headers: { "content-type": "application/xml" } });

/** Replaces the first `<tag>…</tag>` after `after` (or the first of all) with `<tag>text</tag>`. */
function withText(xml: string, tag: string, text: string, after = ""): string {
  const from = after ? xml.indexOf(after) : 0;
  expect(from).toBeGreaterThanOrEqual(0);
  const re = new RegExp(`<${tag}(\\s[^>]*)?>[^<]*</${tag}>`, "g");
  re.lastIndex = from;
  const m = re.exec(xml);
  expect(m, tag).not.toBeNull();
  return xml.slice(0, m!.index) + `<${tag}${m![1] ?? ""}>${text}</${tag}>` + xml.slice(m!.index + m![0].length);
}

/** Where each term stands in the base example, and a text of `n` characters it may hold (a valid one where the value is checked). */
const UBL_PLACES: Record<ImportedTerm, { tag: string; after?: string; path: string; text: (n: number) => string }> = {
  "BT-1": { tag: "cbc:ID", path: "/Invoice/cbc:ID", text: (n) => `N${"1".repeat(n - 1)}` },
  "BT-27": { tag: "cbc:RegistrationName", path: `${SUPPLIER}/cac:PartyLegalEntity/cbc:RegistrationName`, text: (n) => "S".repeat(n) },
  "BT-30": { tag: "cbc:CompanyID", after: "<cbc:RegistrationName>SupplierOfficialName", path: `${SUPPLIER}/cac:PartyLegalEntity/cbc:CompanyID`, text: (n) => "9".repeat(n) },
  "BT-31": { tag: "cbc:CompanyID", after: "<cac:AccountingSupplierParty>", path: `${SUPPLIER}/cac:PartyTaxScheme/cbc:CompanyID`, text: (n) => `GB${"1".repeat(n - 2)}` },
  "BT-34": { tag: "cbc:EndpointID", path: `${SUPPLIER}/cbc:EndpointID`, text: (n) => "9".repeat(n) },
  "BT-35": { tag: "cbc:StreetName", path: `${SUPPLIER}/cac:PostalAddress/cbc:StreetName`, text: (n) => "s".repeat(n) },
  "BT-36": { tag: "cbc:AdditionalStreetName", path: `${SUPPLIER}/cac:PostalAddress/cbc:AdditionalStreetName`, text: (n) => "a".repeat(n) },
  "BT-37": { tag: "cbc:CityName", path: `${SUPPLIER}/cac:PostalAddress/cbc:CityName`, text: (n) => "c".repeat(n) },
  "BT-38": { tag: "cbc:PostalZone", path: `${SUPPLIER}/cac:PostalAddress/cbc:PostalZone`, text: (n) => "1".repeat(n) },
  "BT-83": { tag: "cbc:PaymentID", path: "/Invoice/cac:PaymentMeans/cbc:PaymentID", text: (n) => "r".repeat(n) },
  "BT-84": { tag: "cbc:ID", after: "<cac:PayeeFinancialAccount>", path: "/Invoice/cac:PaymentMeans/cac:PayeeFinancialAccount/cbc:ID", text: (n) => "X".repeat(n) },
  "BT-153": { tag: "cbc:Name", after: "<cac:InvoiceLine>", path: "/Invoice/cac:InvoiceLine[1]/cac:Item/cbc:Name", text: (n) => "i".repeat(n) },
};

// each number here is read from docs/api.md's table as the API's own schemas give it, not from the table under test
const API_LIMITS: Record<ImportedTerm, number> = {
  "BT-1": 200, // set for imports: the API never takes a supplier's invoice number
  "BT-27": 255, // vendor, supplier name
  "BT-30": 50, // company_number
  "BT-31": 50, // vat_number
  "BT-34": 255, // an e-mail endpoint is an e-mail address
  "BT-35": 249, // address 500 = line 1 + "\n" + line 2
  "BT-36": 250,
  "BT-37": 100, // city
  "BT-38": 10, // postal_code
  "BT-83": 140, // payment_reference
  "BT-84": 42, // payee_iban
  "BT-153": 2000, // an invoice line's description
};

describe("every imported text within the API's limit of the field it becomes", () => {
  test("the one table holds every term the readers keep, with the API's limits", () => {
    const table: Record<string, number> = Object.fromEntries(Object.entries(IMPORTED_TEXT_LIMITS).map(([term, l]) => [term, l.maxLength]));
    expect(table).toEqual(API_LIMITS);
  });

  for (const [term, place] of Object.entries(UBL_PLACES) as [ImportedTerm, (typeof UBL_PLACES)[ImportedTerm]][]) {
    test(`${term}: one character over its ${API_LIMITS[term]} is a 422 naming ${place.tag} and ${term}; the limit itself is taken`, async () => {
      const over = await importXml(withText(UBL, place.tag, place.text(API_LIMITS[term] + 1), place.after));
      expect(over.status).toBe(422);
      expect(Object.keys(over.body.errors)).toEqual([place.path]);
      expect(over.body.errors[place.path][0]).toContain(`(${term}) is ${API_LIMITS[term] + 1} characters long`);
      expect(over.body.errors[place.path][0]).toContain(`at most ${API_LIMITS[term]}`);
      const atLimit = await importXml(withText(withText(UBL, "cbc:ID", `L-${term}`), place.tag, place.text(API_LIMITS[term]), place.after));
      expect(atLimit.status, JSON.stringify(atLimit.body)).toBe(201);
    });
  }

  test("characters, not UTF-16 units: a seller name of 255 emoji is taken whole, 256 are refused", async () => {
    const ok = await importXml(withText(withText(UBL, "cbc:ID", "EMOJI-1"), "cbc:RegistrationName", "😀".repeat(255)));
    expect(ok.status).toBe(201);
    expect(ok.body.data.vendor).toBe("😀".repeat(255));
    const refused = await importXml(withText(withText(UBL, "cbc:ID", "EMOJI-2"), "cbc:RegistrationName", "😀".repeat(256)));
    expect(refused.status).toBe(422);
  });

  test("what the review sent: a 9 MiB invoice number, a 1 MiB seller name and payment reference are refused, nothing stored", async () => {
    const before = (await env.request("GET", "/api/v1/expenses?per_page=100", { token })).body.meta.total;
    const id = await importXml(withText(UBL, "cbc:ID", "9".repeat(9 * 1024 * 1024)));
    expect(id.status).toBe(422);
    expect(id.body.errors["/Invoice/cbc:ID"][0]).toContain(`(BT-1) is ${9 * 1024 * 1024} characters long`);
    const name = await importXml(withText(withText(UBL, "cbc:PaymentID", "p".repeat(1024 * 1024)), "cbc:RegistrationName", "n".repeat(1024 * 1024)));
    expect(name.status).toBe(422);
    expect(name.body.errors[`${SUPPLIER}/cac:PartyLegalEntity/cbc:RegistrationName`][0]).toContain("BT-27");
    const paymentId = await importXml(withText(UBL, "cbc:PaymentID", "p".repeat(1024 * 1024)));
    expect(paymentId.body.errors["/Invoice/cac:PaymentMeans/cbc:PaymentID"][0]).toContain("BT-83");
    expect((await env.request("GET", "/api/v1/expenses?per_page=100", { token })).body.meta.total).toBe(before);
  });

  test("CII: the same table through the other syntax (seller name, invoice number)", async () => {
    const seller = "/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement/ram:SellerTradeParty/ram:Name";
    const long = await importXml(withText(CII, "ram:Name", "S".repeat(256), "<ram:SellerTradeParty>"));
    expect(long.status).toBe(422);
    expect(long.body.errors[seller][0]).toContain("(BT-27) is 256 characters long");
    const number = await importXml(withText(CII, "ram:ID", "7".repeat(201), "<rsm:ExchangedDocument>"));
    expect(number.status).toBe(422);
    expect(number.body.errors["/rsm:CrossIndustryInvoice/rsm:ExchangedDocument/ram:ID"][0]).toContain("(BT-1) is 201 characters long");
  });

  test(`at most ${MAX_IMPORTED_LINES} lines per document: one more is a 422 naming the lines`, async () => {
    const start = UBL.indexOf("<cac:InvoiceLine>");
    const end = UBL.lastIndexOf("</cac:InvoiceLine>") + "</cac:InvoiceLine>".length;
    const first = UBL.slice(start, UBL.indexOf("</cac:InvoiceLine>") + "</cac:InvoiceLine>".length);
    const xml = UBL.slice(0, start) + first.repeat(MAX_IMPORTED_LINES + 1) + UBL.slice(end);
    const refused = await importXml(xml);
    expect(refused.status).toBe(422);
    expect(refused.body.errors["/Invoice/cac:InvoiceLine"][0]).toContain(`${MAX_IMPORTED_LINES + 1} InvoiceLines`);
  });

  test("an expense's description lists item names whole, as many of the first five as fit its 5,000 characters", async () => {
    const start = UBL.indexOf("<cac:InvoiceLine>");
    const end = UBL.lastIndexOf("</cac:InvoiceLine>") + "</cac:InvoiceLine>".length;
    const lines = UBL.slice(start, end);
    const second = lines.indexOf("<cac:InvoiceLine>", 1);
    // two lines of names of 2,000 characters each: "Invoice DESC-1: " + a + "; " + b is 4,018, both fit
    const named = withText(lines.slice(0, second), "cbc:Name", "a".repeat(2000)) + withText(lines.slice(second), "cbc:Name", "b".repeat(2000));
    const two = await importXml(withText(UBL.slice(0, start) + named + UBL.slice(end), "cbc:ID", "DESC-1"));
    expect(two.status).toBe(201);
    expect(two.body.data.description).toBe(`Invoice DESC-1: ${"a".repeat(2000)}; ${"b".repeat(2000)}`);
  });
});
