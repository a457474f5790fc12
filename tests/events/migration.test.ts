/**
 * The migration to per-organisation event ids (docs/events.md#event-ids): the events kept keep
 * the ids clients have seen, so an `after` saved before the upgrade resumes where it was, and
 * each organisation's counter goes on from its own newest id.
 */
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { embeddedMigrations } from "../../db/migrations/index.ts";

test("events keep their ids as seq; each organisation's counter starts after its newest", () => {
  const db = new Database(":memory:");
  db.exec("PRAGMA foreign_keys = ON");
  const index = embeddedMigrations.findIndex((m) => m.tag.endsWith("_event_ids"));
  expect(index).toBeGreaterThan(0);
  const run = (sql: string) => {
    for (const statement of sql.split("--> statement-breakpoint")) if (statement.trim()) db.exec(statement);
  };
  for (const m of embeddedMigrations.slice(0, index)) run(m.sql);

  const now = "2026-01-01T00:00:00.000000Z";
  for (const org of ["org-a", "org-b", "org-c"]) {
    db.run("INSERT INTO organizations (id, name, currency, country, api_access, created_at, updated_at) VALUES (?, ?, 'EUR', 'BE', 1, ?, ?)", [org, org, now, now]);
  }
  // global ids as before: a's 1, 2, 4; b's 3, 5 (c has none)
  for (const org of ["org-a", "org-a", "org-b", "org-a", "org-b"]) {
    db.run("INSERT INTO events (organization_id, type, resource_type, resource_id, data, created_at) VALUES (?, 'customer.created', 'customer', 'x', '{}', ?)", [org, now]);
  }

  run(embeddedMigrations[index]!.sql);

  const rows = db.query<{ id: number; organization_id: string; seq: number }, []>("SELECT id, organization_id, seq FROM events ORDER BY id").all();
  expect(rows.map((r) => [r.organization_id, r.seq])).toEqual([
    ["org-a", 1],
    ["org-a", 2],
    ["org-b", 3],
    ["org-a", 4],
    ["org-b", 5],
  ]);
  const counters = db.query<{ organization_id: string; last_value: number }, []>("SELECT organization_id, last_value FROM number_sequences WHERE kind = 'event' ORDER BY organization_id").all();
  expect(counters).toEqual([
    { organization_id: "org-a", last_value: 4 },
    { organization_id: "org-b", last_value: 5 },
  ]);
  // (organization_id, seq) is unique
  expect(() => db.run("INSERT INTO events (organization_id, type, resource_type, resource_id, data, seq, created_at) VALUES ('org-a', 'customer.created', 'customer', 'y', '{}', 4, ?)", [now])).toThrow(
    "UNIQUE",
  );
  expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
});
