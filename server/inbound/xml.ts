/**
 * A small, namespace-aware element tree for the inbound readers, built and checked for
 * well-formedness in one pass over the text (buildTree).
 *
 * - Names are resolved by namespace, not by prefix: `<cbc:ID>`, `<ID xmlns="…CommonBasicComponents-2">`
 *   and `<b:ID xmlns:b="…">` are the same element. Readers look elements up with their own prefix
 *   map (see `Lookup`), so a document's choice of prefixes does not matter.
 * - No DTD: a DOCTYPE is refused before parsing, so there is no entity expansion at all (no
 *   "billion laughs", no external entities). The five predefined entities and character
 *   references are decoded here, in one pass.
 * - Text is kept as strings (no number parsing): amounts must stay exact decimals.
 * - Well-formedness (XML 1.0, section 2.1) is checked while the tree is built: tags that nest
 *   and match, names, quoted and unique attributes, no markup character loose in text, one root,
 *   nothing but comments, processing instructions and white space around it. A separate
 *   validating pass held as much memory again as the tree (docs/payables.md#size-memory-and-concurrency).
 * The size of the input is the caller's limit (the route caps the body).
 */
import { InboundDocumentError } from "./errors.ts";

export type XmlElement = {
  /** Namespace URI ("" when none). */
  ns: string;
  /** Local name, without prefix. */
  name: string;
  /** Unprefixed attributes by name; prefixed ones as "{uri}local". Namespace declarations are left out. */
  attrs: Record<string, string>;
  children: XmlElement[];
  /** The element's own character data (text and CDATA), decoded, not trimmed. */
  readonly text: string;
};

/**
 * An element of the tree. Its text, while it is one stretch of the document without a reference
 * to decode (nearly every element's), is kept as where it stands in the document and cut out when
 * read: a string per element was the largest part of a parse's memory (docs/payables.md, "Size,
 * memory and concurrency"), and readers read the texts of a few dozen elements of a file.
 */
class Element implements XmlElement {
  children: XmlElement[] = NO_CHILDREN;
  #document: string | null = null;
  #from = 0;
  #to = 0;
  #text = "";

  constructor(
    readonly ns: string,
    readonly name: string,
    readonly attrs: Record<string, string>,
  ) {}

  get text(): string {
    return this.#document === null ? this.#text : this.#document.slice(this.#from, this.#to);
  }

  /** Characters `from`–`to` of the document, as they stand (no reference in them). */
  addStretch(document: string, from: number, to: number): void {
    if (this.#document === null && this.#text === "") {
      this.#document = document;
      this.#from = from;
      this.#to = to;
    } else this.addText(document.slice(from, to));
  }

  addText(text: string): void {
    this.#text = this.text + text;
    this.#document = null;
  }
}

const PREDEFINED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** Decodes the predefined entities and character references; any other entity is an error (no DTD). */
function decodeEntities(raw: string, path: () => string): string {
  return raw.replace(/&([^;&\s]*);?/g, (whole, body: string) => {
    if (!whole.endsWith(";")) throw new InboundDocumentError(path(), "The document is not well-formed XML: a bare '&' must be written '&amp;'.");
    if (body in PREDEFINED) return PREDEFINED[body]!;
    const ref = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(body);
    if (ref) {
      const code = ref[1] !== undefined ? parseInt(ref[1], 16) : parseInt(ref[2]!, 10);
      // a reference to half of a UTF-16 pair (&#xD800;) is no XML character (XML 1.0 Char): it would store a lone surrogate
      if (code >= 0xd800 && code <= 0xdfff) {
        throw new InboundDocumentError(path(), `The document is not well-formed XML: '&${body};' refers to U+${code.toString(16).toUpperCase()}, a lone UTF-16 surrogate, which is no character.`);
      }
      if (code <= 0x10ffff && code !== 0) return String.fromCodePoint(code);
    }
    throw new InboundDocumentError(path(), `The document uses the entity '&${body};', which XML without a DTD does not define.`);
  });
}

/**
 * Refuses a DOCTYPE: it can only stand in the prolog, before the root element, after the XML
 * declaration, comments and processing instructions.
 */
function refuseDoctype(xml: string): void {
  const prolog = xml.replace(/^\uFEFF/, "").replace(/^(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->)*/, "");
  if (/^<!DOCTYPE/i.test(prolog)) {
    throw new InboundDocumentError("/", "The document has a DOCTYPE; DTDs and entity declarations are not accepted.");
  }
}

/** Parses XML text into the root element, with namespaces resolved. Throws InboundDocumentError. */
export function parseXml(xml: string): XmlElement {
  refuseDoctype(xml);
  return buildTree(xml);
}

/**
 * Elements of one document at most: what bounds the tree's memory (about 240 bytes an element at
 * the peak of a parse, whatever the shape). A 10 MiB bank statement as banks write it holds about
 * one element per 40 bytes (260,000), an e-invoice of 1,000 lines some 50,000; a file of empty
 * elements could hold a million. docs/payables.md#size-memory-and-concurrency.
 */
export const MAX_XML_ELEMENTS = 300_000;

/** A start tag's attributes from just after its name, to before its '/>' or '>' (sticky: from lastIndex only). */
const ATTRIBUTES = /((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*/y;
const [LT, GT, SLASH, BANG, QUESTION] = ["<", ">", "/", "!", "?"].map((c) => c.charCodeAt(0)) as [number, number, number, number, number];
/** XML's white space (S): space, tab, carriage return, line feed. */
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
const ATTRIBUTE = /([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
/** An XML 1.0 Name with at most one colon (Namespaces in XML's QName), by Unicode letter classes. */
const QNAME = /^[\p{L}_][\p{L}\p{N}\p{M}._\-\u00B7]*(?::[\p{L}_][\p{L}\p{N}\p{M}._\-\u00B7]*)?$/u;
/** Shared by every element without attributes or children: an e-invoice has hundreds of thousands of leaves at most, each a small object. */
const NO_ATTRS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const NO_CHILDREN: XmlElement[] = Object.freeze([]) as unknown as XmlElement[];

/** The line and column of a position in the text, for a refusal (1-based, as editors count). */
function position(xml: string, index: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = xml.indexOf("\n"); i !== -1 && i < index; i = xml.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `line ${line}, column ${index - lineStart + 1}`;
}

/**
 * The element tree of a well-formed document, built in one pass over the text: texts are slices of
 * it (decoded only where they hold a reference), leaves share one empty attribute map and child
 * list, and what is open is kept in three parallel stacks (no object per element beyond the
 * element itself). A general parser's intermediate tree, built character by character, held 30 to
 * 60 times a large document's size; this holds a few times it (docs/payables.md#size-memory-and-concurrency).
 */
function buildTree(xml: string): XmlElement {
  const open: Element[] = [];
  const qnames: string[] = [];
  const scopes: Map<string, string>[] = [];
  const path = () => (qnames.length === 0 ? "/" : `/${qnames.join("/")}`);
  const malformed = (index: number, what: string) => new InboundDocumentError(path(), `The document is not well-formed XML: ${what} (${position(xml, index)}).`);
  let root: Element | null = null;
  let at = 0;
  let elements = 0;
  // where the next ']]>' and '&' stand (from the text's start on): found once, not searched for
  // again in every stretch of text before them
  let nextCdataEnd = -2;
  let nextAmpersand = -2;
  const nextAt = (cached: number, what: string, from: number) => (cached !== -1 && cached < from ? xml.indexOf(what, from) : cached);
  /** The text between two tags, `from`–`to` (it holds no '<': the scan stops at each). */
  const addText = (from: number, to: number) => {
    if (from >= to) return;
    nextCdataEnd = nextCdataEnd === -2 ? xml.indexOf("]]>", from) : nextAt(nextCdataEnd, "]]>", from);
    if (nextCdataEnd !== -1 && nextCdataEnd + 3 <= to) throw malformed(nextCdataEnd, "']]>' outside a CDATA section");
    const element = open.at(-1);
    if (element === undefined) {
      if (xml.slice(from, to).trim() !== "") throw malformed(from, root === null ? "text before the root element" : "text after the root element");
      return;
    }
    nextAmpersand = nextAmpersand === -2 ? xml.indexOf("&", from) : nextAt(nextAmpersand, "&", from);
    if (nextAmpersand !== -1 && nextAmpersand < to) element.addText(decodeEntities(xml.slice(from, to), path));
    else element.addStretch(xml, from, to);
  };
  /** One string per distinct name, not one per element (an element name repeats hundreds of thousands of times); only names that are well-formed. */
  function remember(qname: string, index: number): [string, string] {
    if (!QNAME.test(qname)) throw malformed(index, `'${qname}' is not an XML name`);
    const split = splitName(qname);
    if (names.size < 10_000) names.set(qname, split);
    return split;
  }

  /** An element with attributes: its namespace declarations open a scope of their own. */
  function start(qname: string, rawAttrs: string, inherited: Map<string, string>, index: number): { element: Element; scope: Map<string, string> } {
    const [prefix, local] = names.get(qname) ?? remember(qname, index);
    const here = () => `${path() === "/" ? "" : path()}/${qname}`;
    let scope = inherited;
    let attrs = NO_ATTRS;
    const pairs: [string, string][] = [];
    const seen = new Set<string>();
    ATTRIBUTE.lastIndex = 0;
    for (let a = ATTRIBUTE.exec(rawAttrs); a !== null; a = ATTRIBUTE.exec(rawAttrs)) {
      const key = a[1]!;
      const raw = a[2] ?? a[3] ?? "";
      if (names.get(key) === undefined) remember(key, index);
      if (seen.has(key)) throw malformed(index, `the attribute '${key}' appears twice on '<${qname}>'`);
      seen.add(key);
      if (raw.includes("<")) throw malformed(index, `the value of the attribute '${key}' holds a '<'`);
      pairs.push([key, raw.includes("&") ? decodeEntities(raw, here) : raw]);
    }
    for (const [key, value] of pairs) {
      if (key !== "xmlns" && !key.startsWith("xmlns:")) continue;
      if (scope === inherited) scope = new Map(inherited);
      scope.set(key === "xmlns" ? "" : key.slice(6), value);
    }
    for (const [key, value] of pairs) {
      if (key === "xmlns" || key.startsWith("xmlns:")) continue;
      if (attrs === NO_ATTRS) attrs = {};
      const [attrPrefix, attrLocal] = splitName(key);
      if (attrPrefix === "") attrs[attrLocal] = value;
      else {
        const attrNs = scope.get(attrPrefix);
        if (attrNs === undefined) throw new InboundDocumentError(here(), `The namespace prefix '${attrPrefix}' is not declared.`);
        attrs[`{${attrNs}}${attrLocal}`] = value;
      }
    }
    const ns = prefix === "" ? (scope.get("") ?? "") : scope.get(prefix);
    if (ns === undefined) throw new InboundDocumentError(here(), `The namespace prefix '${prefix}' is not declared.`);
    return { element: new Element(ns, local, attrs), scope };
  }

  /** Where the markup opened at `from` ends (just past `close`); unterminated markup is not well-formed. */
  const endOf = (from: number, close: string, what: string) => {
    const end = xml.indexOf(close, from);
    if (end === -1) throw malformed(from, `${what} that is never closed`);
    return end + close.length;
  };

  /** The name of the last start tag read, whose string the next one may share. */
  let lastStart: string | undefined;
  // the XML declaration, when there is one, stands first (after a byte order mark)
  const declarationAt = xml.startsWith("\uFEFF") ? 1 : 0;
  // a scan by character codes, not a regular expression: no match object and substrings per tag
  for (let lt = xml.indexOf("<"); lt !== -1; lt = xml.indexOf("<", at)) {
    addText(at, lt);
    const next = xml.charCodeAt(lt + 1);
    if (next === BANG) {
      if (xml.startsWith("<![CDATA[", lt)) {
        at = endOf(lt + 9, "]]>", "a CDATA section");
        // CDATA content is literal: concatenated as is, never entity-decoded
        const element = open.at(-1);
        if (element === undefined) throw malformed(lt, "a CDATA section outside the root element");
        element.addText(xml.slice(lt + 9, at - 3));
      } else if (xml.startsWith("<!--", lt)) {
        at = endOf(lt + 4, "-->", "a comment");
        const body = xml.slice(lt + 4, at - 3);
        if (body.includes("--") || body.endsWith("-")) throw malformed(lt, "'--' inside a comment");
      } else throw malformed(lt, "a '<!' that opens no comment or CDATA section");
      continue;
    }
    if (next === QUESTION) {
      at = endOf(lt + 2, "?>", "a processing instruction");
      const target = /^[^\s?]*/.exec(xml.slice(lt + 2, at - 2))![0];
      if (!QNAME.test(target)) throw malformed(lt, "a processing instruction without a target name");
      if (target.toLowerCase() === "xml" && lt !== declarationAt) throw malformed(lt, "an XML declaration that is not at the very start");
      continue;
    }
    const closing = next === SLASH;
    // the name runs to white space, '/', '>' or the end
    let end = closing ? lt + 2 : lt + 1;
    for (let c = xml.charCodeAt(end); end < xml.length && c !== GT && c !== SLASH && !isSpace(c) && c !== LT; c = xml.charCodeAt(++end));
    // the name as a string: the element it closes, or the last start tag's, when the text holds
    // the same (most end tags, and runs of siblings), else a new slice of the text
    const nameAt = closing ? lt + 2 : lt + 1;
    const known = closing ? qnames.at(-1) : lastStart;
    const qname = known !== undefined && known.length === end - nameAt && xml.startsWith(known, nameAt) ? known : xml.slice(nameAt, end);
    if (!closing) lastStart = qname;
    if (qname === "") throw malformed(lt, "a '<' that starts no tag, comment, CDATA section or processing instruction");
    if (closing) {
      while (isSpace(xml.charCodeAt(end))) end++;
      if (xml.charCodeAt(end) !== GT) throw malformed(lt, `the end tag '</${qname}' is not closed by '>' (an end tag has no attributes)`);
      at = end + 1;
      const element = open.pop();
      const opened = qnames.pop();
      scopes.pop();
      if (element === undefined) throw malformed(lt, `the end tag '</${qname}>' closes no element`);
      if (opened !== qname) throw malformed(lt, `the end tag '</${qname}>' closes '<${opened}>'`);
      continue;
    }
    // attributes (rare): quoted values may hold '>'
    let rawAttrs = "";
    if (xml.charCodeAt(end) !== GT && xml.charCodeAt(end) !== SLASH) {
      ATTRIBUTES.lastIndex = end;
      const attributes = ATTRIBUTES.exec(xml);
      if (attributes === null) throw malformed(lt, `the start tag '<${qname}' is not well-formed (attributes are name="value", separated by white space)`);
      rawAttrs = attributes[1]!;
      end = ATTRIBUTES.lastIndex;
    }
    const empty = xml.charCodeAt(end) === SLASH;
    if (empty) end++;
    if (xml.charCodeAt(end) !== GT) throw malformed(lt, `the start tag '<${qname}' is not closed by '>'`);
    at = end + 1;
    if (++elements > MAX_XML_ELEMENTS) {
      throw new InboundDocumentError("/", `The document has more than ${MAX_XML_ELEMENTS.toLocaleString("en")} elements, more than Kontor reads in one file.`);
    }
    const parent = open.at(-1);
    if (parent === undefined && root !== null) throw malformed(lt, "a second root element (a document has exactly one)");
    const inherited = parent ? scopes.at(-1)! : XML_SCOPE;
    // most elements have no attributes: no scope of their own, no object beyond the element
    let element: Element;
    let scope = inherited;
    if (rawAttrs === "") {
      const [prefix, local] = names.get(qname) ?? remember(qname, lt);
      const ns = prefix === "" ? (inherited.get("") ?? "") : inherited.get(prefix);
      if (ns === undefined) throw new InboundDocumentError(`${path() === "/" ? "" : path()}/${qname}`, `The namespace prefix '${prefix}' is not declared.`);
      element = new Element(ns, local, NO_ATTRS);
    } else ({ element, scope } = start(qname, rawAttrs, inherited, lt));
    if (parent) (parent.children === NO_CHILDREN ? (parent.children = []) : parent.children).push(element);
    else root = element;
    if (!empty) {
      open.push(element);
      qnames.push(qname);
      scopes.push(scope);
    }
  }
  addText(at, xml.length);
  if (open.length > 0) throw malformed(xml.length, `the element '<${qnames.at(-1)}>' is not closed`);
  if (root === null) throw new InboundDocumentError("/", "The document must have exactly one root element.");
  return root;
}

/** One string per distinct name of any document (well-formed names only), split at its colon. */
const names = new Map<string, [string, string]>();

/** The scope every document starts in: only the `xml` prefix is bound. */
const XML_SCOPE = new Map([["xml", "http://www.w3.org/XML/1998/namespace"]]);

function splitName(qname: string): [string, string] {
  const colon = qname.indexOf(":");
  return colon === -1 ? ["", qname] : [qname.slice(0, colon), qname.slice(colon + 1)];
}

/**
 * Element look-ups with the reader's own prefixes: `lookup.all(el, "cac:Party/cbc:Name")`.
 * An unprefixed step means the map's "" namespace.
 */
export class Lookup {
  constructor(private readonly prefixes: Record<string, string>) {}

  private step(step: string): { ns: string; name: string } {
    const [prefix, name] = splitName(step);
    const ns = this.prefixes[prefix];
    if (ns === undefined) throw new Error(`Lookup: unknown prefix '${prefix}' in '${step}'`);
    return { ns, name };
  }

  /** Every element reached by the path (each step over all matching children). */
  all(from: XmlElement, path: string): XmlElement[] {
    let current = [from];
    for (const part of path.split("/")) {
      const { ns, name } = this.step(part);
      current = current.flatMap((el) => el.children.filter((c) => c.ns === ns && c.name === name));
    }
    return current;
  }

  one(from: XmlElement, path: string): XmlElement | null {
    return this.all(from, path)[0] ?? null;
  }

  /** The trimmed text of the first element on the path, or null when absent or empty. */
  text(from: XmlElement, path: string): string | null {
    const el = this.one(from, path);
    const text = el?.text.trim();
    return text ? text : null;
  }
}
