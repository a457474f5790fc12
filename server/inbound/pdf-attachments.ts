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
 * - at most MAX_TOKENS values and names parsed (pdf-lib builds a JavaScript object for each, about
 *   100 bytes: 5 million numbers in 10 MiB took 330 MB), in the file and its object streams
 *   together, at most MAX_XREF_ENTRIES cross-reference table entries, at most MAX_DISTINCT_NAMES
 *   names and MAX_DISTINCT_REFS references (pdf-lib interns both for the life of the process), and
 *   no name, string or number longer than real files have by far (pdf-lib builds a token's text
 *   character by character, some 36 bytes each while it does). These are counted inside
 *   pdf-lib's own parser (guardParsers), so they count exactly what it builds whatever the
 *   syntax: a count of the bytes before parsing would have to repeat its recovery from
 *   malformed files (it resumes at any "N G obj" it finds, inside a string or a comment too).
 *   The limits are some ten times what the largest of 55 real PDFs has
 *   (docs/payables.md#size-memory-and-concurrency), so the worst accepted file parses in under
 *   100 MB;
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
  PDFCrossRefSection,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFObjectParser,
  PDFObjectStreamParser,
  PDFParser,
  PDFRawStream,
  PDFRef,
  PDFString,
  PDFXRefStreamParser,
  type PDFObject,
} from "pdf-lib";
import { MAX_DOCUMENT_BYTES } from "./decode.ts";
import { InboundDocumentError } from "./errors.ts";

/** The names a hybrid invoice's XML has, by preference (Factur-X and ZUGFeRD 2 before ZUGFeRD 1's, then XRechnung's). */
export const INVOICE_XML_NAMES = ["factur-x.xml", "zugferd-invoice.xml", "xrechnung.xml"] as const;
/**
 * The limits of one PDF, each some ten times the most that 55 real PDFs have (Factur-X, ZUGFeRD
 * and XRechnung samples of three projects, manuals; docs/payables.md#size-memory-and-concurrency).
 * Indirect objects: 1,214 at most (a 40-page invoice of Kontor's has a few hundred).
 */
export const MAX_OBJECTS = 12_000;
/** Values and names pdf-lib parses (outside stream data): 17,923 at most in a real file. */
export const MAX_TOKENS = 200_000;
/** Cross-reference table entries, over all the file's tables (incremental updates repeat them): 1,215 at most. */
export const MAX_XREF_ENTRIES = 2 * MAX_OBJECTS;
/** Different names in one file: 267 at most. */
export const MAX_DISTINCT_NAMES = 2_000;
/** Different indirect references in one file: one per object at most in a real file. */
export const MAX_DISTINCT_REFS = MAX_OBJECTS;
/** The longest name: PDF's own limit (ISO 32000-1 Annex C), 37 bytes at most in a real file. */
export const MAX_NAME_BYTES = 127;
/** The longest literal or hexadecimal string outside a stream: PDF's own limit for a string; 387 bytes at most in a real file. */
export const MAX_STRING_BYTES = 32_767;
/** All strings outside streams together (pdf-lib builds each character by character, some 36 bytes a character while it does): 9,278 bytes at most in a real file. */
export const MAX_STRING_TOTAL = 256 * 1024;
/** The longest number (digits, sign and point): 16 characters at most in a real file. */
export const MAX_NUMBER_CHARS = 64;
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
  const budget: Budget = { tokens: 0, xref: 0, names: new Set(), refs: new Set(), stringBytes: 0, streamObjects: 0, streamBytes: 0 };
  budgets.set((parser as unknown as { context: PDFContext }).context, budget);
  let context: PDFContext;
  try {
    context = await parser.parseDocument();
  } catch (error) {
    // pdf-lib reports an error inside an object (a guard's refusal too) as "invalid object": the guard's reason is kept in the budget
    return refuse(budget.refusal ?? `The PDF cannot be read: ${reason(error)}.`);
  }
  // a limit crossed where pdf-lib tries and backs off (an object header looked for in junk) is a refusal all the same
  if (budget.refusal) refuse(budget.refusal);
  // what the parse interned is no longer needed here (the document's objects hold their own)
  budget.names.clear();
  budget.refs.clear();
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
  // by byte codes, no copy of the file as text: every "obj" (not followed by a letter or digit)
  // preceded by white space, digits, white space and digits
  const isWhite = (byte: number | undefined) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
  const isDigit = (byte: number | undefined) => byte !== undefined && byte >= 0x30 && byte <= 0x39;
  const isAlnum = (byte: number | undefined) => isDigit(byte) || (byte !== undefined && ((byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)));
  /** Where a run of `is` bytes ending before `at` starts, or -1 when there is none. */
  const runBefore = (at: number, is: (byte: number | undefined) => boolean) => {
    let i = at;
    while (i > 0 && is(pdf[i - 1])) i--;
    return i === at ? -1 : i;
  };
  let count = 0;
  for (let at = pdf.indexOf(0x6f); at !== -1 && count <= MAX_OBJECTS; at = pdf.indexOf(0x6f, at + 1)) {
    if (pdf[at + 1] !== 0x62 || pdf[at + 2] !== 0x6a || isAlnum(pdf[at + 3])) continue;
    const white = runBefore(at, isWhite);
    const generation = white > 0 ? runBefore(white, isDigit) : -1;
    const between = generation > 0 ? runBefore(generation, isWhite) : -1;
    if (between > 0 && runBefore(between, isDigit) !== -1) count++;
  }
  return count;
}

/** What one parse has spent so far, and the first limit it crossed. */
type Budget = {
  tokens: number;
  xref: number;
  names: Set<PDFName>;
  refs: Set<PDFRef>;
  stringBytes: number;
  /** What its object streams declare and expand to. */
  streamObjects: number;
  streamBytes: number;
  refusal?: string;
};
/** The budget of each parse Kontor runs, by its context; a PDF parsed for another purpose has none and no limits. */
const budgets = new WeakMap<PDFContext, Budget>();

/** Refuses, and remembers why in the parse's budget: pdf-lib replaces the error with its own, or backs off from it. */
function overBudget(budget: Budget, message: string): never {
  budget.refusal ??= message;
  return refuse(message);
}
function refuseParse(raw: PDFRawStream, message: string): never {
  const budget = budgets.get(raw.dict.context);
  return budget ? overBudget(budget, message) : refuse(message);
}

/** pdf-lib's parser as far as the guards use it (its members are private in its types). */
type Parser = {
  context: PDFContext;
  bytes: { offset(): number; peekAt(offset: number): number | undefined };
};
/** The wrapped methods take no argument (a rest parameter would allocate an array per token). */
type Method = (this: Parser) => unknown;

// PDF's white space (ISO 32000-1 7.2.2) and delimiters (7.2.3), as pdf-lib's parser has them
const WHITE_OR_DELIMITER = new Uint8Array(256);
for (const c of "\0\t\n\f\r ()<>[]{}/%") WHITE_OR_DELIMITER[c.charCodeAt(0)] = 1;
const NUMERIC = new Uint8Array(256);
for (const c of "0123456789+-.") NUMERIC[c.charCodeAt(0)] = 1;

/** How far a token of pdf-lib's runs from `start`, counted up to `limit + 1` (enough to refuse it). */
function tokenLength(parser: Parser, start: number, limit: number, ends: (byte: number, length: number) => boolean): number {
  let length = 0;
  for (let byte = parser.bytes.peekAt(start); byte !== undefined && length <= limit && !ends(byte, length); byte = parser.bytes.peekAt(start + ++length));
  return length;
}

/** A literal string's length, parentheses balanced and escapes honoured as pdf-lib reads them. */
function literalStringLength(parser: Parser, start: number): number {
  let depth = 0;
  let escaped = false;
  return tokenLength(parser, start, MAX_STRING_BYTES, (byte, length) => {
    if (length > 0 && depth === 0) return true;
    if (!escaped && byte === 0x28) depth++;
    if (!escaped && byte === 0x29) depth--;
    escaped = byte === 0x5c ? !escaped : false;
    return false;
  });
}

let guarded = false;
/**
 * pdf-lib decodes object streams and cross-reference streams while it parses, whole, and builds
 * as many entries as they declare, and an object for every value and name it reads. Its parsers'
 * factories and methods are wrapped (once per process) to count and check all of this before it is
 * built, for the parses embeddedInvoiceXml runs (those with a budget): Kontor parses PDFs nowhere
 * else (the renderer writes PDFs), and any other parse is left as it was.
 */
function guardParsers() {
  if (guarded) return;
  guarded = true;
  const objectParser = PDFObjectParser.prototype as unknown as Record<string, Method>;
  const baseParser = Object.getPrototypeOf(objectParser) as Record<string, Method>;
  const documentParser = PDFParser.prototype as unknown as Record<string, Method>;
  const wrap = (proto: Record<string, Method>, name: string, check: (parser: Parser, budget: Budget) => void, after?: (result: unknown, budget: Budget) => void) => {
    const original = proto[name]!;
    proto[name] = function (this: Parser) {
      const budget = budgets.get(this.context);
      if (!budget) return original.call(this);
      check(this, budget);
      const result = original.call(this);
      after?.(result, budget);
      return result;
    };
  };
  const count = (budget: Budget) => {
    if (++budget.tokens > MAX_TOKENS) overBudget(budget, `The PDF has more than ${MAX_TOKENS} values and names outside its streams; an invoice has far fewer.`);
  };
  // every value (a number, a reference, a string, a name, an array, a dictionary) and every dictionary key
  wrap(objectParser, "parseObject", (_, budget) => count(budget));
  wrap(
    objectParser,
    "parseName",
    (parser, budget) => {
      count(budget);
      // after the slash, up to white space or a delimiter
      const length = tokenLength(parser, parser.bytes.offset() + 1, MAX_NAME_BYTES, (byte) => WHITE_OR_DELIMITER[byte] === 1);
      if (length > MAX_NAME_BYTES) overBudget(budget, `The PDF has a name longer than ${MAX_NAME_BYTES} bytes, the most PDF allows.`);
    },
    (name, budget) => {
      budget.names.add(name as PDFName);
      if (budget.names.size > MAX_DISTINCT_NAMES) overBudget(budget, `The PDF has more than ${MAX_DISTINCT_NAMES} different names; an invoice has a few hundred.`);
    },
  );
  const spendOnString = (budget: Budget, length: number) => {
    if (length > MAX_STRING_BYTES) overBudget(budget, `The PDF has a string longer than ${MAX_STRING_BYTES} bytes outside its streams.`);
    budget.stringBytes += length;
    if (budget.stringBytes > MAX_STRING_TOTAL) overBudget(budget, `The PDF has more than ${MAX_STRING_TOTAL} bytes of strings outside its streams.`);
  };
  wrap(objectParser, "parseString", (parser, budget) => spendOnString(budget, literalStringLength(parser, parser.bytes.offset())));
  wrap(objectParser, "parseHexString", (parser, budget) => spendOnString(budget, tokenLength(parser, parser.bytes.offset() + 1, MAX_STRING_BYTES, (byte) => byte === 0x3e)));
  wrap(objectParser, "parseNumberOrRef", () => {}, (value, budget) => {
    if (!(value instanceof PDFRef)) return;
    budget.refs.add(value);
    if (budget.refs.size > MAX_DISTINCT_REFS) overBudget(budget, `The PDF has references to more than ${MAX_DISTINCT_REFS} different objects.`);
  });
  for (const name of ["parseRawNumber", "parseRawInt"]) {
    wrap(baseParser, name, (parser, budget) => {
      if (tokenLength(parser, parser.bytes.offset(), MAX_NUMBER_CHARS, (byte) => NUMERIC[byte] !== 1) > MAX_NUMBER_CHARS) overBudget(budget, `The PDF has a number longer than ${MAX_NUMBER_CHARS} characters.`);
    });
  }
  // a cross-reference table's entries are added by a section that knows not its parse: the table's parse says which it is
  let tableBudget: Budget | undefined;
  const crossRefSection = documentParser.maybeParseCrossRefSection!;
  documentParser.maybeParseCrossRefSection = function (this: Parser) {
    tableBudget = budgets.get(this.context);
    try {
      return crossRefSection.call(this);
    } finally {
      // the writer adds entries too, never counted
      tableBudget = undefined;
    }
  };
  const section = PDFCrossRefSection.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  for (const name of ["addEntry", "addDeletedEntry"]) {
    const original = section[name]!;
    section[name] = function (this: unknown, ...args: unknown[]) {
      if (tableBudget && ++tableBudget.xref > MAX_XREF_ENTRIES) {
        const budget = tableBudget;
        tableBudget = undefined;
        overBudget(budget, `The PDF's cross-reference tables have more than ${MAX_XREF_ENTRIES} entries.`);
      }
      return original.apply(this, args);
    };
  }

  const objectStream = PDFObjectStreamParser.forStream;
  PDFObjectStreamParser.forStream = (raw, shouldWaitForTick) => {
    // each stream within the limits, and all of one file's together: many small bombs are one big one
    const spent = budgets.get(raw.dict.context);
    if (!spent) return objectStream(raw, shouldWaitForTick);
    spent.streamObjects += declaredCount(raw, raw.dict.lookup(PDFName.of("N")), "An object stream");
    spent.streamBytes += decodeLimited(raw, "An object stream", (message) => refuseParse(raw, message)).length;
    if (spent.streamObjects > MAX_OBJECTS) refuseParse(raw, `The PDF's object streams hold more than ${MAX_OBJECTS} objects.`);
    if (spent.streamBytes > MAX_DOCUMENT_BYTES) refuseParse(raw, `The PDF's object streams expand to more than ${MAX_DOCUMENT_BYTES} bytes together.`);
    return objectStream(raw, shouldWaitForTick);
  };
  const xrefStream = PDFXRefStreamParser.forStream;
  PDFXRefStreamParser.forStream = (raw) => {
    if (!budgets.has(raw.dict.context)) return xrefStream(raw);
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
