/**
 * The words of a document that depend on a country as well as on the language: what a VAT rate
 * is called (standard or reduced, by the seller's country's standard rate), what an identifier is
 * called (a Belgian enterprise number, a French SIREN, a German commercial register entry, a Dutch
 * KvK number, by the country of the party it belongs to), and what the payment reference is
 * called (a Belgian structured communication only when it is one). i18n.ts holds the words of a
 * language alone; what is said here for a country overrides them. docs/invoicing.md#languages-and-countries
 * lists them.
 */
import { standardRateBp } from "../lib/country-vat-rates.ts";
import { LABELS } from "./i18n.ts";
import type { DocumentLanguage, VatCategory } from "./model.ts";
import { isBelgianStructuredCommunication } from "./payment-reference.ts";

/** Category S names a positive rate; the law of the seller's country calls it standard or reduced. */
type RateNames = { standard: string; reduced: string; /** the seller's standard rate unknown: neither */ taxable: string };

const RATE_NAMES: Record<DocumentLanguage, RateNames> = {
  en: { standard: "Standard rate", reduced: "Reduced rate", taxable: "Taxable" },
  nl: { standard: "Normaal tarief", reduced: "Verlaagd tarief", taxable: "Belast" },
  fr: { standard: "Taux normal", reduced: "Taux réduit", taxable: "Taxable" },
  de: { standard: "Regelsteuersatz", reduced: "Ermäßigter Steuersatz", taxable: "Steuerpflichtig" },
};

/** How an identifier is labelled: a fixed word, or one that depends on the number (SIREN or SIRET). */
type IdentifierWords = { vatNumber?: string; companyNumber?: string | ((number: string) => string) };

/** A French company number: the 9-digit SIREN, or the 14-digit SIRET of an establishment. */
const siren = (number: string) => (number.replace(/\D/g, "").length === 14 ? "SIRET" : "SIREN");

/**
 * The words of one country, per document language, where they differ from the language's own
 * (i18n.ts). Keyed by the country of whom they are spoken: the seller's for the rates, each
 * party's own for its identifiers (a French customer's SIREN is a SIREN on a Belgian invoice).
 */
export const COUNTRY_WORDS: Record<string, Partial<Record<DocumentLanguage, { rates?: Partial<RateNames>; identifiers?: IdentifierWords }>>> = {
  // the enterprise number of the Crossroads Bank for Enterprises (KBO / BCE / ZDU); Belgian German says MwSt.
  BE: {
    en: { identifiers: { vatNumber: "VAT number", companyNumber: "Enterprise number" } },
    nl: { identifiers: { vatNumber: "Btw-nummer", companyNumber: "Ondernemingsnummer" } },
    fr: { identifiers: { vatNumber: "N° TVA", companyNumber: "N° d’entreprise" } },
    de: { identifiers: { vatNumber: "MwSt-Nr.", companyNumber: "Unternehmensnummer" } },
  },
  // the SIREN (or an establishment's SIRET) of the Sirene register; "N° TVA intracommunautaire" (CGI art. 242 nonies A)
  FR: {
    en: { identifiers: { companyNumber: siren } },
    nl: { identifiers: { companyNumber: siren } },
    fr: { identifiers: { vatNumber: "N° TVA intracommunautaire", companyNumber: siren } },
    de: { identifiers: { companyNumber: siren } },
  },
  // the commercial register entry ("HRB 12345"); the VAT identification number is the USt-IdNr.
  DE: {
    en: { identifiers: { vatNumber: "VAT ID", companyNumber: "Commercial register" } },
    nl: { identifiers: { companyNumber: "Handelsregister" } },
    fr: { identifiers: { vatNumber: "N° TVA", companyNumber: "Registre du commerce" } },
    de: { identifiers: { vatNumber: "USt-IdNr.", companyNumber: "Handelsregister" } },
  },
  // the Chamber of Commerce number; the Belastingdienst calls 21 % the general rate
  NL: {
    en: { identifiers: { companyNumber: "KvK number" } },
    nl: { rates: { standard: "Algemeen tarief" }, identifiers: { vatNumber: "Btw-nummer", companyNumber: "KvK-nummer" } },
    fr: { identifiers: { companyNumber: "N° KvK" } },
    de: { identifiers: { companyNumber: "KvK-Nummer" } },
  },
};

const wordsOf = (language: DocumentLanguage, country: string | null | undefined) => (country ? COUNTRY_WORDS[country.toUpperCase()]?.[language] : undefined);

/**
 * A VAT breakdown row's name: category S by its rate, standard or reduced as the seller's country
 * has them (a rate below its standard rate is reduced; a seller whose country Kontor has no rates
 * for gets "taxable"); the other categories as they are (zero rated, exempt, reverse charge, …).
 */
export function vatCategoryName(language: DocumentLanguage, category: VatCategory, rateBp: number, sellerCountry: string | null | undefined): string {
  const labels = LABELS[language] ?? LABELS.en;
  if (category !== "S") return labels.categories[category];
  const names = { ...RATE_NAMES[language], ...wordsOf(language, sellerCountry)?.rates };
  const standard = standardRateBp(sellerCountry);
  if (standard === null) return names.taxable;
  return rateBp < standard ? names.reduced : names.standard;
}

/** The labels of a party's VAT number and company number, as its own country names them. */
export function identifierLabels(language: DocumentLanguage, country: string | null | undefined): { vatNumber: string; companyNumber: (number: string) => string } {
  const labels = LABELS[language] ?? LABELS.en;
  const own = wordsOf(language, country)?.identifiers;
  const company = own?.companyNumber;
  return {
    vatNumber: own?.vatNumber ?? labels.vatNumber,
    companyNumber: typeof company === "function" ? company : () => company ?? labels.companyNumber,
  };
}

/** A Belgian structured communication is called so in every language; other references are a payment reference. */
const STRUCTURED_COMMUNICATION: Record<DocumentLanguage, string> = {
  en: "Structured communication",
  nl: "Gestructureerde mededeling",
  fr: "Communication structurée",
  de: "Strukturierte Mitteilung",
};

/** The label of a payment reference: "Gestructureerde mededeling" for `+++123/4567/89002+++`, else the language's neutral word. */
export function paymentReferenceLabel(language: DocumentLanguage, reference: string): string {
  if (isBelgianStructuredCommunication(reference)) return STRUCTURED_COMMUNICATION[language] ?? STRUCTURED_COMMUNICATION.en;
  return (LABELS[language] ?? LABELS.en).paymentReference;
}
