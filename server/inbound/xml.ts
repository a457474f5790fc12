/**
 * A small, namespace-aware element tree over fast-xml-parser, for the inbound readers.
 *
 * - Names are resolved by namespace, not by prefix: `<cbc:ID>`, `<ID xmlns="…CommonBasicComponents-2">`
 *   and `<b:ID xmlns:b="…">` are the same element. Readers look elements up with their own prefix
 *   map (see `Lookup`), so a document's choice of prefixes does not matter.
 * - No DTD: a DOCTYPE is refused before parsing, so there is no entity expansion at all (no
 *   "billion laughs", no external entities). fast-xml-parser runs with entity processing off and the
 *   five predefined entities and character references are decoded here, in one pass.
 * - Well-formedness is checked by fast-xml-parser's validator first, since its parser is lenient.
 * - Text is kept as strings (no number parsing): amounts must stay exact decimals.
 * The size of the input is the caller's limit (the route caps the body).
 */
import { XMLParser, XMLValidator } from "fast-xml-parser";
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

type OrderedNode = Record<string, unknown>;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: false,
  htmlEntities: false,
  cdataPropName: "#cdata",
  commentPropName: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

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
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new InboundDocumentError("/", `The document is not well-formed XML: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col}).`);
  }
  let nodes: OrderedNode[];
  try {
    nodes = parser.parse(xml) as OrderedNode[];
  } catch (error) {
    throw new InboundDocumentError("/", `The document could not be read as XML: ${(error as Error).message}`);
  }
  const roots = nodes.filter((n) => elementName(n) !== null);
  if (roots.length !== 1) throw new InboundDocumentError("/", "The document must have exactly one root element.");
  return toElement(roots[0]!, new Map([["xml", "http://www.w3.org/XML/1998/namespace"]]), "");
}

function elementName(node: OrderedNode): string | null {
  for (const key of Object.keys(node)) if (key !== ":@" && key !== "#text" && key !== "#cdata") return key;
  return null;
}

function toElement(node: OrderedNode, inherited: Map<string, string>, parentPath: string): XmlElement {
  const qname = elementName(node)!;
  const rawAttrs = (node[":@"] ?? {}) as Record<string, string>;
  const path = `${parentPath}/${qname}`;
  const scope = new Map(inherited);
  for (const [key, value] of Object.entries(rawAttrs)) {
    if (key === "xmlns") scope.set("", decodeEntities(value, path));
    else if (key.startsWith("xmlns:")) scope.set(key.slice(6), decodeEntities(value, path));
  }
  const [prefix, local] = splitName(qname);
  const ns = scope.get(prefix);
  if (ns === undefined && prefix !== "") throw new InboundDocumentError(path, `The namespace prefix '${prefix}' is not declared.`);
  const attrs: Record<string, string> = {};
  for (const [key, value] of Object.entries(rawAttrs)) {
    if (key === "xmlns" || key.startsWith("xmlns:")) continue;
    const [attrPrefix, attrLocal] = splitName(key);
    if (attrPrefix === "") attrs[attrLocal] = decodeEntities(value, path);
    else {
      const attrNs = scope.get(attrPrefix);
      if (attrNs === undefined) throw new InboundDocumentError(path, `The namespace prefix '${attrPrefix}' is not declared.`);
      attrs[`{${attrNs}}${attrLocal}`] = decodeEntities(value, path);
    }
  }
  const children: XmlElement[] = [];
  let text = "";
  for (const child of (node[qname] ?? []) as OrderedNode[]) {
    if ("#text" in child) text += decodeEntities(String(child["#text"]), path);
    else if ("#cdata" in child) {
      // CDATA content is literal: concatenated as is, never entity-decoded
      for (const part of child["#cdata"] as OrderedNode[]) text += String(part["#text"] ?? "");
    } else if (elementName(child) !== null) children.push(toElement(child, scope, path));
  }
  return { ns: ns ?? "", name: local, attrs, children, text };
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
