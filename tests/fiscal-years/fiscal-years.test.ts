/**
 * Fiscal years as companies have them (docs/books.md#fiscal-years): years from 1 July to 30 June
 * named by the calendar year they end in, a first fiscal year of 18 months, and calendar years
 * unchanged. Postings are manual entries whose figures are written out here; every expected
 * amount, date and number is worked out by hand from them.
 *
 * The clock is set to 1 September 2028, so that the fiscal years ending on 30 June 2027 and 2028
 * have ended (a year closes only once it has), whatever day the suite runs on.
 */
import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Organization } from "../../server/lib/scope.ts";
import { newId } from "../../server/lib/time.ts";
import { createOrganization } from "../../server/orgs/service.ts";
import { createTestEnv, runCli } from "../helpers.ts";
import { freshPostgresDatabase } from "../postgres-database.ts";
import { onPostgres, rawSql } from "../raw-sql.ts";
import { unitOfWork, type Db } from "../../db/client.ts";

const env = await createTestEnv();
beforeAll(() => setSystemTime(new Date("2028-09-01T10:00:00Z")));
afterAll(async () => {
  setSystemTime();
  await env.close();
});

type Books = Awaited<ReturnType<typeof booksOf>>;

/** An entry written by hand in SQL, lines then header, as server/ledger/post.ts writes one: what the database's triggers say of it. */
async function rawEntry(b: Books, date: string) {
  const id = newId();
  // one transaction, its statements on its own connection
  await unitOfWork(env.db, async (tx) => {
    const sql = rawSql(tx as unknown as Db);
    for (const [lineNo, code, debit, credit] of [[1, "1110", 100, 0], [2, "4100", 0, 100]] as const) {
      await sql.run(
        "INSERT INTO journal_lines (id, organization_id, entry_id, line_no, account_id, date, currency, debit_cents, credit_cents) VALUES (?, ?, ?, ?, ?, ?, 'EUR', ?, ?)",
        newId(), b.org.id, id, lineNo, b.id(code), date, debit, credit,
      );
    }
    await sql.run(
      "INSERT INTO journal_entries (id, organization_id, number, date, description, currency, source_type, source_id, is_closing, created_at) VALUES (?, ?, ?, ?, 'raw', 'EUR', 'manual', NULL, 0, '2028-09-01T00:00:00.000000Z')",
      id, b.org.id, `RAW-${id}`, date,
    );
  });
}

/** An organisation created with these fiscal years, driven over the API with its `*` token. */
async function booksOf(name: string, fiscal: { fiscalYearStart?: string; firstFiscalYearStart?: string; firstFiscalYearEnd?: string; iban?: string } = {}) {
  const org: Organization = await createOrganization(env.db, { name, ...fiscal });
  const token = await env.orgToken(["*"], org);
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  const ok = async (method: string, path: string, body: unknown, status: number) => {
    const r = await api(method, path, body);
    expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
    return r.body?.data;
  };
  const accounts = (await api("GET", "/api/v1/accounts?per_page=100")).body.data as any[];
  const id = (code: string) => accounts.find((a) => a.code === code)!.id as string;
  const codeOf = new Map(accounts.map((a) => [a.id, a.code]));
  /** A manual entry: debit one account, credit another. */
  const entry = (date: string, debit: string, credit: string, amount: string) =>
    api("POST", "/api/v1/journal-entries", {
      date,
      description: `${debit} to ${credit} on ${date}`,
      lines: [{ account_id: id(debit), debit: amount }, { account_id: id(credit), credit: amount }],
    });
  const post = async (date: string, debit: string, credit: string, amount: string) => {
    const r = await entry(date, debit, credit, amount);
    expect(r.status, r.text).toBe(201);
    return r.body.data.id as string;
  };
  return {
    org,
    token,
    api,
    ok,
    id,
    entry,
    /** a sale paid into the bank: 1110 to 4100 */
    sale: (date: string, amount: string) => post(date, "1110", "4100", amount),
    /** office costs paid from the bank: 6400 to 1110 */
    cost: (date: string, amount: string) => post(date, "6400", "1110", amount),
    number: async (entryId: string) => (await ok("GET", `/api/v1/journal-entries/${entryId}`, undefined, 200)).number as string,
    lines: (e: any) => e.lines.map((l: any) => [codeOf.get(l.account_id), l.debit, l.credit]),
    balance: async (code: string) => ((await api("GET", "/api/v1/accounts?per_page=100")).body.data as any[]).find((a) => a.code === code)!.balance as string,
  };
}

describe("fiscal years from 1 July to 30 June", () => {
  let b: Books;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    b = await booksOf("Juli BV", { fiscalYearStart: "07-01" });
    // the fiscal year 2027 (2026-07-01 … 2027-06-30): sales 1000.00 + 500.00, costs 200.00 + 50.00
    ids.jul = await b.sale("2026-07-01", "1000.00");
    ids.sep = await b.cost("2026-09-15", "200.00");
    ids.mar = await b.sale("2027-03-10", "500.00");
    ids.jun30 = await b.cost("2027-06-30", "50.00");
    // the fiscal year 2026 (2025-07-01 … 2026-06-30), posted last: a sale of 300.00 on its last day
    ids.jun2026 = await b.sale("2026-06-30", "300.00");
  });

  test("the organisation shows its fiscal_year_start; each year its dates, named by the year it ends in", async () => {
    const org = await b.ok("GET", "/api/v1/organization", undefined, 200);
    expect(org).toMatchObject({ fiscal_year_start: "07-01", first_fiscal_year_start: null, first_fiscal_year_end: null });
    expect(await b.ok("GET", "/api/v1/fiscal-years/2027", undefined, 200)).toEqual({
      year: 2027,
      start_date: "2026-07-01",
      end_date: "2027-06-30",
      status: "open",
      closed_at: null,
      // 1000.00 + 500.00 − 200.00 − 50.00
      result: "1250.00",
      closing_entry_ids: [],
    });
    const list = (await b.ok("GET", "/api/v1/fiscal-years", undefined, 200)) as any[];
    // from the first posting's year (2026) to the current one (1 September 2028 is in 2029)
    expect(list.map((y) => [y.year, y.start_date, y.end_date, y.result])).toEqual([
      [2026, "2025-07-01", "2026-06-30", "300.00"],
      [2027, "2026-07-01", "2027-06-30", "1250.00"],
      [2028, "2027-07-01", "2028-06-30", "0.00"],
      [2029, "2028-07-01", "2029-06-30", "0.00"],
    ]);
  });

  test("journal numbers run per fiscal year: 30 June 2026 is JE-2026-00001, 1 July 2026 starts JE-2027", async () => {
    expect(await b.number(ids.jun2026!)).toBe("JE-2026-00001");
    expect(await b.number(ids.jul!)).toBe("JE-2027-00001");
    expect(await b.number(ids.sep!)).toBe("JE-2027-00002");
    expect(await b.number(ids.mar!)).toBe("JE-2027-00003");
    expect(await b.number(ids.jun30!)).toBe("JE-2027-00004");
    const csv = await b.api("GET", "/api/v1/journal-entries/export?format=csv&from=2026-06-01&to=2027-06-30");
    expect(csv.status, csv.text).toBe(200);
    const numbers = csv.text.trim().split("\n").slice(1).map((row) => row.split(",").slice(0, 2).join(" "));
    // two lines per entry, in date order
    expect([...new Set(numbers)]).toEqual([
      "2026-06-30 JE-2026-00001",
      "2026-07-01 JE-2027-00001",
      "2026-09-15 JE-2027-00002",
      "2027-03-10 JE-2027-00003",
      "2027-06-30 JE-2027-00004",
    ]);
  });

  test("the profit and loss starts on 1 July by default; the VAT report keeps to 1 January", async () => {
    // from 2026-07-01: the 300.00 of 30 June 2026 is the year before
    const dec = await b.ok("GET", "/api/v1/reports/profit-and-loss?to=2026-12-31", undefined, 200);
    expect(dec).toMatchObject({ from: "2026-07-01", to: "2026-12-31", total_revenue: "1000.00", total_expenses: "200.00", net_result: "800.00" });
    const year = await b.ok("GET", "/api/v1/reports/profit-and-loss?to=2027-06-30", undefined, 200);
    expect(year).toMatchObject({ from: "2026-07-01", total_revenue: "1500.00", total_expenses: "250.00", net_result: "1250.00" });
    // an explicit from is kept
    const calendar = await b.ok("GET", "/api/v1/reports/profit-and-loss?from=2026-01-01&to=2026-12-31", undefined, 200);
    expect(calendar).toMatchObject({ from: "2026-01-01", total_revenue: "1300.00", net_result: "1100.00" });
    const vat = await b.ok("GET", "/api/v1/reports/vat?to=2027-06-30", undefined, 200);
    expect(vat.from).toBe("2027-01-01");
  });

  test("the balance sheet before closing: 2026's and 2027's results are the current result", async () => {
    const sheet = await b.ok("GET", "/api/v1/reports/balance-sheet?date=2027-06-30", undefined, 200);
    // bank: 1000.00 − 200.00 + 500.00 − 50.00 + 300.00; result: 300.00 + 1250.00
    expect(sheet).toMatchObject({ current_result: "1550.00", total_assets: "1550.00", total_liabilities: "0.00", total_equity: "1550.00" });
  });

  test("2027 closes after 2026, with entries dated 30 June 2027 to retained earnings", async () => {
    const early = await b.api("POST", "/api/v1/fiscal-years/2027/close");
    expect(early.status).toBe(409);
    expect(early.body.message).toBe("The fiscal year 2026 is open; years close in order: close 2026 first.");
    const notEnded = await b.api("POST", "/api/v1/fiscal-years/2029/close");
    expect(notEnded.status).toBe(409);
    expect(notEnded.body.message).toBe("The fiscal year 2029 is open and has not ended yet (it ends on 2029-06-30).");

    const y2026 = await b.ok("POST", "/api/v1/fiscal-years/2026/close", undefined, 200);
    expect(y2026).toMatchObject({ year: 2026, start_date: "2025-07-01", end_date: "2026-06-30", status: "closed", result: "300.00" });
    const closing2026 = await b.ok("GET", `/api/v1/journal-entries/${y2026.closing_entry_ids[0]}`, undefined, 200);
    expect(closing2026).toMatchObject({ date: "2026-06-30", description: "Closing of the fiscal year 2026", number: "JE-2026-00002" });
    expect(b.lines(closing2026)).toEqual([
      ["4100", "300.00", "0.00"],
      ["3200", "0.00", "300.00"],
    ]);

    const y2027 = await b.ok("POST", "/api/v1/fiscal-years/2027/close", undefined, 200);
    expect(y2027).toMatchObject({ year: 2027, start_date: "2026-07-01", end_date: "2027-06-30", status: "closed", result: "1250.00" });
    expect(y2027.closing_entry_ids).toHaveLength(1);
    const closing = await b.ok("GET", `/api/v1/journal-entries/${y2027.closing_entry_ids[0]}`, undefined, 200);
    // the fifth entry of the year, on its last day, after the 50.00 of costs
    expect(closing).toMatchObject({ date: "2027-06-30", source_type: "fiscal_year", source_id: "2027", description: "Closing of the fiscal year 2027", number: "JE-2027-00005" });
    expect(b.lines(closing)).toEqual([
      ["4100", "1500.00", "0.00"],
      ["6400", "0.00", "250.00"],
      ["3200", "0.00", "1250.00"],
    ]);
    // 300.00 + 1250.00 in retained earnings; revenue and expense accounts at zero
    expect(await b.balance("3200")).toBe("1550.00");
    expect(await b.balance("4100")).toBe("0.00");
    expect(await b.balance("6400")).toBe("0.00");
    const sheet = await b.ok("GET", "/api/v1/reports/balance-sheet?date=2027-06-30", undefined, 200);
    expect(sheet).toMatchObject({ current_result: "0.00", total_equity: "1550.00" });
    // the closed year's profit and loss still shows what it earned (closing entries left out)
    expect((await b.ok("GET", "/api/v1/reports/profit-and-loss?to=2027-06-30", undefined, 200)).net_result).toBe("1250.00");
  });

  test("the lock follows the fiscal year: 15 January 2027 is refused, 1 July 2027 accepted", async () => {
    const refused = await b.entry("2027-01-15", "1110", "4100", "10.00");
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.message).toBe("The fiscal year 2027 is closed; this entry would post into it (2027-01-15). Reopen the year first.");
    // 30 June 2027, its last day, too; but under a calendar lock 2027-07-01 would be refused as well
    expect((await b.entry("2027-06-30", "1110", "4100", "10.00")).status).toBe(409);
    const accepted = await b.entry("2027-07-01", "1110", "4100", "80.00");
    expect(accepted.status, accepted.text).toBe(201);
    expect(accepted.body.data.number).toBe("JE-2028-00001");
    // the database's own lock reads the closed year's dates too
    await expect(rawEntry(b, "2027-01-15")).rejects.toThrow(/the fiscal year of this journal entry is closed/);
    await b.cost("2027-08-01", "30.00");
    // the default balance sheet (today, 1 September 2028): 80.00 − 30.00 not yet closed
    const sheet = await b.ok("GET", "/api/v1/reports/balance-sheet", undefined, 200);
    expect(sheet).toMatchObject({ date: "2028-09-01", current_result: "50.00" });
    const pl = await b.ok("GET", "/api/v1/reports/profit-and-loss?to=2028-06-30", undefined, 200);
    expect(pl).toMatchObject({ from: "2027-07-01", net_result: "50.00" });
  });

  test("the fiscal year start cannot change while a year is closed (422 naming the field)", async () => {
    const r = await b.api("PUT", "/api/v1/organization", { fiscal_year_start: "01-01" });
    expect(r.status, r.text).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(["fiscal_year_start"]);
    expect(r.body.errors.fiscal_year_start[0]).toContain("the fiscal year 2026 is closed");
    const first = await b.api("PUT", "/api/v1/organization", { first_fiscal_year_start: "2026-01-01", first_fiscal_year_end: "2027-06-30" });
    expect(first.status, first.text).toBe(422);
    expect(Object.keys(first.body.errors)).toEqual(["first_fiscal_year_start"]);
    // the same value changes nothing and is accepted
    expect((await b.ok("PUT", "/api/v1/organization", { fiscal_year_start: "07-01" }, 200)).fiscal_year_start).toBe("07-01");
    expect((await b.ok("GET", "/api/v1/organization", undefined, 200)).fiscal_year_start).toBe("07-01");
  });

  test("reopening 2027 reverses its closing entry and unlocks 15 January 2027", async () => {
    const y2027 = await b.ok("POST", "/api/v1/fiscal-years/2027/reopen", undefined, 200);
    expect(y2027).toMatchObject({ status: "open", start_date: "2026-07-01", end_date: "2027-06-30", closing_entry_ids: [] });
    expect(await b.balance("3200")).toBe("300.00");
    expect((await b.entry("2027-01-15", "1110", "4100", "10.00")).status).toBe(201);
    // 2026 is still closed
    expect((await b.entry("2026-06-30", "1110", "4100", "10.00")).status).toBe(409);
  });
});

describe("a first fiscal year of 18 months (2026-01-01 … 2027-06-30, named 2027), then twelve-month years", () => {
  let b: Books;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    b = await booksOf("Nieuw BV", { fiscalYearStart: "07-01", firstFiscalYearStart: "2026-01-01", firstFiscalYearEnd: "2027-06-30" });
    ids.jan = await b.sale("2026-01-10", "400.00");
    ids.aug = await b.cost("2026-08-20", "100.00");
    ids.may = await b.sale("2027-05-05", "700.00");
    // the fiscal year 2028 (2027-07-01 … 2028-06-30): 250.00 of sales, 40.00 of costs
    ids.jul = await b.sale("2027-07-01", "250.00");
    ids.feb = await b.cost("2028-02-01", "40.00");
  });

  test("the first year runs 18 months; there is no year before it, and nothing posts before it", async () => {
    expect(await b.ok("GET", "/api/v1/organization", undefined, 200)).toMatchObject({
      fiscal_year_start: "07-01",
      first_fiscal_year_start: "2026-01-01",
      first_fiscal_year_end: "2027-06-30",
    });
    // 400.00 + 700.00 − 100.00
    expect(await b.ok("GET", "/api/v1/fiscal-years/2027", undefined, 200)).toMatchObject({ start_date: "2026-01-01", end_date: "2027-06-30", result: "1000.00" });
    expect((await b.api("GET", "/api/v1/fiscal-years/2026")).status).toBe(404);
    const list = (await b.ok("GET", "/api/v1/fiscal-years", undefined, 200)) as any[];
    expect(list.map((y) => [y.year, y.start_date, y.end_date, y.result])).toEqual([
      [2027, "2026-01-01", "2027-06-30", "1000.00"],
      [2028, "2027-07-01", "2028-06-30", "210.00"],
      [2029, "2028-07-01", "2029-06-30", "0.00"],
    ]);
    const before = await b.entry("2025-12-31", "1110", "4100", "1.00");
    expect(before.status, before.text).toBe(409);
    expect(before.body.message).toBe("The organisation's first fiscal year starts on 2026-01-01; this entry would post before it (2025-12-31).");
    await expect(rawEntry(b, "2025-12-31")).rejects.toThrow(/dated before the organisation's first fiscal year/);
  });

  test("numbers run over the 18 months as one year, then restart on 1 July 2027", async () => {
    expect(await b.number(ids.jan!)).toBe("JE-2027-00001");
    expect(await b.number(ids.aug!)).toBe("JE-2027-00002");
    expect(await b.number(ids.may!)).toBe("JE-2027-00003");
    expect(await b.number(ids.jul!)).toBe("JE-2028-00001");
    expect(await b.number(ids.feb!)).toBe("JE-2028-00002");
  });

  test("the profit and loss starts on 1 January 2026 within the first year, on 1 July after it", async () => {
    expect(await b.ok("GET", "/api/v1/reports/profit-and-loss?to=2026-12-31", undefined, 200)).toMatchObject({ from: "2026-01-01", net_result: "300.00" });
    expect(await b.ok("GET", "/api/v1/reports/profit-and-loss?to=2027-06-30", undefined, 200)).toMatchObject({ from: "2026-01-01", net_result: "1000.00" });
    expect(await b.ok("GET", "/api/v1/reports/profit-and-loss?to=2028-06-30", undefined, 200)).toMatchObject({ from: "2027-07-01", net_result: "210.00" });
  });

  test("closing the first year (entries of 30 June 2027) locks its 18 months; then the twelve-month 2028 closes", async () => {
    const y2027 = await b.ok("POST", "/api/v1/fiscal-years/2027/close", undefined, 200);
    expect(y2027).toMatchObject({ start_date: "2026-01-01", end_date: "2027-06-30", status: "closed", result: "1000.00" });
    const closing = await b.ok("GET", `/api/v1/journal-entries/${y2027.closing_entry_ids[0]}`, undefined, 200);
    expect(closing).toMatchObject({ date: "2027-06-30", number: "JE-2027-00004" });
    expect(b.lines(closing)).toEqual([
      ["4100", "1100.00", "0.00"],
      ["6400", "0.00", "100.00"],
      ["3200", "0.00", "1000.00"],
    ]);
    // its first day, a day of its first calendar year and its last day are locked
    for (const date of ["2026-01-01", "2026-12-31", "2027-06-30"]) expect((await b.entry(date, "1110", "4100", "1.00")).status, date).toBe(409);

    const y2028 = await b.ok("POST", "/api/v1/fiscal-years/2028/close", undefined, 200);
    expect(y2028).toMatchObject({ start_date: "2027-07-01", end_date: "2028-06-30", result: "210.00" });
    const closing2028 = await b.ok("GET", `/api/v1/journal-entries/${y2028.closing_entry_ids[0]}`, undefined, 200);
    expect(closing2028).toMatchObject({ date: "2028-06-30", number: "JE-2028-00003" });
    expect(b.lines(closing2028)).toEqual([
      ["4100", "250.00", "0.00"],
      ["6400", "0.00", "40.00"],
      ["3200", "0.00", "210.00"],
    ]);
    expect(await b.balance("3200")).toBe("1210.00");
    expect((await b.entry("2027-07-01", "1110", "4100", "1.00")).status).toBe(409);
    const next = await b.entry("2028-07-01", "1110", "4100", "1.00");
    expect(next.status, next.text).toBe(201);
    expect(next.body.data.number).toBe("JE-2029-00001");
    // the database's lock: 31 December 2026 is in the closed first year, 2 July 2028 in the open 2029
    await expect(rawEntry(b, "2026-12-31")).rejects.toThrow(/the fiscal year of this journal entry is closed/);
    await rawEntry(b, "2028-07-02");
  });
});

describe("what a fiscal year setting refuses (422 naming the field)", () => {
  let b: Books;
  beforeAll(async () => {
    b = await booksOf("Settings BV");
  });

  const refused = async (body: Record<string, unknown>, field: string) => {
    const r = await b.api("PUT", "/api/v1/organization", body);
    expect(r.status, r.text).toBe(422);
    expect(Object.keys(r.body.errors), JSON.stringify(body)).toEqual([field]);
    return r.body.errors[field][0] as string;
  };

  test("a start not on the first of a month, or no month at all", async () => {
    expect(await refused({ fiscal_year_start: "07-15" }, "fiscal_year_start")).toContain("the first day of a month, MM-01");
    await refused({ fiscal_year_start: "13-01" }, "fiscal_year_start");
    await refused({ fiscal_year_start: "7-1" }, "fiscal_year_start");
  });

  test("a first year of 5 or 25 months; one of 6 and one of 24 are accepted", async () => {
    // 2026-02-01 … 2026-06-30: five months
    expect(await refused({ fiscal_year_start: "07-01", first_fiscal_year_start: "2026-02-01", first_fiscal_year_end: "2026-06-30" }, "first_fiscal_year_end")).toBe(
      "The first fiscal year must last 6 to 24 months: from 2026-02-01, it ends between 2026-07-31 and 2028-01-31.",
    );
    // 2025-06-01 … 2027-06-30: twenty-five months
    await refused({ fiscal_year_start: "07-01", first_fiscal_year_start: "2025-06-01", first_fiscal_year_end: "2027-06-30" }, "first_fiscal_year_end");
    // nothing of it was kept
    expect((await b.ok("GET", "/api/v1/organization", undefined, 200)).fiscal_year_start).toBe("01-01");
    const six = await b.ok("PUT", "/api/v1/organization", { fiscal_year_start: "07-01", first_fiscal_year_start: "2026-01-01", first_fiscal_year_end: "2026-06-30" }, 200);
    expect(six).toMatchObject({ fiscal_year_start: "07-01", first_fiscal_year_start: "2026-01-01", first_fiscal_year_end: "2026-06-30" });
    const twentyFour = await b.ok("PUT", "/api/v1/organization", { first_fiscal_year_start: "2025-07-01", first_fiscal_year_end: "2027-06-30" }, 200);
    expect(twentyFour).toMatchObject({ first_fiscal_year_start: "2025-07-01", first_fiscal_year_end: "2027-06-30" });
  });

  test("a first year that does not end the day before a fiscal year starts; a start without an end", async () => {
    expect(await refused({ first_fiscal_year_end: "2027-05-31" }, "first_fiscal_year_end")).toContain("fiscal years start on 07-01");
    // the fiscal year start moved, the first year's end no longer before it
    await refused({ fiscal_year_start: "04-01" }, "first_fiscal_year_end");
    const cleared = await b.ok("PUT", "/api/v1/organization", { first_fiscal_year_end: null }, 200);
    expect(cleared).toMatchObject({ first_fiscal_year_start: null, first_fiscal_year_end: null });
    await refused({ first_fiscal_year_start: "2026-01-01" }, "first_fiscal_year_end");
  });

  test("a first year that would leave a posting before it", async () => {
    await b.sale("2026-03-01", "10.00");
    expect(await refused({ first_fiscal_year_start: "2026-04-01", first_fiscal_year_end: "2027-06-30" }, "first_fiscal_year_start")).toBe(
      "The first fiscal year must hold every posting: one is dated 2026-03-01, before 2026-04-01.",
    );
  });

  test("changing the start while no year is closed renumbers the open years' entries", async () => {
    const c = await booksOf("Renumbered BV");
    const june = await c.sale("2026-06-30", "1.00");
    const july = await c.sale("2026-07-01", "1.00");
    expect([await c.number(june), await c.number(july)]).toEqual(["JE-2026-00001", "JE-2026-00002"]);
    await c.ok("PUT", "/api/v1/organization", { fiscal_year_start: "07-01" }, 200);
    expect([await c.number(june), await c.number(july)]).toEqual(["JE-2026-00001", "JE-2027-00001"]);
  });
});

describe("an organisation with calendar years sees no change", () => {
  test("01-01, years of 1 January to 31 December, numbers per calendar year, closing on 31 December", async () => {
    const b = await booksOf("Kalender BV");
    expect(await b.ok("GET", "/api/v1/organization", undefined, 200)).toMatchObject({ fiscal_year_start: "01-01", first_fiscal_year_start: null, first_fiscal_year_end: null });
    const jun = await b.sale("2027-06-30", "100.00");
    const jul = await b.sale("2027-07-01", "40.00");
    expect([await b.number(jun), await b.number(jul)]).toEqual(["JE-2027-00001", "JE-2027-00002"]);
    expect(await b.ok("GET", "/api/v1/reports/profit-and-loss?to=2027-12-31", undefined, 200)).toMatchObject({ from: "2027-01-01", net_result: "140.00" });
    const y2027 = await b.ok("POST", "/api/v1/fiscal-years/2027/close", undefined, 200);
    expect(y2027).toMatchObject({ start_date: "2027-01-01", end_date: "2027-12-31", result: "140.00" });
    expect((await b.ok("GET", `/api/v1/journal-entries/${y2027.closing_entry_ids[0]}`, undefined, 200)).date).toBe("2027-12-31");
    expect((await b.entry("2027-07-01", "1110", "4100", "1.00")).status).toBe(409);
    expect((await b.entry("2028-01-01", "1110", "4100", "1.00")).status).toBe(201);
  });
});

describe("kontor org create --fiscal-year-start", () => {
  const dir = mkdtempSync(join(tmpdir(), "kontor-fy-cli-"));
  // a database of its own: a SQLite file, or a fresh PostgreSQL database
  let fresh: Awaited<ReturnType<typeof freshPostgresDatabase>> | null = null;
  const cliEnv: Record<string, string> = { KONTOR_DB: join(dir, "kontor.db") };
  beforeAll(async () => {
    if (!onPostgres) return;
    fresh = await freshPostgresDatabase();
    Object.assign(cliEnv, { KONTOR_DATABASE_URL: fresh.url, KONTOR_SECRET_KEY_FILE: join(dir, "kontor.key") });
  });
  afterAll(async () => {
    await fresh?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("creates an organisation with its first fiscal year; a first year of 25 months is refused", async () => {
    const created = await runCli(
      ["org", "create", "--name", "Cli BV", "--fiscal-year-start", "07-01", "--first-fiscal-year-start", "2026-01-01", "--first-fiscal-year-end", "2027-06-30", "--json"],
      cliEnv,
    );
    expect(created.code, created.stderr).toBe(0);
    const shown = await runCli(["org", "set", "Cli BV", "--json"], cliEnv);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ fiscal_year_start: "07-01", first_fiscal_year_start: "2026-01-01", first_fiscal_year_end: "2027-06-30" });
    const moved = await runCli(["org", "set", "Cli BV", "--fiscal-year-start", "01-01", "--first-fiscal-year-end", "", "--json"], cliEnv);
    expect(moved.code, moved.stderr).toBe(0);
    expect(JSON.parse(moved.stdout)).toMatchObject({ fiscal_year_start: "01-01", first_fiscal_year_start: null, first_fiscal_year_end: null });

    const long = await runCli(["org", "create", "--name", "Long BV", "--fiscal-year-start", "07-01", "--first-fiscal-year-start", "2025-06-01", "--first-fiscal-year-end", "2027-06-30"], cliEnv);
    expect(long.code).not.toBe(0);
    expect(long.stderr).toContain("6 to 24 months");
    const list = await runCli(["org", "list", "--json"], cliEnv);
    expect((JSON.parse(list.stdout) as any[]).map((o) => o.name)).toEqual(["Cli BV"]);
  });
});

describe("a new company's first bank statement", () => {
  test("opens on the first day of its first fiscal year: its opening balance is posted on that day, not the day before (before the first year, where nothing posts)", async () => {
    const iban = "BE68539007547034";
    const b = await booksOf("Start BV", { fiscalYearStart: "07-01", firstFiscalYearStart: "2026-07-01", firstFiscalYearEnd: "2027-06-30", iban });
    const [bank] = (await b.ok("GET", "/api/v1/bank-accounts", undefined, 200)) as any[];
    const camt = `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>START-1</MsgId><CreDtTm>2026-07-01T18:00:00</CreDtTm></GrpHdr><Stmt><Id>START-1</Id><CreDtTm>2026-07-01T18:00:00</CreDtTm><Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>EUR</Ccy></Acct><Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">5000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-07-01</Dt></Dt></Bal><Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">5000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-07-01</Dt></Dt></Bal></Stmt></BkToCstmrStmt></Document>`;
    const r = await env.request("POST", `/api/v1/bank-accounts/${bank.id}/statements`, { rawBody: camt, headers: { "content-type": "application/xml" }, token: b.token });
    expect(r.status, r.text).toBe(201);
    const entries = (await b.ok("GET", "/api/v1/journal-entries?per_page=100", undefined, 200)) as any[];
    const opening = entries.filter((e) => e.source_type === "bank_statement");
    expect(opening.map((e) => [e.date, e.number])).toEqual([["2026-07-01", "JE-2027-00001"]]);
    // the current account (1110) holds what the bank says, from the first day
    expect(await b.balance("1110")).toBe("5000.00");
  });
});
