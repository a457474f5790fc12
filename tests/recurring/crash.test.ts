/**
 * The recurring run as real `kontor recurring run` processes, with templates that finalize what
 * they generate (so each invoice draws a number): a run killed with SIGKILL between two periods
 * and run again, and two runs started at once on one database. Either way each period is
 * invoiced exactly once, every invoice finalized, and the numbers are gapless: 1…n in the order
 * the periods were generated, none drawn twice, none skipped.
 */
import { afterAll, expect, test } from "bun:test";
import { SELLER_IDENTITY } from "../fixtures.ts";
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

/** The run's date: in the past (a run after today is refused), so the test does not move with the calendar. */
const RUN_DATE = "2026-10-15";

async function setUp() {
  const { org, token } = await env.newOrg();
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  expect((await api("PUT", "/api/v1/organization", SELLER_IDENTITY)).status).toBe(200);
  const c = await api("POST", "/api/v1/customers", { name: "Klant BV", address: "Markt 1", city: "Brugge", postal_code: "8000", country: "BE", email: "billing@klant.example" });
  expect(c.status, c.text).toBe(201);
  const template = async (start_date: string) => {
    const r = await api("POST", "/api/v1/recurring-invoices", {
      customer_id: c.body.data.id,
      lines: [{ description: "Hosting", quantity: "1", unit_price: "100.00" }],
      interval: "monthly",
      start_date,
      auto_finalize: true,
    });
    expect(r.status, r.text).toBe(201);
    return r.body.data.id as string;
  };
  return { org, template };
}

const spawnRun = (orgId: string, extra: Record<string, string> = {}) =>
  startCli(["recurring", "run", "--db", env.config.dbPath, "--json", "--date", RUN_DATE, "--org", orgId], extra, children);
const finished = jsonWhenDone;

type Row = { template: string; start: string; number: string | null; status: string };
/**
 * The organisation's invoices in the order they were created (the commit order of their
 * invoice.created event, recorded in the unit of work that inserted them), with their period.
 */
const invoicesOf = (orgId: string) =>
  sql.all<Row>(
    `SELECT recurring_invoice_id AS "template", service_period_start AS "start", number, status FROM invoices
     WHERE organization_id = ?
     ORDER BY (SELECT e.seq FROM events e WHERE e.organization_id = invoices.organization_id AND e.type = 'invoice.created' AND e.resource_id = invoices.id)`,
    orgId,
  );

/** The 5th of each month from `from` (YYYY-MM) through September 2026. */
function monthlyFifths(from: string): string[] {
  const out: string[] = [];
  for (let [y, m] = from.split("-").map(Number) as [number, number]; y < 2026 || (y === 2026 && m <= 10); m === 12 ? ((y += 1), (m = 1)) : (m += 1)) {
    const date = `${y}-${String(m).padStart(2, "0")}-05`;
    if (date <= RUN_DATE) out.push(date);
  }
  return out;
}

/** Each period once, all finalized, numbered 1…n in creation order with one prefix. */
function expectExactlyOnceGapless(rows: Row[], expected: Map<string, string[]>) {
  for (const [template, starts] of expected) expect(rows.filter((r) => r.template === template).map((r) => r.start).sort(), template).toEqual(starts);
  const total = [...expected.values()].reduce((n, s) => n + s.length, 0);
  expect(rows).toHaveLength(total);
  expect(rows.filter((r) => r.status !== "finalized")).toEqual([]);
  const numbers = rows.map((r) => r.number!);
  const prefix = numbers[0]!.replace(/\d+$/, "");
  expect(numbers.map((n) => n.replace(/\d+$/, "")).every((p) => p === prefix)).toBe(true);
  expect(numbers.map((n) => Number(/\d+$/.exec(n)![0]))).toEqual(Array.from({ length: total }, (_, i) => i + 1));
}

test("a run killed with SIGKILL between two periods, then run again: each period invoiced once, numbers gapless", async () => {
  const { org, template } = await setUp();
  // the 5th of each month, January 2025 to October 2026: 22 periods
  const t = await template("2025-01-05");
  const killed = spawnRun(org.id, { KONTOR_TEST_RECURRING_PAUSE_MS: "300" });
  const deadline = Date.now() + 20_000;
  while ((await invoicesOf(org.id)).length < 2 && Date.now() < deadline) await Bun.sleep(10);
  killed.kill("SIGKILL");
  expect(await killed.exited).not.toBe(0);
  const before = await invoicesOf(org.id);
  expect(before.length).toBeGreaterThanOrEqual(2);
  expect(before.length).toBeLessThan(22);
  // what committed is whole: finalized and numbered
  expect(before.filter((r) => r.status !== "finalized" || r.number === null)).toEqual([]);

  const report = await finished(spawnRun(org.id));
  expect(report.generated).toHaveLength(22 - before.length);
  expectExactlyOnceGapless(await invoicesOf(org.id), new Map([[t, monthlyFifths("2025-01")]]));
}, 60_000);

test("two runs started at once on one database: each period invoiced once, numbers gapless", async () => {
  const { org, template } = await setUp();
  const a = await template("2025-06-05"); // 17 periods
  const b = await template("2026-01-05"); // 10
  const c = await template("2026-07-05"); // 4
  // each pauses after every period, so that the two interleave
  const runs = [spawnRun(org.id, { KONTOR_TEST_RECURRING_PAUSE_MS: "20" }), spawnRun(org.id, { KONTOR_TEST_RECURRING_PAUSE_MS: "20" })];
  const reports = await Promise.all(runs.map(finished));
  expect(reports[0].generated.length + reports[1].generated.length).toBe(31);
  expectExactlyOnceGapless(
    await invoicesOf(org.id),
    new Map([
      [a, monthlyFifths("2025-06")],
      [b, monthlyFifths("2026-01")],
      [c, monthlyFifths("2026-07")],
    ]),
  );
  // a third run finds nothing left
  expect((await finished(spawnRun(org.id))).generated).toEqual([]);
}, 60_000);
