/**
 * Peppol BIS Billing 3.0 UBL: every document Kontor renders passes the UBL 2.1 XSD, the CEN
 * EN 16931 rules and the Peppol BIS 3.0 rules (the official files, in tests/einvoicing/), and what
 * the rules need but a document lacks is named by `missingForUbl` instead of rendered.
 *
 * The rules run in SaxonJS at ~0.3–1 s a document; the compiled rules are cached in
 * tests/einvoicing/.cache (compiled here when missing: 30–60 s, once).
 */
import { beforeAll, describe as group, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { IssuedDocument } from "../../server/documents/model.ts";
import { missingForUbl, renderUbl } from "../../server/documents/ubl.ts";
import { ValidationFailed } from "../../server/lib/errors.ts";
import { BUYER_BE, BUYER_DE, makeDocument, SCENARIOS as FIXTURES, SELLER, twentyLineInvoice } from "../einvoicing/fixtures.ts";
import { describe, loadRules, validateUbl, type UblValidation } from "../einvoicing/validate.ts";
const TESTS_ROOT = join(import.meta.dir, "..");

const EXAMPLES = join(TESTS_ROOT, "einvoicing/examples");
const SLOW = 120_000;

beforeAll(async () => {
  await loadRules();
}, 180_000);

function expectValid(v: UblValidation): void {
  // the message lists every broken rule, so a failure says what to fix
  expect(describe(v)).toBe("");
  expect(v.fatal).toEqual([]);
  expect(v.xsdErrors).toEqual([]);
}

group("the validation harness", () => {
  const dirs = ["peppol", "cen"].filter((d) => {
    try {
      return readdirSync(join(EXAMPLES, d)).length > 0;
    } catch {
      return false;
    }
  });

  test("finds the official examples", () => {
    // without them this group proves nothing
    expect(dirs).toEqual(["peppol", "cen"]);
  });

  for (const dir of dirs) {
    for (const file of readdirSync(join(EXAMPLES, dir)).filter((f) => f.endsWith(".xml"))) {
      test(`${dir}/${file} passes`, async () => {
        const v = await validateUbl(readFileSync(join(EXAMPLES, dir, file), "utf8"));
        expect(v.xsdErrors).toEqual([]);
        // the CEN examples are plain EN 16931, not Peppol documents: they pass the CEN rules only
        const fatal = dir === "cen" ? v.fatal.filter((a) => a.rules === "CEN-EN16931-UBL") : v.fatal;
        expect(fatal.map((a) => `${a.id}: ${a.text}`)).toEqual([]);
      }, SLOW);
    }
  }

  test("a broken copy fails each layer", async () => {
    const good = readFileSync(join(EXAMPLES, "peppol/base-example.xml"), "utf8");
    const noReference = good.replace(/<cbc:BuyerReference>[^<]*<\/cbc:BuyerReference>/, "");
    expect((await validateUbl(noReference)).fatal.map((a) => a.id)).toContain("PEPPOL-EN16931-R003");

    const badTotal = good.replace(
      '<cbc:PayableAmount currencyID="EUR">1656.25</cbc:PayableAmount>',
      '<cbc:PayableAmount currencyID="EUR">1656.26</cbc:PayableAmount>',
    );
    expect((await validateUbl(badTotal)).fatal.map((a) => a.id)).toContain("BR-CO-16");

    const badSchema = good.replace("<cbc:IssueDate>", "<cbc:Colour>red</cbc:Colour><cbc:IssueDate>");
    expect((await validateUbl(badSchema)).xsdErrors.join("\n")).toContain("Colour");
  }, SLOW);

  test("an e-mail address is no Peppol endpoint (why missingForUbl asks for the customer's Peppol id)", async () => {
    const xml = renderUbl(makeDocument([{ quantity: 100, price: 1_000 }])).replace(
      '<cbc:EndpointID schemeID="0208">0403170701</cbc:EndpointID>',
      '<cbc:EndpointID schemeID="EM">boekhouding@leeuw.example</cbc:EndpointID>',
    );
    expect((await validateUbl(xml)).fatal.map((a) => a.id)).toEqual(["PEPPOL-EN16931-CL008"]);
  }, SLOW);
});

group("Kontor's UBL passes the XSD, EN 16931 and Peppol BIS 3.0", () => {
  for (const [name, make] of Object.entries(FIXTURES)) {
    test(name, async () => {
      const doc = make();
      expect(missingForUbl(doc)).toEqual({});
      const xml = renderUbl(doc);
      expectValid(await validateUbl(xml));
    }, SLOW);
  }
});

group("renderUbl", () => {
  test("is deterministic", () => {
    const doc = twentyLineInvoice();
    expect(renderUbl(doc)).toBe(renderUbl(structuredClone(doc)));
  });

  test("writes the Peppol identifiers, the parties and the payment", () => {
    const xml = renderUbl(makeDocument([{ quantity: 300, price: 12_500 }]));
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"')).toBe(true);
    for (const part of [
      "<cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>",
      "<cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>",
      '<cbc:EndpointID schemeID="0208">0123456749</cbc:EndpointID>',
      '<cbc:EndpointID schemeID="0208">0403170701</cbc:EndpointID>',
      "<cbc:CompanyID>BE0123456749</cbc:CompanyID>",
      '<cbc:CompanyID schemeID="0208">0123456749</cbc:CompanyID>',
      "<cbc:PaymentMeansCode>58</cbc:PaymentMeansCode>",
      "<cbc:PaymentID>+++090/9337/55493+++</cbc:PaymentID>",
      "<cbc:ID>BE68539007547034</cbc:ID>",
      '<cbc:InvoicedQuantity unitCode="C62">3.00</cbc:InvoicedQuantity>',
      '<cbc:PayableAmount currencyID="EUR">453.75</cbc:PayableAmount>',
      "<cbc:DueDate>2026-04-01</cbc:DueDate>",
    ]) {
      expect(xml).toContain(part);
    }
  });

  test("escapes every value", () => {
    const xml = renderUbl(FIXTURES["long Unicode descriptions with markup characters"]!());
    expect(xml).toContain("<cbc:RegistrationName>Kontor \"Demo\" &lt;BV&gt; &amp; Co's</cbc:RegistrationName>");
    expect(xml).toContain("<cbc:BuyerReference>Ref &lt;A&amp;B&gt;</cbc:BuyerReference>");
    expect(xml).toContain("]]&gt; and &amp;amp; literally");
    expect(xml).not.toContain("<script>");
    expect(xml).not.toContain("\u0007");
    expect(xml).toContain("東京, 🚀");
  });

  test("a credit note is a CreditNote referencing the invoice it credits", () => {
    const xml = renderUbl(FIXTURES["credit note crediting an invoice"]!());
    expect(xml).toContain('<CreditNote xmlns="urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"');
    expect(xml).toContain("<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>");
    expect(xml).toMatch(/<cac:BillingReference>\s*<cac:InvoiceDocumentReference>\s*<cbc:ID>INV-2026-0001<\/cbc:ID>\s*<cbc:IssueDate>2026-03-02<\/cbc:IssueDate>/);
    expect(xml).toContain("<cac:CreditNoteLine>");
    expect(xml).toContain("<cbc:PaymentDueDate>2026-04-01</cbc:PaymentDueDate>");
    expect(xml).not.toContain("InvoiceLine");
  });

  test("refuses what it cannot fill with a 422 naming the fields", () => {
    const doc = makeDocument([{ quantity: 100, price: 1_000 }], { buyer: { ...BUYER_BE, peppolId: null } });
    let error: unknown;
    try {
      renderUbl(doc);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationFailed);
    expect((error as ValidationFailed).status).toBe(422);
    expect(Object.keys((error as ValidationFailed).errors!)).toEqual(["customer.peppol_id"]);
  });

  test("refuses totals that do not reconcile (a bug, not a 422)", () => {
    const doc = makeDocument([{ quantity: 100, price: 1_000 }]);
    expect(() => renderUbl({ ...doc, totalCents: doc.totalCents + 1 })).toThrow(/does not reconcile/);
  });
});

group("missingForUbl", () => {
  const base = () => makeDocument([{ quantity: 100, price: 1_000 }]);
  const fields = (doc: IssuedDocument) => Object.keys(missingForUbl(doc)).sort();

  test("a complete document lacks nothing", () => {
    expect(missingForUbl(base())).toEqual({});
  });

  test("a VAT number whose prefix is no country is named (BR-CO-09); EL and XI are prefixes", () => {
    const doc = base();
    expect(fields({ ...doc, buyer: { ...doc.buyer, vatNumber: "AB123456789" } })).toEqual(["customer.vat_number"]);
    expect(fields({ ...doc, buyer: { ...doc.buyer, vatNumber: "EL123456789" } })).toEqual([]);
    expect(fields({ ...doc, buyer: { ...doc.buyer, vatNumber: "XI123456789" } })).toEqual([]);
  });

  test("a bare organization and customer", () => {
    const bare = { name: "X", address: null, city: null, postalCode: null, country: null, vatNumber: null, companyNumber: null, email: "x@example.com", phone: null, peppolId: null };
    expect(fields({ ...base(), seller: bare, buyer: bare, payee: null })).toEqual([
      "customer.address",
      "customer.city",
      "customer.country",
      "customer.peppol_id",
      "organization.address",
      "organization.city",
      "organization.country",
      "organization.peppol_id",
      "organization.postal_code",
      "organization.vat_number",
    ]);
  });

  test("an e-mail address is no Peppol endpoint", () => {
    const missing = missingForUbl({ ...base(), buyer: { ...BUYER_BE, peppolId: null, email: "ap@example.com" } });
    expect(missing["customer.peppol_id"]![0]).toContain("not to an e-mail address");
  });

  test("malformed identifiers", () => {
    const doc = base();
    expect(fields({ ...doc, seller: { ...SELLER, peppolId: "BE0123456749" } })).toEqual(["organization.peppol_id"]);
    expect(fields({ ...doc, seller: { ...SELLER, peppolId: "0208:0123456748" } })).toEqual(["organization.peppol_id"]); // check digits
    expect(fields({ ...doc, buyer: { ...BUYER_BE, peppolId: "EM:ap@example.com" } })).toEqual(["customer.peppol_id"]);
    expect(fields({ ...doc, buyer: { ...BUYER_BE, vatNumber: "!!" } })).toEqual(["customer.vat_number"]);
    expect(fields({ ...doc, seller: { ...SELLER, companyNumber: "0123.456.748" } })).toEqual(["organization.company_number"]);
  });

  test("no buyer reference and no order reference", () => {
    expect(missingForUbl({ ...base(), buyerReference: null, orderReference: "  " })).toEqual({
      buyer_reference: ["Peppol needs a buyer reference or an order reference on the invoice (PEPPOL-EN16931-R003)."],
    });
  });

  test("reverse charge and intra-community supply need the customer's VAT number", () => {
    const buyer = { ...BUYER_DE, vatNumber: null };
    expect(fields(makeDocument([{ quantity: 100, price: 1_000, category: "AE" }], { buyer }))).toEqual(["customer.vat_number"]);
    expect(fields(makeDocument([{ quantity: 100, price: 1_000, category: "K" }], { buyer }))).toEqual(["customer.vat_number"]);
    // reverse charge accepts the customer's company number instead (BR-AE-02)
    expect(fields(makeDocument([{ quantity: 100, price: 1_000, category: "AE" }], { buyer: { ...buyer, companyNumber: "HRB 12345" } }))).toEqual([]);
  });

  test("an exempt rate without a reason, a zero category with a rate, O mixed with S", () => {
    expect(fields(makeDocument([{ quantity: 100, price: 1_000, category: "E" }], { groupOverrides: { exemptionReasonCode: null, exemptionReason: null } }))).toEqual([
      "vat_rates.exemption_reason_code",
    ]);
    expect(fields(makeDocument([{ quantity: 100, price: 1_000, category: "Z", rate: 600 }]))).toEqual(["vat_rates.rate"]);
    expect(fields(makeDocument([{ quantity: 100, price: 1_000, category: "O" }, { quantity: 100, price: 1_000 }]))).toEqual(["lines"]);
  });

  test("not subject to VAT needs the company number instead", () => {
    expect(fields(makeDocument([{ quantity: 100, price: 1_000, category: "O" }], { seller: { ...SELLER, vatNumber: null, companyNumber: null } }))).toEqual([
      "organization.company_number",
    ]);
  });

  test("lines without a description or unit", () => {
    const doc = makeDocument([{ quantity: 100, price: 1_000, description: "  " }, { quantity: 100, price: 1_000, unit: "" }]);
    expect(fields(doc)).toEqual(["lines.0.description", "lines.1.unit_code"]);
    expect(fields({ ...doc, lines: [], vatGroups: [], subtotalCents: 0, vatCents: 0, totalCents: 0, dueCents: 0 })).toEqual(["lines"]);
  });

  test("no bank account is no obstacle, whether anything is due or not: the document carries no payment instructions", () => {
    const doc = base();
    expect(fields({ ...doc, payee: null, paidCents: doc.totalCents, dueCents: 0 })).toEqual([]);
    expect(fields({ ...doc, payee: null })).toEqual([]);
    const xml = renderUbl({ ...doc, payee: null });
    expect(xml).not.toContain("PaymentMeans");
    expect(xml).not.toContain("PayeeFinancialAccount");
    expect(xml).toContain("<cac:PaymentTerms>");
  });
});
