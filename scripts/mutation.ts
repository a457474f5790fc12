/**
 * `bun run mutation <module> [--force]`: mutation testing (StrykerJS, its command runner over
 * `bun test`) of one module where money, states or schedules are decided, against that module's
 * fast in-process tests (docs/development.md#mutation-testing).
 *
 * The command runner has no per-test coverage: every mutant reruns the whole command, so the
 * command is limited to the test files of the table below (seconds per run). Runs are
 * incremental: the results of unchanged mutants are reused from reports/mutation/<name>/, keyed
 * by the content of the module's test files (the command runner cannot see which tests changed,
 * so changed tests start a fresh file). `--force` reruns every mutant. One mutant at a time
 * (concurrency 1): the machine is shared.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dir, "..");

/**
 * module → the test files (or folders of them) that exercise it, fast and in-process, in the order
 * bun runs them: the focused tests first (they kill most mutants in a second, and --bail stops
 * there). An absent entry is skipped: the feature's old file and its place in the feature's folder
 * are both listed while the tests move into tests/<feature>/.
 */
export const MODULES: Record<string, { mutate: string; tests: string[] }> = {
  reminders: { mutate: "server/reminders/run.ts", tests: ["tests/reminders/charges.test.ts", "tests/reminders/reminders.test.ts", "tests/reminders/reminders.test.ts", "tests/reminders/missing-rates.test.ts"] },
  interest: { mutate: "server/interest/claim.ts", tests: ["tests/interest/claim.test.ts", "tests/interest/claim-input.test.ts", "tests/interest/interest.test.ts", "tests/interest/interest.test.ts"] },
  credits: { mutate: "server/settlement/credits.ts", tests: ["tests/settlement/", "tests/invoices/credit-notes.test.ts"] },
  "ledger-rules": { mutate: "server/ledger/rules.ts", tests: ["tests/ledger/", "tests/ledger/posting-rules.test.ts"] },
  due: { mutate: "server/settlement/due.ts", tests: ["tests/settlement/", "tests/invoices/invoices.test.ts"] },
  "recurring-schedule": { mutate: "server/recurring/schedule.ts", tests: ["tests/recurring/", "tests/recurring/recurring.test.ts"] },
  // tests/invoices/pricing.test.ts is left out: it loads the compiled e-invoicing rule sets and validates UBL (minutes, not seconds)
  totals: { mutate: "server/invoices/totals.ts", tests: ["tests/invoices/totals.test.ts", "tests/documents/vat-breakdown.test.ts"] },
  // gross pricing (prices_include_vat: VAT per rate from the gross sum, nets by largest remainder) and the VAT breakdown
  "vat-breakdown": { mutate: "server/documents/vat-breakdown.ts", tests: ["tests/documents/vat-breakdown.test.ts", "tests/invoices/totals.test.ts"] },
  numbering: { mutate: "server/invoices/numbering.ts", tests: ["tests/invoices/numbering-draws.test.ts", "tests/invoices/numbering.test.ts"] },
  // a payment's amount (at most what is due), the document's paid amount and status, its bank account;
  // the banking tests for a bank line taking over a payment recorded by hand, and releasing one deleted
  payments: {
    mutate: "server/settlement/payments.ts",
    tests: ["tests/settlement/payments.test.ts", "tests/settlement/", "tests/invoices/invoices.test.ts", "tests/expenses/expenses.test.ts", "tests/banking/statements.test.ts", "tests/banking/suspense.test.ts"],
  },
  // a bank line's allocations: its status (matched when they hold all of it), the suspense its rest sits in
  allocations: { mutate: "server/settlement/allocations.ts", tests: ["tests/settlement/", "tests/banking/suspense.test.ts", "tests/banking/bookable-lines.test.ts"] },
};

/** The table's entries as test files: a folder gives its *.test.ts files; an absent folder, none. */
function testFiles(entries: string[]): string[] {
  const files: string[] = [];
  for (const entry of entries) {
    // a folder's files in name order; a file listed twice (a folder and itself) runs once
    const path = join(root, entry);
    if (!existsSync(path)) continue;
    if (statSync(path).isDirectory()) {
      for (const f of [...new Bun.Glob("**/*.test.ts").scanSync({ cwd: path })].sort()) files.push(join(entry, f));
    } else files.push(entry);
  }
  return [...new Set(files)];
}

function main(argv: string[]): number {
  const force = argv.includes("--force");
  const name = argv.find((a) => !a.startsWith("--"));
  const found = name === undefined ? undefined : (MODULES[name] ?? Object.values(MODULES).find((m) => m.mutate === name));
  if (!found || !name) {
    console.error(`usage: bun run mutation <module> [--force]\nmodules:\n${Object.entries(MODULES).map(([k, m]) => `  ${k.padEnd(20)} ${m.mutate}`).join("\n")}`);
    return 2;
  }
  const key = MODULES[name] ? name : Object.keys(MODULES).find((k) => MODULES[k] === found)!;
  const files = testFiles(found.tests);
  const hash = createHash("sha256");
  for (const f of files) hash.update(f).update(readFileSync(join(root, f)));
  const dir = join("reports", "mutation", key);
  mkdirSync(join(root, dir), { recursive: true });
  const config = {
    $schema: "./node_modules/@stryker-mutator/core/schema/stryker-schema.json",
    testRunner: "command",
    // ./ makes bun take each as a path, not a name filter; --bail: a killed mutant stops at its first failing test
    commandRunner: { command: `bun test --bail --timeout 30000 ${files.map((f) => `./${f}`).join(" ")}` },
    mutate: [found.mutate],
    coverageAnalysis: "off",
    concurrency: 1,
    incremental: true,
    incrementalFile: join(dir, `incremental-${hash.digest("hex").slice(0, 12)}.json`),
    force,
    reporters: ["clear-text", "progress", "html", "json"],
    htmlReporter: { fileName: join(dir, "index.html") },
    jsonReporter: { fileName: join(dir, "mutation.json") },
    tempDirName: ".stryker-tmp",
    cleanTempDir: true,
    timeoutMS: 30_000,
    thresholds: { high: 90, low: 80, break: null },
  };
  const configPath = join(dir, "stryker.config.json");
  writeFileSync(join(root, configPath), JSON.stringify(config, null, 2));
  console.log(`mutating ${found.mutate} against ${files.length} test files: ${files.join(" ")}`);
  const proc = Bun.spawnSync(["bunx", "stryker", "run", relative(root, join(root, configPath))], { cwd: root, stdio: ["inherit", "inherit", "inherit"] });
  return proc.exitCode ?? 1;
}

if (import.meta.main) process.exit(main(process.argv.slice(2)));
