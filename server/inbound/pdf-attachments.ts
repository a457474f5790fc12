/**
 * The e-invoice XML a hybrid PDF carries (Factur-X, ZUGFeRD 1 and 2, XRechnung in a PDF), read in
 * process with pdf-lib's parser: the catalog's /AF array and /Names /EmbeddedFiles tree are walked for a
 * file named `factur-x.xml`, `zugferd-invoice.xml` or `xrechnung.xml` (any case), and its stream
 * decoded. Nothing is shelled out.
 *
 * An upload is anyone's file, so the reader is bounded before and while pdf-lib parses it:
 * - at most MAX_DOCUMENT_BYTES of PDF (the import's body limit);
 * - at most MAX_OBJECTS indirect objects, counted in the bytes before parsing, and in what an
 *   object stream or a cross-reference stream declares (a /Size of a billion would have pdf-lib
 *   build a billion entries);
 * - every stream pdf-lib must decode to parse (object streams, cross-reference streams) and the
 *   attachment itself decode to at most MAX_DOCUMENT_BYTES, read incrementally, so a small
 *   compressed stream that expands to gigabytes (a "zip bomb", also through chained filters) is
 *   stopped at the limit rather than exhausting memory;
 * - at most MAX_PAGES pages (as the page tree declares) and a bounded walk of the name tree
 *   (depth, visited nodes), whose cycles would otherwise loop.
 * Whatever is wrong with the file is an InboundDocumentError (a 422 naming `body`), never a crash.
 */
import {
  decodePDFRawStream,
  PDFArray,
  PDFDict,
  PDFContext,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFObjectStreamParser,
  PDFParser,
  PDFRawStream,
  PDFString,
  PDFXRefStreamParser,
  type PDFObject,
} from "pdf-lib";
import { MAX_DOCUMENT_BYTES } from "./decode.ts";
import { InboundDocumentError } from "./errors.ts";

/** The names a hybrid invoice's XML has, by preference (Factur-X and ZUGFeRD 2 before ZUGFeRD 1's, then XRechnung's). */
export const INVOICE_XML_NAMES = ["factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml"] as const;
/** More indirect objects than an invoice of any length has (a 40-page invoice of Kontor's has a few hundred). */
export const MAX_OBJECTS = 200_000;
export const MAX_PAGES = 10_000;
const MAX_TREE_DEPTH = 32;
const MAX_TREE_NODES = 10_000;
const DECODE_CHUNK = 64 * 1024;
/** Where the error points: the request body, as the kernel's own refusals of a body do. */
const FIELD = "body";

const refuse = (message: string): never => {
  throw new InboundDocumentError(FIELD, message);
};

export type EmbeddedInvoiceXml = { name: string; xml: Uint8Array };


/**
 * The embedded invoice XML of a PDF, or null when the PDF carries none. A file that is not a
 * readable PDF, or is beyond the limits above, is an InboundDocumentError.
 */
export async function embeddedInvoiceXml(pdf: Uint8Array): Promise<EmbeddedInvoiceXml | null> {
  if (pdf.byteLength > MAX_DOCUMENT_BYTES) refuse(`The PDF is larger than ${MAX_DOCUMENT_BYTES} bytes.`);
  // readers allow junk before the header, within the first KiB
  if (!new TextDecoder("latin1").decode(pdf.subarray(0, 1024)).includes("%PDF-")) refuse("The file is not a PDF (no %PDF- header).");
  const objects = countObjects(pdf);
  if (objects > MAX_OBJECTS) refuse(`The PDF has ${objects} objects, more than the ${MAX_OBJECTS} an invoice may have.`);
  guardParsers();

  // strict: an object pdf-lib cannot parse is a refusal, not skipped (and warned about on the console)
  const parser = PDFParser.forBytesWithOptions(pdf, Number.POSITIVE_INFINITY, true);
  let context: PDFContext;
  try {
    context = await parser.parseDocument();
  } catch (error) {
    // pdf-lib reports an error inside an object (a guard's refusal too) as "invalid object": the guard's reason is kept by context
    const context = (parser as unknown as { context: PDFContext }).context;
    return refuse(guardRefusals.get(context) ?? `The PDF cannot be read: ${reason(error)}.`);
  }
  try {
    if (context.trailerInfo.Encrypt) refuse("The PDF is encrypted; an e-invoice PDF (PDF/A-3) is not.");
    const catalog = context.lookup(context.trailerInfo.Root);
    if (!(catalog instanceof PDFDict)) return refuse("The PDF has no document catalog (its trailer names no /Root).");
    const pages = catalog.lookup(PDFName.of("Pages"));
    const count = pages instanceof PDFDict ? pages.lookup(PDFName.of("Count")) : undefined;
    if (count instanceof PDFNumber && count.asNumber() > MAX_PAGES) refuse(`The PDF declares ${count.asNumber()} pages, more than the ${MAX_PAGES} an invoice may have.`);
    const found = invoiceFileSpec(catalog);
    if (!found) return null;
    return { name: found.name, xml: decodeLimited(embeddedStream(found.spec), `The embedded ${found.name}`) };
  } catch (error) {
    if (error instanceof InboundDocumentError) throw error;
    return refuse(`The PDF's embedded files cannot be read: ${reason(error)}.`);
  }
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").slice(0, 200).replace(/\.$/, "");

/**
 * Indirect objects written out in the file ("12 0 obj"); the ones inside object streams are counted
 * as pdf-lib meets them (guardParsers). White space is what the PDF syntax calls white space (ISO
 * 32000-1 7.2.2: NUL, TAB, LF, FF, CR, SPACE), which is what pdf-lib's parser skips too: "12\x000\x00obj"
 * is an object, and one that JavaScript's `\s` (which has no NUL) would not see.
 */
export function countObjects(pdf: Uint8Array): number {
  const text = new TextDecoder("latin1").decode(pdf);
  let count = 0;
  for (const _ of text.matchAll(OBJECT_HEADER)) if (++count > MAX_OBJECTS) break;
  return count;
}
const OBJECT_HEADER = /\d+[\0\t\n\f\r ]+\d+[\0\t\n\f\r ]+obj(?![A-Za-z0-9])/g;

/** A guard's refusal, by the parse (its context) it stopped: pdf-lib replaces the error with its own. */
const guardRefusals = new WeakMap<PDFContext, string>();
/** What the object streams of one parse have declared and expanded to so far. */
const budgets = new WeakMap<PDFContext, { objects: number; bytes: number }>();
/** Refuses, and remembers why for the parse of `raw`. */
function refuseParse(raw: PDFRawStream, message: string): never {
  guardRefusals.set(raw.dict.context, message);
  return refuse(message);
}

let guarded = false;
/**
 * pdf-lib decodes object streams and cross-reference streams while it parses, whole, and builds
 * as many entries as they declare. Its two parsers' factories are wrapped (once per process) to
 * check both first. They are only ever used to parse an existing PDF, which Kontor does here
 * alone (the renderer writes PDFs, it parses none).
 */
function guardParsers() {
  if (guarded) return;
  guarded = true;
  const objectStream = PDFObjectStreamParser.forStream;
  PDFObjectStreamParser.forStream = (raw, shouldWaitForTick) => {
    // each stream within the limits, and all of one file's together: many small bombs are one big one
    const spent = budgets.get(raw.dict.context) ?? { objects: 0, bytes: 0 };
    budgets.set(raw.dict.context, spent);
    spent.objects += declaredCount(raw, raw.dict.lookup(PDFName.of("N")), "An object stream");
    spent.bytes += decodeLimited(raw, "An object stream", (message) => refuseParse(raw, message)).length;
    if (spent.objects > MAX_OBJECTS) refuseParse(raw, `The PDF's object streams hold more than ${MAX_OBJECTS} objects.`);
    if (spent.bytes > MAX_DOCUMENT_BYTES) refuseParse(raw, `The PDF's object streams expand to more than ${MAX_DOCUMENT_BYTES} bytes together.`);
    return objectStream(raw, shouldWaitForTick);
  };
  const xrefStream = PDFXRefStreamParser.forStream;
  PDFXRefStreamParser.forStream = (raw) => {
    const index = raw.dict.lookup(PDFName.of("Index"));
    if (index instanceof PDFArray) {
      let total = 0;
      for (let i = 1; i < index.size(); i += 2) total += declaredCount(raw, index.lookup(i), "A cross-reference stream");
      if (total > MAX_OBJECTS) refuseParse(raw, `A cross-reference stream of the PDF declares ${total} objects, more than ${MAX_OBJECTS}.`);
    } else declaredCount(raw, raw.dict.lookup(PDFName.of("Size")), "A cross-reference stream");
    decodeLimited(raw, "A cross-reference stream", (message) => refuseParse(raw, message));
    return xrefStream(raw);
  };
}

function declaredCount(raw: PDFRawStream, value: PDFObject | undefined, what: string): number {
  const n = value instanceof PDFNumber ? value.asNumber() : 0;
  if (!Number.isInteger(n) || n < 0 || n > MAX_OBJECTS) refuseParse(raw, `${what} of the PDF declares ${n} objects, more than ${MAX_OBJECTS}.`);
  return n;
}

/** A stream's decoded bytes, read up to the limit and refused beyond it (the decoders are lazy, so a bomb is never expanded). */
function decodeLimited(raw: PDFRawStream, what: string, fail: (message: string) => never = refuse): Uint8Array {
  let bytes: Uint8Array | Uint8ClampedArray;
  try {
    // in chunks: asking for the limit at once would allocate it for every stream
    const decoder = decodePDFRawStream(raw);
    let size = 0;
    for (let chunk = decoder.getBytes(DECODE_CHUNK); chunk.length > 0; chunk = decoder.getBytes(DECODE_CHUNK)) {
      size += chunk.length;
      if (size > MAX_DOCUMENT_BYTES) return fail(`${what} of the PDF expands to more than ${MAX_DOCUMENT_BYTES} bytes.`);
    }
    decoder.reset();
    bytes = decoder.getBytes(size);
  } catch (error) {
    if (error instanceof InboundDocumentError) throw error;
    return fail(`${what} of the PDF cannot be decoded: ${reason(error)}.`);
  }
  // a copy: the decoder's buffer is larger than what it holds
  return new Uint8Array(bytes);
}

type FileSpec = { name: string; spec: PDFDict };

/** The preferred invoice XML among the catalog's associated files (/AF) and its EmbeddedFiles name tree. */
function invoiceFileSpec(catalog: PDFDict): FileSpec | null {
  const specs: FileSpec[] = [];
  const add = (spec: PDFObject | undefined, key?: string) => {
    if (!(spec instanceof PDFDict)) return;
    const name = textOf(spec.lookup(PDFName.of("UF"))) ?? textOf(spec.lookup(PDFName.of("F"))) ?? key;
    if (name) specs.push({ name: baseName(name), spec });
  };
  const af = catalog.lookup(PDFName.of("AF"));
  if (af instanceof PDFArray) for (let i = 0; i < Math.min(af.size(), MAX_TREE_NODES); i++) add(af.lookup(i));
  const names = catalog.lookup(PDFName.of("Names"));
  const tree = names instanceof PDFDict ? names.lookup(PDFName.of("EmbeddedFiles")) : undefined;
  if (tree instanceof PDFDict) walkNameTree(tree, add);
  for (const wanted of INVOICE_XML_NAMES) {
    const hit = specs.find((s) => s.name.toLowerCase() === wanted);
    if (hit) return hit;
  }
  return null;
}

/** Visits a name tree's (key, value) pairs, depth-first, each node once, within the limits. */
function walkNameTree(root: PDFDict, visit: (value: PDFObject | undefined, key?: string) => void) {
  const seen = new Set<PDFDict>();
  const walk = (node: PDFDict, depth: number) => {
    if (depth > MAX_TREE_DEPTH || seen.has(node) || seen.size >= MAX_TREE_NODES) return;
    seen.add(node);
    const pairs = node.lookup(PDFName.of("Names"));
    if (pairs instanceof PDFArray) for (let i = 0; i + 1 < pairs.size(); i += 2) visit(pairs.lookup(i + 1), textOf(pairs.lookup(i)));
    const kids = node.lookup(PDFName.of("Kids"));
    if (kids instanceof PDFArray) {
      for (let i = 0; i < kids.size(); i++) {
        const kid = kids.lookup(i);
        if (kid instanceof PDFDict) walk(kid, depth + 1);
      }
    }
  };
  walk(root, 0);
}

/** A file specification's embedded file stream (/EF /UF, else /F). */
function embeddedStream(spec: PDFDict): PDFRawStream {
  const ef = spec.lookup(PDFName.of("EF"));
  const stream = ef instanceof PDFDict ? (ef.lookup(PDFName.of("UF")) ?? ef.lookup(PDFName.of("F"))) : undefined;
  if (!(stream instanceof PDFRawStream)) return refuse("The PDF names an embedded invoice XML but holds no file stream for it.");
  return stream;
}

const textOf = (value: PDFObject | undefined): string | undefined =>
  value instanceof PDFString || value instanceof PDFHexString ? value.decodeText() : undefined;

/** A file specification's name may be a path (ZUGFeRD 1 writers wrote some); its last part is the file's name. */
const baseName = (name: string) => name.split(/[/\\]/).pop() ?? name;
