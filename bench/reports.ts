/**
 * `bun bench/reports.ts [--quick]`: the reports of issue 19 at a million invoices, as a client gets
 * them from the real `kontor serve` (its default threads) on the seeded database (bench/seed.ts,
 * whose ledger is posted by the same rules as the API's). Each report is asked for 40 times in
 * a row, for the whole ledger and for one year, as JSON and as CSV; the table shows p50, p99 and
 * max latency, and whether p99 stays under the 100 ms target.
 */
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ensureSeed, FULL, OUT_DIR, QUICK } from "./seed.ts";
import { startKontor } from "./serve-process.ts";

const quick = process.argv.includes("--quick");
const size = quick ? QUICK : FULL;
const ROUNDS = 40;
const TARGET_MS = 100;

const seed = await ensureSeed(size);
const dbPath = join(OUT_DIR, `reports-${size.invoices}.db`);
for (const suffix of ["", "-wal", "-shm"]) rmSync(dbPath + suffix, { force: true });
copyFileSync(seed.path, dbPath);
const server = await startKontor(dbPath, 1_000_000_000, "server-reports.log");
const token = seed.meta.orgs.main.token;

const year = new Date().getUTCFullYear() - 1;
const reports: [string, string][] = [
  ["trial balance, today", "/api/v1/reports/trial-balance"],
  [`trial balance, end of ${year}`, `/api/v1/reports/trial-balance?date=${year}-12-31`],
  ["balance sheet, today", "/api/v1/reports/balance-sheet"],
  [`profit and loss, ${year}`, `/api/v1/reports/profit-and-loss?from=${year}-01-01&to=${year}-12-31`],
  ["profit and loss, all years", "/api/v1/reports/profit-and-loss?from=2000-01-01"],
  ["aged receivables, today (100 customers a page)", "/api/v1/reports/aged-receivables"],
  ["aged receivables, today (1,000 a page)", "/api/v1/reports/aged-receivables?per_page=1000"],
  // as the receivables stood that day: read from the documents, not the running totals
  [`aged receivables, end of ${year}`, `/api/v1/reports/aged-receivables?date=${year}-12-31`],
  [`VAT, ${year}`, `/api/v1/reports/vat?from=${year}-01-01&to=${year}-12-31`],
  [`VAT, Q4 ${year}`, `/api/v1/reports/vat?from=${year}-10-01&to=${year}-12-31`],
];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const rows: string[] = [];
try {
  for (const [name, path] of reports) {
    for (const accept of ["application/json", "text/csv"]) {
      const headers = { authorization: `Bearer ${token}`, accept };
      let bytes = 0;
      const times: number[] = [];
      for (let i = 0; i < ROUNDS + 3; i++) {
        const t0 = performance.now();
        const r = await fetch(server.url + path, { headers });
        const body = await r.text();
        const ms = performance.now() - t0;
        if (r.status !== 200) throw new Error(`${path} → ${r.status} ${body.slice(0, 200)}`);
        bytes = body.length;
        if (i >= 3) times.push(ms); // the first three warm the page cache and the statements
      }
      times.sort((a, b) => a - b);
      const p99 = percentile(times, 99);
      rows.push(
        `| ${name} | ${accept === "text/csv" ? "CSV" : "JSON"} | ${percentile(times, 50).toFixed(1)} | ${p99.toFixed(1)} | ${times.at(-1)!.toFixed(1)} | ${(bytes / 1024).toFixed(1)} KiB | ${p99 < TARGET_MS ? "yes" : "**no**"} |`,
      );
    }
  }
} finally {
  await server.stop();
}
const ledger = seed.meta.orgs.main;
console.log(`Reports at ${ledger.invoices.toLocaleString("en")} invoices, ${ledger.expenses.toLocaleString("en")} expenses (one organisation), ${ROUNDS} requests each, sequential:\n`);
console.log("| report | form | p50 ms | p99 ms | max ms | size | p99 < 100 ms |");
console.log("|---|---|---:|---:|---:|---:|---|");
for (const row of rows) console.log(row);
