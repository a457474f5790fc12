/**
 * Validates a UBL 2.1 invoice or credit note the way a Peppol access point would: the OASIS UBL 2.1
 * XSD (xmllint, compiled to WebAssembly), then the CEN EN 16931 rules and the Peppol BIS Billing 3.0
 * rules (the official schematron, compiled to XSLT, run by SaxonJS). See ATTRIBUTION.md for the files.
 *
 * A document is valid when `xsdErrors` and `fatal` are both empty; `warnings` are what the rules
 * flag as "warning" (a receiver accepts them).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
// @ts-expect-error saxon-js ships no type declarations
import SaxonJS from "saxon-js";
import { validateXML, type XMLFileInfo } from "xmllint-wasm";
import { ensureCompiledRules, RULE_SETS, type RuleSet } from "../../scripts/einvoicing-rules.ts";

export type FailedAssert = { rules: RuleSet; id: string; flag: string; location: string; text: string };
export type UblValidation = { fatal: FailedAssert[]; warnings: FailedAssert[]; xsdErrors: string[] };

const UBL_DIR = join(import.meta.dir, "ubl-2.1");

let compiled: Promise<Record<RuleSet, unknown>> | null = null;
/** Loads the compiled rule sets, compiling them first when the cache is missing (15–30 s each). */
export function loadRules(): Promise<Record<RuleSet, unknown>> {
  compiled ??= ensureCompiledRules().then((paths) => {
    const out = {} as Record<RuleSet, unknown>;
    for (const name of RULE_SETS) out[name] = JSON.parse(readFileSync(paths[name], "utf8"));
    return out;
  });
  return compiled;
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
  const result = SaxonJS.transform({ stylesheetInternal: sef, sourceText: xml, destination: "serialized" }, "sync");
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

export async function validateUbl(xml: string): Promise<UblValidation> {
  const rules = await loadRules();
  const asserts = RULE_SETS.flatMap((name) => runRules(name, rules[name], xml));
  return {
    fatal: asserts.filter((a) => a.flag === "fatal"),
    warnings: asserts.filter((a) => a.flag !== "fatal"),
    xsdErrors: await xsdErrors(xml),
  };
}

/** One line per problem, for a failing test's message. */
export function describe(v: UblValidation): string {
  return [
    ...v.xsdErrors.map((e) => `XSD: ${e}`),
    ...v.fatal.map((a) => `${a.rules} ${a.id} at ${a.location}: ${a.text}`),
  ].join("\n");
}
