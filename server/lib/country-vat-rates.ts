/**
 * Each country's VAT rates in percent, its standard rate first and then its reduced rates: what
 * an organisation's rates are seeded from (server/vat-rates/seed.ts), and how a document tells a
 * standard rate from a reduced one (server/documents/wording.ts). EN 16931 puts every positive
 * rate in category S ("standard rated"); the law of each country names the lower ones reduced.
 */
export const VAT_RATES_BY_COUNTRY: Readonly<Record<string, readonly number[]>> = {
  BE: [21, 12, 6], NL: [21, 9], DE: [19, 7], FR: [20, 10, 5.5, 2.1], LU: [17, 14, 8, 3], GB: [20, 5],
  AT: [20, 13, 10], DK: [25], ES: [21, 10, 4], IT: [22, 10, 5, 4], IE: [23, 13.5, 9, 4.8], PT: [23, 13, 6],
  SE: [25, 12, 6], FI: [25.5, 14, 10], PL: [23, 8, 5], CZ: [21, 12], GR: [24, 13, 6], HU: [27, 18, 5],
  RO: [21, 11], SK: [23, 19, 5], SI: [22, 9.5, 5], HR: [25, 13, 5], BG: [20, 9], EE: [24, 9], LV: [21, 12, 5],
  LT: [21, 9, 5], CY: [19, 9, 5], MT: [18, 7, 5], CH: [8.1, 3.8, 2.6], NO: [25, 15, 12],
};

/** The country's standard rate in hundredths of a percent (21 % → 2100), or null for a country not in the table. */
export function standardRateBp(country: string | null | undefined): number | null {
  const rates = country ? VAT_RATES_BY_COUNTRY[country.toUpperCase()] : undefined;
  return rates && rates.length > 0 ? Math.round(rates[0]! * 100) : null;
}
