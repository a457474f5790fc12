/**
 * The reminder run as real `kontor reminders run` processes, with a level that charges interest
 * and compensation (so each reminder issues an interest note, numbered at the run): a run killed
 * with SIGKILL between two reminders and run again, and two runs started at once on one
 * database. Either way each invoice gets its reminder once and one interest note, and the
 * notes' numbers are gapless: INT-…1 to n in the order they were issued.
 */
import { afterAll, expect, test } from "bun:test";
import { createTestEnv, jsonWhenDone, startCli } from "../helpers.ts";
import { rawSql } from "../raw-sql.ts";

const env = await createTestEnv();
const sql = rawSql(env.db);
const children: Bun.Subprocess[] = [];
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await Promise.all(children.map((c) => c.exited));
  await env.close();
});

const INVOICES = 8;
/** 10 days after the due date, 2025-10-01: in the past, so that a note may be issued on it. */
const RUN_DATE = "2025-10-11";

/** An organisation with INVOICES finalized invoices due 2025-10-01 to a business customer, and a policy of one charging level. */
async function setUp(name: string) {
  const { org, token } = await env.newOrg(name, { country: "BE", currency: "EUR" });
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const r = await env.api(method, path, body, token);
    expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBe(status);
    return r.body?.data;
  };
  const customer = await call("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", vat_number: "BE0404795549", email: "ap@dupont.test" }, 201);
  const ids: string[] = [];
  for (let i = 0; i < INVOICES; i++) {
    const draft = await call("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2025-09-01", due_date: "2025-10-01", lines: [{ description: "Work", quantity: "1", unit_price: "1000.00" }] }, 201);
    ids.push((await call("POST", `/api/v1/invoices/${draft.id}/finalize`)).id);
  }
  await call("PUT", "/api/v1/reminder-policy", { enabled: true, channel: "manual", levels: [{ days_after_due: 10, charge_interest: true, charge_compensation: true }] });
  return { org, ids };
}

const spawnRun = (orgId: string, extra: Record<string, string> = {}) =>
  startCli(["reminders", "run", "--db", env.config.dbPath, "--date", RUN_DATE, "--org", orgId, "--json"], extra, children);
const finished = jsonWhenDone;

const remindersOf = (orgId: string) =>
  sql.all<{ invoice: string; level: number; note: string | null }>('SELECT invoice_id AS "invoice", level, interest_note_id AS "note" FROM reminders WHERE organization_id = ?', orgId);
/** The interest notes in the order they were created: the commit order of their invoice.created event, recorded in the unit of work that inserted them. */
const notesOf = (orgId: string) =>
  sql.all<{ id: string; related: string; number: string | null; status: string; total: number }>(
    `SELECT id, related_invoice_id AS "related", number, status, total_cents AS "total" FROM invoices
     WHERE organization_id = ? AND type = 'interest_note'
     ORDER BY (SELECT e.seq FROM events e WHERE e.organization_id = invoices.organization_id AND e.type = 'invoice.created' AND e.resource_id = invoices.id)`,
    orgId,
  );

/** One reminder and one note per invoice, each note its reminder's, issued and numbered 1…n gapless. */
async function expectOnceGapless(orgId: string, ids: string[]) {
  const reminders = await remindersOf(orgId);
  expect(reminders.map((r) => r.invoice).sort()).toEqual([...ids].sort());
  expect(reminders.every((r) => r.level === 0)).toBe(true);
  const notes = await notesOf(orgId);
  expect(notes.map((n) => n.related).sort()).toEqual([...ids].sort());
  expect(new Set(reminders.map((r) => r.note))).toEqual(new Set(notes.map((n) => n.id)));
  // 1000.00 × 10.50 % × 10/365 = 2.876… → 2.88 of interest, and the €40: 42.88 each
  expect(notes.map((n) => n.total)).toEqual(Array(ids.length).fill(4288));
  expect(notes.filter((n) => n.status === "draft" || n.number === null)).toEqual([]);
  const numbers = notes.map((n) => n.number!);
  const prefix = numbers[0]!.replace(/\d+$/, "");
  expect(prefix).toStartWith("INT-");
  expect(numbers.every((n) => n.startsWith(prefix))).toBe(true);
  expect(numbers.map((n) => Number(/\d+$/.exec(n)![0]))).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
}

test("a run killed with SIGKILL between two reminders, then run again: each reminder and its note once, the notes' numbers gapless", async () => {
  const { org, ids } = await setUp("Killed Run BV");
  const killed = spawnRun(org.id, { KONTOR_TEST_REMINDER_PAUSE_MS: "400" });
  const deadline = Date.now() + 20_000;
  while ((await remindersOf(org.id)).length < 2 && Date.now() < deadline) await Bun.sleep(10);
  killed.kill("SIGKILL");
  await killed.exited;
  const before = (await remindersOf(org.id)).length;
  expect(before).toBeGreaterThanOrEqual(2);
  expect(before).toBeLessThan(INVOICES);
  // what committed is whole: each recorded reminder with its issued note, no note without its reminder
  expect(await notesOf(org.id)).toHaveLength(before);

  const rerun = await finished(spawnRun(org.id));
  expect(rerun[0].data).toHaveLength(INVOICES - before);
  await expectOnceGapless(org.id, ids);
  // a third run on the same date has nothing left to send
  expect((await finished(spawnRun(org.id)))[0].data).toEqual([]);
}, 60_000);

test("two runs started at once on one database: each reminder and its note once, the notes' numbers gapless", async () => {
  const { org, ids } = await setUp("Twice Run BV");
  const both = [spawnRun(org.id, { KONTOR_TEST_REMINDER_PAUSE_MS: "30" }), spawnRun(org.id, { KONTOR_TEST_REMINDER_PAUSE_MS: "30" })];
  const outputs = await Promise.all(both.map(finished));
  expect(outputs[0][0].data.length + outputs[1][0].data.length).toBe(INVOICES);
  await expectOnceGapless(org.id, ids);
}, 60_000);
