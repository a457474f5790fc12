/**
 * Compiles the official EN 16931, Peppol BIS 3.0, XRechnung and Factur-X rule files (in
 * tests/einvoicing/rules) to SaxonJS's SEF format, once: compiling takes 15–30 s each, running a
 * compiled one ~0.3 s a document. A rule set published as XSLT 2.0 is compiled as it is; one
 * published as schematron only (XRechnung's) is first turned into XSLT by SchXslt
 * (tests/einvoicing/schxslt), as the KoSIT build does. The cache file's name carries a hash of the
 * rule files, of SchXslt where it is used and of the compiler's version, so an updated rule file or
 * xslt3 is recompiled rather than silently tested with a stale copy.
 *
 *   bun scripts/einvoicing-rules.ts        # compile what is missing, print the paths
 *
 * Called by .ci/run before `bun test`, and by the validation harness (tests/einvoicing/validate.ts)
 * when the cache is missing.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
export const RULES_DIR = join(root, "tests/einvoicing/rules");
/**
 * The compiled rule sets are build output, not committed: compiled when absent (the seven in
 * about a minute on two cores, in parallel) and kept here, gzip-compressed, as a local cache
 * (git-ignored). Each file's name carries the hash of its sources and of the compiler, so an
 * edited rule file or a new xslt3 is compiled again rather than tested with a stale copy.
 */
export const CACHE_DIR = join(root, "tests/einvoicing/compiled");
const XSLT3 = join(root, "node_modules/xslt3/xslt3.js");

const SCHXSLT_DIR = join(root, "tests/einvoicing/schxslt");

/**
 * Each rule set's file under RULES_DIR: XSLT, or schematron (`.sch`) with the files it includes.
 * `document()` look-ups of a stylesheet (Factur-X's code lists) resolve beside it.
 */
const SOURCES = {
  "CEN-EN16931-UBL": { file: "CEN-EN16931-UBL.xslt", includes: [] },
  "PEPPOL-EN16931-UBL": { file: "PEPPOL-EN16931-UBL.xslt", includes: [] },
  "CEN-EN16931-CII": { file: "CEN-EN16931-CII.xslt", includes: [] },
  "XRECHNUNG-UBL": { file: "xrechnung/ubl/XRechnung-UBL-validation.sch", includes: ["xrechnung/common.sch"] },
  "XRECHNUNG-CII": { file: "xrechnung/cii/XRechnung-CII-validation.sch", includes: ["xrechnung/common.sch"] },
  "FACTURX-EN16931": { file: "facturx/Factur-X_1.09_EN16931.xsl", includes: ["facturx/FACTUR-X_EN16931_codedb.xml"] },
  // the French e-invoicing reform's CII rules (BR-FR-*), run over a French seller's CII
  "FR-CTC-CII": { file: "fr-ctc/BR-FR-Flux2-Schematron-CII.xslt", includes: [] },
} as const satisfies Record<string, { file: string; includes: string[] }>;

/** The rule sets; a syntax runs its own, in this order (tests/einvoicing/validate.ts). */
export const RULE_SETS = Object.keys(SOURCES) as (keyof typeof SOURCES)[];
export type RuleSet = keyof typeof SOURCES;

/** The file a rule set's `document()` calls are relative to (its stylesheet's place). */
export const ruleSource = (name: RuleSet): string => join(RULES_DIR, SOURCES[name].file);
const isSchematron = (name: RuleSet) => SOURCES[name].file.endsWith(".sch");

function cachePath(name: RuleSet): string {
  const hash = createHash("sha256");
  for (const file of [SOURCES[name].file, ...SOURCES[name].includes]) hash.update(readFileSync(join(RULES_DIR, file)));
  if (isSchematron(name)) for (const file of readdirSync(SCHXSLT_DIR, { recursive: true, encoding: "utf8" }).sort()) if (file.endsWith(".xsl")) hash.update(readFileSync(join(SCHXSLT_DIR, file)));
  hash.update(readFileSync(join(root, "node_modules/xslt3/package.json")));
  return join(CACHE_DIR, `${name}.${hash.digest("hex").slice(0, 12)}.sef.json.gz`);
}

async function xslt3(args: string[], what: string): Promise<void> {
  const proc = Bun.spawn([process.execPath, XSLT3, ...args], { stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`${what} failed (exit ${code}):\n${out}\n${err}`);
}

async function compile(name: RuleSet, target: string): Promise<void> {
  const tmp = `${target}.${process.pid}.tmp`;
  const started = performance.now();
  let stylesheet = ruleSource(name);
  try {
    if (isSchematron(name)) {
      // SchXslt resolves the includes here: the XSLT it writes stands alone
      stylesheet = `${tmp}.xsl`;
      await xslt3([`-xsl:${join(SCHXSLT_DIR, "pipeline-for-svrl.xsl")}`, `-s:${ruleSource(name)}`, `-o:${stylesheet}`], `turning ${SOURCES[name].file} into XSLT`);
    }
    await xslt3([`-xsl:${stylesheet}`, `-export:${tmp}`, "-nogo", "-relocate:on"], `compiling ${SOURCES[name].file}`);
    if (!existsSync(tmp)) throw new Error(`compiling ${SOURCES[name].file} wrote nothing`);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  } finally {
    if (stylesheet !== ruleSource(name)) rmSync(stylesheet, { force: true });
  }
  // compressed beside, then renamed: rename is atomic, a reader never sees half a file, and two compilers racing both end well
  writeFileSync(`${tmp}.gz`, Bun.gzipSync(readFileSync(tmp), { level: 9 }));
  rmSync(tmp, { force: true });
  renameSync(`${tmp}.gz`, target);
  // drop older compilations of the same rule set
  for (const file of readdirSync(CACHE_DIR)) {
    if (file.startsWith(`${name}.`) && /\.sef\.json(\.gz)?$/.test(file) && join(CACHE_DIR, file) !== target) {
      rmSync(join(CACHE_DIR, file), { force: true });
    }
  }
  console.log(`compiled ${SOURCES[name].file} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Compiles the rule sets whose cache is missing (in parallel) and returns each one's SEF path. */
export async function ensureCompiledRules(): Promise<Record<RuleSet, string>> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const paths = Object.fromEntries(RULE_SETS.map((name) => [name, cachePath(name)])) as Record<RuleSet, string>;
  await Promise.all(RULE_SETS.filter((name) => !existsSync(paths[name])).map((name) => compile(name, paths[name])));
  return paths;
}

/** A compiled rule set (SEF JSON) read back from its compressed file. */
export const readCompiledRules = (path: string): unknown => JSON.parse(new TextDecoder().decode(Bun.gunzipSync(readFileSync(path))));

if (import.meta.main) {
  const paths = await ensureCompiledRules();
  for (const name of RULE_SETS) console.log(`${name}: ${paths[name]}`);
}
