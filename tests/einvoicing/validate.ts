/**
 * Validates a UBL 2.1 invoice or credit note the way a Peppol access point would: the OASIS UBL 2.1
 * XSD (xmllint, compiled to WebAssembly), then the CEN EN 16931 rules and the Peppol BIS Billing 3.0
 * rules (the official schematron, compiled to XSLT, run by SaxonJS); an XRechnung UBL against the
 * CEN and KoSIT XRechnung rules instead. A CII invoice against the CII D16B XSD and the CEN EN 16931
 * CII rules, and then either the Factur-X EN 16931 profile's XSD and schematron, or for an
 * XRechnung the KoSIT XRechnung CII rules; a French seller's CII also against the French
 * e-invoicing reform's rules (BR-FR-*). See ATTRIBUTION.md for the files.
 *
 * A document is valid when `xsdErrors` and `fatal` are both empty; `warnings` are what the rules
 * flag as "warning" (a receiver accepts them).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
// @ts-expect-error saxon-js ships no type declarations
import SaxonJS from "saxon-js";
import { validateXML, type XMLFileInfo } from "xmllint-wasm";
import { pathToFileURL } from "node:url";
import { ensureCompiledRules, readCompiledRules, ruleSource, type RuleSet } from "../../scripts/einvoicing-rules.ts";

export type FailedAssert = { rules: RuleSet; id: string; flag: string; location: string; text: string };
export type UblValidation = { fatal: FailedAssert[]; warnings: FailedAssert[]; xsdErrors: string[] };

const UBL_DIR = join(import.meta.dir, "ubl-2.1");

let compiled: Promise<Record<RuleSet, string>> | null = null;
const parsed = new Map<RuleSet, unknown>();
/** Loads the compiled rule sets `names` (none: only makes sure all are compiled), compiling them first when the cache is missing (15–30 s each). */
export async function loadRules(names: readonly RuleSet[] = []): Promise<Record<RuleSet, unknown>> {
  compiled ??= ensureCompiledRules();
  const paths = await compiled;
  for (const name of names) if (!parsed.has(name)) parsed.set(name, readCompiledRules(paths[name]));
  return Object.fromEntries(parsed) as Record<RuleSet, unknown>;
}

let schemaFiles: XMLFileInfo[] | null = null;
/** Every UBL 2.1 schema file, under the relative paths the main schemas import them by. */
function ublSchemaFiles(): XMLFileInfo[] {
  if (schemaFiles) return schemaFiles;
  schemaFiles = [];
  for (const dir of ["common", "maindoc"]) {
    for (const file of readdirSync(join(UBL_DIR, dir))) {
      if (file.endsWith(".xsd")) schemaFiles.push({ fileName: `${dir}/${file}`, contents: readFileSync(join(UBL_DIR, dir, file), "utf8") });
    }
  }
  return schemaFiles;
}

/** The root element's local name: Invoice or CreditNote decides the schema. */
function rootName(xml: string): string {
  const m = /<(?:[A-Za-z_][\w.-]*:)?(Invoice|CreditNote)[\s>]/.exec(xml.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, ""));
  return m?.[1] ?? "Invoice";
}

export async function xsdErrors(xml: string): Promise<string[]> {
  const files = ublSchemaFiles();
  const main = `maindoc/UBL-${rootName(xml)}-2.1.xsd`;
  const result = await validateXML({
    xml: { fileName: "document.xml", contents: xml },
    schema: files.find((f) => f.fileName === main)!,
    preload: files.filter((f) => f.fileName !== main),
    // the UBL schemas and a 20-line invoice need more than the default 32 MiB ceiling
    maxMemoryPages: 4096,
  });
  return result.valid ? [] : result.errors.map((e) => e.rawMessage || e.message);
}

/** Runs one compiled rule set and reads its SVRL report's failed assertions. */
function runRules(name: RuleSet, sef: unknown, xml: string): FailedAssert[] {
  // the base URI its document() calls resolve against (Factur-X's code lists beside it)
  const stylesheetBaseURI = pathToFileURL(ruleSource(name)).href;
  const result = SaxonJS.transform({ stylesheetInternal: sef, stylesheetBaseURI, sourceText: xml, destination: "serialized" }, "sync");
  const svrl: string = result.principalResult;
  const out: FailedAssert[] = [];
  for (const m of svrl.matchAll(/<svrl:failed-assert\b([^>]*)>([\s\S]*?)<\/svrl:failed-assert>/g)) {
    const attrs = m[1]!;
    const attr = (key: string) => new RegExp(`\\b${key}="([^"]*)"`).exec(attrs)?.[1] ?? "";
    const text = /<svrl:text>([\s\S]*?)<\/svrl:text>/.exec(m[2]!)?.[1]?.trim() ?? "";
    out.push({ rules: name, id: attr("id"), flag: attr("flag") || "fatal", location: attr("location"), text });
  }
  return out;
}

/** SVRL flags: CEN's and Peppol's say fatal or warning; SchXslt-compiled XRechnung rules also error and information. */
const isFatal = (a: FailedAssert) => a.flag === "fatal" || a.flag === "error";

export async function validateUbl(xml: string, profile: "peppol" | "xrechnung" = "peppol"): Promise<UblValidation> {
  const sets: RuleSet[] = profile === "xrechnung" ? ["CEN-EN16931-UBL", "XRECHNUNG-UBL"] : ["CEN-EN16931-UBL", "PEPPOL-EN16931-UBL"];
  const rules = await loadRules(sets);
  const asserts = sets.flatMap((name) => runRules(name, rules[name], xml));
  return {
    fatal: asserts.filter(isFatal),
    warnings: asserts.filter((a) => !isFatal(a)),
    xsdErrors: await xsdErrors(xml),
  };
}

const CII_DIR = join(import.meta.dir, "cii-d16b/uncefact/data/standard");
const FACTURX_DIR = join(import.meta.dir, "facturx-en16931");

/** Every schema file in `dir`, by its bare name (the main schemas import their parts by it). */
function schemaDir(dir: string): XMLFileInfo[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".xsd"))
    .map((f) => ({ fileName: f, contents: readFileSync(join(dir, f), "utf8") }));
}

async function xsdErrorsAgainst(xml: string, files: XMLFileInfo[], main: string): Promise<string[]> {
  const result = await validateXML({
    xml: { fileName: "document.xml", contents: xml },
    schema: files.find((f) => f.fileName === main)!,
    preload: files.filter((f) => f.fileName !== main),
    maxMemoryPages: 4096,
  });
  return result.valid ? [] : result.errors.map((e) => e.rawMessage || e.message);
}

/**
 * A CII invoice: the CII D16B XSD and the CEN rules; then for EN 16931 (Factur-X's EN 16931
 * profile) the Factur-X XSD and schematron, for XRechnung the KoSIT rules.
 */
export async function validateCii(xml: string, profile: "en16931" | "xrechnung" = "en16931", { facturx = true, french = false } = {}): Promise<UblValidation> {
  // Factur-X's schematron takes 3–5 times the CEN rules' time: `facturx: false` leaves it and its XSD out
  const sets: RuleSet[] = profile === "xrechnung" ? ["CEN-EN16931-CII", "XRECHNUNG-CII"] : facturx ? ["CEN-EN16931-CII", "FACTURX-EN16931"] : ["CEN-EN16931-CII"];
  // a French seller's: the French e-invoicing reform's rules too (BR-FR-*)
  if (french) sets.push("FR-CTC-CII");
  const rules = await loadRules(sets);
  const asserts = sets.flatMap((name) => runRules(name, rules[name], xml));
  const xsd = [
    ...(await xsdErrorsAgainst(xml, schemaDir(CII_DIR), "CrossIndustryInvoice_100pD16B.xsd")),
    ...(sets.includes("FACTURX-EN16931") ? (await xsdErrorsAgainst(xml, schemaDir(FACTURX_DIR), "Factur-X_EN16931.xsd")).map((e) => `Factur-X EN 16931: ${e}`) : []),
  ];
  return { fatal: asserts.filter(isFatal), warnings: asserts.filter((a) => !isFatal(a)), xsdErrors: xsd };
}

/** One line per problem, for a failing test's message. */
export function describe(v: UblValidation): string {
  return [
    ...v.xsdErrors.map((e) => `XSD: ${e}`),
    ...v.fatal.map((a) => `${a.rules} ${a.id} at ${a.location}: ${a.text}`),
  ].join("\n");
}
