/**
 * The words of every document type for a seller in Belgium, France, Germany and the Netherlands,
 * in each of the four document languages, read back with poppler's `pdftotext`: each VAT rate
 * named standard or reduced as the seller's country has them (BE 21 / 6, FR 20 / 5.5, DE 19 / 7,
 * NL 21 / 9), the other categories by name, the payment reference called a structured
 * communication only when it is a Belgian one, the VAT and company numbers as their country names
 * them. The expected words are the law's and the countries' own terms, written here.
 *
 * Then, through the API, an interest note in the customer's language: its lines and remark in
 * Dutch, French and German (figures worked out by hand as in tests/interest/interest.test.ts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DocumentLanguage, IssuedDocument } from "../../server/documents/model.ts";
import { renderPdf } from "../../server/documents/pdf.ts";
import { documentEmail } from "../../server/sending/messages.ts";
import { issued, party, type LineIn } from "../document-fixtures.ts";
import { createTestEnv } from "../helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "kontor-wording-"));
const env = await createTestEnv();
afterAll(() => {
  env.close();
  if (process.env.KONTOR_KEEP_PDF) console.log(`PDFs kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
});

const LANGUAGES = ["en", "nl", "fr", "de"] as const;
const flat = (text: string) => text.replace(/\u00a0/g, " ").replace(/\s+/g, " ");

function pdftotext(file: string, ...options: string[]): string {
  const p = Bun.spawnSync(["pdftotext", "-enc", "UTF-8", ...options, file, "-"], { stdout: "pipe", stderr: "pipe" });
  expect(p.exitCode).toBe(0);
  return p.stdout.toString().replace(/\u00a0/g, " ");
}

async function render(doc: IssuedDocument, name: string) {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, await renderPdf(doc));
  return { file, text: flat(pdftotext(file)), layout: pdftotext(file, "-layout") };
}

// ---------------------------------------------------------------------------------------------
// the sellers: their identifiers, their rates, their payment reference

type Country = "BE" | "FR" | "DE" | "NL";
const SELLERS: Record<Country, { seller: ReturnType<typeof party>; buyer: ReturnType<typeof party>; standard: number; reduced: number; reference: string; iban: string }> = {
  BE: {
    seller: party({ name: "Atelier Zoë BV", address: "Wetstraat 16", postalCode: "1000", city: "Brussel", country: "BE", vatNumber: "BE0123456749", companyNumber: "0123.456.749" }),
    buyer: party({ name: "Brasserie Dupont SA", address: "Rue de l’Église 5", postalCode: "4000", city: "Liège", country: "BE", vatNumber: "BE0404795549" }),
    standard: 21,
    reduced: 6,
    reference: "+++123/4567/89002+++",
    iban: "BE68539007547034",
  },
  FR: {
    seller: party({ name: "Éléphants SARL", address: "12 rue de la Paix", postalCode: "75002", city: "Paris", country: "FR", vatNumber: "FR40303265045", companyNumber: "303 265 045" }),
    // an establishment's 14-digit SIRET
    buyer: party({ name: "Boulangerie Martin SAS", address: "3 place Bellecour", postalCode: "69002", city: "Lyon", country: "FR", vatNumber: "FR44732829320", companyNumber: "732 829 320 00074" }),
    standard: 20,
    reduced: 5.5,
    reference: "RF712348231",
    iban: "FR1420041010050500013M02606",
  },
  DE: {
    seller: party({ name: "Müller GmbH", address: "Königstraße 3", postalCode: "70173", city: "Stuttgart", country: "DE", vatNumber: "DE123456789", companyNumber: "HRB 12345" }),
    buyer: party({ name: "Bäckerei Groß KG", address: "Weißenburger Straße 9", postalCode: "81667", city: "München", country: "DE", vatNumber: "DE987654321" }),
    standard: 19,
    reduced: 7,
    reference: "RF18539007547034",
    iban: "DE89370400440532013000",
  },
  NL: {
    seller: party({ name: "Van Dijk BV", address: "Keizersgracht 1", postalCode: "1015 CJ", city: "Amsterdam", country: "NL", vatNumber: "NL123456789B01", companyNumber: "12345678" }),
    buyer: party({ name: "De Bakker VOF", address: "Markt 2", postalCode: "3511 AA", city: "Utrecht", country: "NL", vatNumber: "NL987654321B01" }),
    standard: 21,
    reduced: 9,
    reference: "RF4512345678",
    iban: "NL91ABNA0417164300",
  },
};

/** What each language calls the categories other than S (the EN 16931 code before each). */
const CATEGORIES: Record<DocumentLanguage, Record<"Z" | "E" | "AE" | "K" | "G" | "O", string>> = {
  en: { Z: "Zero rated", E: "Exempt", AE: "Reverse charge", K: "Intra-EU supply", G: "Export outside the EU", O: "Not subject to VAT" },
  nl: { Z: "Nultarief", E: "Vrijgesteld", AE: "Btw verlegd", K: "Intracommunautaire levering", G: "Uitvoer buiten de EU", O: "Niet onderworpen aan btw" },
  fr: { Z: "Taux zéro", E: "Exonéré", AE: "Autoliquidation", K: "Livraison intracommunautaire", G: "Exportation hors UE", O: "Hors champ de la TVA" },
  de: { Z: "Nullsatz", E: "Steuerbefreit", AE: "Steuerschuldnerschaft des Leistungsempfängers", K: "Innergemeinschaftliche Lieferung", G: "Ausfuhrlieferung", O: "Nicht steuerbar" },
};

/** A standard and a reduced rate, as the law of each country (and language) names them. */
const RATE_NAMES: Record<Country, Record<DocumentLanguage, [string, string]>> = {
  BE: { en: ["Standard rate", "Reduced rate"], nl: ["Normaal tarief", "Verlaagd tarief"], fr: ["Taux normal", "Taux réduit"], de: ["Regelsteuersatz", "Ermäßigter Steuersatz"] },
  FR: { en: ["Standard rate", "Reduced rate"], nl: ["Normaal tarief", "Verlaagd tarief"], fr: ["Taux normal", "Taux réduit"], de: ["Regelsteuersatz", "Ermäßigter Steuersatz"] },
  DE: { en: ["Standard rate", "Reduced rate"], nl: ["Normaal tarief", "Verlaagd tarief"], fr: ["Taux normal", "Taux réduit"], de: ["Regelsteuersatz", "Ermäßigter Steuersatz"] },
  // the Belastingdienst's "algemeen tarief"
  NL: { en: ["Standard rate", "Reduced rate"], nl: ["Algemeen tarief", "Verlaagd tarief"], fr: ["Taux normal", "Taux réduit"], de: ["Regelsteuersatz", "Ermäßigter Steuersatz"] },
};

/** The seller's and the buyer's identifiers, labelled as their country names them: [VAT number label, company number label, buyer's company number label]. */
const IDENTIFIERS: Record<Country, Record<DocumentLanguage, { vat: string; company: string; buyerCompany?: string }>> = {
  BE: {
    en: { vat: "VAT number", company: "Enterprise number" },
    nl: { vat: "Btw-nummer", company: "Ondernemingsnummer" },
    fr: { vat: "N° TVA", company: "N° d’entreprise" },
    de: { vat: "MwSt-Nr.", company: "Unternehmensnummer" },
  },
  FR: {
    en: { vat: "VAT number", company: "SIREN", buyerCompany: "SIRET" },
    nl: { vat: "Btw-nummer", company: "SIREN", buyerCompany: "SIRET" },
    fr: { vat: "N° TVA intracommunautaire", company: "SIREN", buyerCompany: "SIRET" },
    de: { vat: "USt-IdNr.", company: "SIREN", buyerCompany: "SIRET" },
  },
  DE: {
    en: { vat: "VAT ID", company: "Commercial register" },
    nl: { vat: "Btw-nummer", company: "Handelsregister" },
    fr: { vat: "N° TVA", company: "Registre du commerce" },
    de: { vat: "USt-IdNr.", company: "Handelsregister" },
  },
  NL: {
    en: { vat: "VAT number", company: "KvK number" },
    nl: { vat: "Btw-nummer", company: "KvK-nummer" },
    fr: { vat: "N° TVA", company: "N° KvK" },
    de: { vat: "USt-IdNr.", company: "KvK-Nummer" },
  },
};

const STRUCTURED: Record<DocumentLanguage, string> = { en: "Structured communication", nl: "Gestructureerde mededeling", fr: "Communication structurée", de: "Strukturierte Mitteilung" };
const NEUTRAL_REFERENCE: Record<DocumentLanguage, string> = { en: "Payment reference", nl: "Betalingskenmerk", fr: "Référence de paiement", de: "Verwendungszweck" };
const TITLES: Record<DocumentLanguage, { invoice: string; creditNote: string; interestNote: string; draft: string; cancelled: string }> = {
  en: { invoice: "Invoice", creditNote: "Credit note", interestNote: "Interest note", draft: "DRAFT", cancelled: "CANCELLED" },
  nl: { invoice: "Factuur", creditNote: "Creditnota", interestNote: "Nota van nalatigheidsintresten", draft: "CONCEPT", cancelled: "GEANNULEERD" },
  fr: { invoice: "Facture", creditNote: "Note de crédit", interestNote: "Note d’intérêts de retard", draft: "BROUILLON", cancelled: "ANNULÉE" },
  de: { invoice: "Rechnung", creditNote: "Gutschrift", interestNote: "Zinsrechnung", draft: "ENTWURF", cancelled: "STORNIERT" },
};
/** Belgian words a French, German or Dutch seller's document must never carry. */
const BELGIAN_ONLY = ["Communication structurée", "Gestructureerde mededeling", "Strukturierte Mitteilung", "Structured communication", "N° d’entreprise", "Unternehmensnummer", "Ondernemingsnummer", "Enterprise number"];

function documents(country: Country, language: DocumentLanguage) {
  const s = SELLERS[country];
  const common = { language, seller: s.seller, buyer: s.buyer, payee: { iban: s.iban, bic: null, accountName: s.seller.name }, paymentReference: s.reference };
  const lines: LineIn[] = [
    { description: "Beratung", quantity: 2, unitPrice: 100, rate: s.standard },
    { description: "Bücher", quantity: 1, unitPrice: 50, rate: s.reduced },
    { description: "Lieferung A", quantity: 1, unitPrice: 10, rate: 0, category: "Z" },
    { description: "Lieferung B", quantity: 1, unitPrice: 11, rate: 0, category: "E" },
    { description: "Lieferung C", quantity: 1, unitPrice: 12, rate: 0, category: "AE" },
    { description: "Lieferung D", quantity: 1, unitPrice: 13, rate: 0, category: "K" },
    { description: "Lieferung E", quantity: 1, unitPrice: 14, rate: 0, category: "G" },
  ];
  const invoice = issued({ ...common, number: `${country}-F-1`, lines });
  const credit = issued({ ...common, type: "credit_note", number: `${country}-C-1`, credited: { number: `${country}-F-1`, issueDate: "2026-03-02" }, lines: lines.slice(0, 2) });
  const interest = issued({
    ...common,
    type: "interest_note",
    number: `${country}-INT-1`,
    credited: { number: `${country}-F-1`, issueDate: "2026-03-02" },
    lines: [{ description: "Zinsen", quantity: 1, unitPrice: 13.23, rate: 0, category: "O" }],
  });
  const draft = { ...invoice, status: "draft" as const, paymentReference: null };
  const cancelled = { ...invoice, status: "cancelled" as const };
  return { invoice, credit, interest, draft, cancelled };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The diagonal mark: drawn first, so `-raw` reads it first (one letter a line). */
const mark = (file: string) => pdftotext(file, "-raw").replace(/\s+/g, "");

for (const country of ["BE", "FR", "DE", "NL"] as const) {
  describe(`a seller in ${country}`, () => {
    for (const language of LANGUAGES) {
      test(`${language}: invoice, credit note, interest note, draft and cancelled invoice in the words of ${country} and ${language}`, async () => {
        const s = SELLERS[country];
        const docs = documents(country, language);
        const [standard, reduced] = RATE_NAMES[country][language];
        const ids = IDENTIFIERS[country][language];
        const t = TITLES[language];
        const referenceLabel = country === "BE" ? STRUCTURED[language] : NEUTRAL_REFERENCE[language];
        // poppler's -layout drops the (no-break) space of "6 %" at times
        const percent = (rate: number) => `${language === "en" ? String(rate) : String(rate).replace(".", ",")} ?%`;
        // a label and its value on one row of the layout (the particulars, the payment block)
        const row = (label: string, value: string) => new RegExp(`${escape(label)} +${escape(value)}`);

        const invoice = await render(docs.invoice, `${country}-${language}-invoice`);
        expect(invoice.text).toContain(t.invoice);
        // the breakdown's rows: the category's name, then its rate on the same line
        expect(invoice.layout).toMatch(new RegExp(`S · ${standard} +${percent(s.standard)}`));
        expect(invoice.layout).toMatch(new RegExp(`S · ${reduced} +${percent(s.reduced)}`));
        for (const [code, name] of Object.entries(CATEGORIES[language]).filter(([code]) => code !== "O")) expect(invoice.text).toContain(`${code} · ${name}`);
        expect(invoice.text).toContain(`${ids.vat}: ${s.seller.vatNumber}`);
        expect(invoice.text).toContain(`${ids.company}: ${s.seller.companyNumber}`);
        // the buyer's identifiers as its own country names them
        expect(invoice.text).toContain(`${ids.vat}: ${s.buyer.vatNumber}`);
        if (ids.buyerCompany) expect(invoice.text).toContain(`${ids.buyerCompany}: ${s.buyer.companyNumber}`);
        // the footer: the seller's identity again
        expect(invoice.text).toContain(`${ids.vat} ${s.seller.vatNumber}`);
        expect(invoice.layout).toMatch(row(referenceLabel, s.reference));
        if (country !== "BE") for (const word of BELGIAN_ONLY) expect(invoice.text).not.toContain(word);
        // a reduced rate is never called the standard one, nor the reverse
        expect(invoice.layout).not.toMatch(new RegExp(`${standard} +${percent(s.reduced)}`));
        expect(invoice.layout).not.toMatch(new RegExp(`${reduced} +${percent(s.standard)}`));

        const credit = await render(docs.credit, `${country}-${language}-credit`);
        expect(credit.text).toContain(t.creditNote);
        expect(credit.layout).toMatch(row(referenceLabel, s.reference));
        expect(credit.layout).toMatch(new RegExp(`S · ${standard} +${percent(s.standard)}`));
        expect(credit.layout).toMatch(new RegExp(`S · ${reduced} +${percent(s.reduced)}`));
        expect(credit.text).toContain(`${ids.company}: ${s.seller.companyNumber}`);
        if (country !== "BE") for (const word of BELGIAN_ONLY) expect(credit.text).not.toContain(word);

        const interest = await render(docs.interest, `${country}-${language}-interest`);
        expect(interest.text).toContain(t.interestNote);
        expect(interest.text).toContain(`O · ${CATEGORIES[language].O}`);
        expect(interest.layout).toMatch(row(referenceLabel, s.reference));
        expect(interest.text).toContain(`${ids.company}: ${s.seller.companyNumber}`);
        if (country !== "BE") for (const word of BELGIAN_ONLY) expect(interest.text).not.toContain(word);

        const draft = await render(docs.draft, `${country}-${language}-draft`);
        expect(mark(draft.file).startsWith(t.draft)).toBe(true);
        expect(draft.layout).toMatch(new RegExp(`S · ${reduced} +${percent(s.reduced)}`));
        const cancelled = await render(docs.cancelled, `${country}-${language}-cancelled`);
        expect(mark(cancelled.file).startsWith(t.cancelled)).toBe(true);
        expect(cancelled.text).toContain(`${ids.company}: ${s.seller.companyNumber}`);
      });
    }
  });
}

test("a seller whose country has no rate table: its rates are called taxable, neither standard nor reduced", async () => {
  const seller = party({ name: "Acme Ltd", country: "US", vatNumber: null });
  const doc = issued({ language: "en", seller, number: "US-1", lines: [{ description: "Work", quantity: 1, unitPrice: 100, rate: 8 }] });
  const { layout } = await render(doc, "us-en");
  expect(layout).toMatch(/S · Taxable +8 ?%/);
  expect(layout).not.toContain("Standard rate");
  expect(layout).not.toContain("Reduced rate");
});

test("the e-mail that carries a document names its reference as the document does", () => {
  const SAYS: Record<Country, Record<DocumentLanguage, string>> = {
    BE: { en: "structured communication +++123/4567/89002+++", nl: "de gestructureerde mededeling +++123/4567/89002+++", fr: "la communication structurée +++123/4567/89002+++", de: "die strukturierte Mitteilung +++123/4567/89002+++" },
    FR: { en: "payment reference RF712348231", nl: "het betalingskenmerk RF712348231", fr: "la référence de paiement RF712348231", de: "den Verwendungszweck RF712348231" },
    DE: { en: "payment reference RF18539007547034", nl: "het betalingskenmerk RF18539007547034", fr: "la référence de paiement RF18539007547034", de: "den Verwendungszweck RF18539007547034" },
    NL: { en: "payment reference RF4512345678", nl: "het betalingskenmerk RF4512345678", fr: "la référence de paiement RF4512345678", de: "den Verwendungszweck RF4512345678" },
  };
  for (const country of ["BE", "FR", "DE", "NL"] as const) {
    for (const language of LANGUAGES) {
      const { text } = documentEmail(documents(country, language).invoice, null);
      expect(text).toContain(SAYS[country][language]);
      if (country !== "BE") expect(text.toLowerCase()).not.toContain("communication");
    }
  }
});

// ---------------------------------------------------------------------------------------------
// an interest note's lines and remark, through the API, in the customer's language

describe("an interest note in the customer's language", async () => {
  const { token } = await env.newOrg("Late Payments BV", { country: "BE", currency: "EUR" });
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const r = await env.api(method, path, body, token);
    expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
    return r;
  };

  // 1000.00 due 2025-11-15, nothing paid, charged up to 2026-02-28 at 10.50 % (both half years):
  // 2025-11-16–2025-12-31, 46 days: 100000 × 1050 × 46 = 4 830 000 000 / 3 650 000 = 1323.29 → 13.23
  // 2026-01-01–2026-02-28, 59 days: running sum 4 830 000 000 + 6 195 000 000 = 11 025 000 000 / 3 650 000 = 3020.55 → 30.21; 30.21 − 13.23 = 16.98
  // and the fixed €40 of a business customer
  const EXPECTED: Record<DocumentLanguage, { lines: string[]; remark: string[]; foreign: string[] }> = {
    en: {
      lines: ["Interest 2025-11-16–2025-12-31 at 10.50 % on 1000.00 EUR (46 days)", "Interest 2026-01-01–2026-02-28 at 10.50 % on 1000.00 EUR (59 days)", "Fixed compensation for recovery costs"],
      remark: ["Late payment of invoice", "of 2025-10-16, due on 2025-11-15.", "Business customer", "Belgian law of 2 August 2002, art. 5 and 6"],
      foreign: ["Nalatigheidsintrest", "Verzugszinsen"],
    },
    nl: {
      lines: ["Nalatigheidsintrest van 16/11/2025 tot en met 31/12/2025 tegen 10,50 % op 1.000,00 € (46 dagen)", "Nalatigheidsintrest van 01/01/2026 tot en met 28/02/2026 tegen 10,50 % op 1.000,00 € (59 dagen)", "Forfaitaire vergoeding voor invorderingskosten"],
      remark: ["Laattijdige betaling van factuur", "van 16/10/2025, vervallen op 15/11/2025.", "Zakelijke klant", "Belgische wet van 2 augustus 2002, art. 5 en 6", "forfaitaire vergoeding eenmaal per factuur"],
      foreign: ["Interest 20", "Late payment", "Business customer", "Fixed compensation"],
    },
    fr: {
      lines: ["Intérêts de retard du 16/11/2025 au 31/12/2025 au taux de 10,50 % sur 1 000,00 € (46 jours)", "Intérêts de retard du 01/01/2026 au 28/02/2026 au taux de 10,50 % sur 1 000,00 € (59 jours)", "Indemnité forfaitaire pour frais de recouvrement"],
      remark: ["Retard de paiement de la facture", "du 16/10/2025, échue le 15/11/2025.", "Client professionnel", "loi belge du 2 août 2002, art. 5 et 6"],
      foreign: ["Interest 20", "Late payment", "Business customer", "Fixed compensation"],
    },
    de: {
      lines: ["Verzugszinsen vom 16.11.2025 bis 31.12.2025 zu 10,50 % auf 1.000,00 € (46 Tage)", "Verzugszinsen vom 01.01.2026 bis 28.02.2026 zu 10,50 % auf 1.000,00 € (59 Tage)", "Pauschale für Beitreibungskosten"],
      remark: ["Verspätete Zahlung der Rechnung", "vom 16.10.2025, fällig am 15.11.2025.", "Geschäftskunde", "belgisches Gesetz vom 2. August 2002, Art. 5 und 6"],
      foreign: ["Interest 20", "Late payment", "Business customer", "Fixed compensation"],
    },
  };

  for (const language of LANGUAGES) {
    test(`${language}: its lines and remark, in the API and on its PDF`, async () => {
      const customer = (await call("POST", "/api/v1/customers", { name: `Kunde ${language}`, country: "BE", vat_number: "BE0404795549", language }, 201)).body.data;
      const draft = (await call("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2025-10-16", due_date: "2025-11-15", lines: [{ description: "Work", quantity: "1", unit_price: "1000.00" }] }, 201)).body.data;
      const invoice = (await call("POST", `/api/v1/invoices/${draft.id}/finalize`)).body.data;
      const note = (await call("POST", `/api/v1/invoices/${invoice.id}/interest-note`, { as_of: "2026-02-28" }, 201)).body.data;
      const expected = EXPECTED[language];
      // amounts and rates keep their no-break spaces, as the documents write them ("1 000,00 €" whole on a wrapped line)
      expect(note.lines.map((l: any) => [l.description.replace(/\u00a0/g, " "), l.amount])).toEqual([
        [expected.lines[0], "13.23"],
        [expected.lines[1], "16.98"],
        [expected.lines[2], "40.00"],
      ]);
      for (const phrase of expected.remark) expect(note.notes).toContain(phrase);
      expect(note.notes).toContain(invoice.number);
      for (const phrase of expected.foreign) expect(note.notes + note.lines.map((l: any) => l.description).join(" ")).not.toContain(phrase);

      const finalized = (await call("POST", `/api/v1/invoices/${note.id}/finalize`)).body.data;
      const pdf = await call("GET", `/api/v1/invoices/${finalized.id}/pdf`);
      const file = join(dir, `interest-api-${language}.pdf`);
      writeFileSync(file, pdf.bytes);
      const text = flat(pdftotext(file));
      const layout = pdftotext(file, "-layout");
      expect(text).toContain(TITLES[language].interestNote);
      for (const line of expected.lines) expect(text).toContain(line);
      expect(text).toContain(expected.remark[0]!);
      // a Belgian seller's reference is a structured communication, called so in the note's language
      expect(finalized.payment_reference).toMatch(/^\+\+\+\d{3}\/\d{4}\/\d{5}\+\+\+$/);
      expect(layout).toMatch(new RegExp(`${STRUCTURED[language]} +${escape(finalized.payment_reference)}`));
    });
  }
});
