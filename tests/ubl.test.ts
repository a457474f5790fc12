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
import type { IssuedDocument } from "../server/documents/model.ts";
import { missingForUbl, renderUbl } from "../server/documents/ubl.ts";
import { ValidationFailed } from "../server/lib/errors.ts";
import { BUYER_BE, BUYER_DE, BUYER_US, makeDocument, pricedDocument, SELLER, twentyLineInvoice } from "./einvoicing/fixtures.ts";
import { describe, loadRules, validateUbl, type UblValidation } from "./einvoicing/validate.ts";

const EXAMPLES = join(import.meta.dir, "einvoicing/examples");
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

const reverseCharge = { buyer: BUYER_DE, buyerReference: "Bestellung 2026/17" };
const FIXTURES: Record<string, () => IssuedDocument> = {
  "standard rate, Belgian buyer": () => makeDocument([{ quantity: 300, price: 12_500 }]),
  "mixed rates 21/12/6 % and zero-rated": () =>
    makeDocument([
      { quantity: 100, price: 10_000, rate: 2100 },
      { quantity: 250, price: 1_999, rate: 1200 },
      { quantity: 1_000, price: 345, rate: 600 },
      { quantity: 100, price: 5_000, category: "Z" },
      { quantity: 33, price: 77, rate: 2100 },
    ]),
  "exempt (E) with a VATEX reason": () => makeDocument([{ quantity: 100, price: 45_000, category: "E" }]),
  "exempt (E) with the generic VATEX-EU-132 (read.ts's default)": () =>
    makeDocument([{ quantity: 100, price: 45_000, category: "E" }], { groupOverrides: { exemptionReasonCode: "VATEX-EU-132", exemptionReason: null } }),
  "old nine-digit Belgian company number": () =>
    makeDocument([{ quantity: 100, price: 1_000 }], { seller: { ...SELLER, companyNumber: "123.456.749", peppolId: "9925:BE0123456749" } }),
  "exempt (E) with a reason text only": () =>
    makeDocument([{ quantity: 100, price: 45_000, category: "E" }], { groupOverrides: { exemptionReasonCode: null, exemptionReason: "Artikel 44 WBTW" } }),
  "reverse charge (AE) to a German business": () =>
    makeDocument([{ quantity: 800, price: 9_500, category: "AE", unit: "HUR" }], reverseCharge),
  "reverse charge with no reason on the rate: the category's VATEX code": () =>
    makeDocument([{ quantity: 800, price: 9_500, category: "AE" }], { ...reverseCharge, groupOverrides: { exemptionReasonCode: null, exemptionReason: null } }),
  "intra-community supply of goods (K)": () => makeDocument([{ quantity: 1_200, price: 2_450, category: "K", unit: "KGM" }], reverseCharge),
  "export outside the EU (G), in US dollars": () =>
    makeDocument([{ quantity: 100, price: 250_000, category: "G" }], { buyer: BUYER_US, currency: "USD", paymentReference: "RF18539007547034" }),
  "standard rate in US dollars": () => makeDocument([{ quantity: 100, price: 99_99, rate: 2100 }], { currency: "USD" }),
  "not subject to VAT (O): no VAT identifiers": () =>
    makeDocument([{ quantity: 100, price: 20_000, category: "O" }, { quantity: 200, price: 150, category: "O" }]),
  "credit note crediting an invoice": () =>
    makeDocument([{ quantity: 100, price: 12_500 }, { quantity: 50, price: 3_000, rate: 600 }], {
      type: "credit_note",
      number: "CN-2026-0001",
      credited: { number: "INV-2026-0001", issueDate: "2026-03-02" },
    }),
  "credit note for reverse charge, refunded": () => {
    const doc = makeDocument([{ quantity: 100, price: 40_000, category: "AE" }], { ...reverseCharge, type: "credit_note", number: "CN-2", credited: { number: "INV-9", issueDate: "2026-01-15" } });
    return { ...doc, paidCents: doc.totalCents, dueCents: 0 };
  },
  "awkward roundings": () =>
    makeDocument([
      { quantity: 33, price: 3, rate: 2100 }, // 0.33 × 0.03 = 0.0099 → 0.01
      { quantity: 333, price: 3_333, rate: 2100 }, // 3.33 × 33.33 = 110.9889
      { quantity: 1, price: 99_999, rate: 550 }, // 0.01 × 999.99, 5.5 %
      { quantity: 17, price: 1, rate: 2100 }, // rounds to 0.00
      ...Array.from({ length: 12 }, () => ({ quantity: 100, price: 2, rate: 2100 })), // 12 × 0.02: per-line VAT 0.00 each
      { quantity: 12_345_678, price: 98_765, rate: 2100 }, // 123 456.78 × 987.65
    ]),
  "long Unicode descriptions with markup characters": () =>
    makeDocument(
      [
        { description: `Design & build <script>alert("x")</script> 'quoted' — Ærøskøbing, Zürich, Łódź, 東京, 🚀\nSecond line with ]]> and &amp; literally\n${"Lorem ipsum dolor sit amet, ".repeat(40)}`, quantity: 100, price: 1_000 },
        { description: `${"Ünïcödé ".repeat(30)}😀😀😀`, quantity: 150, price: 2_000 },
        { description: "Bell\u0007 and form\u000Cfeed are not XML", quantity: 100, price: 500 },
      ],
      {
        seller: { ...SELLER, name: `Kontor "Demo" <BV> & Co's` },
        buyer: { ...BUYER_BE, name: "Ça & Là — Société Générale d'Édition", address: "Rue de l'Église 3 <bis>\nBoîte \"A\"\nÉtage 2\nAile Ouest" },
        notes: "Thank you! <b>not bold</b> & \"more\"",
        paymentTerms: "Net 30 — 2 % Skonto < 10 Tage",
        buyerReference: "Ref <A&B>",
      },
    ),
  "twenty lines": twentyLineInvoice,
  "partially paid": () => makeDocument([{ quantity: 100, price: 100_000 }], { status: "partially_paid", paidCents: 50_000 }),
  "discount line (negative quantity)": () =>
    makeDocument([
      { quantity: 100, price: 50_000 },
      { description: "Loyalty discount", quantity: -100, price: 5_000 },
    ]),
  "discount line (negative price)": () =>
    makeDocument([
      { quantity: 200, price: 50_000 },
      { description: "Goodwill", quantity: 100, price: -2_550 },
    ]),
  "order reference only, no BIC, no payment reference": () =>
    makeDocument([{ quantity: 100, price: 1_000 }], {
      buyerReference: null,
      orderReference: "PO-2026-001",
      paymentReference: null,
      payee: { iban: "BE68539007547034", bic: null, accountName: "Kontor Demo" },
    }),
  "no bank account of the organisation's own: no PaymentMeans at all (issue 26 item 2)": () =>
    makeDocument([{ quantity: 100, price: 1_000 }], { payee: null }),
  // issue 26 item 6: discounts, allowances and charges, VAT-inclusive prices (the UBL carries net amounts)
  "net prices: line discounts (percent, amount), a percentage allowance and a freight charge": () =>
    pricedDocument(
      false,
      [
        { quantity: 1_000, price: 9_550, discountPercentBp: 1_250, reason: "Loyalty", unit: "HUR" },
        { quantity: 300, price: 1_299, rate: 600, discountCents: 500 },
        { quantity: 100, price: 2_000, category: "E" },
      ],
      [
        { percentBp: 500, baseCents: 83_562, reason: "Early customer", code: "95" },
        { charge: true, cents: 1_500, reason: "Freight", code: "FC" },
        { cents: 500, category: "E", code: "100" },
      ],
    ),
  "VAT-inclusive prices: 9.99 × 3, a third off a large quantity, an allowance and a charge at two rates": () =>
    pricedDocument(
      true,
      [
        { quantity: 300, price: 999 },
        { quantity: 1_234_567, price: 7, discountPercentBp: 3_333, reason: "Bulk" },
        { quantity: 700, price: 349, rate: 600, discountCents: 143 },
      ],
      [
        { cents: 200, reason: "Voucher" },
        { charge: true, cents: 495, code: "FC" },
        { charge: true, cents: 100, rate: 600, reason: "Packing" },
      ],
    ),
  "VAT-inclusive credit note with a discount and an allowance": () =>
    pricedDocument(true, [{ quantity: 300, price: 999, discountPercentBp: 1_000, reason: "Weekend" }], [{ cents: 150, reason: "Voucher" }], {
      type: "credit_note",
      number: "CN-2026-0007",
      credited: { number: "INV-2026-0042", issueDate: "2026-03-01" },
    }),
  // issue 30 item 5: a recurring invoice names the service it bills (BG-14), also when caught up after the period
  "a service period (BG-14 InvoicePeriod)": () =>
    makeDocument([{ quantity: 100, price: 1_000 }], { servicePeriod: { start: "2026-07-20", end: "2026-08-19" } }),
  "a credit note of a service period": () =>
    makeDocument([{ quantity: 100, price: 1_000 }], {
      type: "credit_note",
      number: "CN-2026-0008",
      credited: { number: "INV-2026-0042", issueDate: "2026-03-01" },
      servicePeriod: { start: "2026-07-20", end: "2026-08-19" },
    }),
  "Dutch seller with a KVK number": () =>
    makeDocument([{ quantity: 100, price: 1_000 }], {
      seller: { ...SELLER, address: "Damrak 1", city: "Amsterdam", postalCode: "1012 LG", country: "NL", vatNumber: "NL123456789B01", companyNumber: "12345678", peppolId: "0106:12345678" },
    }),
  "VAT number stored without its country prefix; Greek buyer": () =>
    makeDocument([{ quantity: 100, price: 1_000, category: "AE" }], {
      seller: { ...SELLER, vatNumber: "0123 456 749" },
      buyer: { ...BUYER_DE, name: "Ελληνική Εταιρεία ΑΕ", address: "Οδός Αθηνάς 10", city: "Αθήνα", postalCode: "105 51", country: "GR", vatNumber: "123456789", peppolId: "9933:EL123456789" },
    }),
};

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
