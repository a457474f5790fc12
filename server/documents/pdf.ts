/**
 * An issued document as a PDF: A4, browser-free (pdf-lib draws it, fontkit subsets DejaVu Sans
 * into it), in the document's language, with an EPC069-12 "SEPA credit transfer" QR code a
 * banking app scans for euro invoices that have something to pay.
 *
 * The bytes depend on the document and nothing else, so a finalized invoice can be hashed and
 * archived: pdf-lib's clock (creation/modification dates, Producer) is switched off and the dates
 * are the issue date; the trailer ID is a hash of the document; the subset fonts get a fixed tag
 * instead of pdf-lib's random suffix; numbers and dates are formatted by i18n.ts, not `Intl`.
 * tests/documents/pdf.test.ts renders each fixture twice and compares the bytes.
 *
 * The fonts are bundled with `with { type: "file" }` (as server/docs/openapi.ts bundles Swagger
 * UI), so `bun build --compile` carries them inside the binary and Bun.file reads them there.
 */
import fontkit from "@pdf-lib/fontkit";
import { degrees, fill, PDFDocument, PDFHexString, PDFName, popGraphicsState, pushGraphicsState, rectangle, rgb, setFillingGrayscaleColor, type PDFFont, type PDFPage } from "pdf-lib";
import QRCode from "qrcode";
import sansPath from "dejavu-fonts-ttf/ttf/DejaVuSans.ttf" with { type: "file" };
import sansBoldPath from "dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf" with { type: "file" };
import { formatCents, lineAmountCents, toCents } from "../lib/money.ts";
import { applyFacturX, type PdfIdentity } from "./facturx.ts";
import { formatMoney, formatNumber, formatQuantity, formatRate, LABELS, SUPPLY_DATE_LABELS, type DocumentLabels } from "./i18n.ts";
import { legalMentionLines } from "./legal-mentions.ts";
import type { DocumentLanguage, DocumentLine, DocumentParty, IssuedDocument } from "./model.ts";
import { identifierLabels, paymentReferenceLabel, vatCategoryName } from "./wording.ts";

// ---------------------------------------------------------------------------------------------
// fonts: read and parsed once per process, embedded (subset) into every document

type Fontkit = { create(bytes: Uint8Array): any };
type LoadedFont = { bytes: Uint8Array; parsed: any; glyphs: Set<number> };
let fonts: Promise<{ regular: LoadedFont; bold: LoadedFont }> | null = null;

async function loadFont(path: string): Promise<LoadedFont> {
  const bytes = new Uint8Array(await Bun.file(path).arrayBuffer());
  const parsed = (fontkit as unknown as Fontkit).create(bytes);
  // pdf-lib measures and encodes text through fontkit's `layout`, a full OpenType shaper
  // (GSUB/GPOS) that was 80 % of a render's time. pdf-lib uses only the glyphs it returns (it
  // draws no kerning or mark positions), and the scripts DejaVu Sans covers read right without
  // substitution, so a code point → glyph map (cached) does. It also means no ligatures, which
  // text extraction would read back as one odd character ("ﬁ").
  const cache = new Map<number, unknown>();
  parsed.layout = (text: string) => {
    const glyphs: unknown[] = [];
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      let glyph = cache.get(cp);
      if (glyph === undefined) cache.set(cp, (glyph = parsed.glyphForCodePoint(cp)));
      glyphs.push(glyph);
    }
    return { glyphs };
  };
  return { bytes, parsed, glyphs: new Set<number>(parsed.characterSet) };
}

function loadFonts() {
  fonts ??= Promise.all([loadFont(sansPath), loadFont(sansBoldPath)]).then(
    ([regular, bold]) => ({ regular, bold }),
    (error) => {
      // a failed read is tried again by the next PDF, not remembered until a restart
      fonts = null;
      throw error;
    },
  );
  return fonts;
}

/**
 * pdf-lib parses a font's bytes on every `embedFont`; this fontkit hands back the font parsed at
 * start instead (parsing DejaVu Sans is most of a small document's render time). fontkit's font
 * objects only cache glyphs as they are used, which changes no output.
 */
function cachedFontkit(loaded: LoadedFont[]): Fontkit {
  return {
    create(bytes: Uint8Array) {
      const hit = loaded.find((f) => f.bytes === bytes);
      return hit ? hit.parsed : (fontkit as unknown as Fontkit).create(bytes);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// the EPC QR code's payload

const RF_REFERENCE = /^RF\d{2}[0-9A-Z]{1,21}$/;

/**
 * EPC069-12 v2 "SEPA credit transfer" payload, or null when the document asks no euro payment of
 * its buyer: not EUR, no payee IBAN, nothing due, a credit note (the seller owes the buyer, not
 * the reverse), a draft (not yet an invoice) or cancelled. An ISO 11649 `RF` reference goes in
 * the structured remittance field; anything else (the Belgian structured communication
 * `+++123/4567/89012+++`) in the unstructured one, as EPC's structured field is for ISO 11649
 * only and Belgian banking apps recognise the `+++` form there.
 */
export function epcPayload(doc: IssuedDocument): string | null {
  if (doc.currency !== "EUR" || !doc.payee || doc.type === "credit_note") return null;
  if (doc.status === "draft" || doc.status === "cancelled") return null;
  if (doc.dueCents <= 0 || doc.dueCents > 99_999_999_999) return null;
  const reference = (doc.paymentReference ?? "").trim();
  const compact = reference.replace(/\s+/g, "").toUpperCase();
  const structured = RF_REFERENCE.test(compact) ? compact : "";
  const unstructured = structured ? "" : oneLine(reference).slice(0, 140);
  const fields = [
    "BCD",
    "002",
    "1", // UTF-8
    "SCT",
    (doc.payee.bic ?? "").replace(/\s+/g, "").toUpperCase(),
    oneLine(doc.payee.accountName || doc.seller.name).slice(0, 70),
    doc.payee.iban.replace(/\s+/g, "").toUpperCase(),
    `EUR${formatCents(doc.dueCents)}`,
    "", // purpose
    structured,
    unstructured,
  ];
  while (fields.at(-1) === "") fields.pop();
  return fields.join("\n");
}

// ---------------------------------------------------------------------------------------------
// page geometry (points; A4) and style

const PAGE_W = 595.28;
const PAGE_H = 841.89;
const LEFT = 50;
const RIGHT = PAGE_W - 50;
const TOP = PAGE_H - 50;
/** the footer: its last line's baseline, its size and leading, at most this many lines of the seller's identity and bank */
const FOOTER_BASELINE = 28;
const FOOTER_SIZE = 7;
const FOOTER_LEADING = 9;
const MAX_FOOTER_LINES = 4;
const SIZE = 9;
const LEADING = 11.5;
const INK = rgb(0.11, 0.11, 0.13);
const MUTED = rgb(0.42, 0.42, 0.45);
const RULE = rgb(0.8, 0.8, 0.82);
const SHADE = rgb(0.94, 0.94, 0.95);
const CANCELLED = rgb(0.7, 0.15, 0.15);

/** the lines table's columns: description on the left, the numbers right-aligned at `right` */
const COLUMNS = {
  description: { x: LEFT + 4, width: 200 },
  quantity: { right: 300 },
  unit: { x: 308 },
  unitPrice: { right: 425 },
  vat: { right: 470 },
  amount: { right: RIGHT - 4 },
};

type Fonts = { regular: PDFFont; bold: PDFFont; glyphs: Set<number>; boldGlyphs: Set<number> };

/** Single-line text: control characters and line breaks become spaces. */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").replace(/ {2,}/g, " ").trim();
}

/** The text on one line, with what the font cannot draw replaced (a glyph box would also corrupt text extraction). */
function drawable(glyphs: Set<number>, text: string): string {
  let out = "";
  // NFC: "e" + combining acute is drawn as the one glyph "é" (pdf-lib places no marks)
  for (const ch of oneLine(text).normalize("NFC")) {
    const cp = ch.codePointAt(0)!;
    out += glyphs.has(cp) ? ch : glyphs.has(0xfffd) ? "\ufffd" : "?";
  }
  return out;
}

/** Writes on pages, adding one (with the lines table's header again, when inside it) as needed. */
class Writer {
  pages: PDFPage[] = [];
  page!: PDFPage;
  y = TOP;
  /** set while the lines table is drawn, so a new page repeats its header */
  tableHeader: (() => void) | null = null;
  /** content stops here; the footer (footerLayout) sits below, the same height on every page */
  readonly bottom: number;

  constructor(
    private pdf: PDFDocument,
    readonly fonts: Fonts,
    readonly labels: DocumentLabels,
    readonly language: DocumentLanguage,
    /** the diagonal word over every page: a draft's or a cancelled document's, else none */
    private mark: string | null,
    bottom: number,
  ) {
    this.bottom = bottom;
    this.newPage();
  }

  newPage() {
    this.page = this.pdf.addPage([PAGE_W, PAGE_H]);
    this.pages.push(this.page);
    this.y = TOP;
    // the mark first, so the content is drawn over it and stays readable
    if (this.mark) this.drawMark(this.mark);
    this.tableHeader?.();
  }

  /** Moves to a new page unless `height` more points fit on this one. */
  need(height: number) {
    if (this.y - height < this.bottom) this.newPage();
  }

  /** Replaces what the font cannot draw (drawable()). */
  clean(text: string, bold = false): string {
    return drawable(bold ? this.fonts.boldGlyphs : this.fonts.glyphs, text);
  }

  width(text: string, size = SIZE, bold = false) {
    return (bold ? this.fonts.bold : this.fonts.regular).widthOfTextAtSize(text, size);
  }

  text(text: string, x: number, y: number, { size = SIZE, bold = false, color = INK } = {}) {
    // a no-break space keeps "1 234,56 €" together in i18n.ts; drawn, it is the same blank as a
    // space, which text extraction reads reliably (poppler drops some mapped to U+00A0)
    const clean = this.clean(text, bold).replace(/\u00a0/g, " ");
    if (clean) this.page.drawText(clean, { x, y, size, font: bold ? this.fonts.bold : this.fonts.regular, color });
  }

  textRight(text: string, right: number, y: number, options: { size?: number; bold?: boolean; color?: typeof INK } = {}) {
    const clean = this.clean(text, options.bold);
    this.text(clean, right - this.width(clean, options.size, options.bold), y, options);
  }

  rule(y: number, from = LEFT, to = RIGHT, thickness = 0.6, color = RULE) {
    this.page.drawLine({ start: { x: from, y }, end: { x: to, y }, thickness, color });
  }

  /** Splits text into lines no wider than `width`, on spaces, breaking words longer than a line. */
  wrap(text: string, width: number, size = SIZE, bold = false): string[] {
    const lines: string[] = [];
    for (const paragraph of text.replace(/\r\n?/g, "\n").split("\n")) {
      let line = "";
      for (const word of this.clean(paragraph, bold).split(" ")) {
        const candidate = line ? `${line} ${word}` : word;
        if (this.width(candidate, size, bold) <= width) {
          line = candidate;
          continue;
        }
        if (line) lines.push(line);
        line = "";
        // a word wider than the line: cut it where it stops fitting
        let rest = word;
        while (this.width(rest, size, bold) > width) {
          let cut = 1;
          const chars = Array.from(rest);
          while (cut < chars.length && this.width(chars.slice(0, cut + 1).join(""), size, bold) <= width) cut++;
          lines.push(chars.slice(0, cut).join(""));
          rest = chars.slice(cut).join("");
        }
        line = rest;
      }
      lines.push(line);
    }
    while (lines.length > 1 && lines.at(-1) === "") lines.pop();
    return lines;
  }

  private drawMark(word: string) {
    const size = 110;
    const w = this.fonts.bold.widthOfTextAtSize(word, size);
    // fit the localised word (BROUILLON is longer than DRAFT) along the page's diagonal
    const scale = Math.min(1, 640 / w);
    const s = size * scale;
    const width = w * scale;
    const angle = Math.atan2(PAGE_H, PAGE_W);
    const cx = PAGE_W / 2;
    const cy = PAGE_H / 2;
    // start point so the text's centre (width/2 along, cap height/2 up) lands on the page's centre
    const along = width / 2;
    const up = s * 0.36;
    const x = cx - along * Math.cos(angle) + up * Math.sin(angle);
    const y = cy - along * Math.sin(angle) - up * Math.cos(angle);
    this.page.drawText(word, { x, y, size: s, font: this.fonts.bold, color: rgb(0.85, 0.2, 0.2), opacity: 0.18, rotate: degrees((angle * 180) / Math.PI) });
  }
}

// ---------------------------------------------------------------------------------------------
// the sections of the document

/** Lines of an address drawn as they are; the rest is joined onto the last one. */
const MAX_ADDRESS_LINES = 4;
/** The widest value in the particulars top right; longer ones (a 200-character reference) wrap. */
const MAX_PARTICULAR_WIDTH = 170;

function partyLines(w: Writer, party: DocumentParty, { company }: { company: boolean }): string[] {
  const l = w.labels;
  const lines: string[] = [];
  // an address is at most a few lines on paper; what a client stored beyond them is joined up
  if (party.address) {
    const address = party.address.split(/\r?\n/).map((s) => s.trim()).filter(Boolean);
    lines.push(...address.slice(0, MAX_ADDRESS_LINES - 1), ...(address.length >= MAX_ADDRESS_LINES ? [address.slice(MAX_ADDRESS_LINES - 1).join(", ")] : []));
  }
  const place = [party.postalCode, party.city].filter(Boolean).join(" ");
  if (place) lines.push(place);
  if (party.country) lines.push(countryName(party.country, w));
  // each identifier named as the party's own country names it (wording.ts)
  const ids = identifierLabels(w.language, party.country);
  if (party.vatNumber) lines.push(`${ids.vatNumber}: ${party.vatNumber}`);
  if (company && party.companyNumber) lines.push(`${ids.companyNumber(party.companyNumber)}: ${party.companyNumber}`);
  if (party.email) lines.push(party.email);
  if (party.phone) lines.push(`${l.phone}: ${party.phone}`);
  return lines;
}

const regionNames = new Map<string, Intl.DisplayNames>();
function countryName(code: string, w: Writer): string {
  const language = w.language;
  let names = regionNames.get(language);
  if (!names) regionNames.set(language, (names = new Intl.DisplayNames([language], { type: "region", fallback: "code" })));
  try {
    return names.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** The document's title: invoice, credit note or interest note, in its language. */
const titleOf = (doc: IssuedDocument, l: DocumentLabels) => (doc.type === "credit_note" ? l.creditNote : doc.type === "interest_note" ? l.interestNote : l.invoice);

function header(w: Writer, doc: IssuedDocument) {
  const l = w.labels;
  const isCreditNote = doc.type === "credit_note";
  const title = titleOf(doc, l);

  // the title top right, made smaller where a language's is long ("Nota van nalatigheidsintresten"),
  // and the seller's name top left, wrapped short of it: neither is drawn over the other
  const titleSize = Math.min(22, (22 * 240) / w.width(w.clean(title, true), 22, true));
  const nameWidth = Math.min(280, RIGHT - LEFT - w.width(w.clean(title, true), titleSize, true) - 16);

  // the seller, top left
  let y = TOP - 12;
  for (const line of w.wrap(doc.seller.name, nameWidth, 15, true)) {
    w.text(line, LEFT, y, { size: 15, bold: true });
    y -= 18;
  }
  y += 3;
  for (const line of partyLines(w, doc.seller, { company: true })) {
    for (const part of w.wrap(line, 280, 8.5)) {
      w.text(part, LEFT, y, { size: 8.5, color: MUTED });
      y -= 10.5;
    }
  }
  const sellerBottom = y;

  // the title and the document's particulars, top right
  let ry = TOP - 16;
  w.textRight(title, RIGHT, ry, { size: titleSize, bold: true });
  ry -= 24;
  // "Credit note for invoice INV-2026-00001": what it corrects, under its title
  if (isCreditNote && doc.credited) {
    for (const line of w.wrap(l.creditNoteFor(doc.credited.number), 260, 9.5, true)) {
      w.textRight(line, RIGHT, ry, { size: 9.5, bold: true, color: MUTED });
      ry -= 12;
    }
    ry -= 6;
  }
  const particulars: [string, string][] = [[l.number, doc.number], [isCreditNote ? l.creditNoteDate : l.issueDate, l.date(doc.issueDate)]];
  if (doc.type !== "credit_note") particulars.push([l.dueDate, l.date(doc.dueDate)]);
  if (doc.credited) particulars.push([doc.type === "interest_note" ? l.lateInvoice : l.creditedInvoice, `${doc.credited.number} (${l.date(doc.credited.issueDate)})`]);
  // a credit note has no payment block (see payment()); its reference is shown here instead
  if (doc.type === "credit_note" && doc.paymentReference) particulars.push([paymentReferenceLabel(doc.language, doc.paymentReference), doc.paymentReference]);
  if (doc.servicePeriod) particulars.push([l.servicePeriod, `${l.date(doc.servicePeriod.start)} – ${l.date(doc.servicePeriod.end)}`]);
  // the date of supply when it is not the issue date (legalBlock says so when it is)
  if (doc.deliveryDate && doc.deliveryDate !== doc.issueDate) particulars.push([(SUPPLY_DATE_LABELS[doc.language] ?? SUPPLY_DATE_LABELS.en).deliveryDate, l.date(doc.deliveryDate)]);
  if (doc.buyerReference) particulars.push([l.buyerReference, doc.buyerReference]);
  if (doc.orderReference) particulars.push([l.orderReference, doc.orderReference]);
  const wrapped = particulars.map(([label, value]) => [label, w.wrap(value, MAX_PARTICULAR_WIDTH, SIZE, true)] as const);
  const valueWidth = Math.max(...wrapped.flatMap(([, lines]) => lines.map((line) => w.width(w.clean(line), SIZE, true))));
  const labelRight = RIGHT - Math.max(valueWidth, 70) - 10;
  for (const [label, lines] of wrapped) {
    w.textRight(label, labelRight, ry, { color: MUTED });
    for (const line of lines) {
      w.textRight(line, RIGHT, ry, { bold: true });
      ry -= LEADING;
    }
  }

  // the buyer, below the seller
  y = Math.min(sellerBottom, ry) - 18;
  w.text((isCreditNote ? l.creditTo : l.billTo).toUpperCase(), LEFT, y, { size: 7.5, bold: true, color: MUTED });
  y -= 13;
  for (const line of w.wrap(doc.buyer.name, 300, 11, true)) {
    w.text(line, LEFT, y, { size: 11, bold: true });
    y -= 13.5;
  }
  for (const line of partyLines(w, doc.buyer, { company: true })) {
    for (const part of w.wrap(line, 300)) {
      w.text(part, LEFT, y);
      y -= LEADING;
    }
  }
  w.y = y - 16;
}

function linesTable(w: Writer, doc: IssuedDocument) {
  const l = w.labels;
  const drawHeader = () => {
    const top = w.y;
    w.page.drawRectangle({ x: LEFT, y: top - 16, width: RIGHT - LEFT, height: 16, color: SHADE });
    const y = top - 11.5;
    const o = { size: 8, bold: true, color: MUTED };
    w.text(l.description, COLUMNS.description.x, y, o);
    w.textRight(l.quantity, COLUMNS.quantity.right, y, o);
    w.text(l.unit, COLUMNS.unit.x, y, o);
    w.textRight(l.unitPrice, COLUMNS.unitPrice.right, y, o);
    w.textRight(l.vatPercent, COLUMNS.vat.right, y, o);
    w.textRight(l.amount, COLUMNS.amount.right, y, o);
    w.y = top - 16 - 4;
  };
  w.need(16 + 4 + LEADING * 2 + 6);
  drawHeader();
  w.tableHeader = drawHeader;

  for (const line of doc.lines) {
    const description = w.wrap(line.description, COLUMNS.description.width);
    // a description longer than a page continues on the next one; the numbers stay on its first row
    let first = true;
    let rest = description;
    while (rest.length > 0) {
      const fits = Math.floor((w.y - w.bottom - 6) / LEADING);
      if (fits < Math.min(rest.length, 2)) {
        w.newPage();
        continue;
      }
      const chunk = rest.slice(0, fits);
      rest = rest.slice(fits);
      let y = w.y - 9;
      if (first) lineNumbers(w, line, !!doc.pricesIncludeVat, y);
      first = false;
      for (const text of chunk) {
        w.text(text, COLUMNS.description.x, y);
        y -= LEADING;
      }
      w.y = y + LEADING - 9 - 6;
    }
    if (line.discount) lineDiscount(w, line.discount, doc.currency);
    w.rule(w.y + 2.5);
  }
  w.tableHeader = null;
  w.y -= 8;
}

/** Under a discounted line: the discount (its percentage, its amount, its reason); the line's amount is already after it. */
function lineDiscount(w: Writer, discount: NonNullable<DocumentLine["discount"]>, currency: string) {
  const l = w.labels;
  const amount = `−${formatMoney(l, discount.cents, currency)}`;
  const text = [l.pricing.discount, discount.percentBp ? `${formatRate(l, discount.percentBp)}` : null, `(${amount})`, discount.reason ? `· ${oneLine(discount.reason)}` : null]
    .filter(Boolean)
    .join(" ");
  const rows = w.wrap(text, COLUMNS.description.width + 180, 8);
  w.need(rows.length * 10 + 4);
  for (const row of rows) {
    w.text(row, COLUMNS.description.x + 8, w.y - 7, { size: 8, color: MUTED });
    w.y -= 10;
  }
  w.y -= 2;
}

/**
 * The document's allowances and charges (BG-20, BG-21), each with its reason, its percentage and
 * its VAT rate, in the terms of its prices; and, with VAT-inclusive prices, that they are.
 */
function allowancesCharges(w: Writer, doc: IssuedDocument) {
  const l = w.labels;
  if (doc.pricesIncludeVat) {
    w.need(14);
    w.text(l.pricing.pricesIncludeVat, LEFT, w.y - 8, { size: 8, color: MUTED });
    w.y -= 16;
  }
  const acs = doc.allowanceCharges ?? [];
  if (acs.length === 0) return;
  for (const ac of acs) {
    const what = ac.isCharge ? l.pricing.charge : l.pricing.allowance;
    const reason = [ac.reason ? oneLine(ac.reason) : null, ac.reasonCode ? `(${ac.reasonCode})` : null].filter(Boolean).join(" ");
    const percent = ac.percentBp !== null && ac.baseCents !== null ? l.pricing.percentOf(formatRate(l, ac.percentBp), formatMoney(l, ac.baseCents, doc.currency)) : null;
    const text = [`${what}:`, reason, percent ? `· ${percent}` : null].filter(Boolean).join(" ");
    const rows = w.wrap(text, COLUMNS.vat.right - COLUMNS.description.x - 60, SIZE);
    w.need(rows.length * LEADING + 4);
    const y = w.y - 9;
    w.textRight(ac.vatCategory === "S" || ac.vatCategory === "Z" || ac.vatRateBp > 0 ? formatRate(l, ac.vatRateBp) : ac.vatCategory, COLUMNS.vat.right, y, { color: MUTED });
    w.textRight(`${ac.isCharge ? "" : "−"}${formatNumber(l, ac.amountCents)}`, COLUMNS.amount.right, y);
    rows.forEach((row, i) => w.text(row, COLUMNS.description.x, y - i * LEADING));
    w.y -= rows.length * LEADING + 4;
  }
  w.rule(w.y + 2.5);
  w.y -= 8;
}

function lineNumbers(w: Writer, line: DocumentLine, pricesIncludeVat: boolean, y: number) {
  const l = w.labels;
  w.textRight(formatQuantity(l, line.quantityCents), COLUMNS.quantity.right, y);
  w.text(l.units[line.unitCode] ?? line.unitCode, COLUMNS.unit.x, y, { color: MUTED });
  w.textRight(formatNumber(l, line.unitPriceCents), COLUMNS.unitPrice.right, y);
  w.textRight(line.vatCategory === "S" || line.vatCategory === "Z" || line.vatRateBp > 0 ? formatRate(l, line.vatRateBp) : line.vatCategory, COLUMNS.vat.right, y, { color: MUTED });
  // with VAT-inclusive prices the line shows what it costs as priced (its net share is the e-invoice's)
  const amount = pricesIncludeVat ? lineAmountCents(line.quantityCents, line.unitPriceCents) - (line.discount?.cents ?? 0) : line.amountCents;
  w.textRight(formatNumber(l, amount), COLUMNS.amount.right, y);
}

/**
 * The totals, and what is left of them: an invoice's amount due (less what was paid and what its
 * credit notes took off), a credit note's amount to be refunded (less what settled the invoice it
 * credits and what was refunded). A draft's figure is what it will ask; a cancelled document asks
 * nothing and says so instead.
 */
function totals(w: Writer, doc: IssuedDocument) {
  const l = w.labels;
  const isCreditNote = doc.type === "credit_note";
  const cancelled = doc.status === "cancelled";
  // the model carries what is due after payments and credit allocation; what allocation took is the rest
  const allocatedCents = doc.totalCents - doc.paidCents - doc.dueCents;
  // BT-106 to BT-108 where there are document allowances or charges (net, as the e-invoice's; a
  // VAT-inclusive document shows its allowances and charges as priced above, and its net subtotal)
  const acs = doc.allowanceCharges ?? [];
  const breakdown: [string, number, "plain"][] =
    acs.length === 0 || doc.pricesIncludeVat
      ? []
      : [
          [l.pricing.lineTotal, doc.lineTotalCents ?? doc.subtotalCents, "plain"],
          ...(acs.some((ac) => !ac.isCharge) ? [[l.pricing.allowances, -(doc.allowanceCents ?? 0), "plain"] as [string, number, "plain"]] : []),
          ...(acs.some((ac) => ac.isCharge) ? [[l.pricing.charges, doc.chargeCents ?? 0, "plain"] as [string, number, "plain"]] : []),
        ];
  const rows: [string, number, "plain" | "strong" | "due"][] = [
    ...breakdown,
    [l.subtotal, doc.subtotalCents, "plain"],
    [l.totalVat, doc.vatCents, "plain"],
  ];
  if (isCreditNote) {
    // a draft's allocation is not known until it is finalized: it shows what it credits
    const settled = doc.status !== "draft" && !cancelled;
    rows.push([l.amountCredited, doc.totalCents, settled ? "strong" : "due"]);
    if (settled) {
      if (allocatedCents !== 0) rows.push([l.setOffAgainst(doc.credited?.number ?? ""), -allocatedCents, "plain"]);
      if (doc.paidCents !== 0) rows.push([l.refunded, -doc.paidCents, "plain"]);
      rows.push([l.amountToRefund, doc.dueCents, "due"]);
    }
  } else {
    rows.push([l.total, doc.totalCents, cancelled ? "due" : "strong"]);
    if (!cancelled) {
      if (doc.paidCents !== 0) rows.push([l.paid, -doc.paidCents, "plain"]);
      if (allocatedCents !== 0) rows.push([l.credited, -allocatedCents, "plain"]);
      rows.push([l.amountDue, doc.dueCents, "due"]);
    }
  }
  // the amounts right, their labels left of them ("Zu erstattender Betrag" on one line; a long invoice number wraps)
  const labelWidth = 270;
  const labels = rows.map(([label, , kind]) => w.wrap(label, labelWidth - 100, kind === "due" ? 11 : SIZE, kind !== "plain"));
  const height = rows.reduce((sum, [, , kind], i) => sum + (kind === "due" ? 17 : 15) + (labels[i]!.length - 1) * LEADING, 0) + 10;
  w.need(height);
  const labelX = RIGHT - labelWidth;
  let y = w.y - 10;
  rows.forEach(([, cents, kind], i) => {
    if (kind !== "plain") {
      w.rule(y + 11, labelX, RIGHT, kind === "due" ? 1 : 0.6, kind === "due" ? INK : RULE);
    }
    const size = kind === "due" ? 11 : SIZE;
    const bold = kind !== "plain";
    w.textRight(formatMoney(l, cents, doc.currency), RIGHT - 4, y, { size, bold });
    for (const line of labels[i]!) {
      w.text(line, labelX, y, { size, bold, color: kind === "plain" ? MUTED : INK });
      y -= LEADING;
    }
    y -= (kind === "due" ? 17 : 15) - LEADING;
  });
  w.y = y - 6;
  if (cancelled) {
    const notice = w.wrap(l.cancelledNotice[doc.type], RIGHT - LEFT, 10, true);
    w.need(notice.length * 13 + 8);
    for (const line of notice) {
      w.text(line, LEFT, w.y - 10, { size: 10, bold: true, color: CANCELLED });
      w.y -= 13;
    }
    w.y -= 12;
  }
}

function vatBreakdown(w: Writer, doc: IssuedDocument) {
  if (doc.vatGroups.length === 0) return;
  const l = w.labels;
  const cols = { category: LEFT + 4, categoryWidth: 230, rate: 340, taxable: 450, vat: RIGHT - 4 };
  const rows = doc.vatGroups.map((g) => {
    // the reason in the document's language where Kontor knows the code, else the rate's own text
    const reason = (g.exemptionReasonCode ? l.vatex[g.exemptionReasonCode] : undefined) ?? g.exemptionReason;
    const reasonText = reason ? `${l.exemptionReason}: ${reason}${g.exemptionReasonCode ? ` (${g.exemptionReasonCode})` : ""}` : "";
    return {
      g,
      category: w.wrap(`${g.category} · ${vatCategoryName(doc.language, g.category, g.rateBp, doc.seller.country)}`, cols.categoryWidth, 8.5),
      reason: reasonText ? w.wrap(reasonText, RIGHT - LEFT - 8, 8) : [],
    };
  });
  const rowHeight = (r: (typeof rows)[number]) => (r.category.length + r.reason.length) * 10.5 + 6;
  const height = 18 + 15 + rows.reduce((sum, r) => sum + rowHeight(r), 0);
  w.need(Math.min(height, TOP - w.bottom));
  w.text(l.vatBreakdown, LEFT, w.y - 10, { size: 10, bold: true });
  w.y -= 18;
  const o = { size: 8, bold: true, color: MUTED };
  w.text(l.category, cols.category, w.y - 9, o);
  w.textRight(l.rate, cols.rate, w.y - 9, o);
  w.textRight(l.taxableAmount, cols.taxable, w.y - 9, o);
  w.textRight(l.vatAmount, cols.vat, w.y - 9, o);
  w.rule(w.y - 13);
  w.y -= 15;
  for (const row of rows) {
    const { g } = row;
    w.need(rowHeight(row));
    let y = w.y - 10;
    w.textRight(formatRate(l, g.rateBp), cols.rate, y, { size: 8.5 });
    w.textRight(formatMoney(l, g.taxableCents, doc.currency), cols.taxable, y, { size: 8.5 });
    w.textRight(formatMoney(l, g.vatCents, doc.currency), cols.vat, y, { size: 8.5 });
    for (const text of row.category) {
      w.text(text, cols.category, y, { size: 8.5 });
      y -= 10.5;
    }
    for (const text of row.reason) {
      w.text(text, cols.category, y, { size: 8, color: MUTED });
      y -= 10.5;
    }
    w.y -= rowHeight(row);
  }
  w.rule(w.y + 2);
  w.y -= 14;
}

/**
 * How to pay: the amount due, the payee's account, the reference and the QR code. Not on a
 * credit note: the seller's IBAN there would invite the buyer to pay what it is owed; nor on a
 * cancelled invoice, which asks nothing (totals() says so).
 */
function payment(w: Writer, doc: IssuedDocument) {
  if (doc.type === "credit_note" || doc.status === "cancelled") return;
  const l = w.labels;
  const epc = epcPayload(doc);
  const rows: [string, string, boolean][] = [];
  const asksPayment = doc.status !== "draft" && doc.dueCents > 0;
  if (asksPayment) {
    rows.push([l.amountDue, formatMoney(l, doc.dueCents, doc.currency), true]);
    rows.push([l.payBy, l.date(doc.dueDate), false]);
  }
  if (doc.payee) {
    rows.push([l.iban, groupIban(doc.payee.iban), true]);
    if (doc.payee.bic) rows.push([l.bic, doc.payee.bic, false]);
    rows.push([l.accountHolder, doc.payee.accountName || doc.seller.name, false]);
  }
  if (doc.paymentReference) rows.push([paymentReferenceLabel(doc.language, doc.paymentReference), doc.paymentReference, true]);
  if (rows.length === 0) return;

  const qrModules = epc ? QRCode.create(epc, { errorCorrectionLevel: "M" }).modules : null;
  const qrSide = 108;
  const textHeight = 20 + rows.length * 14 + (asksPayment ? 0 : 14);
  const height = Math.max(textHeight, qrModules ? qrSide + 26 : 0) + 8;
  w.need(height);
  const top = w.y;
  w.page.drawRectangle({ x: LEFT, y: top - height, width: RIGHT - LEFT, height, borderColor: RULE, borderWidth: 0.8 });
  w.text(l.payment, LEFT + 12, top - 18, { size: 10, bold: true });
  let y = top - 34;
  if (!asksPayment && doc.type === "invoice" && doc.status !== "draft") {
    w.text(l.nothingDue, LEFT + 12, y);
    y -= 14;
  }
  const valueX = LEFT + 12 + Math.max(...rows.map(([label]) => w.width(w.clean(label)))) + 14;
  for (const [label, value, strong] of rows) {
    w.text(label, LEFT + 12, y, { color: MUTED });
    w.text(value, valueX, y, { bold: strong, size: strong ? 10 : SIZE });
    y -= 14;
  }
  if (qrModules) {
    const x = RIGHT - 12 - qrSide;
    const qy = top - 10 - qrSide;
    drawQr(w.page, qrModules, x, qy, qrSide);
    const caption = w.clean(l.scanToPay);
    const size = 7;
    w.text(caption, x + qrSide / 2 - w.width(caption, size) / 2, qy - 9, { size, color: MUTED });
  }
  w.y = top - height - 14;
}

function groupIban(iban: string): string {
  return iban.replace(/\s+/g, "").toUpperCase().replace(/(.{4})(?=.)/g, "$1 ");
}

/**
 * The QR symbol as vector squares: one rectangle per run of dark modules in a row, filled at
 * once. A quiet zone of four modules is part of `side` (the QR standard asks for it).
 */
function drawQr(page: PDFPage, modules: { size: number; data: Uint8Array }, x: number, y: number, side: number) {
  const n = modules.size;
  const unit = side / (n + 8);
  const ops = [pushGraphicsState(), setFillingGrayscaleColor(0)];
  for (let row = 0; row < n; row++) {
    let col = 0;
    while (col < n) {
      if (!modules.data[row * n + col]) {
        col++;
        continue;
      }
      const start = col;
      while (col < n && modules.data[row * n + col]) col++;
      ops.push(rectangle(x + (4 + start) * unit, y + side - (4 + row + 1) * unit, (col - start) * unit, unit));
    }
  }
  ops.push(fill(), popGraphicsState());
  page.pushOperators(...ops);
}

function notes(w: Writer, doc: IssuedDocument) {
  const l = w.labels;
  for (const [title, body] of [[l.paymentTerms, doc.paymentTerms], [l.notes, doc.notes]] as const) {
    if (!body || !body.trim()) continue;
    const lines = w.wrap(body, RIGHT - LEFT);
    w.need(16 + Math.min(lines.length, 3) * LEADING);
    w.text(title, LEFT, w.y - 10, { size: 9, bold: true });
    w.y -= 24;
    for (const line of lines) {
      w.need(LEADING);
      w.text(line, LEFT, w.y);
      w.y -= LEADING;
    }
    w.y -= 8;
  }
}

/**
 * The legal mentions, after everything else, in the document's language: that the date of supply
 * is the invoice date (a German seller's Leistungsdatum), then what the seller's law puts on its
 * documents (legal-mentions.ts: legal form, capital, seat, register, directors, the French
 * late-payment mentions, general terms).
 */
function legalBlock(w: Writer, doc: IssuedDocument) {
  const lines = [
    ...(doc.deliveryDate && doc.deliveryDate === doc.issueDate ? [(SUPPLY_DATE_LABELS[doc.language] ?? SUPPLY_DATE_LABELS.en).isIssueDate] : []),
    ...legalMentionLines(doc.seller, doc.language, (amount, currency) => formatMoney(w.labels, toCents(amount) ?? 0, currency)),
  ];
  if (lines.length === 0) return;
  const size = 7.5;
  const leading = 9.5;
  w.need(12 + leading);
  w.y -= 8;
  for (const line of lines) {
    for (const part of w.wrap(line, RIGHT - LEFT, size)) {
      w.need(leading);
      w.text(part, LEFT, w.y - size, { size, color: MUTED });
      w.y -= leading;
    }
  }
}

/**
 * The footer of every page: the seller's identity and, on an invoice that asks payment, its bank
 * account, wrapped in the left column (at most MAX_FOOTER_LINES, the last one cut short with
 * "…"); the document and the page in the right column. Laid out before the body, whose bottom
 * (Writer.bottom) sits above the footer's rule, so neither overlaps the other however long the
 * seller's name and address are.
 */
type FooterLayout = { lines: string[]; title: string; rightWidth: number; bottom: number };

function footerLayout(doc: IssuedDocument, l: DocumentLabels, width: (text: string) => number, clean: (text: string) => string): FooterLayout {
  const seller = doc.seller;
  const place = [seller.postalCode, seller.city].filter(Boolean).join(" ");
  const ids = identifierLabels(doc.language, seller.country);
  const identity = [
    seller.name,
    seller.address ? seller.address.split(/\r?\n/).map((s) => s.trim()).filter(Boolean).join(", ") : null,
    place || null,
    seller.vatNumber ? `${ids.vatNumber} ${seller.vatNumber}` : null,
    seller.companyNumber && seller.companyNumber !== seller.vatNumber ? `${ids.companyNumber(seller.companyNumber)} ${seller.companyNumber}` : null,
    seller.email,
    seller.phone ? `${l.phone} ${seller.phone}` : null,
  ];
  const asksPayment = doc.type !== "credit_note" && doc.status !== "cancelled" && doc.payee;
  const bank = asksPayment && doc.payee ? [`${l.iban} ${groupIban(doc.payee.iban)}`, doc.payee.bic ? `${l.bic} ${doc.payee.bic}` : null] : [];

  const title = clean(`${titleOf(doc, l)} ${doc.number}`);
  // the right column: the document's title and number (cut at 200 pt) over the page number
  const rightWidth = Math.min(200, Math.max(width(title), width(l.page(888, 888))));
  const leftWidth = RIGHT - LEFT - rightWidth - 18;
  const wrapIn = (parts: (string | null | undefined)[]) => wrapFooter(parts.filter((p): p is string => !!p).map(clean), leftWidth, width);
  // the bank account always shows (it is how to pay); the identity takes the lines left
  const bankLines = bank.length ? wrapIn(bank).slice(0, 1) : [];
  let identityLines = wrapIn(identity);
  const room = MAX_FOOTER_LINES - bankLines.length;
  if (identityLines.length > room) {
    identityLines = identityLines.slice(0, room);
    identityLines[room - 1] = ellipsis(identityLines[room - 1]!, leftWidth, width, true);
  }
  const lines = [...identityLines, ...bankLines];
  const count = Math.max(lines.length, 2);
  const ruleY = FOOTER_BASELINE + (count - 1) * FOOTER_LEADING + FOOTER_SIZE + 5;
  return { lines, title: ellipsis(title, rightWidth, width), rightWidth, bottom: ruleY + 14 };
}

/**
 * Joins the parts with " · " into lines no wider than `width`: a part goes whole onto the next
 * line rather than being split, unless it is wider than a line (then on spaces, a word wider than
 * a line cut where it stops fitting).
 */
function wrapFooter(parts: string[], width: number, measure: (text: string) => number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const part of parts) {
    const joined = line ? `${line} · ${part}` : part;
    if (measure(joined) <= width) {
      line = joined;
      continue;
    }
    if (line) lines.push(line);
    line = "";
    for (const word of part.split(" ")) {
      const candidate = line ? `${line} ${word}` : word;
      if (measure(candidate) <= width) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      let rest = word;
      while (measure(rest) > width) {
        const chars = Array.from(rest);
        let cut = 1;
        while (cut < chars.length && measure(chars.slice(0, cut + 1).join("")) <= width) cut++;
        lines.push(chars.slice(0, cut).join(""));
        rest = chars.slice(cut).join("");
      }
      line = rest;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** The text, cut with "…" where it would be wider than `width` (`cut`: it goes on beyond the text, so "…" in any case). */
function ellipsis(text: string, width: number, measure: (text: string) => number, cut = false): string {
  if (!cut && measure(text) <= width) return text;
  const chars = Array.from(text);
  while (chars.length > 0 && measure(`${chars.join("")}…`) > width) chars.pop();
  return `${chars.join("").trimEnd()}…`;
}

function footers(w: Writer, layout: FooterLayout) {
  const l = w.labels;
  const count = Math.max(layout.lines.length, 2);
  const top = FOOTER_BASELINE + (count - 1) * FOOTER_LEADING;
  const o = { size: FOOTER_SIZE, color: MUTED };
  w.pages.forEach((page, i) => {
    w.page = page;
    w.rule(top + FOOTER_SIZE + 5, LEFT, RIGHT, 0.5);
    layout.lines.forEach((line, k) => w.text(line, LEFT, top - k * FOOTER_LEADING, o));
    w.textRight(layout.title, RIGHT, top, o);
    w.textRight(l.page(i + 1, w.pages.length), RIGHT, top - FOOTER_LEADING, o);
  });
}

// ---------------------------------------------------------------------------------------------

/** The trailer's document ID: a hash of the document, the same for the same document. */
function documentId(doc: IssuedDocument): string {
  return new Bun.CryptoHasher("sha256").update(JSON.stringify(doc)).digest("hex").slice(0, 32).toUpperCase();
}

/** The document's date as the file's creation and modification date: noon UTC of its issue date. */
function fileDate(doc: IssuedDocument): Date {
  const date = new Date(`${doc.issueDate}T12:00:00Z`);
  return Number.isNaN(date.getTime()) ? new Date(0) : date;
}

/** `facturx`: the document's CII XML, to make the PDF a Factur-X PDF/A-3b file carrying it (facturx.ts). */
export async function renderPdf(doc: IssuedDocument, options: { facturx?: string } = {}): Promise<Uint8Array> {
  const labels = LABELS[doc.language] ?? LABELS.en;
  const loaded = await loadFonts();
  // updateMetadata: false keeps pdf-lib from stamping the clock and its own Producer into the file
  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.registerFontkit(cachedFontkit([loaded.regular, loaded.bold]));
  // subset names carry a fixed tag (PDF 32000 9.6.4) instead of pdf-lib's random suffix
  const regular = await pdf.embedFont(loaded.regular.bytes, { subset: true, customName: "KONTOR+DejaVuSans" });
  const bold = await pdf.embedFont(loaded.bold.bytes, { subset: true, customName: "KONTOR+DejaVuSans-Bold" });

  const title = titleOf(doc, labels);
  const identity: PdfIdentity = {
    title: `${title} ${doc.number}`,
    author: doc.seller.name,
    subject: `${title} ${doc.number}: ${doc.seller.name} → ${doc.buyer.name}`,
    creator: "Kontor",
    producer: "Kontor (pdf-lib)",
    language: doc.language,
    date: fileDate(doc),
  };
  pdf.setTitle(identity.title);
  pdf.setAuthor(identity.author);
  pdf.setSubject(identity.subject);
  pdf.setCreator(identity.creator);
  pdf.setProducer(identity.producer);
  pdf.setLanguage(identity.language);
  pdf.setCreationDate(identity.date);
  pdf.setModificationDate(identity.date);
  const id = PDFHexString.of(documentId(doc));
  pdf.context.trailerInfo.ID = pdf.context.obj([id, id]);
  pdf.catalog.set(PDFName.of("PageLayout"), PDFName.of("OneColumn"));

  const fontSet = { regular, bold, glyphs: loaded.regular.glyphs, boldGlyphs: loaded.bold.glyphs };
  const footer = footerLayout(doc, labels, (text) => regular.widthOfTextAtSize(text, FOOTER_SIZE), (text) => drawable(fontSet.glyphs, text));
  const w = new Writer(pdf, fontSet, labels, doc.language, doc.status === "draft" ? labels.draft : doc.status === "cancelled" ? labels.cancelled : null, footer.bottom);
  header(w, doc);
  linesTable(w, doc);
  allowancesCharges(w, doc);
  totals(w, doc);
  vatBreakdown(w, doc);
  payment(w, doc);
  notes(w, doc);
  legalBlock(w, doc);
  footers(w, footer);
  if (options.facturx !== undefined) await applyFacturX(pdf, options.facturx, identity);
  return pdf.save({ useObjectStreams: true });
}

// ---------------------------------------------------------------------------------------------
// a letter: a reminder (server/reminders) is not an issued document, but it is drawn with the
// same fonts, party blocks and payment words

/** A letter about documents: its words come in their language; only the layout is here. */
export type Letter = {
  language: DocumentLanguage;
  title: string;
  /** the letter's date, YYYY-MM-DD */
  date: string;
  /** what makes its bytes its own (a reminder's id): the trailer's ID */
  id: string;
  seller: DocumentParty;
  buyer: DocumentParty;
  paragraphs: string[];
  /** the documents it is about, with a last row in bold (the total to pay) */
  table: { head: string[]; rows: string[][]; total: [string, string] };
  /** where to pay, with what reference, and (`amount`: its label and value) how much */
  payment: { iban: string; bic: string | null; accountName: string; reference: string | null; amount?: [string, string] } | null;
};

export async function renderLetter(letter: Letter): Promise<Uint8Array> {
  const labels = LABELS[letter.language] ?? LABELS.en;
  const loaded = await loadFonts();
  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.registerFontkit(cachedFontkit([loaded.regular, loaded.bold]));
  const regular = await pdf.embedFont(loaded.regular.bytes, { subset: true, customName: "KONTOR+DejaVuSans" });
  const bold = await pdf.embedFont(loaded.bold.bytes, { subset: true, customName: "KONTOR+DejaVuSans-Bold" });
  pdf.setTitle(letter.title);
  pdf.setAuthor(letter.seller.name);
  pdf.setCreator("Kontor");
  pdf.setProducer("Kontor (pdf-lib)");
  pdf.setLanguage(letter.language);
  const date = new Date(`${letter.date}T12:00:00Z`);
  pdf.setCreationDate(date);
  pdf.setModificationDate(date);
  const id = PDFHexString.of(new Bun.CryptoHasher("sha256").update(JSON.stringify(letter)).digest("hex").slice(0, 32).toUpperCase());
  pdf.context.trailerInfo.ID = pdf.context.obj([id, id]);

  const fontSet = { regular, bold, glyphs: loaded.regular.glyphs, boldGlyphs: loaded.bold.glyphs };
  const w = new Writer(pdf, fontSet, labels, letter.language, null, 60);
  // the seller top left, the title and date top right, the addressee below
  let y = TOP - 12;
  for (const line of w.wrap(letter.seller.name, 280, 15, true)) {
    w.text(line, LEFT, y, { size: 15, bold: true });
    y -= 18;
  }
  for (const line of partyLines(w, letter.seller, { company: true })) {
    w.text(line, LEFT, y, { size: 8.5, color: MUTED });
    y -= 10.5;
  }
  w.textRight(labels.date(letter.date), RIGHT, TOP - 16, { size: 10 });
  y -= 18;
  for (const line of w.wrap(letter.buyer.name, 300, 11, true)) {
    w.text(line, LEFT, y, { size: 11, bold: true });
    y -= 13.5;
  }
  for (const line of partyLines(w, letter.buyer, { company: false })) {
    w.text(line, LEFT, y);
    y -= LEADING;
  }
  y -= 20;
  for (const line of w.wrap(letter.title, RIGHT - LEFT, 14, true)) {
    w.text(line, LEFT, y, { size: 14, bold: true });
    y -= 18;
  }
  w.y = y - 6;
  for (const paragraph of letter.paragraphs) {
    for (const line of w.wrap(paragraph, RIGHT - LEFT)) {
      w.need(LEADING);
      w.text(line, LEFT, w.y);
      w.y -= LEADING;
    }
    w.y -= 6;
  }
  // the documents: the first column left, the others right-aligned in equal columns
  const { head, rows, total } = letter.table;
  const columnRight = (i: number) => RIGHT - (head.length - 1 - i) * 90;
  const drawRow = (cells: string[], options: { bold?: boolean; color?: typeof INK } = {}) => {
    w.need(LEADING + 4);
    cells.forEach((cell, i) => (i === 0 ? w.text(cell, LEFT, w.y, options) : w.textRight(cell, columnRight(i), w.y, options)));
    w.y -= LEADING + 3;
  };
  w.y -= 8;
  drawRow(head, { bold: true, color: MUTED });
  w.rule(w.y + LEADING - 1);
  for (const row of rows) drawRow(row);
  w.rule(w.y + LEADING - 1);
  drawRow([total[0], ...Array(head.length - 2).fill(""), total[1]], { bold: true });
  if (letter.payment) {
    w.y -= 10;
    w.need(16 + 5 * 14);
    w.text(labels.payment, LEFT, w.y, { size: 10, bold: true });
    w.y -= 16;
    const rowsOut: [string, string][] = [[labels.iban, groupIban(letter.payment.iban)]];
    if (letter.payment.bic) rowsOut.push([labels.bic, letter.payment.bic]);
    rowsOut.push([labels.accountHolder, letter.payment.accountName || letter.seller.name]);
    if (letter.payment.reference) rowsOut.push([paymentReferenceLabel(letter.language, letter.payment.reference), letter.payment.reference]);
    if (letter.payment.amount) rowsOut.push(letter.payment.amount);
    const valueX = LEFT + Math.max(...rowsOut.map(([label]) => w.width(w.clean(label)))) + 14;
    for (const [label, value] of rowsOut) {
      w.text(label, LEFT, w.y, { color: MUTED });
      w.text(value, valueX, w.y, { bold: true });
      w.y -= 14;
    }
  }
  return pdf.save({ useObjectStreams: true });
}
