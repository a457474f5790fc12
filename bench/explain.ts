/**
 * Query-plan evidence for the benchmark: for every list, filter and search query the invoice
 * list runs (the shape of server/lib/list.ts runList: a COUNT(*) for meta.total and an
 * ORDER BY … LIMIT/OFFSET page), prints SQLite's EXPLAIN QUERY PLAN and the median time of
 * the query run uncached, on the seeded database.
 *
 *   bun bench/explain.ts [--quick]           plans and timings on the cached seed (read-only)
 *   bun bench/explain.ts [--quick] --analyze  the same on a copy after ANALYZE (planner statistics)
 *   bun bench/explain.ts [--quick] --fixes    the same on a copy with the indexes proposed in the report
 *   bun bench/explain.ts ... --json           machine-readable
 */
import { Database } from "bun:sqlite";
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ensureSeed, FULL, OUT_DIR, QUICK } from "./seed.ts";

const argv = process.argv.slice(2);
const size = argv.includes("--quick") ? QUICK : FULL;
const analyze = argv.includes("--analyze");
const fixes = argv.includes("--fixes");
const asJson = argv.includes("--json");
const log = (l: string) => console.error(l);

/** Indexes that would serve the invoice list's slow shapes (see the benchmark report). */
export const PROPOSED_INDEXES = [
  // overdue=true: the count becomes three covering range scans, and the planner stops sorting
  // every invoice due before today (it walks invoices_org_issue for the page instead)
  "CREATE INDEX IF NOT EXISTS invoices_org_status_due ON invoices (organization_id, status, due_date)",
];

const seeded = await ensureSeed(size, { log });
let path = seeded.path;
if (analyze || fixes) {
  path = join(OUT_DIR, `explain-${size.invoices}.db`);
  for (const s of ["", "-wal", "-shm"]) rmSync(path + s, { force: true });
  copyFileSync(seeded.path, path);
}
const db = new Database(path, { readonly: !(analyze || fixes), strict: true });
db.exec("PRAGMA cache_size = -65536"); // as db/client.ts
db.exec("PRAGMA temp_store = MEMORY");
if (fixes) {
  const t0 = performance.now();
  for (const sql of PROPOSED_INDEXES) db.exec(sql);
  log(`proposed indexes built in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
if (analyze) {
  const t0 = performance.now();
  db.exec("ANALYZE");
  log(`ANALYZE took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

const org = seeded.meta.orgs.main.id;
const today = new Date().toISOString().slice(0, 10);
const someCustomer = db
  .query<{ customer_id: string }, [string]>("SELECT customer_id FROM invoices WHERE organization_id = ? LIMIT 1 OFFSET 5000")
  .get(org)!.customer_id;
const someInvoice = db
  .query<{ id: string }, [string]>("SELECT id FROM invoices WHERE organization_id = ? LIMIT 1 OFFSET 12345")
  .get(org)!.id;
const customerName = db.query<{ name: string }, [string]>("SELECT name FROM customers WHERE id = ?").get(someCustomer)!.name;
const searchWords = customerName.split(" ").slice(0, 2);
const fts = searchWords.map((w) => `"${w}"*`).join(" ");
const month = (() => {
  const d = new Date(`${today.slice(0, 7)}-01T00:00:00Z`);
  d.setUTCMonth(d.getUTCMonth() - 6);
  return d.toISOString().slice(0, 7);
})();

const columns = (table: string) =>
  db
    .query<{ name: string }, []>(`PRAGMA table_info(${table})`)
    .all()
    .map((c) => `"${c.name}"`)
    .join(", ");
const invoiceCols = columns("invoices");
const customerCols = columns("customers");

type Case = { name: string; where: string; params: (string | number)[] };
const cases: Case[] = [
  { name: "list (no filter)", where: "", params: [] },
  { name: "filter status=paid", where: ` and "invoices"."status" = ?`, params: ["paid"] },
  { name: "filter status=sent", where: ` and "invoices"."status" = ?`, params: ["sent"] },
  { name: "filter type=credit_note", where: ` and "invoices"."type" = ?`, params: ["credit_note"] },
  { name: "filter customer_id", where: ` and "invoices"."customer_id" = ?`, params: [someCustomer] },
  { name: "filter currency=USD", where: ` and "invoices"."currency" = ?`, params: ["USD"] },
  {
    name: "filter issue_date from/to (1 month)",
    where: ` and "invoices"."issue_date" >= ? and "invoices"."issue_date" <= ?`,
    params: [`${month}-01`, `${month}-28`],
  },
  {
    name: "filter overdue=true",
    where: ` and "invoices"."status" in ('finalized', 'sent', 'partially_paid') and "invoices"."due_date" < ?`,
    params: [today],
  },
  {
    name: `search "${searchWords.join(" ")}"`,
    where: ` and "invoices".rowid IN (SELECT rowid FROM invoices_fts WHERE invoices_fts MATCH ?)`,
    params: [fts],
  },
  { name: "search \"consulting\" (broad)", where: ` and "invoices".rowid IN (SELECT rowid FROM invoices_fts WHERE invoices_fts MATCH ?)`, params: ['"consulting"*'] },
];

type Measured = { query: string; plan: string[]; ms: number; rows: number };
function measure(sql: string, params: (string | number)[], budgetMs = 1500): Measured {
  const stmt = db.query(sql);
  const plan = db
    .query<{ id: number; parent: number; detail: string }, any>(`EXPLAIN QUERY PLAN ${sql}`)
    .all(...(params as any))
    .map((r) => r.detail);
  const times: number[] = [];
  let rows = 0;
  const start = performance.now();
  while (times.length < 3 || (performance.now() - start < budgetMs && times.length < 50)) {
    const t0 = performance.now();
    const out = stmt.all(...(params as any)) as unknown[];
    times.push(performance.now() - t0);
    rows = out.length === 1 && typeof (out[0] as any).n === "number" ? (out[0] as any).n : out.length;
  }
  times.sort((a, b) => a - b);
  return { query: sql, plan, ms: times[Math.floor(times.length / 2)]!, rows };
}

const results: { name: string; count: Measured; page: Measured; deep?: Measured; deepest?: Measured }[] = [];
for (const c of cases) {
  const where = `where ("invoices"."organization_id" = ?${c.where})`;
  const params = [org, ...c.params];
  const count = measure(`select count(*) as n from "invoices" ${where}`, params);
  const order = `order by "invoices"."issue_date" desc, "invoices"."id" desc`;
  const page = measure(`select ${invoiceCols} from "invoices" ${where} ${order} limit ? offset ?`, [...params, 20, 0]);
  const entry: (typeof results)[number] = { name: c.name, count, page };
  if (c.name === "list (no filter)") {
    entry.deep = measure(`select ${invoiceCols} from "invoices" ${where} ${order} limit ? offset ?`, [...params, 20, 39_980]);
    entry.deepest = measure(`select ${invoiceCols} from "invoices" ${where} ${order} limit ? offset ?`, [...params, 20, Math.max(0, count.rows - 20)]);
  }
  results.push(entry);
}

// what a page needs besides the invoices, and show
const pageIds = db
  .query<{ id: string }, [string]>(`select id from invoices where organization_id = ? order by issue_date desc, id desc limit 20`)
  .all(org)
  .map((r) => r.id);
const extras = {
  "customers list page 1 (count)": measure(`select count(*) as n from "customers" where "customers"."organization_id" = ?`, [org]),
  "customers list page 1 (page)": measure(
    `select ${customerCols} from "customers" where "customers"."organization_id" = ? order by "customers"."name" collate nocase asc, "customers"."id" asc limit ? offset ?`,
    [org, 20, 0],
  ),
  "page lines (20 invoices)": measure(
    `select * from invoice_lines where invoice_id in (select value from json_each(?)) order by invoice_id, sort_order`,
    [JSON.stringify(pageIds)],
  ),
  "page payments (20 invoices)": measure(`select * from payments where invoice_id in (select value from json_each(?))`, [JSON.stringify(pageIds)]),
  "show: invoice by id": measure(`select ${invoiceCols} from invoices where organization_id = ? and id = ?`, [org, someInvoice]),
  "show: lines of invoice": measure(`select * from invoice_lines where invoice_id = ? order by sort_order`, [someInvoice]),
  "count via invoices_org_status (narrowest?)": measure(
    `select count(*) as n from invoices indexed by invoices_org_status where organization_id = ?`,
    [org],
  ),
  "count of the whole table (no org condition)": measure(`select count(*) as n from invoices`, []),
};

// search written so the FTS hits drive (unary + keeps the planner off the organisation index)
const ftsDriven = (term: string) => ({
  count: measure(
    `select count(*) as n from "invoices" where (+"invoices"."organization_id" = ? and "invoices".rowid IN (SELECT rowid FROM invoices_fts WHERE invoices_fts MATCH ?))`,
    [org, term],
  ),
  page: measure(
    `select ${invoiceCols} from "invoices" where (+"invoices"."organization_id" = ? and "invoices".rowid IN (SELECT rowid FROM invoices_fts WHERE invoices_fts MATCH ?)) order by "invoices"."issue_date" desc, "invoices"."id" desc limit 20`,
    [org, term],
  ),
  ftsHits: measure(`select count(*) as n from invoices_fts where invoices_fts match ?`, [term]),
});
const alternatives = { [`search "${searchWords.join(" ")}" driven by FTS`]: ftsDriven(fts), [`search "consulting" driven by FTS`]: ftsDriven('"consulting"*') };

const mode = fixes ? "with proposed indexes" : analyze ? "after ANALYZE" : "as migrated (no ANALYZE)";
if (asJson) {
  console.log(JSON.stringify({ size: size.label, mode, org, results, extras, alternatives }, null, 2));
} else {
  const out: string[] = [`# Invoice list queries on ${size.invoices.toLocaleString("en")} invoices — ${mode}`, ""];
  const fmt = (m: Measured) => `${m.ms.toFixed(2)} ms`;
  for (const r of results) {
    out.push(`## ${r.name}`);
    out.push(`  count: ${fmt(r.count)} (total ${r.count.rows.toLocaleString("en")})`);
    for (const p of r.count.plan) out.push(`    ${p}`);
    out.push(`  page 1: ${fmt(r.page)}`);
    for (const p of r.page.plan) out.push(`    ${p}`);
    if (r.deep) {
      out.push(`  page 2000 (offset 39,980): ${fmt(r.deep)}`);
      for (const p of r.deep.plan) out.push(`    ${p}`);
    }
    if (r.deepest) out.push(`  last page (offset ${(r.count.rows - 20).toLocaleString("en")}): ${fmt(r.deepest)}`);
    out.push("");
  }
  out.push("## other queries");
  for (const [name, m] of Object.entries(extras)) {
    out.push(`  ${name}: ${fmt(m)} (${m.rows.toLocaleString("en")})`);
    for (const p of m.plan) out.push(`    ${p}`);
  }
  out.push("", "## alternative query shapes");
  for (const [name, a] of Object.entries(alternatives)) {
    out.push(`  ${name}: count ${fmt(a.count)} (${a.count.rows.toLocaleString("en")}), page 1 ${fmt(a.page)}, FTS hits alone ${fmt(a.ftsHits)}`);
    for (const p of a.page.plan) out.push(`    ${p}`);
  }
  console.log(out.join("\n"));
}
db.close();
if (analyze || fixes) for (const s of ["", "-wal", "-shm"]) rmSync(path + s, { force: true });
