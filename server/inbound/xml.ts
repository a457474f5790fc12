/**
 * A small, namespace-aware element tree for the inbound readers: fast-xml-parser's validator
 * checks that the document is well-formed, then the tree is built here in one pass (buildTree).
 *
 * - Names are resolved by namespace, not by prefix: `<cbc:ID>`, `<ID xmlns="…CommonBasicComponents-2">`
 *   and `<b:ID xmlns:b="…">` are the same element. Readers look elements up with their own prefix
 *   map (see `Lookup`), so a document's choice of prefixes does not matter.
 * - No DTD: a DOCTYPE is refused before parsing, so there is no entity expansion at all (no
 *   "billion laughs", no external entities). The five predefined entities and character
 *   references are decoded here, in one pass.
 * - Text is kept as strings (no number parsing): amounts must stay exact decimals.
 * The size of the input is the caller's limit (the route caps the body).
 */
import { XMLValidator } from "fast-xml-parser";
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
  text: string;
};

const PREDEFINED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** Decodes the predefined entities and character references; any other entity is an error (no DTD). */
function decodeEntities(raw: string, path: string): string {
  return raw.replace(/&([^;&\s]*);?/g, (whole, body: string) => {
    if (!whole.endsWith(";")) throw new InboundDocumentError(path, "The document is not well-formed XML: a bare '&' must be written '&amp;'.");
    if (body in PREDEFINED) return PREDEFINED[body]!;
    const ref = /^#(?:x([0-9a-fA-F]+)|([0-9]+))$/.exec(body);
    if (ref) {
      const code = ref[1] !== undefined ? parseInt(ref[1], 16) : parseInt(ref[2]!, 10);
      // a reference to half of a UTF-16 pair (&#xD800;) is no XML character (XML 1.0 Char): it would store a lone surrogate
      if (code >= 0xd800 && code <= 0xdfff) {
        throw new InboundDocumentError(path, `The document is not well-formed XML: '&${body};' refers to U+${code.toString(16).toUpperCase()}, a lone UTF-16 surrogate, which is no character.`);
      }
      if (code <= 0x10ffff && code !== 0) return String.fromCodePoint(code);
    }
    throw new InboundDocumentError(path, `The document uses the entity '&${body};', which XML without a DTD does not define.`);
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
  // well-formedness first (its own parser is lenient, and the tree builder below trusts its input)
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new InboundDocumentError("/", `The document is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col}).`);
  }
  return buildTree(xml);
}

/** An element being built: its qualified name and raw attributes until its end tag, its text parts. */
type Open = { element: XmlElement; qname: string; path: string; scope: Map<string, string>; text: string[] };

/**
 * Elements of one document at most: what bounds the tree's memory (about 240 bytes an element at
 * the peak of a parse, whatever the shape). A 10 MiB bank statement as banks write it holds about
 * one element per 40 bytes (260,000), an e-invoice of 1,000 lines some 50,000; a file of empty
 * elements could hold a million. docs/banking.md#size-memory-and-concurrency.
 */
export const MAX_XML_ELEMENTS = 300_000;

/** Start, end and empty-element tags (attribute values may hold '>'), CDATA sections, comments, processing instructions. */
const MARKUP = /<(\/?)([^\s/>!?]+)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>/g;
const ATTRIBUTE = /([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
/** Shared by every element without attributes or children: an e-invoice has hundreds of thousands of leaves at most, each a small object. */
const NO_ATTRS: Record<string, string> = Object.freeze({}) as Record<string, string>;
const NO_CHILDREN: XmlElement[] = Object.freeze([]) as unknown as XmlElement[];

/**
 * The element tree of a well-formed document, built in one pass over the text: texts are slices of
 * it (decoded only where they hold a reference), leaves share one empty attribute map and child
 * list. A general parser's intermediate tree, built character by character, held 30 to 60 times a
 * large document's size; this holds a few times it (docs/banking.md, "Memory").
 */
function buildTree(xml: string): XmlElement {
  const stack: Open[] = [];
  let root: XmlElement | null = null;
  let at = 0;
  let elements = 0;
  const addText = (raw: string) => {
    const open = stack.at(-1);
    // outside the root only white space can stand (the validator saw to it)
    if (open && raw !== "") open.text.push(raw.includes("&") ? decodeEntities(raw, open.path) : raw);
  };
  MARKUP.lastIndex = 0;
  for (let m = MARKUP.exec(xml); m !== null; m = MARKUP.exec(xml)) {
    addText(xml.slice(at, m.index));
    at = MARKUP.lastIndex;
    if (m[5] !== undefined) {
      // CDATA content is literal: concatenated as is, never entity-decoded
      stack.at(-1)?.text.push(m[5]);
      continue;
    }
    if (m[2] === undefined) continue; // a comment or a processing instruction
    if (m[1] === "/") {
      close(stack.pop()!);
      continue;
    }
    if (++elements > MAX_XML_ELEMENTS) {
      throw new InboundDocumentError("/", `The document has more than ${MAX_XML_ELEMENTS.toLocaleString("en")} elements, more than Kontor reads in one file.`);
    }
    const parent = stack.at(-1);
    const open = start(m[2], m[3] ?? "", parent ? parent.scope : new Map([["xml", "http://www.w3.org/XML/1998/namespace"]]), parent ? parent.path : "");
    if (parent) (parent.element.children === NO_CHILDREN ? (parent.element.children = []) : parent.element.children).push(open.element);
    else if (root === null) root = open.element;
    else throw new InboundDocumentError("/", "The document must have exactly one root element.");
    if (m[4] === "/") close(open);
    else stack.push(open);
  }
  if (root === null) throw new InboundDocumentError("/", "The document must have exactly one root element.");
  return root;
}

/** One string per distinct name, not one per element (an element name repeats hundreds of thousands of times). */
const names = new Map<string, [string, string]>();
function remember(qname: string): [string, string] {
  const split = splitName(qname);
  if (names.size < 10_000) names.set(qname, split);
  return split;
}

function close(open: Open): void {
  open.element.text = open.text.length === 1 ? open.text[0]! : open.text.join("");
}

function start(qname: string, rawAttrs: string, inherited: Map<string, string>, parentPath: string): Open {
  const path = `${parentPath}/${qname}`;
  const pairs: [string, string][] = [];
  ATTRIBUTE.lastIndex = 0;
  for (let a = ATTRIBUTE.exec(rawAttrs); a !== null; a = ATTRIBUTE.exec(rawAttrs)) {
    const raw = a[2] ?? a[3] ?? "";
    pairs.push([a[1]!, raw.includes("&") ? decodeEntities(raw, path) : raw]);
  }
  // a new scope only where the element declares namespaces
  let scope = inherited;
  for (const [key, value] of pairs) {
    if (key !== "xmlns" && !key.startsWith("xmlns:")) continue;
    if (scope === inherited) scope = new Map(inherited);
    scope.set(key === "xmlns" ? "" : key.slice(6), value);
  }
  const [prefix, local] = names.get(qname) ?? remember(qname);
  const ns = scope.get(prefix);
  if (ns === undefined && prefix !== "") throw new InboundDocumentError(path, `The namespace prefix '${prefix}' is not declared.`);
  let attrs = NO_ATTRS;
  for (const [key, value] of pairs) {
    if (key === "xmlns" || key.startsWith("xmlns:")) continue;
    if (attrs === NO_ATTRS) attrs = {};
    const [attrPrefix, attrLocal] = splitName(key);
    if (attrPrefix === "") attrs[attrLocal] = value;
    else {
      const attrNs = scope.get(attrPrefix);
      if (attrNs === undefined) throw new InboundDocumentError(path, `The namespace prefix '${attrPrefix}' is not declared.`);
      attrs[`{${attrNs}}${attrLocal}`] = value;
    }
  }
  return { element: { ns: ns ?? "", name: local, attrs, children: NO_CHILDREN, text: "" }, qname, path, scope, text: [] };
}

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
