/**
 * ISO country and currency codes, checked against what ICU knows. The schemas' formats use them
 * (server/lib/schemas.ts: "iso-3166-alpha2", "iso-4217"), and so do the services that check a
 * code themselves; kept apart from the schemas so that those (the CLI's among them) load no
 * schema library.
 */
const regionNames = new Intl.DisplayNames(["en"], { type: "region" });
const currencies = new Set(Intl.supportedValuesOf("currency"));
/** Real ISO 3166-1 alpha-2 codes (ICU knows their names), upper case. */
export const isCountryCode = (v: string) => /^[A-Z]{2}$/.test(v) && regionNames.of(v) !== v && regionNames.of(v) !== "Unknown Region";
/** Real ISO 4217 codes, upper case. */
export const isCurrencyCode = (v: string) => /^[A-Z]{3}$/.test(v) && currencies.has(v);
