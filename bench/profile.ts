/**
 * In-process cost of one request: `bun bench/profile.ts [--db PATH] [--n N] [scenario…]` drives
 * the real app with app.handle (no sockets, no load generator) against the benchmark database
 * and prints microseconds per request, beside the floor's handler for list and show. Use it to
 * find where a scenario's time goes before reaching for `bun run bench`.
 */
import "../server/http/elysia-production.ts";
import { copyFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { keepStatisticsFresh, openDatabase } from "../db/client.ts";
import { createApp } from "../server/app.ts";
import { loadConfig } from "../server/config.ts";
import { createRuntime } from "../server/runtime.ts";
import { createFloor } from "./floor.ts";
import { OUT_DIR } from "./seed.ts";

const argv = process.argv.slice(2);
const option = (name: string) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
};
const n = Number(option("--n") ?? 3000);
const wanted = argv.filter((a, i) => !a.startsWith("--") && !argv[i - 1]?.startsWith("--"));
const metaPath = option("--meta") ?? [...new Bun.Glob("kontor-1000000-*.json").scanSync(OUT_DIR)].map((f) => join(OUT_DIR, f))[0];
if (!metaPath || !existsSync(metaPath)) throw new Error("no seeded benchmark database: run `bun run bench` once");
const meta = await Bun.file(metaPath).json();
const dbPath = option("--db") ?? join(OUT_DIR, "profile.db");
if (!option("--db")) copyFileSync(metaPath.replace(/\.json$/, ".db"), dbPath);

const db = openDatabase(dbPath);
const stopStatistics = keepStatisticsFresh(db); // as `kontor serve` does
const app = createApp(createRuntime({ ...loadConfig({}), dbPath, rateLimitPerMinute: 1e9 }, { db }));
const token = meta.orgs.main.token as string;
// invoices spread over the table as bench/run.ts picks them (a few drafts among them), the same ones each run
const ids = db.$client
  .query<{ id: string }, [string]>("SELECT id FROM invoices WHERE organization_id = ? ORDER BY (rowid * 2654435761) % 1000003 LIMIT 500")
  .all(meta.orgs.main.id)
  .map((r) => r.id);
const customerRows = db.$client
  .query<{ id: string; name: string }, [string]>("SELECT id, name FROM customers WHERE organization_id = ? ORDER BY random() LIMIT 500")
  .all(meta.orgs.main.id);
const customers = customerRows.map((r) => r.id);
// as bench/run.ts searches: the first two words of a customer's name
const searchTerms = customerRows.slice(0, 100).map((r) => r.name.split(" ").slice(0, 2).join(" "));

const f = (k: string, v: string) => `filter%5B${k}%5D=${encodeURIComponent(v)}`;
const scenarios: Record<string, (i: number) => string> = {
  show: (i) => `/api/v1/invoices/${ids[i % ids.length]}`,
  list: () => "/api/v1/invoices",
  deep: () => "/api/v1/invoices?page=2000",
  status: () => `/api/v1/invoices?${f("status", "paid")}`,
  customer: (i) => `/api/v1/invoices?${f("customer_id", customers[i % customers.length]!)}`,
  dates: (i) => `/api/v1/invoices?${f("issue_date_from", `2025-${String((i % 12) + 1).padStart(2, "0")}-01`)}&${f("issue_date_to", `2025-${String((i % 12) + 1).padStart(2, "0")}-28`)}`,
  overdue: () => `/api/v1/invoices?${f("overdue", "true")}`,
  search: (i) => `/api/v1/invoices?search=${encodeURIComponent(searchTerms[i % searchTerms.length]!)}`,
  customers: () => "/api/v1/customers",
};

const time = async (label: string, call: (i: number) => Promise<Response>) => {
  for (let i = 0; i < Math.min(200, n); i++) await (await call(i)).text(); // warm
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let status = 0;
  for (let i = 0; i < n; i++) {
    const r = await call(i);
    status = r.status;
    await r.text();
  }
  const us = ((performance.now() - t0) * 1000) / n;
  // CPU time as well: on a machine shared with other work, wall time counts their turns too
  const cpu = process.cpuUsage(cpu0);
  const cpuUs = (cpu.user + cpu.system) / n;
  console.log(`${label.padEnd(12)} ${us.toFixed(1).padStart(8)} µs/request  ${cpuUs.toFixed(1).padStart(8)} µs CPU  (last status ${status})`);
};

const floor = createFloor(dbPath, meta.orgs.main.id);
for (const name of wanted.length ? wanted : Object.keys(scenarios)) {
  const path = scenarios[name];
  if (!path) throw new Error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(" ")}`);
  if (name === "show" || name === "list") await time(`floor ${name}`, async (i) => floor.fetch(new Request(`http://localhost${path(i)}`)));
  await time(name, (i) => app.handle(new Request(`http://localhost${path(i)}`, { headers: { authorization: `Bearer ${token}` } })));
}
stopStatistics();
