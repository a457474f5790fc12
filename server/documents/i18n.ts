/**
 * The words on an issued document, per document language, and the number and date formats that
 * go with them. Hand-written rather than taken from `Intl`: a document's bytes must not change
 * when the runtime's ICU data does (a finalized PDF is hashed and archived).
 */
import { VATEX_REASONS, type DocumentLanguage, type VatCategory } from "./model.ts";

export type DocumentLabels = {
  invoice: string;
  creditNote: string;
  /** interest notes: interest and compensation charged on a late invoice, and the invoice it names */
  interestNote: string;
  lateInvoice: string;
  draft: string;
  /** the diagonal mark of a cancelled document */
  cancelled: string;
  number: string;
  issueDate: string;
  dueDate: string;
  buyerReference: string;
  orderReference: string;
  /** BG-14: the service period the document bills */
  servicePeriod: string;
  creditedInvoice: string;
  billTo: string;
  /** a VAT number and company number as a language says them of any country; wording.ts names them as their country does */
  vatNumber: string;
  companyNumber: string;
  email: string;
  phone: string;
  description: string;
  quantity: string;
  unit: string;
  unitPrice: string;
  vatPercent: string;
  amount: string;
  vatBreakdown: string;
  category: string;
  rate: string;
  taxableAmount: string;
  vatAmount: string;
  exemptionReason: string;
  subtotal: string;
  totalVat: string;
  total: string;
  paid: string;
  amountDue: string;
  /** a credit note's total: what it credits the buyer, not what the buyer owes */
  amountCredited: string;
  /** on an invoice: what its finalized credit notes took off it */
  credited: string;
  /** a credit note's own words where an invoice's would say "invoice" or ask for payment */
  creditNoteFor: (invoiceNumber: string) => string;
  creditNoteDate: string;
  creditTo: string;
  /** the part of a credit note that settled the invoice it credits */
  setOffAgainst: (invoiceNumber: string) => string;
  refunded: string;
  /** what is still owed to the buyer: a credit note's amount due */
  amountToRefund: string;
  /** the sentence a cancelled document carries where its amount due would be */
  cancelledNotice: Record<"invoice" | "credit_note" | "interest_note", string>;
  /** discounts, allowances and charges (EN 16931 BG-20, BG-21, BG-27) and VAT-inclusive prices */
  pricing: {
    discount: string;
    allowance: string;
    charge: string;
    /** "5 % of 955.00" */
    percentOf: (percent: string, base: string) => string;
    lineTotal: string;
    allowances: string;
    charges: string;
    /** said under the lines when their prices and amounts include VAT */
    pricesIncludeVat: string;
  };
  payment: string;
  iban: string;
  bic: string;
  accountHolder: string;
  /** a reference that is no Belgian structured communication (wording.ts names that one) */
  paymentReference: string;
  payBy: string;
  scanToPay: string;
  nothingDue: string;
  notes: string;
  paymentTerms: string;
  page: (page: number, pages: number) => string;
  continued: string;
  /** the EN 16931 categories; S is named by its rate, standard or reduced (wording.ts) */
  categories: Record<VatCategory, string>;
  /** VATEX codes the seeded rates use, for a group whose reason has no text of its own */
  vatex: Record<string, string>;
  /** UN/ECE Recommendation 20 units, short; a code not here is printed as it is */
  units: Record<string, string>;
  /** decimal and thousands separators */
  decimal: string;
  group: string;
  /** where the currency symbol goes: "€1,234.56" (before) or "1.234,56 €" (after) */
  symbolBefore: boolean;
  date: (iso: string) => string;
};

const two = (n: number) => (n < 10 ? `0${n}` : String(n));
const EN_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

function parts(iso: string): [number, number, number] | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

export const LABELS: Record<DocumentLanguage, DocumentLabels> = {
  en: {
    invoice: "Invoice",
    creditNote: "Credit note",
    interestNote: "Interest note",
    lateInvoice: "Late invoice",
    draft: "DRAFT",
    cancelled: "CANCELLED",
    number: "Number",
    issueDate: "Issue date",
    dueDate: "Due date",
    buyerReference: "Your reference",
    servicePeriod: "Service period",
    orderReference: "Order reference",
    creditedInvoice: "Credits invoice",
    billTo: "Bill to",
    vatNumber: "VAT number",
    companyNumber: "Company number",
    email: "Email",
    phone: "Phone",
    description: "Description",
    quantity: "Qty",
    unit: "Unit",
    unitPrice: "Unit price",
    vatPercent: "VAT",
    amount: "Amount",
    vatBreakdown: "VAT breakdown",
    category: "Category",
    rate: "Rate",
    taxableAmount: "Taxable amount",
    vatAmount: "VAT",
    exemptionReason: "Exemption reason",
    subtotal: "Subtotal",
    totalVat: "VAT",
    total: "Total",
    paid: "Paid",
    amountDue: "Amount due",
    amountCredited: "Amount credited",
    credited: "Credited",
    creditNoteFor: (n) => `Credit note for invoice ${n}`,
    creditNoteDate: "Issue date",
    creditTo: "Credited to",
    setOffAgainst: (n) => `Set off against invoice ${n}`,
    refunded: "Refunded",
    amountToRefund: "Amount to be refunded",
    cancelledNotice: { invoice: "This invoice has been cancelled: nothing is to be paid.", credit_note: "This credit note has been cancelled: nothing is to be refunded.", interest_note: "This interest note has been cancelled: nothing is to be paid." },
    pricing: {
      discount: "Discount",
      allowance: "Allowance",
      charge: "Charge",
      percentOf: (percent, base) => `${percent} of ${base}`,
      lineTotal: "Total of the lines",
      allowances: "Allowances",
      charges: "Charges",
      pricesIncludeVat: "Prices and line amounts include VAT.",
    },
    payment: "Payment",
    iban: "IBAN",
    bic: "BIC",
    accountHolder: "Account holder",
    paymentReference: "Payment reference",
    payBy: "Please pay by",
    scanToPay: "Scan with your banking app",
    nothingDue: "Nothing is due.",
    notes: "Notes",
    paymentTerms: "Payment terms",
    page: (p, n) => `Page ${p} of ${n}`,
    continued: "continued",
    categories: { S: "Standard rate", Z: "Zero rated", E: "Exempt", AE: "Reverse charge", K: "Intra-EU supply", G: "Export outside the EU", O: "Not subject to VAT" },
    // the code list's own wording (BT-120), as the e-invoice carries it
    vatex: VATEX_REASONS,
    units: { C62: "pc", H87: "pc", HUR: "h", DAY: "day", WEE: "week", MON: "month", ANN: "year", MIN: "min", KGM: "kg", GRM: "g", MTR: "m", KMT: "km", MTK: "m²", MTQ: "m³", LTR: "l", E48: "service", LS: "lump sum", SET: "set" },
    decimal: ".",
    group: ",",
    symbolBefore: true,
    date: (iso) => {
      const p = parts(iso);
      return p ? `${p[2]} ${EN_MONTHS[p[1] - 1]} ${p[0]}` : iso;
    },
  },
  nl: {
    invoice: "Factuur",
    creditNote: "Creditnota",
    interestNote: "Nota van nalatigheidsintresten",
    lateInvoice: "Laattijdig betaalde factuur",
    draft: "CONCEPT",
    cancelled: "GEANNULEERD",
    number: "Nummer",
    issueDate: "Factuurdatum",
    dueDate: "Vervaldatum",
    buyerReference: "Uw referentie",
    servicePeriod: "Dienstperiode",
    orderReference: "Bestelreferentie",
    creditedInvoice: "Crediteert factuur",
    billTo: "Factuur aan",
    vatNumber: "Btw-nummer",
    companyNumber: "Registratienummer",
    email: "E-mail",
    phone: "Telefoon",
    description: "Omschrijving",
    quantity: "Aantal",
    unit: "Eenheid",
    unitPrice: "Eenheidsprijs",
    vatPercent: "Btw",
    amount: "Bedrag",
    vatBreakdown: "Btw-overzicht",
    category: "Categorie",
    rate: "Tarief",
    taxableAmount: "Maatstaf van heffing",
    vatAmount: "Btw",
    exemptionReason: "Reden van vrijstelling",
    subtotal: "Subtotaal",
    totalVat: "Btw",
    total: "Totaal",
    paid: "Betaald",
    amountDue: "Te betalen",
    amountCredited: "Gecrediteerd bedrag",
    credited: "Gecrediteerd",
    creditNoteFor: (n) => `Creditnota bij factuur ${n}`,
    creditNoteDate: "Datum creditnota",
    creditTo: "Gecrediteerd aan",
    setOffAgainst: (n) => `Verrekend met factuur ${n}`,
    refunded: "Terugbetaald",
    amountToRefund: "Terug te betalen bedrag",
    cancelledNotice: { invoice: "Deze factuur is geannuleerd: er hoeft niets betaald te worden.", credit_note: "Deze creditnota is geannuleerd: er wordt niets terugbetaald.", interest_note: "Deze nota van nalatigheidsintresten is geannuleerd: er hoeft niets betaald te worden." },
    pricing: {
      discount: "Korting",
      allowance: "Korting",
      charge: "Toeslag",
      percentOf: (percent, base) => `${percent} van ${base}`,
      lineTotal: "Totaal van de regels",
      allowances: "Kortingen",
      charges: "Toeslagen",
      pricesIncludeVat: "Prijzen en regelbedragen zijn inclusief btw.",
    },
    payment: "Betaling",
    iban: "IBAN",
    bic: "BIC",
    accountHolder: "Rekeninghouder",
    paymentReference: "Betalingskenmerk",
    payBy: "Gelieve te betalen voor",
    scanToPay: "Scan met uw bankapp",
    nothingDue: "Er staat niets meer open.",
    notes: "Opmerkingen",
    paymentTerms: "Betalingsvoorwaarden",
    page: (p, n) => `Pagina ${p} van ${n}`,
    continued: "vervolg",
    categories: { S: "Normaal tarief", Z: "Nultarief", E: "Vrijgesteld", AE: "Btw verlegd", K: "Intracommunautaire levering", G: "Uitvoer buiten de EU", O: "Niet onderworpen aan btw" },
    vatex: {
      "VATEX-EU-AE": "Btw verlegd",
      "VATEX-EU-IC": "Intracommunautaire levering",
      "VATEX-EU-G": "Uitvoer buiten de EU",
      "VATEX-EU-O": "Niet onderworpen aan btw",
    },
    units: { C62: "st.", H87: "st.", HUR: "u", DAY: "dag", WEE: "week", MON: "maand", ANN: "jaar", MIN: "min", KGM: "kg", GRM: "g", MTR: "m", KMT: "km", MTK: "m²", MTQ: "m³", LTR: "l", E48: "dienst", LS: "forfait", SET: "set" },
    decimal: ",",
    group: ".",
    symbolBefore: false,
    date: (iso) => {
      const p = parts(iso);
      return p ? `${two(p[2])}/${two(p[1])}/${p[0]}` : iso;
    },
  },
  fr: {
    invoice: "Facture",
    creditNote: "Note de crédit",
    interestNote: "Note d’intérêts de retard",
    lateInvoice: "Facture payée en retard",
    draft: "BROUILLON",
    cancelled: "ANNULÉE",
    number: "Numéro",
    issueDate: "Date de facture",
    dueDate: "Date d’échéance",
    buyerReference: "Votre référence",
    servicePeriod: "Période de service",
    orderReference: "Référence de commande",
    creditedInvoice: "Crédite la facture",
    billTo: "Facturé à",
    vatNumber: "N° TVA",
    companyNumber: "N° d’immatriculation",
    email: "E-mail",
    phone: "Téléphone",
    description: "Description",
    quantity: "Qté",
    unit: "Unité",
    unitPrice: "Prix unitaire",
    vatPercent: "TVA",
    amount: "Montant",
    vatBreakdown: "Détail de la TVA",
    category: "Catégorie",
    rate: "Taux",
    taxableAmount: "Base imposable",
    vatAmount: "TVA",
    exemptionReason: "Motif d’exonération",
    subtotal: "Sous-total",
    totalVat: "TVA",
    total: "Total",
    paid: "Payé",
    amountDue: "Montant dû",
    amountCredited: "Montant crédité",
    credited: "Crédité",
    creditNoteFor: (n) => `Note de crédit relative à la facture ${n}`,
    creditNoteDate: "Date de la note de crédit",
    creditTo: "Crédité à",
    setOffAgainst: (n) => `Imputé sur la facture ${n}`,
    refunded: "Remboursé",
    amountToRefund: "Montant à rembourser",
    cancelledNotice: { invoice: "Cette facture a été annulée : aucun paiement n’est dû.", credit_note: "Cette note de crédit a été annulée : aucun remboursement n’est dû.", interest_note: "Cette note d’intérêts de retard a été annulée : aucun paiement n’est dû." },
    pricing: {
      discount: "Remise",
      allowance: "Remise",
      charge: "Frais",
      percentOf: (percent, base) => `${percent} de ${base}`,
      lineTotal: "Total des lignes",
      allowances: "Remises",
      charges: "Frais",
      pricesIncludeVat: "Prix et montants des lignes TVA comprise.",
    },
    payment: "Paiement",
    iban: "IBAN",
    bic: "BIC",
    accountHolder: "Titulaire du compte",
    paymentReference: "Référence de paiement",
    payBy: "À payer avant le",
    scanToPay: "Scannez avec votre app bancaire",
    nothingDue: "Aucun montant n’est dû.",
    notes: "Remarques",
    paymentTerms: "Conditions de paiement",
    page: (p, n) => `Page ${p} sur ${n}`,
    continued: "suite",
    categories: { S: "Taux normal", Z: "Taux zéro", E: "Exonéré", AE: "Autoliquidation", K: "Livraison intracommunautaire", G: "Exportation hors UE", O: "Hors champ de la TVA" },
    vatex: {
      "VATEX-EU-AE": "Autoliquidation",
      "VATEX-EU-IC": "Livraison intracommunautaire exonérée",
      "VATEX-EU-G": "Exportation hors UE",
      "VATEX-EU-O": "Hors champ de la TVA",
    },
    units: { C62: "pce", H87: "pce", HUR: "h", DAY: "jour", WEE: "sem.", MON: "mois", ANN: "an", MIN: "min", KGM: "kg", GRM: "g", MTR: "m", KMT: "km", MTK: "m²", MTQ: "m³", LTR: "l", E48: "service", LS: "forfait", SET: "lot" },
    decimal: ",",
    // a no-break space, as French typography groups thousands
    group: "\u00a0",
    symbolBefore: false,
    date: (iso) => {
      const p = parts(iso);
      return p ? `${two(p[2])}/${two(p[1])}/${p[0]}` : iso;
    },
  },
  de: {
    invoice: "Rechnung",
    creditNote: "Gutschrift",
    interestNote: "Zinsrechnung",
    lateInvoice: "Verspätet bezahlte Rechnung",
    draft: "ENTWURF",
    cancelled: "STORNIERT",
    number: "Nummer",
    issueDate: "Rechnungsdatum",
    dueDate: "Fällig am",
    buyerReference: "Ihre Referenz",
    servicePeriod: "Leistungszeitraum",
    orderReference: "Bestellnummer",
    creditedInvoice: "Korrigiert Rechnung",
    billTo: "Rechnung an",
    vatNumber: "USt-IdNr.",
    companyNumber: "Registernummer",
    email: "E-Mail",
    phone: "Telefon",
    description: "Beschreibung",
    quantity: "Menge",
    unit: "Einheit",
    unitPrice: "Einzelpreis",
    vatPercent: "USt.",
    amount: "Betrag",
    vatBreakdown: "Umsatzsteuer",
    category: "Kategorie",
    rate: "Satz",
    taxableAmount: "Nettobetrag",
    vatAmount: "USt.",
    exemptionReason: "Befreiungsgrund",
    subtotal: "Zwischensumme",
    totalVat: "USt.",
    total: "Gesamt",
    paid: "Bezahlt",
    amountDue: "Offener Betrag",
    amountCredited: "Gutgeschriebener Betrag",
    credited: "Gutgeschrieben",
    creditNoteFor: (n) => `Gutschrift zur Rechnung ${n}`,
    creditNoteDate: "Gutschriftsdatum",
    creditTo: "Gutschrift an",
    setOffAgainst: (n) => `Verrechnet mit Rechnung ${n}`,
    refunded: "Erstattet",
    amountToRefund: "Zu erstattender Betrag",
    cancelledNotice: { invoice: "Diese Rechnung wurde storniert: Es ist nichts zu zahlen.", credit_note: "Diese Gutschrift wurde storniert: Es wird nichts erstattet.", interest_note: "Diese Zinsrechnung wurde storniert: Es ist nichts zu zahlen." },
    pricing: {
      discount: "Rabatt",
      allowance: "Nachlass",
      charge: "Zuschlag",
      percentOf: (percent, base) => `${percent} von ${base}`,
      lineTotal: "Summe der Positionen",
      allowances: "Nachlässe",
      charges: "Zuschläge",
      pricesIncludeVat: "Preise und Positionsbeträge inklusive MwSt.",
    },
    payment: "Zahlung",
    iban: "IBAN",
    bic: "BIC",
    accountHolder: "Kontoinhaber",
    paymentReference: "Verwendungszweck",
    payBy: "Zahlbar bis",
    scanToPay: "Mit Ihrer Banking-App scannen",
    nothingDue: "Es ist nichts offen.",
    notes: "Hinweise",
    paymentTerms: "Zahlungsbedingungen",
    page: (p, n) => `Seite ${p} von ${n}`,
    continued: "Fortsetzung",
    categories: { S: "Regelsteuersatz", Z: "Nullsatz", E: "Steuerbefreit", AE: "Steuerschuldnerschaft des Leistungsempfängers", K: "Innergemeinschaftliche Lieferung", G: "Ausfuhrlieferung", O: "Nicht steuerbar" },
    vatex: {
      "VATEX-EU-AE": "Steuerschuldnerschaft des Leistungsempfängers",
      "VATEX-EU-IC": "Steuerfreie innergemeinschaftliche Lieferung",
      "VATEX-EU-G": "Steuerfreie Ausfuhrlieferung",
      "VATEX-EU-O": "Nicht steuerbar",
    },
    units: { C62: "Stk.", H87: "Stk.", HUR: "Std.", DAY: "Tag", WEE: "Woche", MON: "Monat", ANN: "Jahr", MIN: "Min.", KGM: "kg", GRM: "g", MTR: "m", KMT: "km", MTK: "m²", MTQ: "m³", LTR: "l", E48: "Leistung", LS: "pauschal", SET: "Satz" },
    decimal: ",",
    group: ".",
    symbolBefore: false,
    date: (iso) => {
      const p = parts(iso);
      return p ? `${two(p[2])}.${two(p[1])}.${p[0]}` : iso;
    },
  },
};

const SYMBOLS: Record<string, string> = { EUR: "€", USD: "$", GBP: "£", JPY: "¥", CHF: "CHF", SEK: "kr", NOK: "kr", DKK: "kr", PLN: "zł", CZK: "Kč" };

/** 123456 → "1,234.56" (en) or "1.234,56" (nl, de); `fraction` digits of the integer's scale. */
export function formatNumber(labels: DocumentLabels, scaled: number, { trim = false }: { trim?: boolean } = {}): string {
  const negative = scaled < 0;
  const abs = Math.abs(scaled);
  const whole = Math.floor(abs / 100);
  let fraction = two(abs % 100);
  if (trim) fraction = fraction.replace(/0+$/, "");
  const grouped = String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, labels.group);
  return `${negative ? "-" : ""}${grouped}${fraction ? labels.decimal + fraction : ""}`;
}

/** An amount in cents with its currency: "€1,234.56", "1.234,56 €", "USD" spelled "$". */
export function formatMoney(labels: DocumentLabels, cents: number, currency: string): string {
  const symbol = SYMBOLS[currency] ?? currency;
  const number = formatNumber(labels, cents);
  if (labels.symbolBefore && symbol.length === 1) {
    return number.startsWith("-") ? `-${symbol}${number.slice(1)}` : `${symbol}${number}`;
  }
  return `${number}\u00a0${symbol}`;
}

/** A quantity in hundredths, without trailing zeros: 125 → "1.25", 200 → "2". */
export function formatQuantity(labels: DocumentLabels, hundredths: number): string {
  return formatNumber(labels, hundredths, { trim: true });
}

/** A rate in hundredths of a percent: 2100 → "21 %", 550 → "5,5 %". */
export function formatRate(labels: DocumentLabels, bp: number): string {
  return `${formatNumber(labels, bp, { trim: true })}\u00a0%`;
}

// ------------------------------------------------------------------------------------------------
// the date of supply (EN 16931 BT-72), a block of its own: the particulars' label when it differs
// from the issue date, and the sentence a document carries when it is the issue date (a German
// seller's Leistungsdatum, docs/invoicing.md#germany)
export const SUPPLY_DATE_LABELS: Record<DocumentLanguage, { deliveryDate: string; isIssueDate: string }> = {
  en: { deliveryDate: "Date of supply", isIssueDate: "Date of supply: the invoice date." },
  nl: { deliveryDate: "Leveringsdatum", isIssueDate: "Leveringsdatum: de factuurdatum." },
  fr: { deliveryDate: "Date de livraison", isIssueDate: "Date de livraison ou de prestation : la date de la facture." },
  de: { deliveryDate: "Leistungsdatum", isIssueDate: "Leistungsdatum entspricht dem Rechnungsdatum." },
};
