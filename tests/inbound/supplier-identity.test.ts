/**
 * Who a supplier is (server/suppliers/identity.ts, docs/payables.md#importing-supplier-e-invoices):
 * the rule itself on plain identities, then through the import with sellers edited in the Peppol
 * base example (its seller: "SupplierOfficialName Ltd", VAT GB1232434, registration GB983294,
 * endpoint 0088:9482348239847239874, invoice Snippet1). And the refusals that say what a file is.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { nameKey, sameSupplier, type KnownSupplier, type SellerIdentity } from "../../server/suppliers/identity.ts";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const BASE = readFileSync(join(import.meta.dir, "..", "einvoicing", "examples", "peppol", "base-example.xml"), "utf8");
const importXml = (xml: string, token: string) =>
  env.request("POST", "/api/v1/expenses/import", { rawBody: xml, token, headers: { "content-type": "application/xml" } });

/** The base example with its seller's name, VAT number, registration and endpoint as given (null: left out), and its number. */
function seller(number: string, name: string, vat: string | null, registration: string | null, endpoint: string | null = null): string {
  const edited = BASE.replace("<cbc:ID>Snippet1</cbc:ID>", `<cbc:ID>${number}</cbc:ID>`)
    .replace("<cbc:Name>SupplierTradingName Ltd.</cbc:Name>", `<cbc:Name>${name}</cbc:Name>`)
    .replace("<cbc:RegistrationName>SupplierOfficialName Ltd</cbc:RegistrationName>", `<cbc:RegistrationName>${name}</cbc:RegistrationName>`)
    .replace(/<cac:PartyTaxScheme>\s*<cbc:CompanyID>GB1232434<\/cbc:CompanyID>\s*<cac:TaxScheme>\s*<cbc:ID>VAT<\/cbc:ID>\s*<\/cac:TaxScheme>\s*<\/cac:PartyTaxScheme>/, vat === null ? "" : `<cac:PartyTaxScheme><cbc:CompanyID>${vat}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>`)
    .replace("<cbc:CompanyID>GB983294</cbc:CompanyID>", registration === null ? "" : `<cbc:CompanyID>${registration}</cbc:CompanyID>`)
    .replace('<cbc:EndpointID schemeID="0088">9482348239847239874</cbc:EndpointID>', endpoint === null ? '<cbc:EndpointID schemeID="EM">ap@bookkeeper.example</cbc:EndpointID>' : endpoint);
  expect(edited).not.toContain("<cbc:ID>Snippet1</cbc:ID>");
  return edited;
}

const doc = (over: Partial<SellerIdentity>): SellerIdentity => ({ vat: null, registration: null, peppolId: null, name: "acme", ...over });
const known = (over: Partial<KnownSupplier>): KnownSupplier => ({ vats: [], registrations: [], peppolIds: [], names: ["acme"], ...over });

describe("the rule", () => {
  test("nameKey: case, spaces, punctuation and trailing legal forms set aside", () => {
    expect(nameKey("ACME B.V.")).toBe("acme");
    expect(nameKey("  Acme   bv ")).toBe("acme");
    expect(nameKey("Meier GmbH & Co. KG")).toBe("meier");
    expect(nameKey("Dupont S.A.R.L.")).toBe("dupont");
    expect(nameKey("[Seller name]")).toBe("seller name");
    expect(nameKey("M. Meier Handwerk GbR")).toBe("m meier handwerk");
    // a legal form alone stays a name; one in the middle is a word of the name
    expect(nameKey("AG")).toBe("ag");
    expect(nameKey("BV Holland Trading")).toBe("bv holland trading");
  });

  test("the same VAT number whatever the name; another VAT number whatever else is shared", () => {
    expect(sameSupplier(doc({ vat: "BE0403170701", name: "other name" }), known({ vats: ["BE0403170701"] }))).toBe(true);
    expect(sameSupplier(doc({ vat: "BE0403170701", registration: { value: "R1", scheme: "" } }), known({ vats: ["NL123"], registrations: [{ value: "R1", scheme: "" }] }))).toBe(false);
  });

  test("else the registration (a scheme, when both give one, must agree); else the Peppol id; else the names", () => {
    expect(sameSupplier(doc({ registration: { value: "123", scheme: "0088" }, name: "x" }), known({ registrations: [{ value: "123", scheme: "" }] }))).toBe(true);
    expect(sameSupplier(doc({ registration: { value: "123", scheme: "0088" } }), known({ registrations: [{ value: "123", scheme: "0208" }] }))).toBe(false);
    expect(sameSupplier(doc({ registration: { value: "124", scheme: "" } }), known({ registrations: [{ value: "123", scheme: "" }] }))).toBe(false);
    expect(sameSupplier(doc({ peppolId: "0088:1", name: "x" }), known({ peppolIds: ["0088:1"] }))).toBe(true);
    // a side with neither a VAT number nor a registration: the names decide
    expect(sameSupplier(doc({ vat: "BE0403170701" }), known({}))).toBe(true);
    expect(sameSupplier(doc({ vat: "BE0403170701", name: "other" }), known({}))).toBe(false);
    expect(sameSupplier(doc({}), known({ vats: ["BE0403170701"] }))).toBe(true);
  });
});

describe("through the import", () => {
  test("a supplier created as 'Acme BV' is the document's 'ACME B.V.' without VAT number or registration", async () => {
    const { token } = await env.newOrg("Names", { country: "BE", currency: "EUR" });
    const made = await env.request("POST", "/api/v1/suppliers", { token, body: { name: "Acme BV" } });
    const r = await importXml(seller("N-1", "ACME B.V.", null, null), token);
    expect(r.status, r.text).toBe(201);
    expect(r.body.data.supplier_id).toBe(made.body.data.id);
    // renamed over the API: the new name is what it is known by (with the documents' names)
    await env.request("PUT", `/api/v1/suppliers/${made.body.data.id}`, { token, body: { name: "Zeta Trading Ltd" } });
    const renamed = await importXml(seller("N-2", "ZETA TRADING", null, null), token);
    expect(renamed.body.data.supplier_id).toBe(made.body.data.id);
  });

  test("two sellers of one name and two VAT numbers are two suppliers; the same VAT number under another name is one", async () => {
    const { token } = await env.newOrg("Same name", { country: "BE", currency: "EUR" });
    const a = await importXml(seller("V-1", "Acme Ltd", "GB1232434", null), token);
    const b = await importXml(seller("V-1", "Acme Ltd", "GB999999973", null), token);
    expect(a.status, a.text).toBe(201);
    expect(b.status, b.text).toBe(201);
    expect(b.body.data.supplier_id).not.toBe(a.body.data.supplier_id);
    const renamed = await importXml(seller("V-2", "Acme Holdings PLC", "GB 123 2434", null), token);
    expect(renamed.body.data.supplier_id).toBe(a.body.data.supplier_id);
    // wrong check digits (not stored as vat_number) still tell sellers apart
    const typo1 = await importXml(seller("T-1", "Typo GmbH", "DE123456789", null), token);
    const typo2 = await importXml(seller("T-1", "Typo GmbH", "DE987654321", null), token);
    expect(typo1.status, typo1.text).toBe(201);
    expect(typo2.status, typo2.text).toBe(201);
    expect(typo2.body.data.supplier_id).not.toBe(typo1.body.data.supplier_id);
  });

  test("two registrations are two suppliers though the name and the e-mail endpoint are shared; the same one is one supplier", async () => {
    const { token } = await env.newOrg("Registrations", { country: "BE", currency: "EUR" });
    const a = await importXml(seller("R-1", "Handwerk GbR", null, "HRB 1"), token);
    const b = await importXml(seller("R-1", "Handwerk GbR", null, "HRB 2"), token);
    expect(b.status, b.text).toBe(201);
    expect(b.body.data.supplier_id).not.toBe(a.body.data.supplier_id);
    const again = await importXml(seller("R-2", "Other name", null, "HRB1"), token);
    expect(again.body.data.supplier_id).toBe(a.body.data.supplier_id);
    const suppliers = (await env.request("GET", "/api/v1/suppliers", { token })).body.data as { peppol_id: string | null }[];
    expect(suppliers.length).toBe(2);
    expect(suppliers.every((s) => s.peppol_id === null)).toBe(true);
  });

  test("a different document under a number the same seller used before: a 409 that says both dates and totals", async () => {
    const { token } = await env.newOrg("Renumbered", { country: "BE", currency: "EUR" });
    const first = await importXml(seller("D-1", "Acme Ltd", "GB1232434", null), token);
    const same = await importXml(seller("D-1", "Acme Ltd", "GB1232434", null), token);
    expect(same.status).toBe(409);
    expect(same.body.message).toBe(`The supplier's invoice D-1 was imported before, as expense ${first.body.data.id}.`);
    const other = await importXml(seller("D-1", "Acme Ltd", "GB1232434", null).replace("<cbc:IssueDate>2017-11-13</cbc:IssueDate>", "<cbc:IssueDate>2017-12-01</cbc:IssueDate>"), token);
    expect(other.status).toBe(409);
    expect(other.body.message).toContain("dated 2017-11-13");
    expect(other.body.message).toContain("this document under the same number is dated 2017-12-01");
  });
});

describe("refusals that say what the file is", () => {
  test("ZUGFeRD 1.0 (rsm:CrossIndustryDocument) is named, with what is accepted", async () => {
    const zugferd1 = `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0" xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12">
  <rsm:SpecifiedExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>urn:ferd:CrossIndustryDocument:invoice:1p0:comfort</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:SpecifiedExchangedDocumentContext>
</rsm:CrossIndustryDocument>`;
    const r = await importXml(zugferd1, env.token);
    expect(r.status).toBe(422);
    expect(r.body.errors["/CrossIndustryDocument"][0]).toContain("ZUGFeRD 1.0 is not supported; CII (ZUGFeRD 2.x / Factur-X EN 16931");
  });

  test("a Factur-X BASIC WL file is named as such", async () => {
    const cii = readFileSync(join(import.meta.dir, "..", "fixtures", "xrechnung-testsuite", "business-cases", "standard", "01.01a-INVOICE_uncefact.xml"), "utf8");
    const basicWl = cii.replace(/(<ram:GuidelineSpecifiedDocumentContextParameter>\s*<ram:ID>)[^<]*/, "$1urn:factur-x.eu:1p0:basicwl");
    expect(basicWl).not.toBe(cii);
    const r = await importXml(basicWl, env.token);
    expect(r.status).toBe(422);
    expect(r.body.message).toContain("Factur-X / ZUGFeRD BASIC WL profile file ('urn:factur-x.eu:1p0:basicwl', BT-24)");
    const minimum = await importXml(cii.replace(/(<ram:GuidelineSpecifiedDocumentContextParameter>\s*<ram:ID>)[^<]*/, "$1urn:zugferd.de:2p0:minimum"), env.token);
    expect(minimum.body.message).toContain("MINIMUM profile");
  });

  test("the XRechnung extension's third-party payments (05.01a) are named as an unsupported extension, not as broken totals", async () => {
    const file = readFileSync(join(import.meta.dir, "..", "fixtures", "xrechnung-testsuite", "business-cases", "extension", "05.01a-INVOICE_ubl.xml"), "utf8");
    const r = await importXml(file, env.token);
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(["/Invoice/cac:PrepaidPayment"]);
    expect(r.body.message).toContain("third-party payments (BG-DEX-09, 2 cac:PrepaidPayment)");
    expect(r.body.message).toContain("not supported");
    expect(r.body.message).not.toContain("is not TaxInclusiveAmount");
  });
});
