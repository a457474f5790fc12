/**
 * `IssuedDocument`s built by hand for the UBL tests and bench: totals computed the way Kontor
 * computes them (line amount and line VAT rounded half-up, summed per category and rate).
 */
import type { DocumentAllowanceCharge, DocumentLine, DocumentParty, DocumentVatGroup, IssuedDocument, VatCategory } from "../../server/documents/model.ts";
import { documentVatGroups } from "../../server/documents/vat-breakdown.ts";
import { priceInvoice } from "../../server/invoices/totals.ts";
import { lineAmountCents, vatCents } from "../../server/lib/money.ts";

export const SELLER: DocumentParty = {
  name: "Kontor Demo BV",
  address: "Kunstlaan 56\nbus 3",
  city: "Brussel",
  postalCode: "1000",
  country: "BE",
  vatNumber: "BE0123.456.749",
  companyNumber: "0123.456.749",
  email: "billing@kontor.example",
  phone: "+32 2 123 45 67",
  peppolId: "0208:0123456749",
};

export const BUYER_BE: DocumentParty = {
  name: "Brasserie De Gouden Leeuw BV",
  address: "Grote Markt 1",
  city: "Gent",
  postalCode: "9000",
  country: "BE",
  vatNumber: "BE0403170701",
  companyNumber: null,
  email: "boekhouding@leeuw.example",
  phone: null,
  peppolId: "0208:0403170701",
};

export const BUYER_DE: DocumentParty = {
  name: "Müller & Söhne GmbH",
  address: "Hauptstraße 5",
  city: "München",
  postalCode: "80331",
  country: "DE",
  vatNumber: "DE123456789",
  companyNumber: null,
  email: "rechnung@mueller.example",
  phone: null,
  peppolId: "9930:DE123456789",
};

export const BUYER_US: DocumentParty = {
  name: "Acme Corp.",
  address: "1 Market Street\nSuite 300\nFloor 3",
  city: "San Francisco",
  postalCode: "94105",
  country: "US",
  vatNumber: null,
  companyNumber: null,
  email: "ap@acme.example",
  phone: null,
  peppolId: "0060:123456789",
};

export type LineSpec = {
  description?: string;
  quantity: number; // hundredths
  price: number; // cents
  category?: VatCategory;
  rate?: number; // basis points
  unit?: string;
};

const EXEMPTION: Partial<Record<VatCategory, [string, string]>> = {
  E: ["VATEX-EU-132-1I", "Exempt: cultural services (art. 132(1)(n) VAT directive)"],
  AE: ["VATEX-EU-AE", "Reverse charge"],
  K: ["VATEX-EU-IC", "Intra-community supply"],
  G: ["VATEX-EU-G", "Export outside the EU"],
  O: ["VATEX-EU-O", "Not subject to VAT"],
};

export function makeDocument(
  specs: LineSpec[],
  overrides: Partial<IssuedDocument> & { groupOverrides?: Partial<DocumentVatGroup> } = {},
): IssuedDocument {
  const { groupOverrides, ...rest } = overrides;
  const lines: DocumentLine[] = specs.map((s, i) => {
    const amountCents = lineAmountCents(s.quantity, s.price);
    const rate = s.rate ?? (s.category && s.category !== "S" ? 0 : 2100);
    return {
      position: i + 1,
      description: s.description ?? `Consulting, part ${i + 1}`,
      quantityCents: s.quantity,
      unitCode: s.unit ?? "C62",
      unitPriceCents: s.price,
      amountCents,
      vatCategory: s.category ?? "S",
      vatRateBp: rate,
      vatCents: vatCents(amountCents, rate),
    };
  });
  const groups = new Map<string, DocumentVatGroup>();
  for (const l of lines) {
    const key = `${l.vatCategory}:${l.vatRateBp}`;
    const g =
      groups.get(key) ??
      groups
        .set(key, {
          category: l.vatCategory,
          rateBp: l.vatRateBp,
          taxableCents: 0,
          vatCents: 0,
          exemptionReasonCode: EXEMPTION[l.vatCategory]?.[0] ?? null,
          exemptionReason: EXEMPTION[l.vatCategory]?.[1] ?? null,
          ...groupOverrides,
        })
        .get(key)!;
    g.taxableCents += l.amountCents;
    g.vatCents += l.vatCents;
  }
  const subtotalCents = lines.reduce((a, l) => a + l.amountCents, 0);
  const vat = lines.reduce((a, l) => a + l.vatCents, 0);
  const paidCents = rest.paidCents ?? 0;
  return {
    type: "invoice",
    id: "inv_01",
    number: "INV-2026-0001",
    status: "finalized",
    issueDate: "2026-03-02",
    dueDate: "2026-04-01",
    currency: "EUR",
    language: "nl",
    buyerReference: "PO-4711",
    orderReference: null,
    paymentReference: "+++090/9337/55493+++",
    credited: null,
    notes: null,
    paymentTerms: "30 days net",
    seller: SELLER,
    buyer: BUYER_BE,
    payee: { iban: "BE68 5390 0754 7034", bic: "GKCCBEBB", accountName: "Kontor Demo BV" },
    lines,
    vatGroups: [...groups.values()],
    subtotalCents,
    vatCents: vat,
    totalCents: subtotalCents + vat,
    ...rest,
    paidCents,
    dueCents: subtotalCents + vat - paidCents,
  };
}

/** A 20-line invoice with mixed rates and long descriptions: the bench's and the tests' heaviest. */
export function twentyLineInvoice(): IssuedDocument {
  const rates = [2100, 1200, 600, 0];
  return makeDocument(
    Array.from({ length: 20 }, (_, i) => ({
      description: `Line ${i + 1}: Beratung & Umsetzung <Phase ${i % 4}> — "Ærøskøbing" 'café' ✓ ${"x".repeat(i * 7)}`,
      quantity: 100 + i * 37,
      price: 1999 + i * 1013,
      category: (rates[i % 4] === 0 ? "Z" : "S") as VatCategory,
      rate: rates[i % 4],
      unit: i % 3 === 0 ? "HUR" : "C62",
    })),
  );
}

export type PricedLineSpec = LineSpec & { discountPercentBp?: number; discountCents?: number; reason?: string };
export type AllowanceChargeSpec = { charge?: boolean; cents?: number; percentBp?: number; baseCents?: number; rate?: number; category?: VatCategory; reason?: string; code?: string };

/**
 * A document with line discounts and document allowances and charges, net or VAT-inclusive
 * (issue 26 item 6), priced by Kontor's arithmetic (server/invoices/totals.ts) and grouped by its
 * VAT breakdown, as server/invoices/document.ts reads an invoice into one.
 */
export function pricedDocument(pricesIncludeVat: boolean, specs: PricedLineSpec[], acs: AllowanceChargeSpec[], overrides: Partial<IssuedDocument> = {}): IssuedDocument {
  const rateOf = (s: { rate?: number; category?: VatCategory }) => s.rate ?? (s.category && s.category !== "S" ? 0 : 2100);
  const priced = priceInvoice(
    pricesIncludeVat,
    specs.map((s) => ({ quantityCents: s.quantity, unitPriceCents: s.price, vatRateBp: rateOf(s), discountPercentBp: s.discountPercentBp ?? null, discountAmountCents: s.discountCents ?? 0 })),
    acs.map((a) => ({
      ...a,
      isCharge: !!a.charge,
      vatRateBp: rateOf(a),
      amountCents: a.cents ?? Math.round(((a.baseCents ?? 0) * (a.percentBp ?? 0)) / 10_000),
    })),
  );
  const lines: DocumentLine[] = priced.lines.map((l, i) => ({
    position: i + 1,
    description: specs[i]!.description ?? `Item ${i + 1}`,
    quantityCents: l.quantityCents,
    unitCode: specs[i]!.unit ?? "C62",
    unitPriceCents: l.unitPriceCents,
    amountCents: l.amountCents,
    vatCategory: specs[i]!.category ?? "S",
    vatRateBp: l.vatRateBp,
    vatCents: l.vatCents,
    discount: l.discountCents > 0 ? { cents: l.discountCents, percentBp: l.discountPercentBp ?? null, reason: specs[i]!.reason ?? null } : null,
  }));
  const allowanceCharges: DocumentAllowanceCharge[] = priced.allowanceCharges.map((a) => ({
    isCharge: a.isCharge,
    amountCents: a.amountCents,
    netCents: a.netCents,
    vatCents: a.vatCents,
    percentBp: a.percentBp ?? null,
    baseCents: a.percentBp ? (a.baseCents ?? null) : null,
    reason: a.reason ?? null,
    reasonCode: a.code ?? null,
    vatCategory: a.category ?? "S",
    vatRateBp: a.vatRateBp,
  }));
  const items = [
    ...lines.map((l) => ({ ...l, exemptionReasonCode: EXEMPTION[l.vatCategory]?.[0] ?? null })),
    ...allowanceCharges.map((a) => ({
      vatCategory: a.vatCategory,
      vatRateBp: a.vatRateBp,
      amountCents: a.isCharge ? a.netCents : -a.netCents,
      vatCents: a.isCharge ? a.vatCents : -a.vatCents,
      exemptionReasonCode: EXEMPTION[a.vatCategory]?.[0] ?? null,
    })),
  ];
  const t = priced.totals;
  return {
    ...makeDocument([{ quantity: 100, price: 100 }], overrides),
    lines,
    pricesIncludeVat,
    allowanceCharges,
    lineTotalCents: t.lineTotalCents,
    allowanceCents: t.allowanceCents,
    chargeCents: t.chargeCents,
    vatGroups: documentVatGroups(items),
    subtotalCents: t.subtotalCents,
    vatCents: t.vatCents,
    totalCents: t.totalCents,
    paidCents: 0,
    dueCents: t.totalCents,
  };
}

const reverseCharge = { buyer: BUYER_DE, buyerReference: "Bestellung 2026/17" };
/**
 * The documents the e-invoice tests render and validate, by what each exercises: every VAT category,
 * mixed rates, credit notes, discounts, allowances and charges, gross prices, other currencies. The
 * UBL (tests/documents/ubl.test.ts) and the CII (tests/einvoicing/cii.test.ts) run the same ones.
 */
export const SCENARIOS: Record<string, () => IssuedDocument> = {
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
  "Dutch seller with a KVK number": () =>
    makeDocument([{ quantity: 100, price: 1_000 }], {
      seller: { ...SELLER, address: "Damrak 1", city: "Amsterdam", postalCode: "1012 LG", country: "NL", vatNumber: "NL123456789B01", companyNumber: "12345678", peppolId: "0106:12345678" },
    }),
  "VAT number stored without its country prefix; Greek buyer": () =>
    makeDocument([{ quantity: 100, price: 1_000, category: "AE" }], {
      seller: { ...SELLER, vatNumber: "0123 456 749" },
      buyer: { ...BUYER_DE, name: "Ελληνική Εταιρεία ΑΕ", address: "Οδός Αθηνάς 10", city: "Αθήνα", postalCode: "105 51", country: "GR", vatNumber: "123456789", peppolId: "9933:EL123456789" },
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
};
