import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { addDecimals, exactCents, parseDecimal, percentToBasisPoints, roundHalfUpCents } from "../../server/inbound/decimal.ts";
import { InboundDocumentError } from "../../server/inbound/errors.ts";
import { readSupplierDocument, type SupplierDocument } from "../../server/inbound/ubl-import.ts";
import { ValidationFailed } from "../../server/lib/errors.ts";

const EXAMPLES = join(import.meta.dir, "..", "einvoicing", "examples");
const example = (name: string) => readFileSync(join(EXAMPLES, name), "utf8");

/** Reads the document expecting a refusal; returns the error so a test can check path and message. */
function refusal(xml: string): InboundDocumentError {
  try {
    readSupplierDocument(xml);
  } catch (error) {
    expect(error).toBeInstanceOf(InboundDocumentError);
    return error as InboundDocumentError;
  }
  throw new Error("expected the document to be refused");
}

type Expected = Pick<SupplierDocument, "type" | "number" | "currency" | "subtotalCents" | "vatCents" | "totalCents" | "payableCents"> & {
  vat: [string, number | null, number, number][];
  lines: number;
};

// Figures read from each file's LegalMonetaryTotal and TaxTotal by hand.
const EXPECTED: Record<string, Expected> = {
  "cen/guide-example1.xml": { type: "invoice", number: "12115118", currency: "EUR", subtotalCents: 22960, vatCents: 2073, totalCents: 25033, payableCents: 25033, vat: [["S", 600, 18323, 1099], ["S", 2100, 4637, 974]], lines: 20 },
  "cen/ubl-tc434-example1.xml": { type: "invoice", number: "12115118", currency: "EUR", subtotalCents: 22960, vatCents: 2073, totalCents: 25033, payableCents: 25033, vat: [["S", 600, 18323, 1099], ["S", 2100, 4637, 974]], lines: 20 },
  // allowances 100.00, charges 100.00, prepaid 1000.00; a negative E base of -25.00
  "cen/ubl-tc434-example2.xml": { type: "invoice", number: "TOSL108", currency: "NOK", subtotalCents: 143650, vatCents: 36528, totalCents: 180178, payableCents: 80178, vat: [["S", 2500, 146050, 36513], ["S", 1500, 100, 15], ["E", 0, -2500, 0]], lines: 5 },
  // a second TaxTotal in EUR (628.62) that is not the document currency's
  "cen/ubl-tc434-example5.xml": { type: "invoice", number: "TOSL110", currency: "DKK", subtotalCents: 400000, vatCents: 67500, totalCents: 467500, payableCents: 233750, vat: [["S", 2500, 150000, 37500], ["S", 1200, 250000, 30000]], lines: 3 },
  "cen/ubl-tc434-creditnote1.xml": { type: "credit_note", number: "018304 / 28865", currency: "EUR", subtotalCents: 10011, vatCents: 0, totalCents: 10011, payableCents: 10011, vat: [["E", 0, 10011, 0]], lines: 1 },
  "peppol/base-example.xml": { type: "invoice", number: "Snippet1", currency: "EUR", subtotalCents: 132500, vatCents: 33125, totalCents: 165625, payableCents: 165625, vat: [["S", 2500, 132500, 33125]], lines: 2 },
  "peppol/sales-order-example.xml": { type: "invoice", number: "Snippet1", currency: "EUR", subtotalCents: 132500, vatCents: 33125, totalCents: 165625, payableCents: 165625, vat: [["S", 2500, 132500, 33125]], lines: 2 },
  "peppol/base-creditnote-correction.xml": { type: "credit_note", number: "Snippet1", currency: "EUR", subtotalCents: 132500, vatCents: 33125, totalCents: 165625, payableCents: 165625, vat: [["S", 2500, 132500, 33125]], lines: 2 },
  "peppol/base-negative-inv-correction.xml": { type: "invoice", number: "Correction1", currency: "EUR", subtotalCents: -132500, vatCents: -33125, totalCents: -165625, payableCents: -165625, vat: [["S", 2500, -132500, -33125]], lines: 2 },
  // "5900", "4900.0": amounts without or with one decimal
  "peppol/Allowance-example.xml": { type: "invoice", number: "Snippet1", currency: "EUR", subtotalCents: 590000, vatCents: 122500, totalCents: 712500, payableCents: 612500, vat: [["S", 2500, 490000, 122500], ["E", 0, 100000, 0]], lines: 3 },
  "peppol/Vat-category-S.xml": { type: "invoice", number: "Snippet1", currency: "EUR", subtotalCents: 700000, vatCents: 155000, totalCents: 855000, payableCents: 855000, vat: [["S", 2500, 500000, 125000], ["S", 1500, 200000, 30000]], lines: 3 },
  "peppol/vat-category-E.xml": { type: "invoice", number: "Vat-Z", currency: "GBP", subtotalCents: 120000, vatCents: 0, totalCents: 120000, payableCents: 120000, vat: [["E", 0, 120000, 0]], lines: 1 },
  // category O carries no rate
  "peppol/vat-category-O.xml": { type: "invoice", number: "Vat-O", currency: "SEK", subtotalCents: 320000, vatCents: 0, totalCents: 320000, payableCents: 320000, vat: [["O", null, 320000, 0]], lines: 1 },
  "peppol/vat-category-Z.xml": { type: "invoice", number: "Vat-Z", currency: "GBP", subtotalCents: 120000, vatCents: 0, totalCents: 120000, payableCents: 120000, vat: [["Z", 0, 120000, 0]], lines: 1 },
};

describe("readSupplierDocument: every EN 16931 / Peppol example", () => {
  test("the table covers every example file", () => {
    const files = ["cen", "peppol"].flatMap((dir) => readdirSync(join(EXAMPLES, dir)).map((f) => `${dir}/${f}`));
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [file, want] of Object.entries(EXPECTED)) {
    test(file, () => {
      const doc = readSupplierDocument(example(file));
      expect(doc.type).toBe(want.type);
      expect(doc.number).toBe(want.number);
      expect(doc.currency).toBe(want.currency);
      expect([doc.subtotalCents, doc.vatCents, doc.totalCents, doc.payableCents]).toEqual([want.subtotalCents, want.vatCents, want.totalCents, want.payableCents]);
      expect(doc.vatBreakdown.map((b) => [b.category, b.rateBp, b.baseCents, b.vatCents])).toEqual(want.vat);
      expect(doc.lines).toHaveLength(want.lines);
    });
  }

  test("the parties, dates, account and payment reference of the Peppol base example", () => {
    const doc = readSupplierDocument(example("peppol/base-example.xml"));
    expect(doc.issueDate).toBe("2017-11-13");
    expect(doc.dueDate).toBe("2017-12-01");
    expect(doc.supplier).toEqual({
      name: "SupplierOfficialName Ltd",
      vatNumber: "GB1232434",
      endpoint: { scheme: "0088", id: "9482348239847239874" },
      companyId: "GB983294",
      companyIdScheme: null,
      address: { line1: "Main street 1", line2: "Postbox 123", city: "London", postalCode: "GB 123 EW", country: "GB" },
      iban: "IBAN32423940",
    });
    expect(doc.buyer).toEqual({ name: "Buyer Official Name", vatNumber: "SE4598375937" });
    expect(doc.paymentReference).toBe("Snippet1");
    expect(doc.lines[1]).toMatchObject({ lineExtensionAmount: "-1500", lineExtensionCents: -150000 });
  });

  test("a Belgian credit note: EndpointID with its scheme, registration, no due date", () => {
    const doc = readSupplierDocument(example("cen/ubl-tc434-creditnote1.xml"));
    expect(doc.dueDate).toBeNull();
    expect(doc.supplier.endpoint).toEqual({ scheme: "0201", id: "0000000196" });
    expect(doc.supplier.companyId).toBe("0000000196");
    expect(doc.supplier.iban).toBe("BE91000000143476");
    expect(doc.supplier.vatNumber).toBe("BE0000000196");
  });
});

describe("readSupplierDocument: namespaces and exact amounts", () => {
  test("other prefixes for the same namespaces read the same", () => {
    const original = example("peppol/base-example.xml");
    const renamed = original
      .replace(/(<\/?)cbc:/g, "$1b:")
      .replace(/(<\/?)cac:/g, "$1a:")
      .replace('xmlns:cac="', 'xmlns:a="')
      .replace('xmlns:cbc="', 'xmlns:b="')
      .replace(/<Invoice /, "<inv:Invoice ")
      .replace("</Invoice>", "</inv:Invoice>")
      .replace('xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"', 'xmlns:inv="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"');
    expect(renamed).not.toContain("cbc:");
    expect(readSupplierDocument(renamed)).toEqual(readSupplierDocument(original));
  });

  test("an element of the right name in another namespace is not read", () => {
    const xml = example("peppol/base-example.xml").replace(
      "<cbc:CustomizationID>",
      '<x:CustomizationID xmlns:x="urn:example:other">urn:cen.eu:en16931:2017</x:CustomizationID><cbc:CustomizationID>',
    );
    expect(readSupplierDocument(xml).number).toBe("Snippet1");
    const onlyForeign = example("peppol/base-example.xml").replace(/<cbc:CustomizationID>[^<]*<\/cbc:CustomizationID>/, '<x:CustomizationID xmlns:x="urn:example:other">urn:cen.eu:en16931:2017</x:CustomizationID>');
    expect(refusal(onlyForeign).message).toContain("no CustomizationID");
  });

  test("line amounts with three decimals are summed exactly", () => {
    const xml = example("peppol/base-example.xml").replace(">2800<", ">2800.004<").replace(">-1500<", ">-1500.004<");
    const doc = readSupplierDocument(xml);
    expect(doc.lines.map((l) => [l.lineExtensionAmount, l.lineExtensionCents])).toEqual([
      ["2800.004", 280000],
      ["-1500.004", -150000],
    ]);
    expect(doc.subtotalCents).toBe(132500);
  });

  test("the exact line sum is rounded half up before it is compared", () => {
    // 2800.005 − 1500 = 1300.005 → 1300.01, not the document's 1300.00
    const xml = example("peppol/base-example.xml").replace(">2800<", ">2800.005<");
    const error = refusal(xml);
    expect(error.path).toBe("/Invoice/cac:LegalMonetaryTotal/cbc:LineExtensionAmount");
    expect(error.message).toBe("LegalMonetaryTotal/LineExtensionAmount 1300.00 is not the sum of the 2 InvoiceLine LineExtensionAmounts, 1300.01.");
  });

  test("a document total with a non-zero third decimal is refused; trailing zeros are not", () => {
    const subCent = example("peppol/base-example.xml").replace(">1656.25</cbc:PayableAmount>", ">1656.251</cbc:PayableAmount>");
    expect(refusal(subCent).message).toContain("more than 2 decimals");
    const zeros = example("peppol/base-example.xml").replace(">1656.25</cbc:PayableAmount>", ">1656.2500</cbc:PayableAmount>");
    expect(readSupplierDocument(zeros).payableCents).toBe(165625);
  });

  test("a document amount in another currency is refused", () => {
    const xml = example("peppol/base-example.xml").replace('<cbc:PayableAmount currencyID="EUR">', '<cbc:PayableAmount currencyID="USD">');
    expect(refusal(xml).message).toBe("The amount is in USD, not in the document currency EUR.");
  });
});

describe("readSupplierDocument: refusals", () => {
  test("malformed XML", () => {
    const error = refusal(example("peppol/base-example.xml").replace("</cbc:IssueDate>", ""));
    expect(error.message).toStartWith("The document is not well-formed XML:");
    expect(error).toBeInstanceOf(ValidationFailed);
    expect(error.status).toBe(422);
  });

  test("not XML at all", () => {
    expect(refusal("%PDF-1.7 …").message).toStartWith("The document is not well-formed XML:");
  });

  test("a DOCTYPE (entity expansion) is refused before anything is expanded", () => {
    const bomb = `<?xml version="1.0"?>
<!DOCTYPE Invoice [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2">&c;</Invoice>`;
    expect(refusal(bomb).message).toBe("The document has a DOCTYPE; DTDs and entity declarations are not accepted.");
  });

  test("a UBL Order", () => {
    const order = `<?xml version="1.0" encoding="UTF-8"?>
<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>urn:fdc:peppol.eu:poacc:trns:order:3</cbc:CustomizationID>
  <cbc:ID>PO-1</cbc:ID>
</Order>`;
    const error = refusal(order);
    expect(error.path).toBe("/Order");
    expect(error.message).toBe("The root element is {urn:oasis:names:specification:ubl:schema:xsd:Order-2}Order, not a UBL 2.1 Invoice or CreditNote. Kontor imports those and UN/CEFACT CII CrossIndustryInvoice (EN 16931, XRechnung, Factur-X / ZUGFeRD 2.x).");
  });

  test("an Invoice element in no namespace", () => {
    expect(refusal("<Invoice><ID>1</ID></Invoice>").message).toBe("The root element is Invoice (in no namespace), not a UBL 2.1 Invoice or CreditNote. Kontor imports those and UN/CEFACT CII CrossIndustryInvoice (EN 16931, XRechnung, Factur-X / ZUGFeRD 2.x).");
  });

  test("a CustomizationID that is not EN 16931", () => {
    const xml = example("peppol/base-example.xml").replace(/<cbc:CustomizationID>[^<]*</, "<cbc:CustomizationID>urn:www.cenbii.eu:transaction:biitrns010:ver2.0<");
    const error = refusal(xml);
    expect(error.path).toBe("/Invoice/cbc:CustomizationID");
    expect(error.message).toBe("The CustomizationID 'urn:www.cenbii.eu:transaction:biitrns010:ver2.0' is not EN 16931 (it must start with 'urn:cen.eu:en16931:2017').");
  });

  test("a TaxExclusiveAmount that does not reconcile says why", () => {
    const xml = example("peppol/base-example.xml").replace(">1325</cbc:TaxExclusiveAmount>", ">1300</cbc:TaxExclusiveAmount>");
    const error = refusal(xml);
    expect(error.path).toBe("/Invoice/cac:LegalMonetaryTotal/cbc:TaxExclusiveAmount");
    expect(error.message).toBe("LegalMonetaryTotal/TaxExclusiveAmount 1300.00 is not LineExtensionAmount 1300.00 − allowances 0.00 + charges 25.00.");
    expect(error.errors).toEqual({ "/Invoice/cac:LegalMonetaryTotal/cbc:TaxExclusiveAmount": [error.message] });
  });

  test("a TaxInclusiveAmount that does not reconcile", () => {
    const xml = example("peppol/base-example.xml").replace(/>1656\.25<\/cbc:TaxInclusiveAmount>/, ">1656.26</cbc:TaxInclusiveAmount>");
    expect(refusal(xml).message).toBe("LegalMonetaryTotal/TaxInclusiveAmount 1656.26 is not TaxExclusiveAmount 1325.00 + TaxTotal/TaxAmount 331.25.");
  });

  test("a PayableAmount that forgets the prepaid amount", () => {
    const xml = example("cen/ubl-tc434-example2.xml").replace(">801.78</cbc:PayableAmount>", ">1801.78</cbc:PayableAmount>");
    expect(refusal(xml).message).toBe("LegalMonetaryTotal/PayableAmount 1801.78 is not TaxInclusiveAmount 1801.78 − PrepaidAmount 1000.00 + PayableRoundingAmount 0.00.");
  });

  test("VAT subtotals that do not add up to the TaxTotal", () => {
    const xml = example("cen/ubl-tc434-example2.xml").replace('<cbc:TaxAmount currencyID="NOK">0.15</cbc:TaxAmount>', '<cbc:TaxAmount currencyID="NOK">0.16</cbc:TaxAmount>');
    const error = refusal(xml);
    expect(error.path).toBe("/Invoice/cac:TaxTotal/cbc:TaxAmount");
    expect(error.message).toBe("TaxTotal/TaxAmount 365.28 is not the sum of the TaxSubtotal TaxAmounts, 365.29.");
  });

  test("an impossible issue date", () => {
    const xml = example("peppol/base-example.xml").replace(">2017-11-13<", ">2017-02-30<");
    expect(refusal(xml).message).toBe("'2017-02-30' is not a date (YYYY-MM-DD) between 1900 and 2999.");
  });

  test("an issue date the ledger could not post (the year 0001): the same rule as every date of the API", () => {
    const xml = example("peppol/base-example.xml").replace(">2017-11-13<", ">0001-11-13<");
    expect(refusal(xml).message).toBe("'0001-11-13' is not a date (YYYY-MM-DD) between 1900 and 2999.");
  });
});

describe("exact decimals", () => {
  const d = (text: string) => parseDecimal(text)!;
  test("xs:decimal forms", () => {
    expect(parseDecimal("+.5")).toEqual({ units: 5n, scale: 1 });
    expect(parseDecimal("-0012.340")).toEqual({ units: -12340n, scale: 3 });
    for (const bad of ["", ".", "1e3", "1,5", "0x10", "1.2.3", " - 1"]) expect(parseDecimal(bad)).toBeNull();
  });
  test("cents only when nothing below the cent is lost", () => {
    expect(exactCents(d("12.5"))).toBe(1250);
    expect(exactCents(d("12.500"))).toBe(1250);
    expect(exactCents(d("12.501"))).toBeNull();
    expect(exactCents(d("1000000000000000"))).toBeNull(); // above MAX_CENTS
  });
  test("half up is towards +infinity, as XPath round()", () => {
    expect(roundHalfUpCents(d("10.005"))).toBe(1001);
    expect(roundHalfUpCents(d("10.0049999"))).toBe(1000);
    expect(roundHalfUpCents(d("-10.005"))).toBe(-1000);
    expect(roundHalfUpCents(d("-10.0051"))).toBe(-1001);
  });
  test("sums are exact where binary floats are not", () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(exactCents(addDecimals([d("0.1"), d("0.2")]))).toBe(30);
    expect(addDecimals([d("2800.004"), d("-1500.004")])).toEqual({ units: 1300000n, scale: 3 });
  });
  test("VAT rates in basis points", () => {
    expect([percentToBasisPoints("21"), percentToBasisPoints("21.00"), percentToBasisPoints("5.5"), percentToBasisPoints("5.125")]).toEqual([2100, 2100, 550, null]);
  });
});
