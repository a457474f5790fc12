/**
 * What `kontor` loads to start (issue 25 item 6): `--version` and `--help` load commander and the
 * commands' declarations, no server code; a database command loads the database layer and its
 * own service, not the HTTP stack (Elysia, TypeBox) nor the metrics library (prom-client), which
 * together cost it more than its work. Asserted on the modules the process loaded, not on time:
 * a preloaded probe writes Bun's module registry (`require.cache`, which lists ES modules too) to
 * a file as the process exits. bench/cli-startup.ts measures the time.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
const TESTS_ROOT = join(import.meta.dir, "..");

const ROOT = join(TESTS_ROOT, "..");
const dir = mkdtempSync(join(tmpdir(), "kontor-cli-startup-"));
const db = join(dir, "kontor.db");
const probe = join(dir, "probe.ts");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  writeFileSync(
    probe,
    `process.on("exit", () => require("node:fs").writeFileSync(process.env.LOADED_MODULES_FILE, JSON.stringify(Object.keys(require.cache))));\n`,
  );
  const migrated = Bun.spawnSync(["bun", join(ROOT, "cli/main.ts"), "migrate", "--db", db], { env: env(), stdout: "pipe", stderr: "pipe" });
  expect(migrated.exitCode, migrated.stderr.toString()).toBe(0);
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith("KONTOR_")) vars[name] = value;
  return { ...vars, KONTOR_ENV: "test", KONTOR_BACKUP_DIR: join(dir, "backups"), ...extra };
}

let runs = 0;
/** Runs `bun cli/main.ts …args` and answers what it loaded: our modules by path, and the packages by name. */
function loadedBy(...args: string[]): { own: string[]; packages: string[] } {
  const out = join(dir, `loaded-${++runs}.json`);
  const run = Bun.spawnSync(["bun", "--preload", probe, join(ROOT, "cli/main.ts"), ...args], {
    cwd: ROOT,
    env: env({ LOADED_MODULES_FILE: out }),
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(run.exitCode, run.stderr.toString()).toBe(0);
  const paths = (JSON.parse(readFileSync(out, "utf8")) as string[]).filter((p) => p !== probe).map((p) => relative(ROOT, p));
  const packages = new Set(paths.flatMap((p) => /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(p)?.[1] ?? []));
  return { own: paths.filter((p) => !p.includes("node_modules/")).sort(), packages: [...packages].sort() };
}

/** The server modules a command's declarations need: the version, the configuration's checks (with the host rule of outbound URLs), and the pure helpers behind `deliveries --since`. */
const DECLARATIONS_NEED = ["server/config.ts", "server/lib/hosts.ts", "server/lib/time.ts", "server/version.ts"];

describe("kontor --version and --help", () => {
  for (const flag of ["--version", "--help"]) {
    test(`${flag} loads commander and the declarations, no server code`, () => {
      const { own, packages } = loadedBy(flag);
      expect(packages).toEqual(["commander"]);
      expect(own.filter((p) => p.startsWith("server/"))).toEqual(DECLARATIONS_NEED);
      // no command's action: those load when the command runs
      expect(own.filter((p) => p.startsWith("cli/actions/") || p === "cli/context.ts")).toEqual([]);
    });
  }
});

describe("a database command", () => {
  const HEAVY = ["elysia", "@sinclair/typebox", "prom-client"];

  test("org list loads the database layer, not the HTTP stack or the metrics library", () => {
    const { own, packages } = loadedBy("org", "list", "--db", db);
    expect(own).toContain("cli/actions/orgs.ts");
    expect(own).toContain("db/client.ts");
    expect(packages.filter((p) => HEAVY.includes(p))).toEqual([]);
    expect(own.filter((p) => p.startsWith("server/metrics/") || p === "server/app.ts" || p === "server/http/kernel.ts")).toEqual([]);
  });

  test("org create, which records a change (audit entry, postings, outbox), loads neither", () => {
    const { own, packages } = loadedBy("org", "create", "--name", "Startup Check", "--db", db);
    expect(own).toContain("server/changes/record.ts");
    expect(packages.filter((p) => HEAVY.includes(p))).toEqual([]);
  });

  test("token create and token list load neither", () => {
    const created = loadedBy("token", "create", "--org", "Startup Check", "--organisation", "--name", "ci", "--abilities", "*", "--db", db);
    expect(created.own).toContain("server/tokens/service.ts");
    expect(created.packages.filter((p) => HEAVY.includes(p))).toEqual([]);
    expect(loadedBy("token", "list", "--org", "Startup Check", "--db", db).packages.filter((p) => HEAVY.includes(p))).toEqual([]);
  });
});
