/**
 * Invoice arithmetic (docs/invoicing.md#prices-discounts-allowances-and-charges), in integer cents and free of I/O, so the API and
 * the property tests run the same code (docs/invoicing.md, "Prices, discounts, allowances and
 * charges"):
 *
 * - a line's amount before its discount = quantity × unit price, rounded half-up; its discount
 *   is an amount, or a percentage of that, rounded half-up; the line's price is what is left;
 * - a document allowance or charge is an amount, or a percentage of its base, rounded half-up;
 * - net and VAT of every line, allowance and charge come from `itemShares` (server/documents/
 *   vat-breakdown.ts): with net prices, VAT per item rounded half-up; with gross prices
 *   (`prices_include_vat`), VAT per rate from the rate's gross sum and net shares by largest remainder;
 * - subtotal (BT-109) = Σ line nets − Σ allowance nets + Σ charge nets; vat = Σ VAT; total = subtotal + vat.
 *
 * Amounts "in price terms" are net with net prices and gross (VAT included) with gross prices.
 */
import { itemShares, type PricedItem } from "../documents/vat-breakdown.ts";
import { divRoundHalfUp, lineAmountCents, vatCents } from "../lib/money.ts";

/** hundredths of a percent: 10 % = 1000, 100 % = 10000 */
export const FULL_PERCENT_BP = 10_000;

/** quantity in hundredths, unit price in cents, VAT rate in hundredths of a percent (21 % = 2100) */
export type LinePrice = {
  quantityCents: number;
  unitPriceCents: number;
  vatRateBp: number;
  /** the discount as a percentage (hundredths of a percent), or null */
  discountPercentBp?: number | null;
  /** the discount as an amount in price terms, when not a percentage; 0 for none */
  discountAmountCents?: number;
};
export type PricedLine = LinePrice & {
  /** quantity × unit price, rounded half-up, in price terms */
  grossCents: number;
  /** the discount in price terms (a percentage's, rounded half-up) */
  discountCents: number;
  /** the net amount (BT-131) and its VAT */
  amountCents: number;
  vatCents: number;
};

export type AllowanceChargePrice = {
  isCharge: boolean;
  vatRateBp: number;
  /** in price terms: the amount given, or percent × base rounded half-up */
  amountCents: number;
};
export type PricedAllowanceCharge<T extends AllowanceChargePrice = AllowanceChargePrice> = T & {
  /** its net amount (BT-92, BT-99) and its VAT, both positive */
  netCents: number;
  vatCents: number;
};

export type InvoiceTotals = {
  subtotalCents: number;
  vatCents: number;
  totalCents: number;
  /** BT-106, BT-107, BT-108 */
  lineTotalCents: number;
  allowanceCents: number;
  chargeCents: number;
};

export function percentOf(baseCents: number, percentBp: number): number {
  return Number(divRoundHalfUp(BigInt(baseCents) * BigInt(percentBp), BigInt(FULL_PERCENT_BP)));
}

/** A line's amount before and after its discount, in price terms. */
export function lineGross(line: LinePrice): { grossCents: number; discountCents: number; priceCents: number } {
  const grossCents = lineAmountCents(line.quantityCents, line.unitPriceCents);
  const discountCents = line.discountPercentBp ? percentOf(grossCents, line.discountPercentBp) : (line.discountAmountCents ?? 0);
  return { grossCents, discountCents, priceCents: grossCents - discountCents };
}

/** A line alone at net prices (what the invoice's lines are without gross prices or allowances). */
export function priceLine<T extends LinePrice>(line: T): T & PricedLine {
  const { grossCents, discountCents, priceCents } = lineGross(line);
  return { ...line, grossCents, discountCents, amountCents: priceCents, vatCents: vatCents(priceCents, line.vatRateBp) };
}

/**
 * Prices the whole invoice: its lines and its document allowances and charges, net and VAT from
 * `itemShares`, and its totals. Lines and allowances keep their other fields.
 */
export function priceInvoice<L extends LinePrice, A extends AllowanceChargePrice>(
  pricesIncludeVat: boolean,
  lines: readonly L[],
  allowanceCharges: readonly A[],
): { lines: (L & PricedLine)[]; allowanceCharges: PricedAllowanceCharge<A>[]; totals: InvoiceTotals } {
  const gross = lines.map(lineGross);
  const items: PricedItem[] = [
    ...gross.map((g, i) => ({ cents: g.priceCents, rateBp: lines[i]!.vatRateBp })),
    ...allowanceCharges.map((ac) => ({ cents: ac.isCharge ? ac.amountCents : -ac.amountCents, rateBp: ac.vatRateBp })),
  ];
  const shares = itemShares(pricesIncludeVat, items);
  const pricedLines = lines.map((line, i) => ({
    ...line,
    grossCents: gross[i]!.grossCents,
    discountCents: gross[i]!.discountCents,
    amountCents: shares[i]!.amountCents,
    vatCents: shares[i]!.vatCents,
  }));
  const pricedAcs = allowanceCharges.map((ac, i) => {
    const share = shares[lines.length + i]!;
    const sign = ac.isCharge ? 1 : -1;
    return { ...ac, netCents: sign * share.amountCents, vatCents: sign * share.vatCents };
  });
  let lineTotalCents = 0;
  let vat = 0;
  for (const line of pricedLines) {
    lineTotalCents += line.amountCents;
    vat += line.vatCents;
  }
  let allowanceCents = 0;
  let chargeCents = 0;
  for (const ac of pricedAcs) {
    if (ac.isCharge) {
      chargeCents += ac.netCents;
      vat += ac.vatCents;
    } else {
      allowanceCents += ac.netCents;
      vat -= ac.vatCents;
    }
  }
  const subtotalCents = lineTotalCents - allowanceCents + chargeCents;
  return {
    lines: pricedLines,
    allowanceCharges: pricedAcs,
    totals: { subtotalCents, vatCents: vat, totalCents: subtotalCents + vat, lineTotalCents, allowanceCents, chargeCents },
  };
}

/** Sums of already priced lines (no allowances or charges). */
export function totalsOf(lines: readonly { amountCents: number; vatCents: number }[]): Pick<InvoiceTotals, "subtotalCents" | "vatCents" | "totalCents"> {
  let subtotalCents = 0;
  let vat = 0;
  for (const line of lines) {
    subtotalCents += line.amountCents;
    vat += line.vatCents;
  }
  return { subtotalCents, vatCents: vat, totalCents: subtotalCents + vat };
}
