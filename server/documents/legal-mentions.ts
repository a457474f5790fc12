/**
 * The legal mentions of a seller's documents, in one table: per seller country and kind (company
 * or sole trader), which of the organisation's fields its law requires on every invoice and credit
 * note, and which fixed mentions every document carries (docs/invoicing.md#legal-mentions).
 *
 * The PDF prints them (legalMentionLines, in the document's language); a French seller's CII
 * carries the fixed ones as notes with their subject codes (frenchNotes, BR-FR-05); finalize
 * refuses a document whose seller lacks a required field (missingLegalMentions) when the
 * organisation checks its mentions (`check_legal_mentions`). A country without a row requires
 * nothing and prints what the organisation has set.
 */
import type { FieldErrors } from "../lib/errors.ts";
import { FieldErrorBag } from "../lib/errors.ts";
import type { DocumentLanguage, DocumentParty, IssuedDocument } from "./model.ts";
import type { LegalKind, SellerLegal } from "../../db/values.ts";
import { formatCents } from "../lib/money.ts";

/** The organisation's fields a row can require, by their API names (finalize's 422 names them `organization.<field>`). */
export type LegalField =
  | "legal_form"
  | "share_capital"
  | "register_kind"
  | "register_number"
  | "register_place"
  | "managing_directors"
  | "address"
  | "city"
  | "vat_number"
  | "company_number";

/** The fixed mentions, by the subject code (UNTDID 4451) a French CII gives their note: PMD late-payment penalties, PMT the recovery indemnity, AAB the early-payment discount. */
export type FixedMention = "PMD" | "PMT" | "AAB";

export type MentionRow = {
  country: string;
  kind: LegalKind;
  /** the law that asks for them, as the docs cite it */
  law: string;
  /** what must be set, and why (the 422's message) */
  required: Partial<Record<LegalField, string>>;
  /** the register's name printed when `register_kind` is not set (Belgium's RPR/RPM, France's RCS, the Dutch KvK) */
  registerKind: string | null;
  fixed: FixedMention[];
};

const SEAT = "the registered seat (its address) goes on every document";

/** The table: one row per seller country and kind. */
export const LEGAL_MENTIONS: readonly MentionRow[] = [
  {
    country: "BE",
    kind: "company",
    law: "WVV/CSA art. 2:20",
    required: {
      legal_form: "A Belgian company states its legal form (e.g. BV, SRL, NV) on its documents (WVV art. 2:20).",
      address: `A Belgian company states the address of its seat on its documents (WVV art. 2:20): ${SEAT}.`,
      city: "A Belgian company states the address of its seat, with its city (WVV art. 2:20).",
      company_number: "A Belgian company states its enterprise number on its documents (WVV art. 2:20).",
      register_place: "A Belgian company states RPR/RPM with the court of its seat (e.g. Brussel, Gent, Liège) on its documents (WVV art. 2:20).",
    },
    registerKind: "RPR/RPM",
    fixed: [],
  },
  {
    country: "BE",
    kind: "sole_trader",
    law: "Code of Economic Law art. III.25",
    required: {
      address: "A Belgian business states its address on its documents (WER art. III.25).",
      city: "A Belgian business states its address, with its city (WER art. III.25).",
      company_number: "A Belgian business states its enterprise number on its documents (WER art. III.25).",
    },
    registerKind: null,
    fixed: [],
  },
  {
    country: "FR",
    kind: "company",
    law: "Code de commerce R123-237, L441-9, L441-10, D441-5",
    required: {
      legal_form: "A French company states its legal form (e.g. SAS, SARL) on its invoices (Code de commerce R123-237).",
      share_capital: "A French company states its share capital on its invoices (Code de commerce R123-237).",
      address: "A French company states the address of its seat on its invoices (Code de commerce R123-237).",
      city: "A French company states the address of its seat, with its city (Code de commerce R123-237).",
      register_number: "A French company states its SIREN after RCS and the city of its registry (Code de commerce R123-237).",
      register_place: "A French company states RCS with the city of its registry (greffe), e.g. Paris (Code de commerce R123-237).",
    },
    registerKind: "RCS",
    fixed: ["PMD", "PMT", "AAB"],
  },
  {
    country: "FR",
    kind: "sole_trader",
    law: "Code de commerce L526-22, R123-237, L441-9, L441-10, D441-5",
    required: {
      legal_form: "A French sole trader states \"EI\" (entrepreneur individuel) with its name (Code de commerce L526-22): set legal_form to EI.",
      address: "A French business states its address on its invoices (Code de commerce L441-9).",
      city: "A French business states its address, with its city (Code de commerce L441-9).",
      register_number: "A French business states its SIREN on its invoices (Code de commerce R123-237).",
    },
    registerKind: null,
    fixed: ["PMD", "PMT", "AAB"],
  },
  {
    country: "DE",
    kind: "company",
    law: "§35a GmbHG, §80 AktG, §14 (4) UStG",
    required: {
      legal_form: "A German company states its legal form (e.g. GmbH, AG) on its business letters (§35a GmbHG, §80 AktG).",
      address: "A German company states its full address on its invoices (§14 (4) Nr. 1 UStG).",
      city: "A German company states its seat (Sitz der Gesellschaft) on its business letters (§35a GmbHG, §80 AktG).",
      register_kind: "A German company states its register (HRB, or HRA) on its business letters (§35a GmbHG, §80 AktG).",
      register_number: "A German company states its commercial register number on its business letters (§35a GmbHG, §80 AktG).",
      register_place: "A German company states its register court (e.g. Amtsgericht München) on its business letters (§35a GmbHG, §80 AktG).",
      managing_directors: "A German GmbH states all its managing directors (an AG its board) on its business letters (§35a GmbHG, §80 AktG).",
      vat_number: "A German seller states its USt-IdNr. (or Steuernummer) on its invoices (§14 (4) Nr. 2 UStG).",
    },
    registerKind: null,
    fixed: [],
  },
  {
    country: "DE",
    kind: "sole_trader",
    law: "§14 (4) UStG",
    required: {
      address: "A German seller states its full address on its invoices (§14 (4) Nr. 1 UStG).",
      city: "A German seller states its full address, with its city (§14 (4) Nr. 1 UStG).",
      vat_number: "A German seller states its USt-IdNr. (or Steuernummer) on its invoices (§14 (4) Nr. 2 UStG).",
    },
    registerKind: null,
    fixed: [],
  },
  {
    country: "NL",
    kind: "company",
    law: "Handelsregisterbesluit 2008 art. 20",
    required: { register_number: "A Dutch business states its KvK number on its invoices and letters (Handelsregisterbesluit 2008 art. 20)." },
    registerKind: "KvK",
    fixed: [],
  },
  {
    country: "NL",
    kind: "sole_trader",
    law: "Handelsregisterbesluit 2008 art. 20",
    required: { register_number: "A Dutch business states its KvK number on its invoices and letters (Handelsregisterbesluit 2008 art. 20)." },
    registerKind: "KvK",
    fixed: [],
  },
];

/** The organisation's columns the mentions read, by their schema names. */
export type LegalColumns = {
  currency: string;
  legalKind: LegalKind;
  legalForm: string | null;
  shareCapitalCents: number | null;
  registerKind: string | null;
  registerNumber: string | null;
  registerPlace: string | null;
  managingDirectors: string | null;
  generalTerms: string | null;
  discountTerms: string | null;
};

/** The seller's legal identity as a document freezes it (with the seller, at finalize). */
export function legalOf(org: LegalColumns): SellerLegal {
  return {
    kind: org.legalKind,
    legalForm: org.legalForm,
    shareCapital: org.shareCapitalCents === null ? null : formatCents(org.shareCapitalCents),
    shareCapitalCurrency: org.currency,
    registerKind: org.registerKind,
    registerNumber: org.registerNumber,
    registerPlace: org.registerPlace,
    managingDirectors: org.managingDirectors,
    generalTerms: org.generalTerms,
    discountTerms: org.discountTerms,
  };
}

/** The row of a seller's country and kind; none for a country the table does not name. */
export function mentionRow(country: string | null, kind: LegalKind): MentionRow | null {
  return LEGAL_MENTIONS.find((row) => row.country === country?.toUpperCase() && row.kind === kind) ?? null;
}

const filled = (value: string | null | undefined): boolean => typeof value === "string" && value.trim() !== "";

/** The value of `field` on the seller as a document freezes it. */
function valueOf(seller: DocumentParty, field: LegalField): string | null {
  const legal = seller.legal;
  switch (field) {
    case "legal_form":
      return legal?.legalForm ?? null;
    case "share_capital":
      return legal?.shareCapital ?? null;
    case "register_kind":
      return legal?.registerKind ?? null;
    case "register_number":
      return legal?.registerNumber ?? null;
    case "register_place":
      return legal?.registerPlace ?? null;
    case "managing_directors":
      return legal?.managingDirectors ?? null;
    case "address":
      return seller.address;
    case "city":
      return seller.city;
    case "vat_number":
      return seller.vatNumber;
    case "company_number":
      return seller.companyNumber;
  }
}

/**
 * What the seller's row requires and the seller lacks, as `organization.<field>`: what finalize
 * refuses for an organisation that checks its mentions.
 */
export function missingLegalMentions(seller: DocumentParty): FieldErrors {
  const bag = new FieldErrorBag();
  const row = mentionRow(seller.country, seller.legal?.kind ?? "company");
  if (!row) return bag.errors;
  for (const [field, message] of Object.entries(row.required) as [LegalField, string][]) {
    if (!filled(valueOf(seller, field))) bag.add(`organization.${field}`, message);
  }
  return bag.errors;
}

/**
 * The date of supply (BT-72) a document states: the one given; else, for a German seller's invoice
 * or credit note without a service period (BG-14), its issue date: §14 (4) Nr. 6 UStG asks every
 * invoice for the date of supply or the period, and a seller who gives neither certifies that it
 * supplied on the invoice date (docs/invoicing.md#germany). Interest notes supply nothing.
 */
export function supplyDateOf(
  doc: { type: string; issueDate: string; deliveryDate: string | null; servicePeriod: { start: string; end: string } | null },
  sellerCountry: string | null,
): string | null {
  if (doc.deliveryDate) return doc.deliveryDate;
  if (sellerCountry?.toUpperCase() !== "DE" || doc.servicePeriod || doc.type === "interest_note") return null;
  return doc.issueDate;
}

/** Units that measure goods (UN/ECE Rec. 20): mass, length, area, volume, and packages of goods. */
const GOODS_UNITS = new Set(["GRM", "KGM", "TNE", "MGM", "MTR", "CMT", "MMT", "KMT", "MTK", "MTQ", "LTR", "MLT", "CLT", "HLT", "PK", "BX", "CT", "PR", "XPK", "XBX", "XCT", "XPX"]);

/**
 * The French billing mode (BT-23, BR-FR-08) of a French seller's CII: B1 (goods), S1 (services) or
 * M1 (both), each "a simple invoice" (the 1: neither paid in advance nor a final invoice after a
 * down payment). A line is what its `supply_type` says (the same the VAT return reads); a line
 * issued before Kontor recorded it is goods when its unit measures goods (a weight, length, area,
 * volume or package) or it is an intra-EU supply or export (categories K and G) and the document
 * bills no service period (docs/invoicing.md#france).
 */
export function frenchBillingMode(doc: Pick<IssuedDocument, "lines" | "servicePeriod">): "B1" | "S1" | "M1" {
  const goods = doc.lines.map((line) =>
    line.supplyType ? line.supplyType === "goods" : !doc.servicePeriod && (GOODS_UNITS.has(line.unitCode) || line.vatCategory === "K" || line.vatCategory === "G"),
  );
  if (goods.length > 0 && goods.every(Boolean)) return "B1";
  return goods.some(Boolean) ? "M1" : "S1";
}

// ------------------------------------------------------------------------------------------------
// the words

type MentionWords = {
  shareCapital: string;
  seat: string;
  managingDirectors: string;
  generalTerms: string;
  /** PMD: the late-payment penalty rate, the statutory one (L441-10: the ECB's rate plus 10 points) */
  latePenalty: string;
  /** PMT: the fixed indemnity for recovery costs (D441-5) */
  recoveryIndemnity: string;
  /** AAB: the early-payment discount, when the organisation grants none (L441-9) */
  noDiscount: string;
  discount: string;
};

const WORDS: Record<DocumentLanguage, MentionWords> = {
  en: {
    shareCapital: "Share capital",
    seat: "Registered office",
    managingDirectors: "Managing directors",
    generalTerms: "Terms and conditions",
    latePenalty:
      "Late-payment penalties: the interest rate of the European Central Bank's most recent refinancing operation plus 10 percentage points (French Commercial Code art. L441-10).",
    recoveryIndemnity: "Fixed indemnity for recovery costs in case of late payment: €40 (French Commercial Code art. L441-10 and D441-5).",
    noDiscount: "No discount for early payment.",
    discount: "Early-payment discount",
  },
  nl: {
    shareCapital: "Kapitaal",
    seat: "Zetel",
    managingDirectors: "Bestuurders",
    generalTerms: "Algemene voorwaarden",
    latePenalty:
      "Boete bij laattijdige betaling: de rentevoet van de meest recente herfinancieringstransactie van de Europese Centrale Bank verhoogd met 10 procentpunten (Frans Wetboek van Koophandel art. L441-10).",
    recoveryIndemnity: "Forfaitaire vergoeding voor invorderingskosten bij laattijdige betaling: 40 € (Frans Wetboek van Koophandel art. L441-10 en D441-5).",
    noDiscount: "Geen korting voor vervroegde betaling.",
    discount: "Korting voor vervroegde betaling",
  },
  fr: {
    shareCapital: "Capital social",
    seat: "Siège social",
    managingDirectors: "Dirigeants",
    generalTerms: "Conditions générales",
    latePenalty:
      "Pénalités de retard : taux d'intérêt appliqué par la Banque centrale européenne à son opération de refinancement la plus récente, majoré de 10 points de pourcentage (art. L441-10 du Code de commerce).",
    recoveryIndemnity: "Indemnité forfaitaire pour frais de recouvrement en cas de retard de paiement : 40 € (art. L441-10 et D441-5 du Code de commerce).",
    noDiscount: "Pas d'escompte pour paiement anticipé.",
    discount: "Escompte pour paiement anticipé",
  },
  de: {
    shareCapital: "Kapital",
    seat: "Sitz",
    managingDirectors: "Geschäftsführung",
    generalTerms: "Allgemeine Geschäftsbedingungen",
    latePenalty:
      "Verzugszinsen: der Zinssatz der jüngsten Hauptrefinanzierungsoperation der Europäischen Zentralbank zuzüglich 10 Prozentpunkten (Art. L441-10 des französischen Handelsgesetzbuchs).",
    recoveryIndemnity: "Pauschale Entschädigung für Beitreibungskosten bei Zahlungsverzug: 40 € (Art. L441-10 und D441-5 des französischen Handelsgesetzbuchs).",
    noDiscount: "Kein Skonto bei vorzeitiger Zahlung.",
    discount: "Skonto bei vorzeitiger Zahlung",
  },
};

/** The text of a fixed mention in `language`: the AAB one is the organisation's discount_terms, or the "no discount" sentence without them. */
export function fixedMentionText(mention: FixedMention, seller: DocumentParty, language: DocumentLanguage): string {
  const w = WORDS[language] ?? WORDS.en;
  if (mention === "PMD") return w.latePenalty;
  if (mention === "PMT") return w.recoveryIndemnity;
  const terms = seller.legal?.discountTerms?.trim();
  return terms ? `${w.discount}: ${terms}` : w.noDiscount;
}

/** The fixed mentions of the seller's row (none for a seller frozen before its mentions were). */
export function fixedMentions(seller: DocumentParty): FixedMention[] {
  if (!seller.legal) return [];
  return mentionRow(seller.country, seller.legal.kind)?.fixed ?? [];
}

/** Letters and digits only, lower case: "B.V." and "BV" are the same legal form. */
const bare = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");

/** Whether `text` starts with `word` as a word of its own ("HRB 12345" starts with "HRB"). */
const startsWithWord = (text: string, word: string) => new RegExp(`^${word.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}(?![\\p{L}\\p{N}])`, "iu").test(text.trim());

/** The seller's name with its legal form after it, unless the name already ends with it ("Atelier Zoë BV" stays so). */
function withSuffix(name: string, legalForm: string): string {
  const words = name.trim().split(/\s+/);
  const form = bare(legalForm);
  for (let i = words.length - 1; i >= 0; i--) if (bare(words.slice(i).join("")) === form) return name.trim();
  return `${name.trim()} ${legalForm}`;
}

/**
 * The PDF's legal mentions block, in the document's language: the seller's name with its legal
 * form and share capital, its seat, its register, its managing directors, then the fixed mentions
 * and its general terms. Only what is set is printed; nothing for a seller frozen without them.
 * `money` formats the share capital ("10000.00") as the document formats amounts.
 */
export function legalMentionLines(seller: DocumentParty, language: DocumentLanguage, money: (amount: string, currency: string) => string): string[] {
  const legal = seller.legal;
  if (!legal) return [];
  const w = WORDS[language] ?? WORDS.en;
  const row = mentionRow(seller.country, legal.kind);
  const lines: string[] = [];
  const identity = [legal.legalForm ? withSuffix(seller.name, legal.legalForm) : null, legal.shareCapital ? `${w.shareCapital} ${money(legal.shareCapital, legal.shareCapitalCurrency)}` : null].filter(
    (part): part is string => part !== null,
  );
  if (identity.length > 0) lines.push(identity.join(", "));
  const place = [seller.postalCode, seller.city].filter(filled).join(" ");
  const seat = [seller.address?.split(/\r?\n/).map((s) => s.trim()).filter(Boolean).join(", "), place].filter(filled).join(", ");
  if (row?.required.address && seat) lines.push(`${w.seat}: ${seat}`);
  const registerKind = legal.registerKind ?? row?.registerKind ?? null;
  // Belgium's register is the enterprise number's: "RPR/RPM Brussel 0123.456.749"
  const registerNumber = legal.registerNumber ?? (seller.country === "BE" ? seller.companyNumber : null);
  if (registerKind || legal.registerPlace || registerNumber) {
    // "RCS Paris 123 456 789", "RPR/RPM Gent 0123.456.749"; a German register names its court after: "HRB 12345 (Amtsgericht München)"
    const courtAfter = seller.country === "DE";
    lines.push(
      courtAfter
        ? [registerNumber && registerKind && startsWithWord(registerNumber, registerKind) ? null : registerKind, registerNumber].filter(filled).join(" ") +
            (legal.registerPlace ? ` (${legal.registerPlace})` : "")
        : [registerKind, legal.registerPlace, registerNumber && registerKind && startsWithWord(registerNumber, registerKind) ? registerNumber.slice(registerKind.length).trim() : registerNumber]
            .filter(filled)
            .join(" "),
    );
  }
  if (legal.managingDirectors) lines.push(`${w.managingDirectors}: ${legal.managingDirectors}`);
  for (const mention of row?.fixed ?? []) lines.push(fixedMentionText(mention, seller, language));
  if (legal.generalTerms) lines.push(`${w.generalTerms}: ${legal.generalTerms}`);
  return lines;
}
