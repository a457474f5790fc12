/**
 * Upgrades (docs/operations.md, "Upgrades"). The repository has no release tag, so the oldest Kontor is the
 * first migration: a database holding only 0000_init, filled with what today's Kontor made
 * (every column 0000 knew, copied from a reference database built through the API), is
 * upgraded by `kontor migrate` as a process, which backs it up first; then every resource reads
 * back over the API as it did from the reference, except the fields later migrations added.
 * And a database from a newer Kontor is refused, byte for byte untouched.
 */
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../db/client.ts";
import { migrateDatabase } from "../../server/data-migrations.ts";
import { embeddedMigrations } from "../../db/migrations/index.ts";
import { createApp } from "../../server/app.ts";
import { loadConfig } from "../../server/config.ts";
import { silentLogger } from "../../server/log.ts";
import { createRuntime } from "../../server/runtime.ts";
import { loadDocument } from "../../server/invoices/document.ts";
import { createTestEnv, runCli } from "../helpers.ts";
import { sqliteOnly } from "../raw-sql.ts";

const dir = mkdtempSync(join(tmpdir(), "kontor-upgrade-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Fields a migration after 0000 added, which an upgraded database cannot hold the reference's
 * value of (they are empty, or the migration's backfill): everything else must read back equal.
 */
const ADDED_AFTER_0000 = new Set([
  "payment_reference", // 0014
  "buyer_reference",
  "order_reference",
  "category", // 0014: a vat rate's category (backfilled), and each line's
  "exemption_reason_code",
  "unit_code",
  "peppol_id",
  "language",
  "company_number",
  "default_bank_account_id",
  "request_id", // 0016
  "payment_instructions", // 0023: the seeded placeholder account flagged (below)
  "bank_account_id", // 0017: a payment's; the backfill finds no default account once 0023 flagged the placeholder (below)
  // 0015: an invoice's parties frozen at finalize (issued_parties); null on one finalized before, whose documents show them as they are now
  "seller",
  "buyer",
  "payee",
  "supply_type", // 0040: null on lines written before it (reported by their category's default)
  "vat_period", // 0039
  "self_assessed_vat_rate_id", // 0040
]);

function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !ADDED_AFTER_0000.has(k)).map(([k, v]) => [k, comparable(v)]));
}

// SQLite's own migrations (drizzle's), on SQLite files: a PostgreSQL database starts from a
// baseline of today's schema (db/postgres/migrate.ts), with no older database to upgrade
sqliteOnly.describe("upgrades of a SQLite database", () => {
  test("a database of the first migration is backed up, upgraded, and reads back the same", async () => {
    // the reference: one of each resource, made through the API of today's Kontor
    const env = await createTestEnv();
    const ok = async (method: string, path: string, body?: unknown) => {
      const r = await env.api(method, path, body);
      expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
      return r.body?.data ?? r.body;
    };
    const rates = await ok("GET", "/api/v1/vat-rates");
    const customer = await ok("POST", "/api/v1/customers", { name: "Brouwerij Upgrade NV", email: "b@upgrade.test", country: "BE", vat_number: "BE0417497106" });
    await ok("POST", `/api/v1/customers/${customer.id}/contact-persons`, { first_name: "Els", last_name: "Janssens", is_primary: true });
    await ok("POST", "/api/v1/suppliers", { name: "Papier BV", country: "NL" });
    const invoice = await ok("POST", "/api/v1/invoices", {
      customer_id: customer.id,
      issue_date: "2026-03-01",
      lines: [
        { description: "Consulting", quantity: "12.5", unit_price: "95.00", vat_rate_id: rates[0].id },
        { description: "Book", quantity: 3, unit_price: "19.99" },
      ],
    });
    await ok("POST", `/api/v1/invoices/${invoice.id}/finalize`);
    await ok("POST", `/api/v1/invoices/${invoice.id}/record-payment`, { amount: "100.00", payment_date: "2026-03-05" });
    await ok("POST", `/api/v1/invoices/${invoice.id}/credit-note`);
    await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-04-01", lines: [{ description: "Draft", quantity: 1, unit_price: "1.00" }] });
    const expense = await ok("POST", "/api/v1/expenses", { category: "office", amount: "42.10", date: "2026-02-01", vendor: "Papier BV", description: "paper" });
    await ok("POST", `/api/v1/expenses/${expense.id}/approve`);
    const webhook = await ok("POST", "/api/v1/webhooks", { url: "https://hooks.example.com/upgrade", events: ["invoice.created", "customer.created"] });
    await ok("POST", "/api/v1/customers", { name: "Second Customer" });

    const lists = [
      "/api/v1/organization",
      "/api/v1/customers",
      `/api/v1/customers/${customer.id}`,
      `/api/v1/customers/${customer.id}/contact-persons`,
      "/api/v1/suppliers",
      "/api/v1/invoices?per_page=100",
      `/api/v1/invoices/${invoice.id}`,
      "/api/v1/expenses",
      `/api/v1/expenses/${expense.id}`,
      "/api/v1/accounts?per_page=100",
      "/api/v1/bank-accounts",
      "/api/v1/webhooks",
      `/api/v1/webhooks/${webhook.id}/deliveries`,
      "/api/v1/audit-log?per_page=100",
      "/api/v1/invoices?search=upgrade",
      "/api/v1/customers?search=brouwerij",
      // the ledger the upgrade posts (migration 0017) is the one the API posted as it went
      "/api/v1/reports/trial-balance?date=2026-12-31",
      "/api/v1/reports/balance-sheet?date=2026-12-31",
      "/api/v1/reports/vat?from=2026-01-01&to=2026-12-31",
      "/api/v1/reports/aged-receivables?date=2026-12-31",
    ];
    const reference = new Map<string, unknown>();
    for (const path of lists) reference.set(path, await ok("GET", path));
    const referenceRates = await ok("GET", "/api/v1/vat-rates");
    env.db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");

    // the old database: 0000_init alone, as drizzle records it, with every column 0000 knew
    const oldPath = join(dir, "old", "kontor.db");
    const old = openDatabase(oldPath);
    const first = embeddedMigrations[0]!;
    (old as any).dialect.migrate(
      [{ sql: first.sql.split("--> statement-breakpoint"), bps: true, folderMillis: first.when, hash: createHash("sha256").update(first.sql).digest("hex") }],
      (old as any).session,
      {},
    );
    const sqlite = old.$client;
    sqlite.exec("PRAGMA foreign_keys = OFF");
    sqlite.run("ATTACH DATABASE ? AS ref", [env.config.dbPath]);
    const tables = (sqlite.query("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'").all() as { name: string }[]).map((t) => t.name);
    expect(tables.length).toBeGreaterThan(15);
    for (const table of tables) {
      const columns = (sqlite.query(`SELECT name FROM pragma_table_info('${table}', 'main')`).all() as { name: string }[]).map((c) => `"${c.name}"`);
      sqlite.exec(`INSERT INTO main."${table}" (${columns.join(", ")}) SELECT ${columns.join(", ")} FROM ref."${table}"`);
    }
    sqlite.exec("DETACH DATABASE ref");
    const copied = (sqlite.query("SELECT count(*) AS n FROM invoices").get() as { n: number }).n;
    expect(copied).toBe(3);
    sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    sqlite.close();

    // the upgrade, as a self-hoster runs it: a backup first, then every migration since
    const upgrade = await runCli(["migrate", "--db", oldPath, "--json"], { KONTOR_SECRET_KEY_FILE: join(env.dir, "kontor.key") });
    expect(upgrade.code, upgrade.stderr).toBe(0);
    const report = JSON.parse(upgrade.stdout);
    expect(report.applied).toBe(embeddedMigrations.length - 1);
    expect(report.backup).toMatch(/kontor\.db\.before-upgrade-0000-to-\d{4}-\d{8}T\d{6}Z\.db$/);
    const backup = new Database(report.backup, { readonly: true });
    expect(backup.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    expect(backup.query("SELECT count(*) AS n FROM __drizzle_migrations").get()).toEqual({ n: 1 });
    expect(backup.query("SELECT count(*) AS n FROM invoices").get()).toEqual({ n: 3 });
    backup.close();

    const config = loadConfig({ KONTOR_ENV: "test", KONTOR_RATE_LIMIT: "100000", KONTOR_DB: oldPath, KONTOR_SECRET_KEY_FILE: join(env.dir, "kontor.key") });
    const upgraded = openDatabase(oldPath);
    expect(await migrateDatabase(upgraded)).toBe(0);
    const app = createApp(createRuntime(config, { db: upgraded, log: silentLogger }));
    const read = async (path: string) => {
      const r = await app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${env.token}` } }));
      expect(r.status, path).toBe(200);
      const body = (await r.json()) as any;
      return body.data ?? body;
    };
    for (const path of lists.filter((p) => p !== "/api/v1/bank-accounts")) expect(comparable(await read(path)), path).toEqual(comparable(reference.get(path)));
    // 0023: the account the earlier Kontor seeded with the placeholder IBAN BE71096123456769 (which
    // the test organisation holds, as every organisation of the earlier Kontor did) is flagged and
    // deactivated: no longer the default, never printed again; its ledger account keeps its balance
    const banks = (await read("/api/v1/bank-accounts")) as any[];
    expect(banks).toEqual((reference.get("/api/v1/bank-accounts") as any[]).map((b) => ({ ...b, is_active: false })));
    expect(banks.map((b) => b.iban)).toEqual(["BE71096123456769"]);
    expect(upgraded.$client.query("SELECT is_placeholder FROM bank_accounts").all()).toEqual([{ is_placeholder: 1 }]);
    expect(await read("/api/v1/organization")).toMatchObject({ default_bank_account_id: null, payment_instructions: false });
    expect((await loadDocument(upgraded, env.org.id, invoice.id)).payee).toBeNull();
    // the payment recorded before the ledger is on no bank account (it posts to 1110 all the same: the trial balance above is the reference's)
    expect(((await read(`/api/v1/invoices/${invoice.id}`)) as any).payments.map((p: any) => p.bank_account_id)).toEqual([null]);
    expect((reference.get("/api/v1/organization") as any).payment_instructions).toBe(true);
    // 0014 added the 0 % rates of each category: the old ones are all there, as they were
    const upgradedRates = (await read("/api/v1/vat-rates")) as any[];
    for (const rate of referenceRates as any[]) expect(comparable(upgradedRates.find((r) => r.id === rate.id)), rate.name).toEqual(comparable(rate));
    upgraded.$client.close();
    env.close();
  }, 120_000);

  test("a database from a newer Kontor is refused with a message, and left as it was", async () => {
    const path = join(dir, "newer", "kontor.db");
    const db = openDatabase(path);
    await migrateDatabase(db);
    const last = embeddedMigrations.at(-1)!.when;
    db.$client.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-the-future', ?)", [last + 60_000]);
    db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.$client.close();
    const before = createHash("sha256").update(readFileSync(path)).digest("hex");

    for (const command of [["serve", "--port", "0"], ["migrate"], ["org", "list"]]) {
      const r = await runCli([...command, "--db", path]);
      expect(r.code, command.join(" ")).toBe(1);
      expect(r.stderr).toContain("was written by a newer Kontor");
      expect(r.stderr).toContain("Nothing was changed");
    }
    expect(createHash("sha256").update(readFileSync(path)).digest("hex")).toBe(before);
    expect(existsSync(join(dir, "newer", "kontor.db.holders"))).toBe(false);
  }, 120_000);

  test("0023 flags the seeded placeholder account: deactivated, not the default, off the documents issued with it; other accounts untouched", async () => {
    const env = await createTestEnv();
    try {
      const ok = async (method: string, path: string, body?: unknown, token?: string) => {
        const r = await env.api(method, path, body, token);
        expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
        return r.body?.data;
      };
      // as the earlier Kontor left it: the placeholder is the default and frozen on an issued invoice
      const customer = await ok("POST", "/api/v1/customers", { name: "Frozen Parties NV" });
      const invoice = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-01", lines: [{ description: "x", quantity: 1, unit_price: "10.00" }] });
      await ok("POST", `/api/v1/invoices/${invoice.id}/finalize`);
      expect((await loadDocument(env.db, env.org.id, invoice.id)).payee?.iban).toBe("BE71096123456769");
      const own = await env.newOrg("Own Account BV", { iban: "BE68 5390 0754 7034" });
      const ownCustomer = await ok("POST", "/api/v1/customers", { name: "Theirs" }, own.token);
      const ownInvoice = await ok("POST", "/api/v1/invoices", { customer_id: ownCustomer.id, issue_date: "2026-03-01", lines: [{ description: "x", quantity: 1, unit_price: "10.00" }] }, own.token);
      await ok("POST", `/api/v1/invoices/${ownInvoice.id}/finalize`, undefined, own.token);

      // the migration's data statements (its column is there already)
      const migration = embeddedMigrations.find((m) => m.tag.startsWith("0023_"))!;
      for (const statement of migration.sql.split("--> statement-breakpoint")) {
        if (!/^\s*(--.*\n\s*)*ALTER/.test(statement)) env.db.$client.exec(statement);
      }

      const banks = env.db.$client.query("SELECT o.name, b.iban, b.is_active, b.is_placeholder, o.default_bank_account_id = b.id AS is_default FROM bank_accounts b JOIN organizations o ON o.id = b.organization_id WHERE o.name IN ('Acme', 'Own Account BV') ORDER BY o.name").all();
      expect(banks).toEqual([
        { name: "Acme", iban: "BE71096123456769", is_active: 0, is_placeholder: 1, is_default: null },
        { name: "Own Account BV", iban: "BE68539007547034", is_active: 1, is_placeholder: 0, is_default: 1 },
      ]);
      expect((await loadDocument(env.db, env.org.id, invoice.id)).payee).toBeNull();
      expect((await loadDocument(env.db, own.org.id, ownInvoice.id)).payee?.iban).toBe("BE68539007547034");
      expect((await ok("GET", "/api/v1/organization")).payment_instructions).toBe(false);
      // the real account, added and made the default, is what new documents show
      const r = await runCli(["bank-account", "add", "--db", env.config.dbPath, "--org", "Acme", "--name", "Real", "--iban", "NL91ABNA0417164300", "--default", "--json"]);
      expect(r.code, r.stderr).toBe(0);
      expect((await ok("GET", "/api/v1/organization")).payment_instructions).toBe(true);
      const placeholder = await runCli(["bank-account", "default", "BE71096123456769", "--db", env.config.dbPath, "--org", "Acme"]);
      expect(placeholder.code).toBe(1);
      expect(placeholder.stderr).toContain("placeholder");
    } finally {
      env.close();
    }
  }, 60_000);
});
