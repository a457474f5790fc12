/**
 * Invoice arithmetic of contract section 3, in integer cents and free of I/O, so the API and
 * the property tests run the same code: line amount = quantity × unit price, rounded half-up;
 * line VAT = amount × rate, rounded half-up per line; the totals are plain sums of the lines.
 */
import { lineAmountCents, vatCents } from "../lib/money.ts";

/** quantity in hundredths, unit price in cents, VAT rate in hundredths of a percent (21 % = 2100) */
export type LinePrice = { quantityCents: number; unitPriceCents: number; vatRateBp: number };
export type PricedLine = LinePrice & { amountCents: number; vatCents: number };
export type InvoiceTotals = { subtotalCents: number; vatCents: number; totalCents: number };

export function priceLine(line: LinePrice): PricedLine {
  const amountCents = lineAmountCents(line.quantityCents, line.unitPriceCents);
  return { ...line, amountCents, vatCents: vatCents(amountCents, line.vatRateBp) };
}

export function totalsOf(lines: readonly { amountCents: number; vatCents: number }[]): InvoiceTotals {
  let subtotalCents = 0;
  let vat = 0;
  for (const line of lines) {
    subtotalCents += line.amountCents;
    vat += line.vatCents;
  }
  return { subtotalCents, vatCents: vat, totalCents: subtotalCents + vat };
}
