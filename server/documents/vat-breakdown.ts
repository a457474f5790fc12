/**
 * The VAT breakdown of a document (EN 16931 BG-23), computed here and nowhere else: the issued
 * document's `vatGroups` (the UBL's TaxSubtotals, the PDF's VAT table; server/invoices/document.ts)
 * and the ledger's invoice posting (one sales and VAT payable pair per group;
 * server/ledger/rules.ts) both take it from `vatBreakdown`.
 *
 * One group per VAT category and rate. Its taxable amount is the sum of its lines' amounts; its
 * VAT is the sum of its lines' VAT, each already rounded half-up per line (contract section 3,
 * server/invoices/totals.ts), not the group's base × rate rounded once. So the groups add up to
 * the invoice's stored `vat_cents` exactly (BR-CO-14; the posting balances against the stored
 * total), and a group's VAT stays within the one unit of currency BR-CO-17 allows of base × rate.
 * Pure: no database, no clock.
 */
import { VAT_CATEGORIES, VATEX_REASONS, type DocumentLine, type DocumentVatGroup, type VatCategory } from "./model.ts";

/** What the breakdown reads of a line: its amount and VAT in cents, its category and rate. */
export type VatBreakdownLine = Pick<DocumentLine, "amountCents" | "vatCategory" | "vatRateBp" | "vatCents">;

/** One group of the breakdown: a category and rate, its taxable amount and its VAT, in cents. */
export type VatBreakdownGroup = Pick<DocumentVatGroup, "category" | "rateBp" | "taxableCents" | "vatCents">;

const categoryOrder = (c: VatCategory) => VAT_CATEGORIES.indexOf(c);

/** The groups of `lines`, in the order of VAT_CATEGORIES, higher rates first; none for no lines. */
export function vatBreakdown(lines: readonly VatBreakdownLine[]): VatBreakdownGroup[] {
  const groups = new Map<string, VatBreakdownGroup>();
  for (const line of lines) {
    const key = `${line.vatCategory}\u0000${line.vatRateBp}`;
    let group = groups.get(key);
    if (!group) {
      group = { category: line.vatCategory, rateBp: line.vatRateBp, taxableCents: 0, vatCents: 0 };
      groups.set(key, group);
    }
    group.taxableCents += line.amountCents;
    group.vatCents += line.vatCents;
  }
  return [...groups.values()].sort((a, b) => categoryOrder(a.category) - categoryOrder(b.category) || b.rateBp - a.rateBp);
}

/**
 * The VATEX code a category needs when its rate has none of its own (seeded rates all have
 * one; see server/vat-rates/seed.ts). S and Z take no exemption reason (EN 16931 BR-S-10, BR-Z-10).
 */
const DEFAULT_EXEMPTION: Partial<Record<VatCategory, string>> = {
  AE: "VATEX-EU-AE",
  K: "VATEX-EU-IC",
  G: "VATEX-EU-G",
  E: "VATEX-EU-132",
  O: "VATEX-EU-O",
};

/**
 * A document's VAT breakdown with each group's exemption reason: the code of the first of its
 * lines whose VAT rate names one (`exemptionReasonCode`), else the category's default, and the
 * reason in words.
 */
export function documentVatGroups(lines: readonly (VatBreakdownLine & { exemptionReasonCode?: string | null })[]): DocumentVatGroup[] {
  return vatBreakdown(lines).map((group) => {
    const named = lines.find((l) => l.vatCategory === group.category && l.vatRateBp === group.rateBp && l.exemptionReasonCode)?.exemptionReasonCode;
    const code = named ?? DEFAULT_EXEMPTION[group.category] ?? null;
    return { ...group, exemptionReasonCode: code, exemptionReason: code ? (VATEX_REASONS[code] ?? null) : null };
  });
}
