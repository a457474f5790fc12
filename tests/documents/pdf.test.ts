/**
 * The PDF of an issued document, checked as its reader would: poppler's `pdftotext` must find
 * the number, totals, IBAN, payment reference, the euro sign and accented names; `qpdf --check`
 * must find the file sound; `pdffonts` must show the fonts embedded; the page rendered by
 * `pdftoppm` at 200 dpi must carry a QR code that `zbarimg` decodes to the exact EPC069-12
 * payload. The same document renders to the same bytes every time.
 *
 * Fixtures are `IssuedDocument`s built here, so the renderer is tested without a database.
 * The tools come from Debian's poppler-utils, qpdf and zbar-tools (.ci/run installs them).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LABELS } from "../../server/documents/i18n.ts";
import { epcPayload, renderPdf } from "../../server/documents/pdf.ts";
import type { IssuedDocument } from "../../server/documents/model.ts";
import { issued, party } from "../document-fixtures.ts";

const dir = mkdtempSync(join(tmpdir(), "kontor-pdf-"));
// KONTOR_KEEP_PDF=1 keeps the rendered files (and the 200 dpi pages) to look at
afterAll(() => (process.env.KONTOR_KEEP_PDF ? console.log(`PDFs kept in ${dir}`) : rmSync(dir, { recursive: true, force: true })));

function run(cmd: string[]): { code: number; out: string; err: string; bytes: Uint8Array } {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode ?? -1, out: p.stdout.toString(), err: p.stderr.toString(), bytes: new Uint8Array(p.stdout) };
}

// ---------------------------------------------------------------------------------------------
// fixtures (party() and issued(): ./document-fixtures.ts)

const belgian = issued({
  language: "nl",
  number: "F2026-0042",
  paymentReference: "+++123/4567/89002+++",
  buyerReference: "PO-778",
  buyer: party({ name: "Café De Gouden Kroon", address: "Grote Markt 1", postalCode: "9000", city: "Gent", country: "BE", vatNumber: "BE0999999922", email: "boekhouding@kroon.example" }),
  paymentTerms: "Betaling binnen 30 dagen na factuurdatum.",
  lines: [
    { description: "Ontwerp van de huisstijl, inclusief twee correctierondes", quantity: 12.5, unitPrice: 85, unit: "HUR" },
    { description: "Drukwerk visitekaartjes (500 st.)", quantity: 2, unitPrice: 1234.5, rate: 6 },
    { description: "Levering aan Nederlandse vestiging", quantity: 1, unitPrice: 300, rate: 0, category: "AE" },
  ],
});

const german = issued({
  language: "de",
  number: "RE-2026-0007",
  paymentReference: "RF18539007547034",
  orderReference: "Bestellung 4711",
  seller: party({ name: "Müller & Söhne GmbH", address: "Königstraße 3", postalCode: "70173", city: "Stuttgart", country: "DE", vatNumber: "DE123456789", companyNumber: "HRB 12345", email: "rechnung@mueller.example" }),
  buyer: party({ name: "Bäckerei Groß KG", address: "Weißenburger Straße 9", postalCode: "81667", city: "München", country: "DE", vatNumber: "DE987654321" }),
  payee: { iban: "DE89370400440532013000", bic: "COBADEFFXXX", accountName: "Müller & Söhne GmbH" },
  paidCents: 10000,
  lines: [
    { description: "Wartung der Backöfen – Frühjahr", quantity: 3, unitPrice: 420, rate: 19, unit: "HUR" },
    { description: "Ersatzteil Dichtung für Öfen, Größe XL", quantity: 4, unitPrice: 12.99, rate: 19 },
    { description: "Fachbuch „Brot backen“", quantity: 1, unitPrice: 29.9, rate: 7 },
  ],
});

const french = issued({
  language: "fr",
  number: "FA-2026-0110",
  paymentReference: "RF712348231",
  seller: party({ name: "Société Générale des Éléphants SARL", address: "12 rue de l’Église", postalCode: "75004", city: "Paris", country: "FR", vatNumber: "FR40303265045", companyNumber: "303 265 045", email: "compta@elephants.example" }),
  buyer: party({ name: "Hélène Dupré-Lefèvre", address: "3 place de la Concorde", postalCode: "69001", city: "Lyon", country: "FR" }),
  payee: { iban: "FR1420041010050500013M02606", bic: null, accountName: "Société Générale des Éléphants" },
  notes: "Merci de votre confiance — à bientôt !",
  lines: [
    { description: "Création d’un logo « Éléphant déçu », révision n° 2", quantity: 1, unitPrice: 1850, rate: 20 },
    { description: "Traduction Ελληνικά / Русский / Čeština / Łódź", quantity: 1.25, unitPrice: 99.99, rate: 5.5 },
    { description: "Caractères hors police : 東京 ✓", quantity: 1, unitPrice: 10, rate: 20 },
  ],
});

const creditNote = issued({
  type: "credit_note",
  number: "CN-2026-0003",
  language: "en",
  paymentReference: "+++123/4567/89002+++",
  credited: { number: "F2026-0042", issueDate: "2026-03-02" },
  lines: [{ description: "Refund: two correction rounds not delivered", quantity: 2, unitPrice: 85, unit: "HUR" }],
});

const long = issued({
  number: "2026-0100",
  language: "en",
  paymentReference: "RF18539007547034",
  lines: Array.from({ length: 60 }, (_, i) => ({
    description:
      i % 7 === 3
        ? `Line ${i + 1}: a long description that wraps over several lines of the table because it goes on and on about the consulting work done in week ${i + 1}, including travel, preparation and follow-up`
        : `Line ${i + 1}: consulting, week ${i + 1}`,
    quantity: 1 + (i % 4),
    unitPrice: 100 + i,
    rate: i % 3 === 0 ? 6 : 21,
  })),
});

const draft = issued({
  status: "draft",
  number: "2026-D17",
  language: "en",
  paymentReference: null,
  lines: [{ description: "Work in progress", quantity: 1, unitPrice: 500 }],
});

const usd = issued({
  number: "US-2026-0001",
  currency: "USD",
  language: "en",
  paymentReference: "RF18539007547034",
  buyer: party({ name: "Acme Corp.", address: "1 Infinite Loop", postalCode: "95014", city: "Cupertino", country: "US" }),
  lines: [{ description: "Export consulting", quantity: 10, unitPrice: 150, rate: 0, category: "G" }],
});

// ---------------------------------------------------------------------------------------------
// rendering once per fixture, and what the tools make of it

type Checked = { file: string; bytes: Uint8Array; text: string; pages: number };
const rendered = new Map<IssuedDocument, Promise<Checked>>();

function check(doc: IssuedDocument): Promise<Checked> {
  let p = rendered.get(doc);
  if (!p) {
    p = (async () => {
      const bytes = await renderPdf(doc);
      const file = join(dir, `${doc.number}.pdf`);
      writeFileSync(file, bytes);
      const text = run(["pdftotext", "-enc", "UTF-8", file, "-"]);
      expect(text.code).toBe(0);
      const info = run(["pdfinfo", file]);
      const pages = Number(/Pages:\s+(\d+)/.exec(info.out)?.[1]);
      // no-break spaces (thousands in French, before the currency sign) read as spaces
      return { file, bytes, text: text.out.replace(/\u00a0/g, " "), pages };
    })();
    rendered.set(doc, p);
  }
  return p;
}

/** Every QR code on every page, decoded by zbar from a 200 dpi rendering. */
function qrCodes(file: string, name: string): string[] {
  const prefix = join(dir, name);
  expect(run(["pdftoppm", "-r", "200", "-png", file, prefix]).code).toBe(0);
  const found: string[] = [];
  for (const png of readdirSync(dir).filter((f) => f.startsWith(`${name}-`) && f.endsWith(".png")).sort()) {
    // -Sbinary: the symbol's bytes as they are (UTF-8 here), not re-encoded by zbar's guess
    const r = run(["zbarimg", "--quiet", "--raw", "-Sbinary", join(dir, png)]);
    if (r.code === 0) found.push(new TextDecoder().decode(r.bytes));
  }
  return found;
}

const ALL = { belgian, german, french, creditNote, long, draft, usd };

// ---------------------------------------------------------------------------------------------

describe("PDF: every fixture", () => {
  for (const [name, doc] of Object.entries(ALL)) {
    test(`${name}: qpdf --check passes, fonts are embedded, A4`, async () => {
      const { file } = await check(doc);
      const q = run(["qpdf", "--check", file]);
      expect(q.err).toBe("");
      expect(q.code).toBe(0);
      expect(q.out).toContain("No syntax or stream encoding errors found");
      const fonts = run(["pdffonts", file]).out.split("\n").slice(2).filter(Boolean);
      expect(fonts.length).toBeGreaterThanOrEqual(1);
      for (const line of fonts) {
        expect(line).toContain("DejaVuSans");
        // columns: name type encoding emb sub uni
        expect(line).toMatch(/CID TrueType\s+Identity-H\s+yes\s+yes\s+yes/);
      }
      const info = run(["pdfinfo", file]).out;
      expect(info).toMatch(/Page size:\s+595\.28 x 841\.89 pts \(A4\)/);
      expect(info).not.toContain("Producer:        pdf-lib");
    });

    test(`${name}: the same document renders to the same bytes`, async () => {
      const { bytes } = await check(doc);
      const again = await renderPdf(structuredClone(doc));
      expect(Buffer.from(again).equals(Buffer.from(bytes))).toBe(true);
    });

    test(`${name}: the text holds the number, the totals and the names`, async () => {
      const { text } = await check(doc);
      expect(text).toContain(doc.number);
      expect(text).toContain(doc.seller.name);
      expect(text).toContain(doc.buyer.name);
      if (doc.seller.vatNumber) expect(text).toContain(doc.seller.vatNumber);
      for (const line of doc.lines.slice(0, 3)) expect(text.replace(/\s+/g, " ")).toContain(line.description.split(" ").slice(0, 3).join(" "));
    });
  }
});

describe("PDF: what a reader reads", () => {
  test("Belgian invoice (nl): euro amounts, IBAN, structured communication, VAT breakdown with reverse charge", async () => {
    const { text } = await check(belgian);
    expect(text).toContain("Factuur");
    expect(text).toContain("Café De Gouden Kroon");
    expect(text).toContain("Atelier Zoë & Søren BV");
    expect(text).toContain("0123.456.749");
    expect(text).toContain("PO-778");
    expect(text).toContain("02/03/2026");
    expect(text).toContain("01/04/2026");
    // 12.5 h × 85 = 1 062.50; 2 × 1 234.50 = 2 469.00; 300 at 0 %: subtotal 3 831.50,
    // VAT 223.13 + 148.14 = 371.27, total 4 202.77
    expect(belgian.totalCents).toBe(420277);
    expect(text).toContain("3.831,50 €");
    expect(text).toContain("371,27 €");
    expect(text).toContain("4.202,77 €");
    expect(text).toContain("12,5");
    expect(text).toContain("BE68 5390 0754 7034");
    expect(text).toContain("GKCCBEBB");
    expect(text).toContain("+++123/4567/89002+++");
    expect(text).toContain("Btw verlegd");
    expect(text).toContain("VATEX-EU-AE");
    expect(text).toContain("21 %");
    expect(text).toMatch(/\b6 ?%/);
    expect(text).not.toContain("\ufffd");
  });

  test("German invoice (de): labels, umlauts, a partial payment and the amount due", async () => {
    const { text } = await check(german);
    for (const word of ["Rechnung", "Rechnungsdatum", "Fällig am", "Zwischensumme", "Offener Betrag", "Bestellung 4711", "Bäckerei Groß KG", "Weißenburger Straße 9", "München", "Wartung der Backöfen – Frühjahr", "Fachbuch „Brot backen“"]) {
      expect(text).toContain(word);
    }
    expect(text).toContain("DE89 3704 0044 0532 0130 00");
    expect(text).toContain("RF18539007547034");
    expect(text).toContain(formatDe(german.totalCents));
    expect(text).toContain(formatDe(german.dueCents));
    expect(text).toContain("-100,00 €");
  });

  test("French invoice (fr): accents, other scripts, a glyph the font lacks replaced, not dropped", async () => {
    const { text } = await check(french);
    for (const word of ["Facture", "Société Générale des Éléphants SARL", "Hélène Dupré-Lefèvre", "12 rue de l’Église", "« Éléphant déçu »", "Ελληνικά", "Русский", "Čeština", "Łódź", "Montant dû", "Merci de votre confiance — à bientôt !"]) {
      expect(text).toContain(word);
    }
    // 1 850.00 + 124.99 (1.25 × 99.99 = 124.9875 → 124.99) + 10.00; French groups thousands
    expect(text).toContain("1 984,99 €");
    expect(text).toContain("5,5 %");
    // CJK is beyond DejaVu Sans: shown as the replacement character, and the rest stays intact
    expect(text).toContain("Caractères hors police : \ufffd\ufffd ✓");
  });

  test("credit note: titled so, names the invoice it credits, asks no payment and has no QR code", async () => {
    const { text, file } = await check(creditNote);
    expect(text).toContain("Credit note");
    expect(text).toContain("Credits invoice");
    expect(text).toContain("F2026-0042 (2 March 2026)");
    expect(text).toContain("€205.70");
    expect(text).toContain("Amount credited");
    expect(text).toContain("+++123/4567/89002+++");
    expect(text).not.toContain("Please pay by");
    expect(text).not.toContain("BE68 5390 0754 7034");
    expect(epcPayload(creditNote)).toBeNull();
    expect(qrCodes(file, "credit")).toEqual([]);
  });

  test("60 lines continue over pages with the table header repeated and numbered pages", async () => {
    const { text, pages } = await check(long);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(text).toContain(`Page 1 of ${pages}`);
    expect(text).toContain(`Page ${pages} of ${pages}`);
    const flat = text.replace(/\s+/g, " ");
    for (let i = 1; i <= 60; i++) expect(flat).toContain(`Line ${i}:`);
    expect(flat).toContain("including travel, preparation and follow-up");
    // the table's header again on every page that continues it
    const withLines = text.split("\f").filter((page) => /Line \d+:/.test(page));
    expect(withLines.length).toBeGreaterThanOrEqual(2);
    for (const page of withLines) expect(page).toContain("Unit price");
    expect(text).toContain(formatEn(long.totalCents));
  });

  test("a draft shows the DRAFT mark, a cancelled document CANCELLED (localised); neither asks payment", async () => {
    const { file } = await check(draft);
    // -raw reads in drawing order, and the diagonal mark is drawn first (under the content);
    // poppler gives a diagonal word one letter a line
    const mark = (file: string) => run(["pdftotext", "-raw", file, "-"]).out.replace(/\s+/g, "");
    expect(mark(file).startsWith("DRAFT")).toBe(true);
    expect(epcPayload(draft)).toBeNull();
    expect(qrCodes(file, "draft")).toEqual([]);
    const fr = await renderPdf({ ...draft, language: "fr" });
    const frFile = join(dir, "draft-fr.pdf");
    writeFileSync(frFile, fr);
    expect(mark(frFile).startsWith("BROUILLON")).toBe(true);
    // a finalized document carries no mark
    expect(mark((await check(belgian)).file).startsWith("Atelier")).toBe(true);
    // a cancelled one says so, in its language, and asks no payment
    const cancelled = { ...belgian, status: "cancelled" as const };
    const cancelledFile = join(dir, "cancelled-nl.pdf");
    writeFileSync(cancelledFile, await renderPdf(cancelled));
    expect(mark(cancelledFile).startsWith("GEANNULEERD")).toBe(true);
    expect(epcPayload(cancelled)).toBeNull();
  });

  test("a USD invoice has no EPC QR code (EPC is for euro credit transfers)", async () => {
    const { text, file } = await check(usd);
    expect(text).toContain("$1,500.00");
    expect(text).toContain("Export outside the EU");
    expect(epcPayload(usd)).toBeNull();
    expect(qrCodes(file, "usd")).toEqual([]);
  });
});

describe("PDF: what a client may store stays on the page", () => {
  test("a 200-character reference wraps, an address of many lines is joined up; nothing is drawn off the page", async () => {
    const crowded = issued({
      number: "F2026-CROWDED",
      buyerReference: "Ω".repeat(200),
      orderReference: "PO ".repeat(66),
      buyer: party({ name: "Crowded NV", address: Array.from({ length: 60 }, (_, i) => `Line ${i}`).join("\n"), postalCode: "9000", city: "Gent", country: "BE" }),
      lines: [{ description: "Work", quantity: 1, unitPrice: 10 }],
    });
    const { file, text } = await check(crowded);
    expect(text.match(/Ω/g)).toHaveLength(200); // all of it, over several lines
    expect(text).toContain("Line 3, Line 4");
    // every word inside the A4 page (595.28 × 841.89 pt)
    const boxes = run(["pdftotext", "-bbox", file, "-"]).out;
    const words = [...boxes.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)"/g)].map((m) => m.slice(1).map(Number));
    expect(words.length).toBeGreaterThan(20);
    for (const [xMin, yMin, xMax, yMax] of words) {
      expect(xMin).toBeGreaterThanOrEqual(0);
      expect(yMin).toBeGreaterThanOrEqual(0);
      expect(xMax).toBeLessThanOrEqual(595.28);
      expect(yMax).toBeLessThanOrEqual(841.89);
    }
  });
});

describe("PDF: the EPC QR code decodes to the exact payload", () => {
  test("Belgian structured communication goes in the unstructured remittance line", async () => {
    const expected = ["BCD", "002", "1", "SCT", "GKCCBEBB", "Atelier Zoë & Søren BV", "BE68539007547034", "EUR4202.77", "", "", "+++123/4567/89002+++"].join("\n");
    expect(epcPayload(belgian)).toBe(expected);
    expect(qrCodes((await check(belgian)).file, "belgian")).toEqual([expected]);
  });

  test("an RF creditor reference goes in the structured field; the amount is what is still due", async () => {
    const expected = ["BCD", "002", "1", "SCT", "COBADEFFXXX", "Müller & Söhne GmbH", "DE89370400440532013000", `EUR${(german.dueCents / 100).toFixed(2)}`, "", "RF18539007547034"].join("\n");
    expect(epcPayload(german)).toBe(expected);
    expect(qrCodes((await check(german)).file, "german")).toEqual([expected]);
  });

  test("no BIC: the field stays empty (EPC069-12 v2 makes it optional within the EEA)", async () => {
    const expected = ["BCD", "002", "1", "SCT", "", "Société Générale des Éléphants", "FR1420041010050500013M02606", "EUR2363.86", "", "RF712348231"].join("\n");
    expect(epcPayload(french)).toBe(expected);
    expect(qrCodes((await check(french)).file, "french")).toEqual([expected]);
  });

  test("on a multi-page invoice the QR code is on the page with the payment block", async () => {
    const codes = qrCodes((await check(long)).file, "long");
    expect(codes).toEqual([epcPayload(long)!]);
  });

  test("nothing due, nothing to scan", () => {
    expect(epcPayload({ ...belgian, status: "paid", paidCents: belgian.totalCents, dueCents: 0 })).toBeNull();
    expect(epcPayload({ ...belgian, payee: null })).toBeNull();
  });
});

function formatDe(cents: number): string {
  const [whole, fraction] = (cents / 100).toFixed(2).split(".");
  return `${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ".")},${fraction} €`;
}
function formatEn(cents: number): string {
  const [whole, fraction] = (cents / 100).toFixed(2).split(".");
  return `€${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${fraction}`;
}

// ---------------------------------------------------------------------------------------------
// issue 26 item 7: a credit note's words, a cancelled or settled document, the footer's layout

const LANGUAGES = ["en", "nl", "fr", "de"] as const;
const flat = (text: string) => text.replace(/\s+/g, " ");

async function renderTo(doc: IssuedDocument, name: string): Promise<{ file: string; text: string }> {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, await renderPdf(doc));
  return { file, text: run(["pdftotext", "-enc", "UTF-8", file, "-"]).out.replace(/\u00a0/g, " ") };
}

describe("PDF: a credit note in its own words, in the four document languages", () => {
  // CN-2026-0003 credits 2 h × 85.00 + 21 % = 205.70; 155.70 of it settled the open invoice, 50.00 is owed to the customer
  const settled = { ...creditNote, dueCents: 5000 };
  const WORDS = {
    en: { title: "Credit note", about: "Credit note for invoice F2026-0042", setOff: "Set off against invoice F2026-0042", refund: "Amount to be refunded", to: "CREDITED TO", money: ["€205.70", "-€155.70", "€50.00"] },
    nl: { title: "Creditnota", about: "Creditnota bij factuur F2026-0042", setOff: "Verrekend met factuur F2026-0042", refund: "Terug te betalen bedrag", to: "GECREDITEERD AAN", money: ["205,70 €", "-155,70 €", "50,00 €"] },
    fr: { title: "Note de crédit", about: "Note de crédit relative à la facture F2026-0042", setOff: "Imputé sur la facture F2026-0042", refund: "Montant à rembourser", to: "CRÉDITÉ À", money: ["205,70 €", "-155,70 €", "50,00 €"] },
    de: { title: "Gutschrift", about: "Gutschrift zur Rechnung F2026-0042", setOff: "Verrechnet mit Rechnung F2026-0042", refund: "Zu erstattender Betrag", to: "GUTSCHRIFT AN", money: ["205,70 €", "-155,70 €", "50,00 €"] },
  };
  for (const language of LANGUAGES) {
    test(`${language}: titled, addressed and totalled as a credit note, never with an invoice's words`, async () => {
      const words = WORDS[language];
      const { text, file } = await renderTo({ ...settled, language }, `credit-${language}`);
      expect(text).toMatch(new RegExp(`^${words.title}$`, "m"));
      for (const phrase of [words.about, words.setOff, words.refund, words.to, ...words.money]) expect(flat(text)).toContain(phrase);
      // the invoice's own words: its title alone on a line, its addressee, due date, amount due, pay-by line, QR caption
      const invoice = LABELS[language];
      expect(text).not.toMatch(new RegExp(`^${invoice.invoice}$`, "m"));
      for (const phrase of [invoice.billTo.toUpperCase(), invoice.dueDate, invoice.amountDue, invoice.payBy, invoice.scanToPay, invoice.nothingDue]) {
        expect(flat(text)).not.toContain(phrase);
      }
      if (invoice.issueDate !== invoice.creditNoteDate) expect(text).not.toContain(invoice.issueDate);
      expect(text).not.toContain("BE68 5390 0754 7034");
      expect(qrCodes(file, `credit-${language}`)).toEqual([]);
    });
  }

  test("a draft credit note shows what it credits, no refund yet; a cancelled one says so and shows no amount to refund", async () => {
    const draftNote = await renderTo({ ...creditNote, status: "draft" }, "credit-draft");
    expect(draftNote.text).toContain("Amount credited");
    expect(draftNote.text).not.toContain("Amount to be refunded");
    const cancelled = await renderTo({ ...creditNote, status: "cancelled" }, "credit-cancelled");
    expect(flat(cancelled.text)).toContain("This credit note has been cancelled: nothing is to be refunded.");
    expect(cancelled.text).not.toContain("Amount to be refunded");
  });
});

describe("PDF: a cancelled or settled invoice asks nothing", () => {
  const NOTICE = {
    en: "This invoice has been cancelled: nothing is to be paid.",
    nl: "Deze factuur is geannuleerd: er hoeft niets betaald te worden.",
    fr: "Cette facture a été annulée : aucun paiement n’est dû.",
    de: "Diese Rechnung wurde storniert: Es ist nichts zu zahlen.",
  };
  for (const language of LANGUAGES) {
    test(`cancelled (${language}): says so, no amount due, no payment block, no QR code`, async () => {
      const doc = { ...belgian, language, status: "cancelled" as const };
      const { text, file } = await renderTo(doc, `cancelled-${language}`);
      expect(flat(text)).toContain(NOTICE[language]);
      const l = LABELS[language];
      for (const phrase of [l.amountDue, l.payBy, l.scanToPay, "IBAN", "BE68 5390 0754 7034", "GKCCBEBB"]) expect(flat(text)).not.toContain(phrase);
      // the total it had stays readable: 4 202.77
      expect(flat(text)).toContain(language === "en" ? "€4,202.77" : language === "fr" ? "4 202,77 €" : "4.202,77 €");
      expect(epcPayload(doc)).toBeNull();
      expect(qrCodes(file, `cancelled-${language}`)).toEqual([]);
    });
  }

  test("paid in full: nothing due (0,00 €), no QR code; credited in part: the credit shown, the QR code asks the rest", async () => {
    const paid = { ...belgian, status: "paid" as const, paidCents: belgian.totalCents, dueCents: 0 };
    const p = await renderTo(paid, "paid");
    expect(flat(p.text)).toContain("Er staat niets meer open.");
    expect(flat(p.text)).toContain("Te betalen 0,00 €");
    expect(qrCodes(p.file, "paid")).toEqual([]);

    // a credit note of 100.00 allocated: 4 202.77 − 100.00 = 4 102.77 still due
    const credited = { ...belgian, dueCents: belgian.totalCents - 10000 };
    const c = await renderTo(credited, "credited");
    expect(flat(c.text)).toContain("Gecrediteerd -100,00 €");
    expect(flat(c.text)).toContain("Te betalen 4.102,77 €");
    expect(qrCodes(c.file, "credited")).toEqual([["BCD", "002", "1", "SCT", "GKCCBEBB", "Atelier Zoë & Søren BV", "BE68539007547034", "EUR4102.77", "", "", "+++123/4567/89002+++"].join("\n")]);
  });
});

type Box = { xMin: number; yMin: number; xMax: number; yMax: number; text: string };

/** Each page's words with their boxes (points from the top left), as `pdftotext -bbox` reads them. */
function pageBoxes(file: string): Box[][] {
  const html = run(["pdftotext", "-bbox", file, "-"]).out;
  return html.split("<page ").slice(1).map((page) =>
    [...page.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((m) => ({
      xMin: Number(m[1]),
      yMin: Number(m[2]),
      xMax: Number(m[3]),
      yMax: Number(m[4]),
      text: m[5]!.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&amp;", "&"),
    })),
  );
}

/**
 * On every page: no two words overlap, and the footer (from the line holding the document's
 * number at the page's foot down) holds only its small print and sits below every word of the body.
 */
function checkLayout(file: string, doc: IssuedDocument) {
  const pages = pageBoxes(file);
  expect(pages.length).toBeGreaterThan(0);
  pages.forEach((words, p) => {
    for (let i = 0; i < words.length; i++) {
      for (let j = i + 1; j < words.length; j++) {
        const a = words[i]!;
        const b = words[j]!;
        const overlap = Math.min(a.xMax, b.xMax) - Math.max(a.xMin, b.xMin) > 0.3 && Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin) > 0.3;
        expect(overlap, `page ${p + 1}: "${a.text}" overlaps "${b.text}"`).toBe(false);
      }
    }
    // the footer's top line: the lowest word that is the document's number
    const numberWords = words.filter((w) => w.text === doc.number);
    const footerTop = Math.max(...numberWords.map((w) => w.yMin));
    const footer = words.filter((w) => w.yMin >= footerTop - 0.5);
    const body = words.filter((w) => w.yMin < footerTop - 0.5);
    const page = `${p + 1}`;
    expect(footer.map((w) => w.text).join(" "), `page ${page}`).toContain(LABELS[doc.language].page(p + 1, pages.length));
    expect(footer.some((w) => w.xMin === 50 && w.yMin === footerTop && doc.seller.name.startsWith(w.text)), `page ${page}: the seller's name opens the footer`).toBe(true);
    // 7 pt small print only (a box 7 × 1.164 = 8.1 pt high), at most four lines of it
    for (const w of footer) expect(w.yMax - w.yMin, `page ${page}: "${w.text}" in the footer`).toBeLessThan(9);
    expect(new Set(footer.map((w) => Math.round(w.yMin))).size).toBeLessThanOrEqual(4);
    expect(Math.max(...body.map((w) => w.yMax)), `page ${page}: the body's last line is above the footer`).toBeLessThan(footerTop - 6);
    for (const w of words) expect(w.yMax).toBeLessThanOrEqual(841.89 - 14);
  });
  return pages.length;
}

describe("PDF: the footer overlaps neither the body nor itself (pdftotext -bbox)", () => {
  const longSeller = issued({
    number: "F2026-0777",
    language: "en",
    paymentReference: "+++123/4567/89002+++",
    seller: party({
      name: "The Very Long Name of an International Consultancy for Accounting, Invoicing and Bookkeeping Services Europe BV",
      address: "Avenue des Arts / Kunstlaan 56, building C, 4th floor, suite 4.12\nentrance via the courtyard, ring twice at the reception desk\nPostbus 12345",
      postalCode: "1000",
      city: "Brussel / Bruxelles",
      country: "BE",
      vatNumber: "BE0123456749",
      companyNumber: "0123.456.749 (RPR Brussel, Nederlandstalige afdeling)",
      email: "accounts-receivable.department@very-long-consultancy-name.example",
      phone: "+32 2 123 45 67 (Monday to Friday, 9:00 to 17:00)",
    }),
    lines: Array.from({ length: 30 }, (_, i) => ({ description: `Consulting block ${i + 1}, including preparation and reporting`, quantity: 1 + (i % 3), unitPrice: 250 })),
  });
  const cases: [string, IssuedDocument, number][] = [
    ["a one-page invoice", belgian, 1],
    ["a 60-line invoice over several pages", long, 3],
    ["a long seller name and address, over two pages", longSeller, 2],
    ["a credit note", creditNote, 1],
    ["a German invoice with a partial payment", german, 1],
  ];
  for (const [name, doc, minPages] of cases) {
    test(name, async () => {
      const { file } = await renderTo(doc, `layout-${doc.number}`);
      expect(checkLayout(file, doc)).toBeGreaterThanOrEqual(minPages);
    });
  }

  test("the footer of a long seller: its name first, its identity cut with … within three lines, the IBAN and BIC on the fourth", async () => {
    const { file } = await renderTo(longSeller, "layout-long-seller");
    const pages = pageBoxes(file);
    const footerTop = Math.max(...pages[0]!.filter((w) => w.text === longSeller.number).map((w) => w.yMin));
    const rows = new Map<number, string[]>();
    // the left column: what ends before the right column's "Invoice F2026-0777"
    const rightColumn = Math.max(...pages[0]!.filter((w) => w.text === "Invoice" && w.yMin >= footerTop - 0.5).map((w) => w.xMin));
    for (const w of pages[0]!.filter((w) => w.yMin >= footerTop - 0.5 && w.xMax < rightColumn)) rows.set(Math.round(w.yMin), [...(rows.get(Math.round(w.yMin)) ?? []), w.text]);
    const lines = [...rows.entries()].sort(([a], [b]) => a - b).map(([, words]) => words.join(" "));
    expect(lines).toHaveLength(4);
    expect(lines[0]).toStartWith("The Very Long Name of an International Consultancy");
    expect(lines[2]).toEndWith("…");
    expect(lines[3]).toBe("IBAN BE68 5390 0754 7034 · BIC GKCCBEBB");
  });
});
