/**
 * The inbound XML reader checks well-formedness itself, in the pass that builds the tree
 * (server/inbound/xml.ts). The oracle is libxml2 (`xmllint --noout`), the parser most e-invoicing
 * validators run on: every document below is refused by Kontor exactly when xmllint refuses it.
 */
import { describe, expect, test } from "bun:test";
import { parseXml } from "../../server/inbound/xml.ts";
import { InboundDocumentError } from "../../server/inbound/errors.ts";

const CASES: Record<string, string> = {
  "a plain document": `<?xml version="1.0" encoding="UTF-8"?><a><b>x</b><c/></a>`,
  "a byte order mark before the declaration": `\uFEFF<?xml version="1.0"?><a/>`,
  "white space and comments around the root": `<?xml version="1.0"?>\n<!-- before -->\n<a/>\n<!-- after -->\n<?pi after?>\n`,
  "attributes in both quotes, '>' inside a value": `<a x="1 > 0" y='it"s'><b z = "2" /></a>`,
  "an end tag with white space before '>'": `<a><b></b ></a >`,
  "CDATA holding markup": `<a><![CDATA[<b>&amp;</b> ]] > ]]></a>`,
  "predefined entities and character references": `<a t="&lt;&#x41;">&amp;&#65;&gt;</a>`,
  "names with dots, dashes, digits and non-ASCII letters": `<a-b.c1><ÄÖ_ü/></a-b.c1>`,
  "a default namespace and prefixes": `<a xmlns="urn:a" xmlns:p="urn:p"><p:b p:at="1"/></a>`,
  "'>' in text": `<a>1 > 0</a>`,
  "mismatched tags": `<a><b></a></b>`,
  "an element never closed": `<a><b></b>`,
  "an end tag that closes nothing": `<a></a></b>`,
  "two root elements": `<a/><b/>`,
  "text before the root": `hello<a/>`,
  "text after the root": `<a/>bye`,
  "no root at all": `<?xml version="1.0"?><!-- nothing -->`,
  "a stray '<' in text": `<a>1 < 2</a>`,
  "a '<' in an attribute value": `<a x="<"/>`,
  "an attribute twice": `<a x="1" x="2"/>`,
  "an unquoted attribute": `<a x=1/>`,
  "attributes without white space between them": `<a x="1"y="2"/>`,
  "an attribute without a value": `<a x/>`,
  "a name starting with a digit": `<1a/>`,
  "a name holding a quote": `<a"b/>`,
  "']]>' in text": `<a>x ]]> y</a>`,
  "'--' inside a comment": `<a><!-- a -- b --></a>`,
  "a comment ending in '-'": `<a><!-- a ---></a>`,
  "an XML declaration after the start": `<a/><?xml version="1.0"?>`,
  "an XML declaration after white space": ` <?xml version="1.0"?><a/>`,
  "an end tag with an attribute": `<a></a x="1">`,
  "an unknown '<!' construct": `<a><!FOO></a>`,
  "a comment never closed": `<a><!-- x </a>`,
  "a CDATA section never closed": `<a><![CDATA[ x </a>`,
  "a CDATA section outside the root": `<![CDATA[x]]><a/>`,
  "a bare '&'": `<a>fish & chips</a>`,
  "an entity no DTD defines": `<a>&nbsp;</a>`,
  "a start tag never closed": `<a><b x="1"`,
  "a lone '<' at the end": `<a/><`,
};

function xmllintAccepts(xml: string): boolean {
  const run = Bun.spawnSync(["xmllint", "--noout", "--nonet", "-"], { stdin: new TextEncoder().encode(xml), stdout: "pipe", stderr: "pipe" });
  return run.exitCode === 0;
}

function kontorAccepts(xml: string): boolean {
  try {
    parseXml(xml);
    return true;
  } catch (error) {
    if (!(error instanceof InboundDocumentError)) throw error;
    return false;
  }
}

describe("well-formedness: Kontor's reader refuses exactly what libxml2 refuses", () => {
  for (const [name, xml] of Object.entries(CASES)) {
    test(name, () => {
      expect(kontorAccepts(xml)).toBe(xmllintAccepts(xml));
    });
  }

  test("the cases hold both kinds (the oracle is not one-sided)", () => {
    const verdicts = Object.values(CASES).map(xmllintAccepts);
    expect(verdicts.filter(Boolean).length).toBe(10);
    expect(verdicts.filter((v) => !v).length).toBe(Object.keys(CASES).length - 10);
  });

  test("a refusal says where: the line and column of the fault", () => {
    expect(() => parseXml(`<a>\n  <b>\n  </c>\n</a>`)).toThrow(/not well-formed XML: the end tag '<\/c>' closes '<b>' \(line 3, column 3\)/);
  });
});
