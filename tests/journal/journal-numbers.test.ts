/**
 * Journal entry numbers in date order per year (issue 26 item 7): entries posted out of date
 * order (manual entries, an expense's approval and payment, a reversal) are numbered by their
 * dates, JE-<year>-00001 upwards with no gap, in the list, a single entry, every sort and page,
 * and the CSV export; a back-dated entry posted later takes its place among them. The upgrade
 * (migration 0026) counts the entries already posted, and makes the fully paid expenses paid.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createTestEnv } from "../helpers.ts";
import { sqliteOnly } from "../raw-sql.ts";
import { databaseBefore, upgradedApp } from "../upgrade-copy.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const { token } = await env.newOrg("Numbered books", { country: "BE", currency: "EUR" });
const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
async function ok(method: string, path: string, body: unknown, status: number) {
  const r = await api(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
  return r.body?.data;
}

const chart = new Map<string, string>();
/** a manual entry of 1.00 from the bank (1110) to bank fees (6900), named by its label */
const manual = (date: string, label: string) =>
  ok("POST", "/api/v1/journal-entries", { date, description: label, lines: [{ account_id: chart.get("6900"), debit: "1.00" }, { account_id: chart.get("1110"), credit: "1.00" }] }, 201);
async function journal(query = "sort=number") {
  const r = await api("GET", `/api/v1/journal-entries?per_page=100&${query}`);
  expect(r.status, r.text).toBe(200);
  return r.body.data as { id: string; date: string; number: string; description: string }[];
}

const ids: Record<string, string> = {};

beforeAll(async () => {
  for (const a of await ok("GET", "/api/v1/accounts?per_page=100", undefined, 200)) chart.set(a.code, a.id);
  // posted in this order; dated out of order, two on one day, one in the year before
  ids.march = (await manual("2026-03-10", "March, posted first")).id;
  ids.january = (await manual("2026-01-05", "January, posted second")).id;
  ids.june = (await manual("2026-06-01", "June")).id;
  ids.marchLater = (await manual("2026-03-10", "March, posted later")).id;
  ids.lastYear = (await manual("2025-12-31", "Last year")).id;
  ids.januaryLater = (await manual("2026-01-05", "January, posted later")).id;
  // a document: an expense dated 1 February, approved (posts on its date) and paid on 15 February
  const e = await ok("POST", "/api/v1/expenses", { category: "Travel", amount: "10.00", date: "2026-02-01" }, 201);
  await ok("POST", `/api/v1/expenses/${e.id}/approve`, undefined, 200);
  await ok("POST", `/api/v1/expenses/${e.id}/record-payment`, { amount: "10.00", payment_date: "2026-02-15" }, 201);
  const [expenseEntry] = await journal(`filter[source_type]=expense&filter[source_id]=${e.id}`);
  const paid = await ok("GET", `/api/v1/expenses/${e.id}`, undefined, 200);
  const [paymentEntry] = await journal(`filter[source_type]=expense_payment&filter[source_id]=${paid.payments[0].id}`);
  ids.expense = expenseEntry!.id;
  ids.payment = paymentEntry!.id;
  // the reversal of the June entry, dated in April: between March and June
  ids.reversal = (await ok("POST", `/api/v1/journal-entries/${ids.june}/reverse`, { date: "2026-04-20" }, 201)).id;
});

// by hand: 2026 in date order, a day's entries in posting order
const EXPECTED_2026 = ["january", "januaryLater", "expense", "payment", "march", "marchLater", "reversal", "june"];

describe("numbers ascend with the dates, per year, without gaps", () => {
  test("the list sorted by number: JE-2025-00001, then JE-2026-00001 … 00008 in date order", async () => {
    const entries = await journal();
    const byId = new Map(Object.entries(ids).map(([name, id]) => [id, name]));
    expect(entries.map((e) => [byId.get(e.id), e.number])).toEqual([
      ["lastYear", "JE-2025-00001"],
      ...EXPECTED_2026.map((name, i) => [name, `JE-2026-${String(i + 1).padStart(5, "0")}`]),
    ]);
    const dates = entries.map((e) => e.date);
    expect(dates).toEqual([...dates].sort());
  });

  test("each entry's GET, the default order (newest first) and pages of two say the same", async () => {
    const numbers = new Map((await journal()).map((e) => [e.id, e.number]));
    for (const [id, number] of numbers) expect((await ok("GET", `/api/v1/journal-entries/${id}`, undefined, 200)).number).toBe(number);
    const newestFirst = await journal("");
    expect(newestFirst.map((e) => e.number)).toEqual([...numbers.values()].reverse());
    expect((await journal("sort=-number")).map((e) => e.number)).toEqual([...numbers.values()].reverse());
    const paged: string[] = [];
    for (let page = 1; page <= 5; page++) {
      const r = await api("GET", `/api/v1/journal-entries?sort=number&per_page=2&page=${page}`);
      expect(r.status, r.text).toBe(200);
      paged.push(...r.body.data.map((e: { number: string }) => e.number));
    }
    expect(paged).toEqual([...numbers.values()]);
    // a date filter does not renumber: the numbers are the year's
    expect((await journal("sort=number&filter[date_from]=2026-03-01")).map((e) => e.number)).toEqual(["JE-2026-00005", "JE-2026-00006", "JE-2026-00007", "JE-2026-00008"]);
  });

  test("the CSV export carries the same numbers, in the same order", async () => {
    const numbers = (await journal()).map((e) => e.number);
    const r = await api("GET", "/api/v1/journal-entries/export?format=csv&to=2026-12-31");
    expect(r.status, r.text).toBe(200);
    const exported = r.text.split("\r\n").slice(1, -1).map((row: string) => row.split(",")[1]);
    expect([...new Set(exported)]).toEqual(numbers);
    const from = await api("GET", "/api/v1/journal-entries/export?format=csv&from=2026-03-01&to=2026-12-31");
    expect([...new Set(from.text.split("\r\n").slice(1, -1).map((row: string) => row.split(",")[1]))]).toEqual(["JE-2026-00005", "JE-2026-00006", "JE-2026-00007", "JE-2026-00008"]);
  });

  test("a back-dated entry posted last takes its place: the entries dated after it move up one, still without a gap", async () => {
    const before = new Map((await journal()).map((e) => [e.id, e.number]));
    const early = await manual("2026-01-01", "New Year's Day, posted last");
    expect(early.number).toBe("JE-2026-00001");
    const after = await journal();
    expect(after.map((e) => e.number)).toEqual(["JE-2025-00001", ...Array.from({ length: 9 }, (_, i) => `JE-2026-${String(i + 1).padStart(5, "0")}`)]);
    expect(after.find((e) => e.id === ids.lastYear)!.number).toBe(before.get(ids.lastYear)!); // another year: unmoved
    for (const name of EXPECTED_2026) {
      const was = Number(before.get(ids[name]!)!.slice(-5));
      expect(after.find((e) => e.id === ids[name])!.number, name).toBe(`JE-2026-${String(was + 1).padStart(5, "0")}`);
    }
  });

  test("another organisation's numbers start at 00001 of their own", async () => {
    const other = await env.newOrg("Other books", { country: "BE", currency: "EUR" });
    const accounts = (await env.api("GET", "/api/v1/accounts?per_page=100", undefined, other.token)).body.data as { id: string; code: string }[];
    const id = (code: string) => accounts.find((a) => a.code === code)!.id;
    const r = await env.api(
      "POST",
      "/api/v1/journal-entries",
      { date: "2026-12-31", description: "Only", lines: [{ account_id: id("6900"), debit: "1.00" }, { account_id: id("1110"), credit: "1.00" }] },
      other.token,
    );
    expect(r.status, r.text).toBe(201);
    expect(r.body.data.number).toBe("JE-2026-00001");
  });
});

// an upgrade of a SQLite database (tests/upgrade-copy.ts): a PostgreSQL database starts from a baseline after it
sqliteOnly.test("upgrade (migration 0026): the entries posted before are numbered in date order; an approved expense its payments cover becomes paid", async () => {
  const org = await env.newOrg("Upgraded books", { country: "BE", currency: "EUR" });
  const call = async (method: string, path: string, body: unknown, status: number) => {
    const r = await env.api(method, path, body, org.token);
    expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
    return r.body?.data;
  };
  const accounts = (await call("GET", "/api/v1/accounts?per_page=100", undefined, 200)) as { id: string; code: string }[];
  const id = (code: string) => accounts.find((a) => a.code === code)!.id;
  const post = async (date: string, description: string) =>
    (await call("POST", "/api/v1/journal-entries", { date, description, lines: [{ account_id: id("6900"), debit: "1.00" }, { account_id: id("1110"), credit: "1.00" }] }, 201)).id as string;
  const may = await post("2026-05-01", "May");
  const february = await post("2026-02-01", "February");
  const paidExpense = await call("POST", "/api/v1/expenses", { category: "Travel", amount: "20.00", vat_amount: "4.20", date: "2026-03-01" }, 201);
  await call("POST", `/api/v1/expenses/${paidExpense.id}/approve`, undefined, 200);
  await call("POST", `/api/v1/expenses/${paidExpense.id}/record-payment`, { amount: "24.20", payment_date: "2026-03-20" }, 201);
  const halfPaid = await call("POST", "/api/v1/expenses", { category: "Travel", amount: "20.00", date: "2026-03-01" }, 201);
  await call("POST", `/api/v1/expenses/${halfPaid.id}/approve`, undefined, 200);
  await call("POST", `/api/v1/expenses/${halfPaid.id}/record-payment`, { amount: "10.00", payment_date: "2026-03-20" }, 201);

  // the database of migration 0025 holding the same rows, as the earlier Kontor left them
  const oldPath = join(env.dir, "before-0026.db");
  const { sqlite, pending } = databaseBefore(env, "0026_", oldPath);
  expect(sqlite.query("SELECT name FROM sqlite_master WHERE name = 'journal_day_counts'").all()).toEqual([]);
  // the earlier Kontor had no paid status
  sqlite.exec("UPDATE expenses SET status = 'approved' WHERE status = 'paid'");
  sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite.close();

  const { db: upgraded, get } = await upgradedApp(env, oldPath, pending, org.token);
  const entries = (await get("/api/v1/journal-entries?sort=number&per_page=100")) as { id: string; date: string; number: string }[];
  // by hand: February (manual), 1 March (two expenses), 20 March (two payments), May (manual)
  expect(entries.map((e) => e.date)).toEqual(["2026-02-01", "2026-03-01", "2026-03-01", "2026-03-20", "2026-03-20", "2026-05-01"]);
  expect(entries.map((e) => e.number)).toEqual(["JE-2026-00001", "JE-2026-00002", "JE-2026-00003", "JE-2026-00004", "JE-2026-00005", "JE-2026-00006"]);
  expect([entries[0]!.id, entries[5]!.id]).toEqual([february, may]);
  expect(await get(`/api/v1/expenses/${paidExpense.id}`)).toMatchObject({ status: "paid", amount_due: "0.00" });
  expect(await get(`/api/v1/expenses/${halfPaid.id}`)).toMatchObject({ status: "approved", amount_due: "10.00" });
  upgraded.$client.close();
});
