/** Migration 0014 (document identity) on a database with organisations made before it: the backfill. */
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { embeddedMigrations } from "../../db/migrations/index.ts";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

test("0 % rates become Z, the new 0 % rates are added once per organisation, the oldest active bank account becomes the default", () => {
  const db = new Database(":memory:");
  db.exec("PRAGMA foreign_keys = ON");
  const index = embeddedMigrations.findIndex((m) => m.tag === "0014_document_identity");
  expect(index).toBeGreaterThan(0);
  const run = (sql: string) => {
    for (const statement of sql.split("--> statement-breakpoint")) if (statement.trim()) db.exec(statement);
  };
  for (const m of embeddedMigrations.slice(0, index)) run(m.sql);

  const now = "2026-01-01T00:00:00.000000Z";
  for (const org of ["org-a", "org-b"]) {
    db.run("INSERT INTO organizations (id, name, currency, country, api_access, created_at, updated_at) VALUES (?, ?, 'EUR', 'BE', 1, ?, ?)", [org, org, now, now]);
    db.run("INSERT INTO vat_rates (id, organization_id, name, rate_bp, is_default, created_at) VALUES (?, ?, 'Standard 21%', 2100, 1, ?)", [`${org}-21`, org, now]);
    db.run("INSERT INTO vat_rates (id, organization_id, name, rate_bp, is_default, created_at) VALUES (?, ?, 'Zero 0%', 0, 0, ?)", [`${org}-0`, org, now]);
    db.run(
      "INSERT INTO accounts (id, organization_id, code, name, type, parent_id, is_active, description, created_at, updated_at) VALUES (?, ?, '1110', 'Bank', 'asset', NULL, 1, '', ?, ?)",
      [`${org}-acct`, org, now, now],
    );
  }
  const bank = (id: string, org: string, active: number, createdAt: string) =>
    db.run(
      "INSERT INTO bank_accounts (id, organization_id, name, iban, bank_name, currency, balance_cents, is_active, account_id, created_at, updated_at) VALUES (?, ?, ?, 'BE71096123456769', NULL, 'EUR', 0, ?, ?, ?, ?)",
      [id, org, id, active, `${org}-acct`, createdAt, createdAt],
    );
  bank("a-closed", "org-a", 0, "2025-01-01T00:00:00.000000Z");
  bank("a-open", "org-a", 1, "2025-06-01T00:00:00.000000Z");
  bank("a-newer", "org-a", 1, "2025-07-01T00:00:00.000000Z");

  run(embeddedMigrations[index]!.sql);

  const rates = db
    .query<{ organization_id: string; id: string; name: string; rate_bp: number; is_default: number; category: string; exemption_reason_code: string | null; created_at: string }, []>(
      "SELECT * FROM vat_rates ORDER BY organization_id, rate_bp DESC, category",
    )
    .all();
  for (const org of ["org-a", "org-b"]) {
    const mine = rates.filter((r) => r.organization_id === org);
    expect(mine.map((r) => [r.name, r.rate_bp, r.category, r.exemption_reason_code, r.is_default])).toEqual([
      ["Standard 21%", 2100, "S", null, 1],
      ["Reverse charge 0%", 0, "AE", "VATEX-EU-AE", 0],
      ["Exempt 0%", 0, "E", "VATEX-EU-132", 0],
      ["Export 0%", 0, "G", "VATEX-EU-G", 0],
      ["Intra-EU supply 0%", 0, "K", "VATEX-EU-IC", 0],
      ["Zero 0%", 0, "Z", null, 0],
    ]);
    for (const added of mine.filter((r) => !r.id.startsWith(org))) {
      expect(added.id).toMatch(UUID_V7);
      expect(added.created_at).toMatch(TIMESTAMP);
    }
  }
  expect(new Set(rates.map((r) => r.id)).size).toBe(rates.length);

  const orgs = db.query<{ id: string; default_bank_account_id: string | null; language: string }, []>("SELECT id, default_bank_account_id, language FROM organizations ORDER BY id").all();
  expect(orgs).toEqual([
    { id: "org-a", default_bank_account_id: "a-open", language: "en" },
    { id: "org-b", default_bank_account_id: null, language: "en" },
  ]);
  db.close();
});
