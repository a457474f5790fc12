/**
 * Bulk seed for the benchmarks: a realistic Kontor database generated with raw prepared
 * bun:sqlite statements in big transactions (never through HTTP).
 *
 *   bun bench/seed.ts            1,000,000 invoices (1–5 lines) · 50,000 customers · 200,000 expenses
 *   bun bench/seed.ts --quick      100,000 invoices · 5,000 customers · 20,000 expenses
 *   bun bench/seed.ts --reseed   ignore the cached file and build it again
 *
 * Organisations and tokens are made by the same services the CLI uses; everything else is
 * inserted in bulk with the triggers and secondary indexes dropped, then the indexes and the
 * FTS5 tables are rebuilt and the triggers put back exactly as the migrations wrote them.
 * The result is cached in bench/out/ keyed by size, seed version and migrations, with a
 * sidecar JSON holding the organisation ids and tokens the runner uses.
 */
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, unitOfWork } from "../db/client.ts";
import { migrateDatabase } from "../server/data-migrations.ts";
import { embeddedMigrations } from "../db/migrations/index.ts";
import { backfillLedger } from "../server/ledger/backfill.ts";
import { rebuildReceivables } from "../server/reports/receivables.ts";
import { CLI_ACTOR, createOrganization } from "../server/orgs/service.ts";
import { createToken } from "../server/tokens/service.ts";
import { lineAmountCents, vatCents } from "../server/lib/money.ts";
import { isVatNumber } from "../server/lib/vat-numbers.ts";
import { isoFromMicros } from "../server/lib/time.ts";
import type { Organization } from "../server/lib/scope.ts";

/** Bump when the generated data changes, so cached files are rebuilt. */
const SEED_VERSION = 5;

export const OUT_DIR = join(import.meta.dir, "out");

export type SeedSize = {
  label: "full" | "quick";
  invoices: number;
  customers: number;
  expenses: number;
  suppliers: number;
};

export const FULL: SeedSize = { label: "full", invoices: 1_000_000, customers: 50_000, expenses: 200_000, suppliers: 5_000 };
export const QUICK: SeedSize = { label: "quick", invoices: 100_000, customers: 5_000, expenses: 20_000, suppliers: 500 };
/** The second organisation is small at either size: it exists to prove lists stay scoped. */
const SECOND: Omit<SeedSize, "label"> = { invoices: 3_000, customers: 300, expenses: 1_000, suppliers: 100 };

export type OrgInfo = { id: string; name: string; token: string; invoices: number; customers: number; expenses: number };

export type SeedMeta = {
  seedVersion: number;
  size: SeedSize;
  /** the last day of generated data (issue dates run up to it) */
  today: string;
  orgs: { main: OrgInfo; second: OrgInfo };
  rows: Record<string, number>;
  seedSeconds: number;
  bytes: number;
  createdAt: string;
};

export type Seeded = { path: string; meta: SeedMeta; reused: boolean };

// ---------------------------------------------------------------------------------------------
// deterministic randomness

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;
const int = (rng: Rng, min: number, max: number) => min + Math.floor(rng() * (max - min + 1));
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
/** items as [value, weight] pairs */
function weighted<T>(rng: Rng, items: readonly (readonly [T, number])[]): T {
  let total = 0;
  for (const [, w] of items) total += w;
  let r = rng() * total;
  for (const [v, w] of items) {
    r -= w;
    if (r < 0) return v;
  }
  return items[items.length - 1]![0];
}

// ---------------------------------------------------------------------------------------------
// vocabulary

const SURNAMES = (
  "Peeters Janssens Maes Jacobs Mertens Willems Claes Goossens Wouters DeSmet Dubois Lambert Dupont Martin Simon " +
  "Laurent Leroy Lemaire Renard Hermans Michiels Aerts Smets Stevens Vermeulen Pauwels Hendrickx Coppens Desmet " +
  "Verhoeven Baert Bosmans Cools Dewilde Engels Geerts Huybrechts Lenaerts Martens Moens Nijs Segers Thys Vos " +
  "Wuyts Bogaert Cornelis Declercq Devos Dierckx Schmidt Schneider Fischer Weber Meyer Wagner Becker Schulz " +
  "Hoffmann Koch Richter Klein Wolf Neumann Schwarz Zimmermann Braun Hofmann Hartmann Kruger Lange Werner Krause " +
  "Lehmann Kohler Muller Bakker Visser Smit Meijer Mulder Bos Vos Dekker Dijkstra Brouwer Hendriks Vandenberg " +
  "Kuipers Veenstra Jansen Prins Blom Moreau Girard Bonnet Fontaine Rousseau Vincent Muller Lefevre Faure Andre " +
  "Mercier Blanc Guerin Boyer Garnier Chevalier Francois Legrand Gauthier Garcia Perrin Robin Clement Morin " +
  "Nicolas Henry Roussel Mathieu Gautier Masson Marchand Duval Denis Dumont Marie Lemoine Noel Meyer Dufour " +
  "Meunier Brun Blanchard Giraud Joly Riviere Lucas Brunet Gaillard Barbier Arnaud Martinez Gerard Roche " +
  "Rossi Russo Ferrari Esposito Bianchi Romano Colombo Ricci Marino Greco Bruno Gallo Conti Costa Giordano " +
  "Mancini Rizzo Lombardi Moretti Smith Jones Taylor Brown Williams Wilson Johnson Davies Robinson Wright " +
  "Thompson Evans Walker White Roberts Green Hall Wood Jackson Clarke Novak Kowalski Nowak Horvat Kovacs " +
  "Nagy Szabo Toth Andersen Nielsen Hansen Pedersen Larsen Johansson Karlsson Lindberg Virtanen Korhonen"
).split(" ");
const TRADES = (
  "Bouw Consulting Logistics Design Media Systems Software Engineering Catering Transport Advies Partners " +
  "Solutions Electro Techniek Immo Renovatie Studio Digital Foods Metaal Hout Garden Print Energy Security " +
  "Medical Services Trading Textiel Auto Farma Data Cloud Retail Marketing Legal Finance Architecten Installaties"
).split(" ");
const LEGAL = ["BV", "NV", "SRL", "SA", "GmbH", "BVBA", "VOF", "Ltd", "& Co", "Group"];
const CITIES: [string, string, string][] = [
  ["BE", "Antwerpen", "2000"], ["BE", "Gent", "9000"], ["BE", "Brussel", "1000"], ["BE", "Leuven", "3000"],
  ["BE", "Liège", "4000"], ["BE", "Brugge", "8000"], ["BE", "Namur", "5000"], ["BE", "Hasselt", "3500"],
  ["NL", "Amsterdam", "1011"], ["NL", "Rotterdam", "3011"], ["NL", "Utrecht", "3511"], ["DE", "Köln", "50667"],
  ["DE", "Düsseldorf", "40213"], ["DE", "Aachen", "52062"], ["FR", "Lille", "59000"], ["FR", "Paris", "75001"],
  ["LU", "Luxembourg", "1111"], ["GB", "London", "EC1A"], ["CH", "Zürich", "8001"], ["US", "New York", "10001"],
];
/**
 * A VAT number of the country that the API would take (server/lib/vat-numbers.ts): built from
 * `seed`, then the next numbers until the country's check digits hold (one in 11 at worst).
 */
function vatNumberFor(country: string, seed: number): string {
  for (let k = 0; ; k++) {
    // nine digits, 100000000–999999999, wrapping round
    const n = 100_000_000 + ((seed - 100_000_000 + k) % 900_000_000);
    const digits = String(n);
    const candidate =
      country === "BE"
        ? `BE0${digits.slice(2)}${String(97 - (Number(digits.slice(2)) % 97)).padStart(2, "0")}`
        : country === "NL"
          ? `NL${digits}B01`
          : country === "FR"
            ? `FR${String((12 + 3 * (n % 97)) % 97).padStart(2, "0")}${digits}`
            : country === "LU"
              ? `LU${digits.slice(3)}${String(Number(digits.slice(3)) % 89).padStart(2, "0")}`
              : `${country}${digits}`;
    if (isVatNumber(candidate)) return candidate;
  }
}
const STREETS = ["Kerkstraat", "Stationsstraat", "Dorpstraat", "Molenstraat", "Nieuwstraat", "Rue de la Gare", "Hauptstraße", "Marktplein"];
const SERVICES = [
  "Consulting hours", "Development work", "Project management", "Design services", "Support contract",
  "Hosting (monthly)", "Software licence", "Training session", "Travel expenses", "Installation",
  "Maintenance", "Hardware", "Audit", "Translation", "Copywriting", "Data migration", "Workshop",
  "Security review", "On-site support", "Materials",
];
const EXPENSE_CATEGORIES: [string, number][] = [
  ["office", 20], ["software", 18], ["travel", 14], ["meals", 10], ["fuel", 10], ["telecom", 6],
  ["rent", 5], ["utilities", 5], ["insurance", 3], ["marketing", 4], ["hardware", 3], ["training", 2],
];
const PAYMENT_METHODS: [string, number][] = [["bank_transfer", 80], ["card", 10], ["direct_debit", 7], ["cash", 2], ["other", 1]];

// ---------------------------------------------------------------------------------------------
// time helpers

const DAY_MS = 86_400_000;
const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayStart = (date: string) => Date.parse(`${date}T00:00:00Z`);
/** stored timestamp form, microsecond precision */
const ts = (ms: number, micros = 0) => isoFromMicros(Math.floor(ms) * 1000 + micros);

// ---------------------------------------------------------------------------------------------

/** SQL of the migrations' triggers and indexes that the bulk load removes and puts back. */
type Saved = { triggers: { name: string; sql: string }[]; indexes: { name: string; sql: string }[] };

const BULK_TABLES = ["customers", "suppliers", "invoices", "invoice_lines", "payments", "expenses"];

function dropForBulk(sqlite: Database): Saved {
  const inList = BULK_TABLES.map((t) => `'${t}'`).join(",");
  const triggers = sqlite
    .query<{ name: string; sql: string }, []>(`SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN (${inList}) ORDER BY name`)
    .all();
  const indexes = sqlite
    .query<{ name: string; sql: string }, []>(
      `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${inList}) ORDER BY name`,
    )
    .all();
  for (const t of triggers) sqlite.exec(`DROP TRIGGER "${t.name}"`);
  for (const i of indexes) sqlite.exec(`DROP INDEX "${i.name}"`);
  return { triggers, indexes };
}

function restoreAfterBulk(sqlite: Database, saved: Saved, log: (line: string) => void) {
  let t0 = performance.now();
  for (const i of saved.indexes) sqlite.exec(i.sql);
  log(`  indexes rebuilt (${saved.indexes.length}) in ${secs(t0)}`);
  t0 = performance.now();
  // external-content FTS tables rebuild from their base table
  for (const fts of ["customers_fts", "suppliers_fts", "expenses_fts", "invoices_fts"]) {
    sqlite.exec(`INSERT INTO ${fts}(${fts}) VALUES ('rebuild')`);
    sqlite.exec(`INSERT INTO ${fts}(${fts}) VALUES ('optimize')`);
  }
  log(`  full-text indexes built in ${secs(t0)}`);
  for (const t of saved.triggers) sqlite.exec(t.sql);
  // the statistics `kontor serve` computes at its first start on this database (keepStatisticsFresh),
  // computed here once so that every benchmark run starts from a database that has them
  t0 = performance.now();
  sqlite.exec("PRAGMA analysis_limit = 0; ANALYZE");
  log(`  planner statistics in ${secs(t0)}`);
}

const secs = (t0: number) => `${((performance.now() - t0) / 1000).toFixed(1)} s`;

type VatRate = { id: string; bp: number };

type OrgPlan = Omit<SeedSize, "label"> & { seed: number; country: string };

/** Generates one organisation's customers, suppliers, invoices (+lines, payments) and expenses. */
function seedOrg(sqlite: Database, org: Organization, plan: OrgPlan, today: string, log: (line: string) => void): Record<string, number> {
  const rng = mulberry32(plan.seed);
  const rates = sqlite
    .query<{ id: string; rate_bp: number }, [string]>("SELECT id, rate_bp FROM vat_rates WHERE organization_id = ? ORDER BY rate_bp DESC")
    .all(org.id)
    .map((r) => ({ id: r.id, bp: r.rate_bp }) satisfies VatRate);
  const standard = rates[0]!;
  const zero = rates.find((r) => r.bp === 0) ?? standard;
  const reduced = rates.filter((r) => r !== standard && r !== zero);
  const todayMs = dayStart(today);
  const startMs = todayMs - 3 * 365 * DAY_MS; // ~3 years of history
  const counts: Record<string, number> = { customers: 0, suppliers: 0, invoices: 0, invoice_lines: 0, payments: 0, expenses: 0 };

  // -- customers --------------------------------------------------------------------------
  const insertParty = (table: string) =>
    sqlite.prepare(
      `INSERT INTO ${table} (id, organization_id, name, email, phone, address, city, postal_code, country, vat_number, currency, payment_terms, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  type Customer = { id: string; name: string; currency: string | null; foreign: boolean };
  const customers: Customer[] = [];
  const makeParties = (table: string, n: number, into?: Customer[]) => {
    const stmt = insertParty(table);
    const names = new Set<string>();
    sqlite.transaction(() => {
      for (let i = 0; i < n; i++) {
        let name = "";
        for (let attempt = 0; attempt < 20; attempt++) {
          name = `${pick(rng, SURNAMES)} ${pick(rng, TRADES)} ${pick(rng, LEGAL)}`;
          if (!names.has(name)) break;
          name = `${name} ${int(rng, 2, 99)}`;
          if (!names.has(name)) break;
        }
        names.add(name);
        const [country, city, postal] = weighted(rng, CITIES.map((c, k) => [c, k < 8 ? 10 : 2] as const));
        const currency = country === "GB" ? "GBP" : country === "CH" ? "CHF" : country === "US" ? "USD" : rng() < 0.3 ? null : "EUR";
        const isCompany = rng() < 0.75;
        const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "");
        const createdMs = startMs - int(rng, 1, 365) * DAY_MS + int(rng, 8 * 3600, 18 * 3600) * 1000;
        const created = ts(createdMs, i % 1000);
        const id = Bun.randomUUIDv7("hex", createdMs);
        stmt.run(
          id,
          org.id,
          name,
          rng() < 0.9 ? `billing@${slug}.example` : null,
          rng() < 0.6 ? `+32 ${int(rng, 2, 9)}${int(rng, 100, 999)} ${int(rng, 10, 99)} ${int(rng, 10, 99)}` : null,
          `${pick(rng, STREETS)} ${int(rng, 1, 250)}`,
          city,
          postal,
          country,
          isCompany ? vatNumberFor(country, int(rng, 100_000_000, 999_999_999)) : null,
          currency,
          rng() < 0.5 ? "30 days" : null,
          created,
          created,
        );
        into?.push({ id, name, currency, foreign: country === "GB" || country === "CH" || country === "US" });
      }
    })();
    counts[table] = n;
  };
  let t0 = performance.now();
  makeParties("customers", plan.customers, customers);
  // suppliers are kept for the expenses' vendor → supplier_id match
  const supplierStart = customers.length;
  makeParties("suppliers", plan.suppliers, customers);
  const suppliers = customers.splice(supplierStart);
  log(`  ${org.name}: ${plan.customers.toLocaleString("en")} customers, ${plan.suppliers.toLocaleString("en")} suppliers in ${secs(t0)}`);

  // -- invoices, lines, payments -----------------------------------------------------------
  t0 = performance.now();
  const insertInvoice = sqlite.prepare(
    `INSERT INTO invoices (id, organization_id, customer_id, number, type, status, related_invoice_id, issue_date, due_date, currency,
       notes, payment_terms, subtotal_cents, vat_cents, total_cents, paid_cents, finalized_at, sent_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertLine = sqlite.prepare(
    `INSERT INTO invoice_lines (id, organization_id, invoice_id, description, quantity_cents, unit_price_cents, amount_cents,
       vat_rate_id, vat_rate_bp, vat_cents, sort_order) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertPayment = sqlite.prepare(
    `INSERT INTO payments (id, organization_id, invoice_id, amount_cents, payment_date, payment_method, reference, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const sequences = new Map<string, number>(); // `${kind}:${year}` → last value
  const lastInvoiceOf = new Map<number, string>(); // customer index → its last invoice id (for credit notes)
  const stepMs = (todayMs + DAY_MS - 1 - startMs) / plan.invoices;
  const BATCH = 20_000;
  for (let batchStart = 0; batchStart < plan.invoices; batchStart += BATCH) {
    sqlite.transaction(() => {
      const end = Math.min(plan.invoices, batchStart + BATCH);
      for (let i = batchStart; i < end; i++) {
        // creation times increase monotonically, so UUID v7 ids follow them
        const createdMs = Math.floor(startMs + i * stepMs + rng() * stepMs * 0.9);
        const issueDate = dateOf(createdMs);
        const ageDays = Math.floor((todayMs - dayStart(issueDate)) / DAY_MS);
        // a few customers are very active: P(index < k) = sqrt(k / n)
        const ci = Math.floor(plan.customers * rng() * rng());
        const previous = lastInvoiceOf.get(ci);
        const isCredit = previous !== undefined && rng() < 0.03;
        const type = isCredit ? "credit_note" : "invoice";
        const customer = customers[ci]!;
        const currency = customer.currency ?? org.currency;
        const id = Bun.randomUUIDv7("hex", createdMs);
        if (!isCredit) lastInvoiceOf.set(ci, id);

        let status: string;
        if (isCredit) status = weighted(rng, [["finalized", 60], ["sent", 35], ["draft", 5]] as const);
        else if (ageDays <= 30)
          status = weighted(rng, [["draft", 15], ["finalized", 12], ["sent", 45], ["partially_paid", 5], ["paid", 20], ["cancelled", 3]] as const);
        else if (ageDays <= 60)
          status = weighted(rng, [["draft", 2], ["finalized", 4], ["sent", 28], ["partially_paid", 6], ["paid", 58], ["cancelled", 2]] as const);
        else
          status = weighted(rng, [["draft", 0.5], ["finalized", 1.5], ["sent", 5], ["partially_paid", 2.5], ["paid", 88.5], ["cancelled", 2]] as const);
        // numbers as Kontor gives them: a draft's provisional DRAFT-…, an issued document the next of its series
        const year = issueDate.slice(0, 4);
        let number: string;
        if (status === "draft") number = `DRAFT-${id.slice(-8)}`;
        else {
          const seqKey = `${type}:${year}`;
          const seq = (sequences.get(seqKey) ?? 0) + 1;
          sequences.set(seqKey, seq);
          number = `${isCredit ? "CN" : "INV"}-${year}-${String(seq).padStart(5, "0")}`;
        }
        const terms = weighted(rng, [[30, 70], [14, 15], [60, 10], [0, 5]] as const);
        const dueDate = dateOf(dayStart(issueDate) + terms * DAY_MS);

        // lines: 1–5, mostly 1–3
        const nLines = weighted(rng, [[1, 30], [2, 25], [3, 20], [4, 15], [5, 10]] as const);
        let subtotal = 0;
        let vat = 0;
        for (let l = 0; l < nLines; l++) {
          const hourly = rng() < 0.6;
          const quantity = hourly ? int(rng, 1, 80) * 25 : int(rng, 1, 20) * 100; // hundredths
          const unitPrice = hourly ? int(rng, 45, 180) * 100 : int(rng, 500, 250_000);
          const rate: VatRate = customer.foreign
            ? zero
            : weighted(rng, [[standard, 80], [reduced[0] ?? standard, 6], [reduced[1] ?? standard, 6], [zero, 8]] as const);
          const amount = lineAmountCents(quantity, unitPrice);
          const lineVat = vatCents(amount, rate.bp);
          subtotal += amount;
          vat += lineVat;
          insertLine.run(
            Bun.randomUUIDv7("hex", createdMs),
            org.id,
            id,
            pick(rng, SERVICES),
            quantity,
            unitPrice,
            amount,
            rate.id,
            rate.bp,
            lineVat,
            l + 1,
          );
          counts.invoice_lines!++;
        }
        const total = subtotal + vat;

        // payments
        const finalized = status !== "draft";
        const finalizedMs = createdMs + int(rng, 60, 3 * 3600) * 1000;
        const sentMs = finalizedMs + int(rng, 60, 48 * 3600) * 1000;
        let paid = 0;
        let updatedMs = finalized ? (status === "finalized" || status === "cancelled" ? finalizedMs : sentMs) : createdMs;
        if (!isCredit && (status === "paid" || status === "partially_paid")) {
          const parts = status === "paid" ? (rng() < 0.9 ? [total] : splitTwo(rng, total)) : [Math.max(1, Math.floor(total * (0.2 + rng() * 0.6)))];
          let payMs = sentMs;
          for (const amount of parts) {
            payMs = Math.min(todayMs + 12 * 3600_000, payMs + int(rng, 1, ageDays > 45 ? 45 : Math.max(1, ageDays)) * DAY_MS);
            insertPayment.run(
              Bun.randomUUIDv7("hex", payMs),
              org.id,
              id,
              amount,
              dateOf(payMs),
              weighted(rng, PAYMENT_METHODS),
              rng() < 0.7 ? `+++${int(rng, 100, 999)}/${int(rng, 1000, 9999)}/${int(rng, 10000, 99999)}+++` : null,
              ts(payMs),
            );
            counts.payments!++;
            paid += amount;
            updatedMs = payMs;
          }
        }
        insertInvoice.run(
          id,
          org.id,
          customer.id,
          number,
          type,
          status,
          isCredit ? previous! : null,
          issueDate,
          dueDate,
          currency,
          rng() < 0.1 ? "Thank you for your business." : null,
          terms === 0 ? "Due on receipt" : `${terms} days`,
          subtotal,
          vat,
          total,
          paid,
          finalized ? ts(finalizedMs) : null,
          finalized && status !== "finalized" && status !== "cancelled" ? ts(sentMs) : null,
          ts(createdMs, i % 1000),
          ts(updatedMs, i % 1000),
        );
        counts.invoices!++;
      }
    })();
    if (plan.invoices >= 200_000 && (batchStart / BATCH) % 10 === 9) {
      log(`  ${org.name}: ${Math.min(plan.invoices, batchStart + BATCH).toLocaleString("en")} invoices…`);
    }
  }
  // the per-year numbering continues where the seeded data stops
  const upsertSeq = sqlite.prepare(
    "INSERT OR REPLACE INTO number_sequences (organization_id, kind, year, last_value) VALUES (?, ?, ?, ?)",
  );
  for (const [key, value] of sequences) {
    const [kind, year] = key.split(":");
    upsertSeq.run(org.id, kind!, Number(year), value);
  }
  log(
    `  ${org.name}: ${counts.invoices!.toLocaleString("en")} invoices, ${counts.invoice_lines!.toLocaleString("en")} lines, ` +
      `${counts.payments!.toLocaleString("en")} payments in ${secs(t0)}`,
  );

  // -- expenses ----------------------------------------------------------------------------
  t0 = performance.now();
  const insertExpense = sqlite.prepare(
    `INSERT INTO expenses (id, organization_id, category, description, amount_cents, vat_cents, vat_rate_id, date, vendor, supplier_id,
       status, currency, rejection_reason, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const expStep = (todayMs + DAY_MS - 1 - startMs) / plan.expenses;
  for (let batchStart = 0; batchStart < plan.expenses; batchStart += BATCH) {
    sqlite.transaction(() => {
      const end = Math.min(plan.expenses, batchStart + BATCH);
      for (let i = batchStart; i < end; i++) {
        const createdMs = Math.floor(startMs + i * expStep + rng() * expStep * 0.9);
        const date = dateOf(createdMs - int(rng, 0, 10) * DAY_MS);
        const ageDays = Math.floor((todayMs - createdMs) / DAY_MS);
        const supplier = rng() < 0.95 ? suppliers[Math.floor(suppliers.length * rng() * rng())]! : null;
        const category = weighted(rng, EXPENSE_CATEGORIES);
        const amount = int(rng, 500, 150_000);
        const rate = rng() < 0.85 ? standard : weighted(rng, [[reduced[0] ?? standard, 1], [zero, 1]] as const);
        const status =
          ageDays < 14
            ? weighted(rng, [["pending", 60], ["approved", 35], ["rejected", 5]] as const)
            : weighted(rng, [["pending", 2], ["approved", 93], ["rejected", 5]] as const);
        const updatedMs = status === "pending" ? createdMs : createdMs + int(rng, 1, 7) * DAY_MS;
        insertExpense.run(
          Bun.randomUUIDv7("hex", createdMs),
          org.id,
          category,
          rng() < 0.8 ? `${category[0]!.toUpperCase()}${category.slice(1)}: ${pick(rng, SERVICES).toLowerCase()}` : null,
          amount,
          vatCents(amount, rate.bp),
          rate.id,
          date,
          supplier?.name ?? null,
          supplier?.id ?? null,
          status,
          rng() < 0.95 ? org.currency : "USD",
          status === "rejected" ? "Missing receipt" : null,
          ts(createdMs, i % 1000),
          ts(Math.min(updatedMs, todayMs + 12 * 3600_000), i % 1000),
        );
        counts.expenses!++;
      }
    })();
  }
  log(`  ${org.name}: ${counts.expenses!.toLocaleString("en")} expenses in ${secs(t0)}`);
  return counts;
}

function splitTwo(rng: Rng, total: number): number[] {
  if (total < 2) return [total];
  const first = Math.max(1, Math.floor(total * (0.3 + rng() * 0.4)));
  return [first, total - first];
}

function migrationsHash(): string {
  const h = createHash("sha256");
  for (const m of embeddedMigrations) h.update(m.tag).update(m.sql);
  return h.digest("hex").slice(0, 10);
}

export function seedPaths(size: SeedSize) {
  const key = `kontor-${size.invoices}-v${SEED_VERSION}-${migrationsHash()}`;
  return { db: join(OUT_DIR, `${key}.db`), meta: join(OUT_DIR, `${key}.json`), prefix: `kontor-${size.invoices}-` };
}

/** Builds the database for `size`, or reuses the cached one. */
export async function ensureSeed(size: SeedSize, { reseed = false, log = (l: string) => console.error(l) } = {}): Promise<Seeded> {
  mkdirSync(OUT_DIR, { recursive: true });
  const paths = seedPaths(size);
  if (!reseed && existsSync(paths.db) && existsSync(paths.meta)) {
    const meta = (await Bun.file(paths.meta).json()) as SeedMeta;
    log(`Reusing seeded database ${paths.db} (${mb(statSync(paths.db).size)}; seeded in ${meta.seedSeconds.toFixed(1)} s)`);
    return { path: paths.db, meta, reused: true };
  }
  // stale caches of this size (older seed version or migrations) are removed first
  for (const f of readdirSync(OUT_DIR)) if (f.startsWith(paths.prefix)) rmSync(join(OUT_DIR, f), { force: true });

  const tmp = `${paths.db}.tmp`;
  for (const suffix of ["", "-wal", "-shm"]) rmSync(tmp + suffix, { force: true });
  const started = performance.now();
  log(`Seeding ${size.label} database: ${size.invoices.toLocaleString("en")} invoices, ${size.customers.toLocaleString("en")} customers, ${size.expenses.toLocaleString("en")} expenses…`);

  const db = openDatabase(tmp);
  await migrateDatabase(db);
  const main = await createOrganization(db, { name: "Acme Benchmarks", country: "BE", currency: "EUR", iban: "BE68539007547034" });
  const second = await createOrganization(db, { name: "Globex Second", country: "NL", currency: "EUR", iban: "NL91ABNA0417164300" });
  const mint = async (org: Organization) =>
    (await createToken({ db, org, actor: CLI_ACTOR }, { cli: true }, "organization", { userId: null, createdByUserId: null }, { name: "bench", abilities: ["*"] })).token;
  const tokens = { main: await mint(main), second: await mint(second) };

  const sqlite = db.$client;
  // bulk-load settings: no journal, no fsync, big page cache; WAL again at the end
  sqlite.exec("PRAGMA journal_mode = DELETE");
  sqlite.exec("PRAGMA journal_mode = OFF");
  sqlite.exec("PRAGMA synchronous = OFF");
  sqlite.exec("PRAGMA foreign_keys = OFF");
  sqlite.exec("PRAGMA cache_size = -1000000");
  const saved = dropForBulk(sqlite);

  const today = new Date().toISOString().slice(0, 10);
  const rows: Record<string, number> = {};
  const add = (c: Record<string, number>) => {
    for (const [k, v] of Object.entries(c)) rows[k] = (rows[k] ?? 0) + v;
  };
  const mainCounts = seedOrg(sqlite, main, { ...size, seed: 42, country: "BE" }, today, log);
  add(mainCounts);
  const secondCounts = seedOrg(sqlite, second, { ...SECOND, seed: 7, country: "NL" }, today, log);
  add(secondCounts);

  restoreAfterBulk(sqlite, saved, log);
  // the ledger of what was seeded, posted by the rules the API posts by (as migration 0017 posts
  // a database written before the ledger): issued documents, their payments, approved expenses
  const posting = performance.now();
  await unitOfWork(db, async (tx) => {
    await backfillLedger(tx);
    // the invoices went in with their triggers off: what customers owe, from the documents
    await rebuildReceivables(tx);
  });
  const entries = (sqlite.query("SELECT count(*) AS n FROM journal_entries").get() as { n: number }).n;
  log(`  ledger: ${entries.toLocaleString("en")} journal entries posted in ${secs(posting)}`);
  sqlite.exec("ANALYZE");
  // the statements drizzle left prepared keep this connection from changing the journal mode
  sqlite.close();
  const finishing = new Database(tmp);
  finishing.exec("PRAGMA journal_mode = WAL");
  finishing.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  finishing.close();
  for (const suffix of ["-wal", "-shm"]) rmSync(tmp + suffix, { force: true });
  renameSync(tmp, paths.db);

  const seedSeconds = (performance.now() - started) / 1000;
  const bytes = statSync(paths.db).size;
  const info = (org: Organization, token: string, c: Record<string, number>): OrgInfo => ({
    id: org.id,
    name: org.name,
    token,
    invoices: c.invoices!,
    customers: c.customers!,
    expenses: c.expenses!,
  });
  const meta: SeedMeta = {
    seedVersion: SEED_VERSION,
    size,
    today,
    orgs: { main: info(main, tokens.main, mainCounts), second: info(second, tokens.second, secondCounts) },
    rows,
    seedSeconds,
    bytes,
    createdAt: new Date().toISOString(),
  };
  await Bun.write(paths.meta, JSON.stringify(meta, null, 2));
  log(`Seeded ${paths.db} in ${seedSeconds.toFixed(1)} s (${mb(bytes)})`);
  return { path: paths.db, meta, reused: false };
}

export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

if (import.meta.main) {
  const args = process.argv.slice(2);
  const size = args.includes("--quick") ? QUICK : FULL;
  const seeded = await ensureSeed(size, { reseed: args.includes("--reseed") });
  if (args.includes("--json")) console.log(JSON.stringify({ path: seeded.path, reused: seeded.reused, ...seeded.meta, orgs: undefined }));
}
