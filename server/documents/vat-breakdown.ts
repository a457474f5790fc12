/**
 * The VAT breakdown of a document (EN 16931 BG-23), computed here and nowhere else: the issued
 * document's `vatGroups` (the UBL's TaxSubtotals, the PDF's VAT table; server/invoices/document.ts)
 * and the ledger's invoice posting (one sales and VAT payable pair per group;
 * server/ledger/rules.ts) both take it from `vatBreakdown`.
 *
 * One group per VAT category and rate. Its taxable amount is the sum of its lines' amounts; its
 * VAT is the sum of its lines' VAT, each already rounded half-up per line
 * (server/invoices/totals.ts), not the group's base × rate rounded once. So the groups add up to
 * the invoice's stored `vat_cents` exactly (BR-CO-14; the posting balances against the stored
 * total), and a group's VAT stays within the one unit of currency BR-CO-17 allows of base × rate.
 * Pure: no database, no clock.
 */
import { divRoundHalfUp, vatCents } from "../lib/money.ts";
import { VAT_CATEGORIES, VATEX_REASONS, type DocumentLine, type DocumentVatGroup, type VatCategory } from "./model.ts";

/**
 * One priced item of a document: a line (its amount after its discount) or a document-level
 * charge (positive) or allowance (negative), in the terms of the document's prices: net, or gross
 * (VAT included) when `prices_include_vat`.
 */
export type PricedItem = { cents: number; rateBp: number };
/** An item's net amount and VAT, signed as the item. */
export type ItemShare = { amountCents: number; vatCents: number };

/**
 * The net amount and VAT of each item, in the order given:
 *
 * - net prices: the item is its net amount; its VAT is amount × rate, rounded half-up per item
 *   (an allowance's VAT is the negative of its amount's);
 * - gross prices: per VAT rate, G = Σ the rate's items (lines, charges, less allowances);
 *   VAT = G × r / (100 + r), rounded half-up once; net = G − VAT. The rate's net is shared out
 *   over its items in proportion to their gross amounts, by largest remainder (ties to the
 *   earlier item), and each item's VAT is its gross less its net share: the items' nets and VATs
 *   add up to the rate's exactly, so the total is Σ gross to the cent.
 *
 * The invoice's totals, its document's VAT breakdown and its ledger posting all take their
 * figures from here, so they cannot disagree.
 */
export function itemShares(pricesIncludeVat: boolean, items: readonly PricedItem[]): ItemShare[] {
  if (!pricesIncludeVat) {
    return items.map((item) => ({ amountCents: item.cents, vatCents: Math.sign(item.cents) * vatCents(Math.abs(item.cents), item.rateBp) }));
  }
  const shares: ItemShare[] = items.map(() => ({ amountCents: 0, vatCents: 0 }));
  const byRate = Map.groupBy(
    items.map((item, index) => ({ ...item, index })),
    (item) => item.rateBp,
  );
  for (const [rateBp, group] of byRate) {
    const gross = group.reduce((sum, item) => sum + item.cents, 0);
    const divisor = BigInt(10_000 + rateBp);
    const rateVat = Math.sign(gross) * Number(divRoundHalfUp(BigInt(Math.abs(gross)) * BigInt(rateBp), divisor));
    const rateNet = gross - rateVat;
    // each item's exact share is cents × 10000 / (10000 + r): its floor, and what is left over
    const parts = group.map((item) => {
      const scaled = BigInt(item.cents) * 10_000n;
      let floor = scaled / divisor;
      let rest = scaled % divisor;
      if (rest < 0n) {
        floor -= 1n;
        rest += divisor;
      }
      return { index: item.index, cents: item.cents, net: Number(floor), rest };
    });
    // net − Σ floors lies in [0, items]: VAT is rounded by at most half a cent, each floor by less than one
    let missing = rateNet - parts.reduce((sum, part) => sum + part.net, 0);
    const order = [...parts].sort((a, b) => (a.rest === b.rest ? a.index - b.index : a.rest > b.rest ? -1 : 1));
    for (const part of order) {
      if (missing <= 0) break;
      part.net += 1;
      missing -= 1;
    }
    for (const part of parts) shares[part.index] = { amountCents: part.net, vatCents: part.cents - part.net };
  }
  return shares;
}

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
