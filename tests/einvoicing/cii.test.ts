/**
 * UN/CEFACT CII D16B (issue 31 items 1 and 3): every document the UBL tests render (the same
 * scenarios, tests/einvoicing/fixtures.ts) also renders as a CII that passes the CII D16B XSD, the
 * CEN EN 16931 CII rules and the Factur-X EN 16931 profile's XSD and schematron; with
 * profile xrechnung, the UBL and the CII pass the KoSIT XRechnung 3.0 rules. What the rules need
 * and a document lacks is named before anything is written.
 *
 * The official files are in tests/einvoicing/ (ATTRIBUTION.md); the compiled rules are cached.
 */
import { beforeAll, describe as group, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { missingForCii, renderCii } from "../../server/documents/cii.ts";
import { missingForUbl, renderUbl } from "../../server/documents/ubl.ts";
import type { IssuedDocument } from "../../server/documents/model.ts";
import { ValidationFailed } from "../../server/lib/errors.ts";
import { BUYER_DE, makeDocument, pricedDocument, SCENARIOS, SELLER } from "./fixtures.ts";
import { describe, loadRules, validateCii, validateUbl, type UblValidation } from "./validate.ts";

const SLOW = 120_000;
const EXAMPLES = join(import.meta.dir, "examples/cen-cii");

beforeAll(async () => {
  await loadRules(["CEN-EN16931-CII", "FACTURX-EN16931", "XRECHNUNG-CII", "XRECHNUNG-UBL", "CEN-EN16931-UBL"]);
}, 900_000);

function expectValid(v: UblValidation): void {
  // the message lists every broken rule, so a failure says what to fix
  expect(describe(v)).toBe("");
}

group("the CII validation harness", () => {
  test("official CEN CII examples pass the XSD and the CEN rules; a broken copy fails each layer", async () => {
    for (const file of ["CII_example1.xml", "CII_business_example_Z.xml"]) {
      const v = await validateCii(readFileSync(join(EXAMPLES, file), "utf8"));
      expect(v.xsdErrors.filter((e) => !e.startsWith("Factur-X"))).toEqual([]);
      expect(v.fatal.filter((a) => a.rules === "CEN-EN16931-CII").map((a) => `${a.id}: ${a.text}`)).toEqual([]);
    }
    const good = renderCii(makeDocument([{ quantity: 100, price: 1_000 }]));
    const wrongTotal = good.replace("<ram:GrandTotalAmount>12.10</ram:GrandTotalAmount>", "<ram:GrandTotalAmount>12.11</ram:GrandTotalAmount>");
    expect(wrongTotal).not.toBe(good);
    expect((await validateCii(wrongTotal)).fatal.map((a) => a.id)).toContain("BR-CO-15");
    const badSchema = good.replace("<ram:TypeCode>380</ram:TypeCode>", "<ram:TypeCode>380</ram:TypeCode><ram:Colour>red</ram:Colour>");
    expect((await validateCii(badSchema)).xsdErrors.join("\n")).toContain("Colour");
    // XRechnung's rules see what EN 16931 allows and XRechnung does not: no buyer reference
    const xr = renderCii(xrechnungDocument(), "xrechnung").replace(/<ram:BuyerReference>[^<]*<\/ram:BuyerReference>/, "");
    expect((await validateCii(xr, "xrechnung")).fatal.map((a) => a.id)).toContain("BR-DE-15");
  }, SLOW);
});

/**
 * The scenarios that also run the Factur-X EN 16931 profile's XSD and schematron (slow, ~1 s a
 * document): one of each VAT category, credit notes, allowances and charges, gross prices, dollars.
 */
const FACTURX_TOO = new Set([
  "mixed rates 21/12/6 % and zero-rated",
  "exempt (E) with a VATEX reason",
  "reverse charge (AE) to a German business",
  "intra-community supply of goods (K)",
  "export outside the EU (G), in US dollars",
  "not subject to VAT (O): no VAT identifiers",
  "credit note crediting an invoice",
  "partially paid",
  "net prices: line discounts (percent, amount), a percentage allowance and a freight charge",
  "VAT-inclusive prices: 9.99 × 3, a third off a large quantity, an allowance and a charge at two rates",
]);

group("Kontor's CII passes the CII D16B XSD and EN 16931 (and, for one of each kind, the Factur-X EN 16931 profile)", () => {
  test("the Factur-X scenarios exist", () => {
    for (const name of FACTURX_TOO) expect(Object.keys(SCENARIOS)).toContain(name);
  });
  for (const [name, make] of Object.entries(SCENARIOS)) {
    test(name, async () => {
      const doc = make();
      expect(missingForCii(doc)).toEqual({});
      expectValid(await validateCii(renderCii(doc), "en16931", { facturx: FACTURX_TOO.has(name) }));
    }, SLOW);
  }
});

/** A German public buyer's invoice: the Leitweg-ID as buyer reference, the seller's contact complete. */
function xrechnungDocument(over: Partial<IssuedDocument> = {}): IssuedDocument {
  return makeDocument([{ quantity: 300, price: 12_500 }, { quantity: 100, price: 4_000, rate: 600 }], {
    seller: { ...SELLER, contactName: "Anna Peeters" },
    buyer: { ...BUYER_DE, name: "Landeshauptstadt München", vatNumber: null, peppolId: null, email: "rechnung@muenchen.example" },
    buyerReference: "991-01234-56",
    ...over,
  });
}

group("XRechnung 3.0: the UBL and the CII pass the KoSIT rules", () => {
  const cases: Record<string, () => IssuedDocument> = {
    "an invoice to a German public buyer (electronic address by e-mail)": () => xrechnungDocument(),
    "a credit note": () => xrechnungDocument({ type: "credit_note", number: "CN-2026-0003", credited: { number: "INV-2026-0001", issueDate: "2026-03-02" } }),
    "reverse charge to a German business with discounts, allowances and gross prices": () => ({
      ...pricedDocument(true, [{ quantity: 300, price: 999, category: "AE", discountPercentBp: 1_000, reason: "Bulk" }], [{ cents: 150, category: "AE", reason: "Voucher" }], {
        seller: { ...SELLER, contactName: "Anna Peeters" },
        buyer: BUYER_DE,
        buyerReference: "04011000-12345-34",
      }),
    }),
  };
  for (const [name, make] of Object.entries(cases)) {
    test(name, async () => {
      const doc = make();
      expect(missingForUbl(doc, "xrechnung")).toEqual({});
      expect(missingForCii(doc, "xrechnung")).toEqual({});
      const ubl = renderUbl(doc, "xrechnung");
      expect(ubl).toContain("<cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0</cbc:CustomizationID>");
      expectValid(await validateUbl(ubl, "xrechnung"));
      const cii = renderCii(doc, "xrechnung");
      expect(cii).toContain("<ram:ID>urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0</ram:ID>");
      expectValid(await validateCii(cii, "xrechnung"));
    }, SLOW);
  }

  test("what XRechnung needs is named, each field once, in both syntaxes", () => {
    const doc = makeDocument([{ quantity: 100, price: 1_000 }], {
      seller: { ...SELLER, phone: null, contactName: null },
      buyer: { ...BUYER_DE, postalCode: null, peppolId: null, email: null },
      buyerReference: null,
      payee: null,
    });
    const expected = ["buyer_reference", "customer.peppol_id", "customer.postal_code", "organization.bank_account", "organization.contact_name", "organization.phone"];
    expect(Object.keys(missingForCii(doc, "xrechnung")).sort()).toEqual(expected);
    expect(Object.keys(missingForUbl(doc, "xrechnung")).sort()).toEqual(expected);
    expect(() => renderCii(doc, "xrechnung")).toThrow(ValidationFailed);
    // plain EN 16931 CII needs none of these: no Peppol id, no buyer reference, no bank account
    expect(missingForCii(doc)).toEqual({});
  });
});

group("renderCii", () => {
  test("is deterministic and writes the document's figures, parties and payment where EN 16931 puts them in CII", () => {
    const doc = makeDocument([{ quantity: 300, price: 12_500 }, { quantity: 50, price: 3_000, rate: 600 }], { orderReference: "PO-9" });
    const xml = renderCii(doc);
    expect(renderCii(doc)).toBe(xml);
    // 3 × 125.00 = 375.00 at 21 % (78.75) and 0.5 × 30.00 = 15.00 at 6 % (0.90), worked out by hand
    for (const fragment of [
      "<ram:ID>INV-2026-0001</ram:ID>",
      "<ram:TypeCode>380</ram:TypeCode>",
      '<udt:DateTimeString format="102">20260302</udt:DateTimeString>',
      "<ram:BuyerReference>PO-4711</ram:BuyerReference>",
      "<ram:IssuerAssignedID>PO-9</ram:IssuerAssignedID>",
      '<ram:ID schemeID="VA">BE0123456749</ram:ID>',
      '<ram:URIID schemeID="0208">0403170701</ram:URIID>',
      "<ram:PaymentReference>+++090/9337/55493+++</ram:PaymentReference>",
      "<ram:IBANID>BE68539007547034</ram:IBANID>",
      "<ram:BICID>GKCCBEBB</ram:BICID>",
      "<ram:LineTotalAmount>390.00</ram:LineTotalAmount>",
      "<ram:TaxBasisTotalAmount>390.00</ram:TaxBasisTotalAmount>",
      '<ram:TaxTotalAmount currencyID="EUR">79.65</ram:TaxTotalAmount>',
      "<ram:GrandTotalAmount>469.65</ram:GrandTotalAmount>",
      "<ram:DuePayableAmount>469.65</ram:DuePayableAmount>",
      '<udt:DateTimeString format="102">20260401</udt:DateTimeString>',
    ]) {
      expect(xml).toContain(fragment);
    }
  });

  test("a credit note is type 381 referencing the invoice it credits", () => {
    const xml = renderCii(SCENARIOS["credit note crediting an invoice"]!());
    expect(xml).toContain("<ram:TypeCode>381</ram:TypeCode>");
    expect(xml).toMatch(/<ram:InvoiceReferencedDocument>\s*<ram:IssuerAssignedID>INV-2026-0001<\/ram:IssuerAssignedID>\s*<ram:FormattedIssueDateTime>\s*<qdt:DateTimeString format="102">20260302<\/qdt:DateTimeString>/);
  });

  test("escapes every value", () => {
    const xml = renderCii(SCENARIOS["long Unicode descriptions with markup characters"]!());
    expect(xml).not.toContain("<script>");
    expect(xml).toContain("&lt;script&gt;");
    expect(xml).not.toContain("\u0007");
  });

  test("refuses what it cannot fill with a 422 naming the fields, the same EN 16931 fields as the UBL", () => {
    const doc = makeDocument([{ quantity: 100, price: 1_000, category: "AE" }], { buyer: { ...BUYER_DE, vatNumber: null, companyNumber: null } });
    expect(Object.keys(missingForCii(doc))).toEqual(["customer.vat_number"]);
    expect(missingForUbl(doc)["customer.vat_number"]).toEqual(missingForCii(doc)["customer.vat_number"]!);
    expect(() => renderCii(doc)).toThrow(ValidationFailed);
  });
});
