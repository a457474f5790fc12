/**
 * How long the `kontor` command takes to start: wall time (median and p90) and peak RSS of
 * `--version`, `--help` and a database command (`org list` on a database migrated beforehand),
 * run from source (`bun cli/main.ts`) and as the compiled binary (dist/kontor, built with
 * `bun run build` when missing).
 *
 *   bun bench/cli-startup.ts [--runs N] [--warmup N] [--no-binary] [--json]
 *
 * Every command runs N times after the warm-up runs, one at a time; a run that exits non-zero
 * stops the benchmark. Besides the wall time: the CPU time (user + system) and the peak RSS
 * (maxrss) of the child, both from getrusage, the median over the runs. On a busy machine the
 * CPU time moves less than the wall time.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const BINARY = join(ROOT, "dist/kontor");

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const numberFlag = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const n = Number(args[i + 1]);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} takes a whole number`);
  return n;
};
const RUNS = Math.max(1, numberFlag("--runs", 20));
const WARMUP = numberFlag("--warmup", 2);

type Row = { target: string; command: string; median_ms: number; p90_ms: number; cpu_ms: number; peak_rss_mb: number };

const dir = mkdtempSync(join(tmpdir(), "kontor-cli-startup-"));
const dbPath = join(dir, "kontor.db");
// the commands' environment, without what would make them read or write elsewhere
const env: Record<string, string> = {};
for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith("KONTOR_")) env[name] = value;
env.KONTOR_BACKUP_DIR = join(dir, "backups");

function run(command: string[]): { ms: number; cpuMs: number; rssBytes: number } {
  const start = performance.now();
  const result = Bun.spawnSync(command, { cwd: ROOT, env, stdout: "pipe", stderr: "pipe" });
  const ms = performance.now() - start;
  if (result.exitCode !== 0) {
    throw new Error(`${command.join(" ")} exited with ${result.exitCode}:\n${result.stderr.toString()}${result.stdout.toString()}`);
  }
  const usage = result.resourceUsage;
  return { ms, cpuMs: Number(usage.cpuTime.total) / 1000, rssBytes: usage.maxRSS };
}

/** Nearest rank: the smallest value at or above the fraction of the runs. */
const percentile = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function measure(target: string, prefix: string[], command: string[]): Row {
  for (let i = 0; i < WARMUP; i++) run([...prefix, ...command]);
  const times: number[] = [];
  const cpu: number[] = [];
  const rss: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const { ms, cpuMs, rssBytes } = run([...prefix, ...command]);
    times.push(ms);
    cpu.push(cpuMs);
    rss.push(rssBytes);
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    target,
    command: command.join(" ").replace(dbPath, "<db>"),
    median_ms: round(median(times)),
    p90_ms: round(percentile(sorted, 0.9)),
    cpu_ms: round(median(cpu)),
    peak_rss_mb: round(median(rss) / 1024 / 1024),
  };
}

const round = (n: number) => Math.round(n * 10) / 10;
const log = (text: string) => process.stderr.write(`${text}\n`);

function commands(): string[][] {
  return [["--version"], ["--help"], ["org", "list", "--db", dbPath]];
}

/** dist/kontor, built when missing; null (with the reason on stderr) when it cannot be. */
function binary(): string | null {
  if (flag("--no-binary")) return null;
  if (!existsSync(BINARY)) {
    log("dist/kontor is missing: building it (bun run build)…");
    const built = Bun.spawnSync(["bun", "run", "build"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    if (built.exitCode !== 0 || !existsSync(BINARY)) {
      log(`skipping the compiled binary: bun run build failed\n${built.stderr.toString()}`);
      return null;
    }
  }
  return BINARY;
}

try {
  const source = ["bun", join(ROOT, "cli/main.ts")];
  run([...source, "migrate", "--db", dbPath]);
  const rows: Row[] = [];
  log(`${RUNS} runs after ${WARMUP} warm-up runs each`);
  for (const command of commands()) rows.push(measure("source", source, command));
  const compiled = binary();
  if (compiled) for (const command of commands()) rows.push(measure("binary", [compiled], command));
  else if (flag("--no-binary")) log("skipping the compiled binary (--no-binary)");

  if (flag("--json")) console.log(JSON.stringify({ runs: RUNS, warmup: WARMUP, rows }, null, 2));
  else {
    const header = ["target", "command", "median ms", "p90 ms", "cpu ms", "peak RSS MB"];
    const cells = rows.map((r) => [r.target, r.command, ...[r.median_ms, r.p90_ms, r.cpu_ms, r.peak_rss_mb].map((n) => n.toFixed(1))]);
    const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
    const line = (values: string[]) => values.map((v, i) => (i >= 2 ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join("  ");
    console.log(line(header));
    for (const c of cells) console.log(line(c));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
