/**
 * ISO country and currency codes, checked against what ICU knows. The schemas' formats use them
 * (server/lib/schemas.ts: "iso-3166-alpha2", "iso-4217"), and so do the services that check a
 * code themselves; kept apart from the schemas so that those (the CLI's among them) load no
 * schema library.
 */

// built when first asked: loading ICU's region names takes milliseconds a command that checks no code should not spend
let regionNames: Intl.DisplayNames | undefined;
let currencies: Set<string> | undefined;

/** Real ISO 3166-1 alpha-2 codes (ICU knows their names), upper case. */
export function isCountryCode(v: string): boolean {
  if (!/^[A-Z]{2}$/.test(v)) return false;
  const name = (regionNames ??= new Intl.DisplayNames(["en"], { type: "region" })).of(v);
  return name !== v && name !== "Unknown Region";
}

/** Real ISO 4217 codes, upper case. */
export function isCurrencyCode(v: string): boolean {
  return /^[A-Z]{3}$/.test(v) && (currencies ??= new Set(Intl.supportedValuesOf("currency"))).has(v);
}
