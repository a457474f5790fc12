/**
 * IssuedDocuments built by hand for the renderer tests (pdf, Factur-X): amounts add up the way
 * Kontor computes them, so the renderers are tested without a database.
 */
import type { DocumentLine, DocumentParty, DocumentVatGroup, IssuedDocument, VatCategory } from "../server/documents/model.ts";
import { lineAmountCents, vatCents } from "../server/lib/money.ts";

export const party = (p: Partial<DocumentParty> & { name: string }): DocumentParty => ({
  address: null,
  city: null,
  postalCode: null,
  country: null,
  vatNumber: null,
  companyNumber: null,
  email: null,
  phone: null,
  peppolId: null,
  ...p,
});

export type LineIn = { description: string; quantity: number; unitPrice: number; rate?: number; category?: VatCategory; unit?: string };

const REASONS: Partial<Record<VatCategory, [string, string]>> = {
  AE: ["VATEX-EU-AE", "Reverse charge"],
  K: ["VATEX-EU-IC", "Intra-Community supply"],
  G: ["VATEX-EU-G", "Export outside the EU"],
};

/** An issued document whose amounts add up the way Kontor computes them (per line, half-up). */
export function issued(over: Omit<Partial<IssuedDocument>, "lines"> & { lines: LineIn[] }): IssuedDocument {
  const lines: DocumentLine[] = over.lines.map((l, i) => {
    const amountCents = lineAmountCents(Math.round(l.quantity * 100), Math.round(l.unitPrice * 100));
    const rate = Math.round((l.rate ?? 21) * 100);
    return {
      position: i + 1,
      description: l.description,
      quantityCents: Math.round(l.quantity * 100),
      unitCode: l.unit ?? "C62",
      unitPriceCents: Math.round(l.unitPrice * 100),
      amountCents,
      vatCategory: l.category ?? "S",
      vatRateBp: rate,
      vatCents: vatCents(amountCents, rate),
    };
  });
  const groups = new Map<string, DocumentVatGroup>();
  for (const l of lines) {
    const key = `${l.vatCategory}:${l.vatRateBp}`;
    const reason = REASONS[l.vatCategory];
    const g = groups.get(key) ?? { category: l.vatCategory, rateBp: l.vatRateBp, taxableCents: 0, vatCents: 0, exemptionReasonCode: reason?.[0] ?? null, exemptionReason: reason?.[1] ?? null };
    g.taxableCents += l.amountCents;
    g.vatCents += l.vatCents;
    groups.set(key, g);
  }
  const subtotalCents = lines.reduce((s, l) => s + l.amountCents, 0);
  const vat = lines.reduce((s, l) => s + l.vatCents, 0);
  const paidCents = over.paidCents ?? 0;
  const base: IssuedDocument = {
    type: "invoice",
    id: "inv_01J0000000000000000000000",
    number: "2026-0042",
    status: "finalized",
    issueDate: "2026-03-02",
    dueDate: "2026-04-01",
    currency: "EUR",
    language: "en",
    buyerReference: null,
    orderReference: null,
    paymentReference: null,
    credited: null,
    notes: null,
    paymentTerms: null,
    seller: party({
      name: "Atelier Zoë & Søren BV",
      address: "Wetstraat 16",
      postalCode: "1000",
      city: "Brussel",
      country: "BE",
      vatNumber: "BE0123456749",
      companyNumber: "0123.456.749",
      email: "facturen@atelier.example",
      phone: "+32 2 123 45 67",
      peppolId: "0208:0123456749",
    }),
    buyer: party({ name: "Buyer NV", address: "Meir 1", postalCode: "2000", city: "Antwerpen", country: "BE", vatNumber: "BE0999999922" }),
    payee: { iban: "BE68539007547034", bic: "GKCCBEBB", accountName: "Atelier Zoë & Søren BV" },
    subtotalCents,
    vatCents: vat,
    totalCents: subtotalCents + vat,
    paidCents,
    dueCents: subtotalCents + vat - paidCents,
    vatGroups: [...groups.values()],
    ...over,
    lines,
  };
  return base;
}
