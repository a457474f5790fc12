/**
 * Compiles the official EN 16931 and Peppol BIS 3.0 rule files (XSLT 2.0, in tests/einvoicing/rules)
 * to SaxonJS's SEF format, once: compiling takes 15–30 s each, running a compiled one ~0.3 s a
 * document. The cache file's name carries a hash of the rule file and of the compiler's version,
 * so an updated rule file or xslt3 is recompiled rather than silently tested with a stale copy.
 *
 *   bun scripts/einvoicing-rules.ts        # compile what is missing, print the paths
 *
 * Called by .ci/run before `bun test`, and by tests/ubl.test.ts's beforeAll when the cache is missing.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
export const RULES_DIR = join(root, "tests/einvoicing/rules");
export const CACHE_DIR = join(root, "tests/einvoicing/.cache");
const XSLT3 = join(root, "node_modules/xslt3/xslt3.js");

/** The rule sets, in the order a validator runs them. */
export const RULE_SETS = ["CEN-EN16931-UBL", "PEPPOL-EN16931-UBL"] as const;
export type RuleSet = (typeof RULE_SETS)[number];

function cachePath(name: RuleSet): string {
  const source = readFileSync(join(RULES_DIR, `${name}.xslt`));
  const compiler = readFileSync(join(root, "node_modules/xslt3/package.json"));
  const hash = createHash("sha256").update(source).update(compiler).digest("hex").slice(0, 12);
  return join(CACHE_DIR, `${name}.${hash}.sef.json`);
}

async function compile(name: RuleSet, target: string): Promise<void> {
  const tmp = `${target}.${process.pid}.tmp`;
  const started = performance.now();
  const proc = Bun.spawn(
    [process.execPath, XSLT3, `-xsl:${join(RULES_DIR, `${name}.xslt`)}`, `-export:${tmp}`, "-nogo", "-relocate:on"],
    { stdout: "pipe", stderr: "pipe" },
  );
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if (code !== 0 || !existsSync(tmp)) {
    rmSync(tmp, { force: true });
    throw new Error(`compiling ${name}.xslt failed (exit ${code}):\n${out}\n${err}`);
  }
  // rename is atomic: a reader never sees half a file, and two compilers racing both end well
  renameSync(tmp, target);
  // drop older compilations of the same rule set
  for (const file of readdirSync(CACHE_DIR)) {
    if (file.startsWith(`${name}.`) && file.endsWith(".sef.json") && join(CACHE_DIR, file) !== target) {
      rmSync(join(CACHE_DIR, file), { force: true });
    }
  }
  console.log(`compiled ${name}.xslt in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Compiles the rule sets whose cache is missing (in parallel) and returns each one's SEF path. */
export async function ensureCompiledRules(): Promise<Record<RuleSet, string>> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const paths = Object.fromEntries(RULE_SETS.map((name) => [name, cachePath(name)])) as Record<RuleSet, string>;
  await Promise.all(RULE_SETS.filter((name) => !existsSync(paths[name])).map((name) => compile(name, paths[name])));
  return paths;
}

if (import.meta.main) {
  const paths = await ensureCompiledRules();
  for (const name of RULE_SETS) console.log(`${name}: ${paths[name]}`);
}
