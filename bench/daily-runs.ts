/**
 * `bun run bench:runs [--sizes 10000,100000] [--json]`: the daily runs at scale. For each size N, a
 * database is seeded directly in SQL (as bench/seed.ts does: prepared statements in big
 * transactions, cloning one invoice, customer, template and event made by the services) with N
 * invoices overdue and open, N events older than the retention and N / 100 recurring templates
 * due; then each run goes in a process of its own, which reports its time and its peak RSS:
 *
 * - the reminder preview, every page of it (GET /reminders/preview's function);
 * - aged receivables, today (running totals) and at yesterday's end (read from the documents);
 * - the reminder run over the N invoices, channel `manual` (as the daily schedule runs it);
 * - the recurring run over the N / 100 templates;
 * - the events-retention prune of the N old events.
 *
 * The policy: one level at 7 days after the due date that charges nothing and, with `--charges`,
 * a second at 24 days that charges interest and the compensation (an interest note per invoice).
 * The invoices are due 8 to 60 days before today, spread evenly. `--keep` leaves the databases in
 * bench/out/ (daily-runs-N.db as seeded, daily-runs-N-run.db after the runs) for a profiler.
 */
import { Database } from "bun:sqlite";
import { copyFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, unitOfWork, type Db } from "../db/client.ts";
import { migrateDatabase } from "../server/data-migrations.ts";
import { rebuildReceivables } from "../server/reports/receivables.ts";
import { CLI_ACTOR, createOrganization } from "../server/orgs/service.ts";
import type { Scope } from "../server/lib/scope.ts";
import { addDays, isoFromMicros, today } from "../server/lib/time.ts";

const OUT_DIR = join(import.meta.dir, "out");
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};

type Measured = { name: string; ms: number; cpuMs: number; peakRssBytes: number; startRssBytes: number; count: number };

// ---------------------------------------------------------------------------------------------
// the child: one run, measured

async function child(scenario: string, dbPath: string, orgId: string): Promise<void> {
  const db = openDatabase(dbPath);
  const row = db.$client.query<{ id: string; name: string; currency: string; country: string; api_access: number; timezone: string }, [string]>("SELECT * FROM organizations WHERE id = ?").get(orgId)!;
  const scope: Scope = { db, org: { id: row.id, name: row.name, currency: row.currency, country: row.country, apiAccess: !!row.api_access }, actor: CLI_ACTOR } as Scope;
  // the modules are loaded before the clock starts, as in a server
  const reminders = await import("../server/reminders/run.ts");
  const recurring = await import("../server/recurring/run.ts");
  const feed = await import("../server/changes/feed.ts");
  const reports = await import("../server/reports/aged-receivables.ts");
  Bun.gc(true);
  const startRss = process.memoryUsage().rss;
  let peak = startRss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let count = 0;
  // the runs are synchronous: the sampler cannot run during them, so the kernel's high-water mark is read too.
  // The options are cast: the file also runs, copied, on a checkout from before they existed (the "before" figures)
  switch (scenario) {
    case "reminder preview": {
      let after: string | undefined;
      for (;;) {
        const page = await reminders.previewReminders(scope, undefined, { after } as never) as { data: unknown[]; next_after?: string | null };
        count += page.data.length;
        if (!page.next_after) break;
        after = page.next_after;
      }
      break;
    }
    case "reminder run":
      count = (await reminders.runReminders(db, { orgId, countOnly: true } as never)).reduce((n, r) => n + r.recorded, 0);
      break;
    case "recurring run":
      count = (await recurring.runRecurring(db, { orgId })).generated.length;
      break;
    case "retention prune":
      count = await feed.pruneEvents(db, 365);
      break;
    case "aged receivables, today":
      count = (await reports.agedReceivables(scope, {})).meta.total;
      break;
    case "aged receivables, yesterday":
      count = (await reports.agedReceivables(scope, { date: addDays(today(), -1) })).meta.total;
      break;
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  clearInterval(sampler);
  const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(await Bun.file("/proc/self/status").text())?.[1] ?? 0) * 1024;
  const out: Measured = { name: scenario, ms, cpuMs: (cpu.user + cpu.system) / 1000, peakRssBytes: Math.max(peak, hwm), startRssBytes: startRss, count };
  console.log(JSON.stringify(out));
}

// ---------------------------------------------------------------------------------------------
// the seed

const DAY_MS = 86_400_000;

async function seed(n: number, charges: boolean): Promise<{ path: string; orgId: string; seconds: number }> {
  mkdirSync(OUT_DIR, { recursive: true });
  const path = join(OUT_DIR, `daily-runs-${n}.db`);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
  const started = performance.now();
  const db: Db = openDatabase(path);
  await migrateDatabase(db);
  const org = await createOrganization(db, { name: "Daily Runs BV", country: "BE", currency: "EUR", iban: "BE68539007547034" });
  const scope: Scope = { db, org, actor: CLI_ACTOR };
  const { customerService } = await import("../server/customers/service.ts");
  const { createInvoice } = await import("../server/invoices/commands/create.ts");
  const { finalizeInvoice } = await import("../server/invoices/commands/finalize.ts");
  const { recurringInvoiceService } = await import("../server/recurring/service.ts");
  const { updatePolicy } = await import("../server/reminders/policy.ts");
  const sqlite = db.$client;
  const rate = sqlite.query<{ id: string }, [string]>("SELECT id FROM vat_rates WHERE organization_id = ? ORDER BY rate_bp DESC").get(org.id)!.id;
  // the models: one business customer, one invoice finalized by the service, one template, one event
  const customer = await customerService.create(scope, { name: "Brasserie Dupont SA", country: "BE", vat_number: "BE0404795549", email: "ap@dupont.example" } as never) as { id: string };
  const due = addDays(today(), -30);
  const draft = await createInvoice(scope, {
    customer_id: customer.id,
    issue_date: addDays(due, -30),
    due_date: due,
    lines: [{ description: "Consulting", quantity: "10", unit_price: "100.00", vat_rate_id: rate }],
  } as never);
  const model = await finalizeInvoice(scope, draft.id);
  await recurringInvoiceService.create(scope, {
    customer_id: customer.id,
    lines: [{ description: "Maintenance", quantity: "1", unit_price: "50.00", vat_rate_id: rate }],
    interval: "monthly",
    start_date: today(),
    auto_finalize: true,
  } as never);
  await updatePolicy(scope, {
    enabled: true,
    channel: "manual",
    levels: [
      { days_after_due: 7, charge_interest: false, charge_compensation: false },
      ...(charges ? [{ days_after_due: 24, charge_interest: true, charge_compensation: true }] : []),
    ],
  });

  sqlite.exec("PRAGMA synchronous = OFF");
  const columns = (table: string) => sqlite.query<{ name: string }, []>(`PRAGMA table_info(${table})`).all().map((c) => c.name);
  /** INSERT … SELECT of the model row with some columns replaced by parameters */
  const cloner = (table: string, replaced: string[]) => {
    const cols = columns(table);
    const select = cols.map((c) => (replaced.includes(c) ? `?${replaced.indexOf(c) + 1}` : `"${c}"`)).join(", ");
    return sqlite.prepare(`INSERT INTO ${table} (${cols.map((c) => `"${c}"`).join(", ")}) SELECT ${select} FROM ${table} WHERE id = ?${replaced.length + 1}`);
  };
  const customerIds: string[] = [];
  const cloneCustomer = cloner("customers", ["id", "name", "created_at", "updated_at"]);
  const nCustomers = Math.max(10, Math.floor(n / 20));
  const now = Date.now();
  const stamp = (ms: number, i: number) => isoFromMicros(ms * 1000 + (i % 1000));
  sqlite.transaction(() => {
    for (let i = 0; i < nCustomers; i++) {
      const id = Bun.randomUUIDv7("hex", now - DAY_MS * 400);
      cloneCustomer.run(id, `Customer ${i} BV`, stamp(now - DAY_MS * 400, i), stamp(now - DAY_MS * 400, i), customer.id);
      customerIds.push(id);
    }
  })();
  const cloneInvoice = cloner("invoices", ["id", "number", "customer_id", "issue_date", "due_date", "payment_reference", "created_at", "updated_at", "finalized_at"]);
  const lineId = sqlite.query<{ id: string }, [string]>("SELECT id FROM invoice_lines WHERE invoice_id = ?").get(model.id)!.id;
  const cloneLine = cloner("invoice_lines", ["id", "invoice_id"]);
  const BATCH = 20_000;
  for (let start = 0; start < n; start += BATCH) {
    sqlite.transaction(() => {
      for (let i = start; i < Math.min(n, start + BATCH); i++) {
        // due 8 to 60 days ago, evenly
        const dueDate = addDays(today(), -(8 + (i % 53)));
        const created = now - (70 - (i % 53)) * DAY_MS;
        const id = Bun.randomUUIDv7("hex", created);
        cloneInvoice.run(id, `BENCH-${String(i + 1).padStart(7, "0")}`, customerIds[i % customerIds.length]!, addDays(dueDate, -30), dueDate, null, stamp(created, i), stamp(created, i), stamp(created, i), model.id);
        cloneLine.run(Bun.randomUUIDv7("hex", created), id, lineId);
      }
    })();
  }
  // the model invoice is one of them: the run would remind of it too (due 30 days ago)
  const template = sqlite.query<{ id: string }, []>("SELECT id FROM recurring_invoices").get()!.id;
  const cloneTemplate = cloner("recurring_invoices", ["id", "customer_id", "created_at", "updated_at"]);
  sqlite.transaction(() => {
    for (let i = 1; i < Math.max(1, Math.floor(n / 100)); i++) cloneTemplate.run(Bun.randomUUIDv7("hex", now), customerIds[i % customerIds.length]!, stamp(now, i), stamp(now, i), template);
  })();
  const event = sqlite.query<{ id: number }, []>("SELECT id FROM events ORDER BY id LIMIT 1").get()!.id;
  // the events' ids are the feed's sequence: drawn by SQLite
  const eventColumns = columns("events").filter((c) => c !== "id");
  const eventInsert = sqlite.prepare(
    `INSERT INTO events (${eventColumns.map((c) => `"${c}"`).join(", ")}) SELECT ${eventColumns.map((c) => (c === "created_at" ? "?1" : `"${c}"`)).join(", ")} FROM events WHERE id = ?2`,
  );
  const cloneEvent = { run: (_id: string, createdAt: string, from: number) => eventInsert.run(createdAt, from) };
  for (let start = 0; start < n; start += BATCH) {
    sqlite.transaction(() => {
      for (let i = start; i < Math.min(n, start + BATCH); i++) {
        const old = now - 500 * DAY_MS + i;
        cloneEvent.run(Bun.randomUUIDv7("hex", old), stamp(old, i), event);
      }
    })();
  }
  await unitOfWork(db, (tx) => rebuildReceivables(tx));
  sqlite.exec("ANALYZE");
  sqlite.close();
  const finishing = new Database(path);
  finishing.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  finishing.close();
  return { path, orgId: org.id, seconds: (performance.now() - started) / 1000 };
}

// ---------------------------------------------------------------------------------------------
// the parent

const SCENARIOS = ["reminder preview", "aged receivables, today", "aged receivables, yesterday", "reminder run", "recurring run", "retention prune"];

async function measure(scenario: string, dbPath: string, orgId: string): Promise<Measured> {
  const proc = Bun.spawn(["bun", import.meta.path, "--child", scenario, dbPath, orgId], { stdout: "pipe", stderr: "inherit", env: { ...process.env, KONTOR_ENV: "production" } });
  const out = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error(`${scenario} failed: ${out}`);
  return JSON.parse(out.trim().split("\n").at(-1)!) as Measured;
}

/** The machine's load: the 1-minute load average, read before each size. */
const loadAverage = async () => (await Bun.file("/proc/loadavg").text()).split(" ")[0];

if (process.argv[2] === "--child") {
  await child(process.argv[3]!, process.argv[4]!, process.argv[5]!);
  process.exit(0);
}

const sizes = (arg("--sizes") ?? "10000,100000").split(",").map(Number);
const charges = process.argv.includes("--charges");
const json = process.argv.includes("--json");
const results: { invoices: number; seedSeconds: number; loadAverage: string; scenarios: Measured[] }[] = [];
for (const n of sizes) {
  const seeded = await seed(n, charges);
  console.error(`seeded ${n.toLocaleString("en")} overdue invoices in ${seeded.seconds.toFixed(1)} s`);
  const load = await loadAverage();
  const run = join(OUT_DIR, `daily-runs-${n}-run.db`);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(run + suffix, { force: true });
  copyFileSync(seeded.path, run);
  const scenarios: Measured[] = [];
  for (const scenario of SCENARIOS) {
    const m = await measure(scenario, run, seeded.orgId);
    console.error(`  ${scenario}: ${(m.ms / 1000).toFixed(2)} s (CPU ${(m.cpuMs / 1000).toFixed(2)} s), peak RSS ${(m.peakRssBytes / 1048576).toFixed(0)} MB (${m.count.toLocaleString("en")})`);
    scenarios.push(m);
  }
  results.push({ invoices: n, seedSeconds: seeded.seconds, loadAverage: load, scenarios });
  if (!process.argv.includes("--keep")) for (const path of [seeded.path, run]) for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
}
if (json) console.log(JSON.stringify({ charges, results }, null, 2));
else {
  console.log(`Daily runs (policy: manual, ${charges ? "7 days free, 24 days with interest and compensation" : "one level at 7 days, no charges"}):\n`);
  console.log(`| run | ${sizes.map((n) => `${n.toLocaleString("en")}: s | CPU s | peak RSS MB`).join(" | ")} |`);
  console.log(`|---|${sizes.map(() => "---:|---:|---:").join("|")}|`);
  for (const name of SCENARIOS) {
    const cells = results.map((r) => {
      const m = r.scenarios.find((s) => s.name === name)!;
      return `${(m.ms / 1000).toFixed(2)} | ${(m.cpuMs / 1000).toFixed(2)} | ${(m.peakRssBytes / 1048576).toFixed(0)}`;
    });
    console.log(`| ${name} | ${cells.join(" | ")} |`);
  }
  console.log(`\nload average (1 min) before each size: ${results.map((r) => `${r.invoices.toLocaleString("en")}: ${r.loadAverage}`).join(", ")}`);
}
