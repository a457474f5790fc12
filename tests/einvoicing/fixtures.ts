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
