/**
 * Numbering (contract section 3; server/invoices/numbering.ts): a draft carries a provisional
 * DRAFT-… number; the definitive number is drawn at finalize from a series per organisation, type
 * and year of the issue date, without gaps (a deleted, abandoned or refused draft takes no
 * number), consecutive under parallel finalizes (in one process and across processes), and in the
 * order of the issue dates. A client's number is kept as given, unless it looks like a series' or
 * a provisional one. And the upgrade: drafts of an earlier Kontor lose their series numbers,
 * issued documents keep theirs (migration 0022).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addDays, today } from "../../server/lib/time.ts";
import { createTestEnv, type ApiResponse } from "../helpers.ts";
import { rawSql, sqliteOnly } from "../raw-sql.ts";
import { databaseBefore, upgradedApp } from "../upgrade-copy.ts";
const TESTS_ROOT = join(import.meta.dir, "..");

const env = await createTestEnv();
const sql = rawSql(env.db);
const dir = mkdtempSync(join(tmpdir(), "kontor-numbering-"));
afterAll(() => {
  env.close();
  rmSync(dir, { recursive: true, force: true });
});

const PROVISIONAL = /^DRAFT-[0-9a-f]{8}$/;
const THIS_YEAR = today().slice(0, 4);

/** An organisation of its own (its own series) with a customer. */
type Company = { token: string; orgId: string; customerId: string };
async function company(name: string): Promise<Company> {
  const { org, token } = await env.newOrg(name);
  const c = await env.api("POST", "/api/v1/customers", { name: `${name} Customer` }, token);
  expect(c.status, c.text).toBe(201);
  return { token, orgId: org.id, customerId: c.body.data.id };
}

async function draft(co: Company, issueDate: string, over: Record<string, unknown> = {}) {
  const r = await env.api(
    "POST",
    "/api/v1/invoices",
    { customer_id: co.customerId, issue_date: issueDate, lines: [{ description: "Work", quantity: "1", unit_price: "100.00" }], ...over },
    co.token,
  );
  expect(r.status, r.text).toBe(201);
  return r.body.data;
}

const finalize = (co: Company, id: string) => env.api("POST", `/api/v1/invoices/${id}/finalize`, undefined, co.token);
async function finalized(co: Company, id: string) {
  const r = await finalize(co, id);
  expect(r.status, r.text).toBe(200);
  return r.body.data;
}
const show = async (co: Company, id: string) => (await env.api("GET", `/api/v1/invoices/${id}`, undefined, co.token)).body.data;
const counter = async (orgId: string, kind: string, year: number) =>
  (await sql.get<{ v: number }>("SELECT last_value AS v FROM number_sequences WHERE organization_id = ? AND kind = ? AND year = ?", orgId, kind, year))?.v ?? null;

function expectRefused(r: ApiResponse, field: string, ...says: string[]) {
  expect(r.status, r.text).toBe(422);
  expect(Object.keys(r.body.errors)).toEqual([field]);
  for (const s of says) expect(r.body.errors[field][0]).toContain(s);
}

/** The issued documents of a series of the organisation, by number, with their issue dates. */
function series(orgId: string, prefix: string) {
  return sql.all<{ number: string; issue_date: string }>(
    "SELECT number, issue_date FROM invoices WHERE organization_id = ? AND number LIKE ? AND status <> 'draft' ORDER BY number",
    orgId,
    `${prefix}-%`,
  );
}
const serial = (prefix: string, from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${prefix}-${String(from + i).padStart(5, "0")}`);

describe("the series (contract section 3)", () => {
  test("a draft carries a provisional DRAFT- number; finalize draws the next of its series, per organisation, type and year of the issue date", async () => {
    const co = await company("Series Co");
    const first = await draft(co, "2025-03-01");
    const second = await draft(co, "2025-03-02");
    const older = await draft(co, "2024-12-31");
    for (const d of [first, second, older]) expect(d.number).toMatch(PROVISIONAL);
    expect(first.number).toBe(`DRAFT-${first.id.replaceAll("-", "").slice(-8)}`); // a suffix of its id
    expect(new Set([first.number, second.number, older.number]).size).toBe(3);
    expect(await counter(co.orgId, "invoice", 2025)).toBeNull(); // nothing drawn for a draft

    const a = await finalized(co, first.id);
    expect(a).toMatchObject({ number: "INV-2025-00001", status: "finalized" });
    expect((await finalized(co, older.id)).number).toBe("INV-2024-00001");
    // the year is the issue date's at finalize: a draft moved to another year joins that year's series
    expect((await env.api("PUT", `/api/v1/invoices/${second.id}`, { issue_date: "2025-04-01" }, co.token)).status).toBe(200);
    expect((await finalized(co, second.id)).number).toBe("INV-2025-00002");
    // credit notes have their own series; the number shows in the ledger and the event as issued
    const note = (await env.api("POST", `/api/v1/invoices/${first.id}/credit-note`, undefined, co.token)).body.data;
    expect(note.number).toMatch(PROVISIONAL);
    expect((await finalized(co, note.id)).number).toBe(`CN-${THIS_YEAR}-00001`);
    const posted = await sql.all<{ description: string }>("SELECT description FROM journal_entries WHERE source_id = ? ORDER BY created_at", first.id);
    expect(posted[0]!.description).toBe("Invoice INV-2025-00001");
    // another organisation has its own series
    const twin = await company("Series Twin");
    expect((await finalized(twin, (await draft(twin, "2025-03-01")).id)).number).toBe("INV-2025-00001");
    // the list searches drafts by their provisional number and issued documents by theirs
    const found = await env.api("GET", `/api/v1/invoices?search=${encodeURIComponent("INV-2025-00002")}`, undefined, co.token);
    expect(found.body.data.map((x: any) => x.id)).toEqual([second.id]);
  });

  test("no gap: a deleted draft, a draft left as it is and a refused finalize take no number, even one refused after the number was drawn", async () => {
    const co = await company("No Gap Co");
    const left = await draft(co, "2024-05-01"); // never finalized
    const deleted = await draft(co, "2024-05-01");
    const x = await draft(co, "2024-05-02");
    const z = await draft(co, "2024-05-03");
    expect((await env.api("DELETE", `/api/v1/invoices/${deleted.id}`, undefined, co.token)).status).toBe(204);
    expect((await finalized(co, x.id)).number).toBe("INV-2024-00001");
    // refused after the draw: the year is closed, the posting fails, the transaction rolls back with its number
    expect((await env.api("POST", "/api/v1/fiscal-years/2024/close", undefined, co.token)).status).toBe(200);
    const refused = await finalize(co, z.id);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.message).toContain("2024 is closed");
    expect(await counter(co.orgId, "invoice", 2024)).toBe(1);
    expect(await show(co, z.id)).toMatchObject({ status: "draft", number: z.number, payment_reference: null });
    expect((await env.api("POST", "/api/v1/fiscal-years/2024/reopen", undefined, co.token)).status).toBe(200);
    expect((await finalized(co, z.id)).number).toBe("INV-2024-00002");
    expect((await show(co, left.id)).number).toBe(left.number);
    expect((await series(co.orgId, "INV-2024")).map((r) => r.number)).toEqual(serial("INV-2024", 1, 2));
  });

  test("chronological: an issue date before that of the last number of its series is a 422 on issue_date naming that number", async () => {
    const co = await company("Chronology Co");
    const a = await draft(co, "2025-03-10");
    const early = await draft(co, "2025-03-09");
    const sameDay = await draft(co, "2025-03-10");
    expect((await finalized(co, a.id)).number).toBe("INV-2025-00001");
    expectRefused(await finalize(co, early.id), "issue_date", "INV-2025-00001", "2025-03-10");
    expect(await show(co, early.id)).toMatchObject({ status: "draft", number: early.number });
    expect((await finalized(co, sameDay.id)).number).toBe("INV-2025-00002"); // the same day is in order
    expect((await env.api("PUT", `/api/v1/invoices/${early.id}`, { issue_date: "2025-03-11" }, co.token)).status).toBe(200);
    expect((await finalized(co, early.id)).number).toBe("INV-2025-00003");
    // the last number of the series is named, not the first
    expectRefused(await finalize(co, (await draft(co, "2025-03-10")).id), "issue_date", "INV-2025-00003", "2025-03-11");
    // other series are not held by it: another year, another type, a client's own numbers
    expect((await finalized(co, (await draft(co, "2024-01-01")).id)).number).toBe("INV-2024-00001");
    const note = (await env.api("POST", `/api/v1/invoices/${a.id}/credit-note`, undefined, co.token)).body.data;
    expect((await env.api("PUT", `/api/v1/invoices/${note.id}`, { issue_date: "2025-03-10" }, co.token)).status).toBe(200);
    expect((await finalized(co, note.id)).number).toBe("CN-2025-00001");
    expect((await finalized(co, (await draft(co, "2025-01-01", { number: "OWN-1" })).id)).number).toBe("OWN-1");
    expect(await series(co.orgId, "INV-2025")).toEqual([
      { number: "INV-2025-00001", issue_date: "2025-03-10" },
      { number: "INV-2025-00002", issue_date: "2025-03-10" },
      { number: "INV-2025-00003", issue_date: "2025-03-11" },
    ]);
  });

  test("an issue date later than today is refused at finalize (a draft may carry one), and takes no number", async () => {
    const co = await company("Future Co");
    const future = await draft(co, addDays(today(), 2));
    expectRefused(await finalize(co, future.id), "issue_date", "must not be in the future");
    expect((await show(co, future.id)).status).toBe("draft");
    // so is a client-numbered one
    expectRefused(await finalize(co, (await draft(co, addDays(today(), 40), { number: "LATER-1" })).id), "issue_date", "future");
    expect((await finalized(co, (await draft(co, today())).id)).number).toBe(`INV-${THIS_YEAR}-00001`);
  });
});

describe("a client's number", () => {
  test("is kept as given, at finalize too; one in the form of a series or of a provisional number is a 422 on number", async () => {
    const co = await company("Own Numbers Co");
    const own = await draft(co, "2025-02-01", { number: "  2025/17 " });
    expect(own.number).toBe("2025/17"); // trimmed
    expect((await finalized(co, own.id)).number).toBe("2025/17");
    expect(await counter(co.orgId, "invoice", 2025)).toBeNull(); // its series is the client's
    const body = (number: string) => ({ customer_id: co.customerId, issue_date: "2025-02-01", number, lines: [{ description: "x", quantity: 1, unit_price: 1 }] });
    for (const number of ["INV-2025-00001", "CN-2026-00003", "INT-2026-00001", "inv-2025-00007", "INV-2025-123456", "DRAFT-1a2b3c4d", "draft-own"]) {
      expectRefused(await env.api("POST", "/api/v1/invoices", body(number), co.token), "number", "must not");
    }
    const d = await draft(co, "2025-02-02");
    expectRefused(await env.api("PUT", `/api/v1/invoices/${d.id}`, { number: "INV-2025-00002" }, co.token), "number", "automatic series");
    // its own provisional number sent back is no change; a number of its own replaces it, and stays
    expect((await env.api("PUT", `/api/v1/invoices/${d.id}`, { number: d.number, notes: "n" }, co.token)).body.data.number).toBe(d.number);
    expect((await env.api("PUT", `/api/v1/invoices/${d.id}`, { number: "2025/18" }, co.token)).body.data.number).toBe("2025/18");
    expect((await finalized(co, d.id)).number).toBe("2025/18");
    // near misses of the series' form are a client's own numbers
    for (const number of ["INV-2025-0001", "INV-25-00001", "INVOICE-2025-00001", "XINV-2025-00001", "DRAFTS-1"]) {
      expect((await env.api("POST", "/api/v1/invoices", body(number), co.token)).status, number).toBe(201);
    }
  });

  test("a duplicate is a 422 naming the document that holds it; the same number in another organisation is fine", async () => {
    const co = await company("Duplicates Co");
    const holder = await draft(co, "2025-02-01", { number: "DUP-1" });
    const dup = await env.api("POST", "/api/v1/invoices", { customer_id: co.customerId, issue_date: "2025-02-01", number: " DUP-1", lines: [{ description: "x", quantity: 1, unit_price: 1 }] }, co.token);
    expectRefused(dup, "number", "already been taken", `invoice ${holder.id}`);
    expect(dup.body.message).toContain(holder.id);
    const other = await draft(co, "2025-02-01");
    expectRefused(await env.api("PUT", `/api/v1/invoices/${other.id}`, { number: "DUP-1" }, co.token), "number", `invoice ${holder.id}`);
    // an issued series number, and a credit note's
    const issued = await finalized(co, other.id);
    const inv = await draft(co, "2025-02-01", { number: "DUP-2" });
    expectRefused(await env.api("PUT", `/api/v1/invoices/${inv.id}`, { number: issued.number }, co.token), "number", "automatic series");
    const note = (await env.api("POST", `/api/v1/invoices/${issued.id}/credit-note`, { }, co.token)).body.data;
    expect((await env.api("PUT", `/api/v1/invoices/${note.id}`, { number: "NOTE-1" }, co.token)).status).toBe(200);
    expectRefused(await env.api("PUT", `/api/v1/invoices/${inv.id}`, { number: "NOTE-1" }, co.token), "number", `credit note ${note.id}`);
    const twin = await company("Duplicates Twin");
    expect((await draft(twin, "2025-02-01", { number: "DUP-1" })).number).toBe("DUP-1");
  });
});

describe("under load", () => {
  test("60 finalizes and 20 draft deletes at once through the API: the series is 1..60, then a second wave of mixed dates continues it without gap, in date order", async () => {
    const co = await company("Parallel Co");
    const toFinalize = await Promise.all(Array.from({ length: 60 }, () => draft(co, "2025-06-01")));
    const toDelete = await Promise.all(Array.from({ length: 20 }, () => draft(co, "2025-06-01")));
    const requests = [
      ...toFinalize.map((d) => () => finalize(co, d.id).then((r) => ["finalize", r] as const)),
      ...toDelete.map((d) => () => env.api("DELETE", `/api/v1/invoices/${d.id}`, undefined, co.token).then((r) => ["delete", r] as const)),
    ].sort(() => Math.random() - 0.5);
    const answers = await Promise.all(requests.map((run) => run()));
    for (const [what, r] of answers) expect(r.status, r.text).toBe(what === "finalize" ? 200 : 204);
    const numbers = answers.filter(([what]) => what === "finalize").map(([, r]) => r.body.data.number as string);
    expect(numbers.sort()).toEqual(serial("INV-2025", 1, 60));

    // a second wave around the last issue date: each finalize is either the next number or refused, naming the one it would precede
    const dates = Array.from({ length: 40 }, (_, i) => addDays("2025-05-25", (i * 7) % 20)); // 2025-05-25 … 2025-06-13
    const wave = await Promise.all(dates.map((date) => draft(co, date)));
    const deletes = await Promise.all(Array.from({ length: 10 }, () => draft(co, "2025-06-05")));
    const results = await Promise.all([
      ...wave.map(async (d) => ({ draft: d, r: await finalize(co, d.id) })),
      ...deletes.map(async (d) => ({ draft: d, r: await env.api("DELETE", `/api/v1/invoices/${d.id}`, undefined, co.token) })),
    ]);
    const issued = results.filter(({ r }) => r.status === 200);
    const refused = results.filter(({ r }) => r.status === 422);
    expect(results.filter(({ r }) => r.status === 204)).toHaveLength(10);
    expect(issued.length + refused.length).toBe(40);
    expect(issued.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0); // everything dated before 2025-06-01
    for (const { draft: d, r } of refused) {
      expect(Object.keys(r.body.errors)).toEqual(["issue_date"]);
      const [, lastDate, lastNumber] = /(\d{4}-\d{2}-\d{2}), the issue date of (INV-2025-\d{5})/.exec(r.body.errors.issue_date[0])!;
      expect(d.issue_date < lastDate!, `${d.issue_date} refused after ${lastNumber} of ${lastDate}`).toBe(true);
      expect((await show(co, d.id)).number).toBe(d.number);
    }
    const all = await series(co.orgId, "INV-2025");
    expect(all.map((x) => x.number)).toEqual(serial("INV-2025", 1, 60 + issued.length));
    for (let i = 1; i < all.length; i++) expect(all[i]!.issue_date >= all[i - 1]!.issue_date, all[i]!.number).toBe(true);
    expect(await counter(co.orgId, "invoice", 2025)).toBe(60 + issued.length);
  }, 60_000);

  test("four processes finalizing and deleting drafts at once on one database: the series is 1..120, interleaved, each process's numbers increasing", async () => {
    const co = await company("Multi Process Co");
    const perProcess = 30;
    const drafts: string[][] = [];
    const doomed: string[][] = [];
    for (let p = 0; p < 4; p++) {
      drafts.push((await Promise.all(Array.from({ length: perProcess }, () => draft(co, "2025-09-01")))).map((d) => d.id));
      doomed.push((await Promise.all(Array.from({ length: 5 }, () => draft(co, "2025-09-01")))).map((d) => d.id));
    }
    const root = join(TESTS_ROOT, "..");
    // each process: its own connection, the commands the API uses, all starting at the same moment
    const script = `
      import { openDatabase } from ${JSON.stringify(join(root, "db/client.ts"))};
      import { openPostgres } from ${JSON.stringify(join(root, "db/postgres/connection.ts"))};
      import { finalizeInvoice } from ${JSON.stringify(join(root, "server/invoices/commands/finalize.ts"))};
      import { removeDraft } from ${JSON.stringify(join(root, "server/invoices/commands/remove.ts"))};
      const db = process.env.T_URL ? openPostgres(process.env.T_URL) : openDatabase(process.env.T_DB);
      const org = JSON.parse(process.env.T_ORG);
      const scope = { db, org, actor: { type: "cli", id: null, ip: null, requestId: null } };
      const ids = JSON.parse(process.env.T_IDS), doomed = JSON.parse(process.env.T_DOOMED);
      while (Date.now() < Number(process.env.T_START)) await Bun.sleep(1);
      const numbers = [];
      for (let i = 0; i < ids.length; i++) {
        numbers.push((await finalizeInvoice(scope, ids[i])).number);
        if (i % 6 === 0 && doomed.length) await removeDraft(scope, doomed.pop());
        await Bun.sleep(Math.random() * 4); // let the others in between
      }
      console.log(JSON.stringify(numbers));
      await db.connection.close();
    `;
    const org = (await sql.get<Record<string, unknown>>('SELECT id, name, currency, country, api_access AS "apiAccess" FROM organizations WHERE id = ?', co.orgId))!;
    const start = Date.now() + 1500;
    const procs = drafts.map((ids, p) =>
      Bun.spawn(["bun", "-e", script], {
        env: { ...process.env, T_DB: env.config.dbPath, T_URL: env.config.databaseUrl ?? "", T_ORG: JSON.stringify({ ...org, apiAccess: true }), T_IDS: JSON.stringify(ids), T_DOOMED: JSON.stringify(doomed[p]), T_START: String(start) },
        stdout: "pipe",
        stderr: "pipe",
      }),
    );
    const outputs = await Promise.all(
      procs.map(async (p) => {
        const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
        expect(code, err).toBe(0);
        return JSON.parse(out) as string[];
      }),
    );
    expect(outputs.flat().sort()).toEqual(serial("INV-2025", 1, 4 * perProcess));
    for (const numbers of outputs) expect([...numbers].sort()).toEqual(numbers);
    const contiguous = outputs.filter((numbers) => Number(numbers.at(-1)!.slice(-5)) - Number(numbers[0]!.slice(-5)) === perProcess - 1);
    expect(contiguous.length).toBeLessThan(4); // the processes did interleave
    expect((await series(co.orgId, "INV-2025")).map((x) => x.number)).toEqual(serial("INV-2025", 1, 4 * perProcess));
    expect((await sql.get<{ n: number }>("SELECT count(*) AS n FROM invoices WHERE organization_id = ? AND status = 'draft'", co.orgId))!.n).toBe(0);
  }, 60_000);
});

// an upgrade of an earlier Kontor's SQLite file
sqliteOnly.test("upgrade (migration 0022): drafts lose their series numbers, issued documents keep theirs, and each series continues after its highest issued number", async () => {
  // documents made through the API, then numbered in SQL as the earlier Kontor numbered them at create
  const co = await company("Upgrade Co");
  const other = await company("Upgrade Other");
  const doc = async (c: Company, date: string, finalize = false, over: Record<string, unknown> = {}) => {
    const d = await draft(c, date, over);
    return finalize ? finalized(c, d.id) : d;
  };
  const i1 = await doc(co, "2026-01-10", true);
  const i2 = await doc(co, "2026-02-01", true);
  const i4 = await doc(co, "2026-03-01", true);
  const cn1 = (await env.api("POST", `/api/v1/invoices/${i1.id}/credit-note`, undefined, co.token)).body.data;
  await env.api("PUT", `/api/v1/invoices/${cn1.id}`, { issue_date: "2026-03-01" }, co.token);
  await finalized(co, cn1.id);
  const cn2 = (await env.api("POST", `/api/v1/invoices/${i2.id}/credit-note`, undefined, co.token)).body.data;
  const d3 = await doc(co, "2026-02-15"); // held INV-2026-00003 while 00004 was issued
  const d5 = await doc(co, "2026-03-05"); // held 00005, the last drawn
  const d25 = await doc(co, "2025-11-01"); // INV-2025-00001, the only one of its year
  const own = await doc(co, "2026-03-06", false, { number: "PO-77" });
  const twinA = await doc(co, "2026-03-06"); // two drafts whose ids end alike: neither gets the 8 digits
  const twinB = await doc(co, "2026-03-06");
  const holder = await doc(co, "2026-03-06"); // a draft a client numbered DRAFT-… (allowed then) with a suffix another draft needs
  const needy = await doc(co, "2026-03-06");
  const o1 = await doc(other, "2026-01-05", true);
  const o2 = await doc(other, "2026-01-06");

  // the database of the previous migration, holding these documents
  const oldPath = join(dir, "old", "kontor.db");
  const { sqlite, pending } = databaseBefore(env, "0022_provisional_draft_numbers", oldPath);
  const setNumber = (id: string, number: string) => sqlite.run("UPDATE invoices SET number = ? WHERE id = ?", [number, id]);
  // the earlier Kontor: numbers drawn at create, in the order of creation
  setNumber(i4.id, "INV-2026-00004");
  setNumber(cn2.id, "CN-2026-00002");
  setNumber(d3.id, "INV-2026-00003");
  setNumber(d5.id, "INV-2026-00005");
  setNumber(d25.id, "INV-2025-00001");
  setNumber(o2.id, "INV-2026-00002");
  const suffix = (id: string, n: number) => id.replaceAll("-", "").slice(-n);
  // twin B's id made to end as twin A's: the same 8 last digits, not the same 12
  const twinId = twinB.id.slice(0, -8) + twinA.id.slice(-8);
  expect(suffix(twinId, 12)).not.toBe(suffix(twinA.id, 12));
  sqlite.run("UPDATE invoice_lines SET invoice_id = ? WHERE invoice_id = ?", [twinId, twinB.id]);
  sqlite.run("UPDATE invoices SET id = ?, number = 'INV-2026-00006' WHERE id = ?", [twinId, twinB.id]);
  setNumber(twinA.id, "INV-2026-00008");
  setNumber(needy.id, "INV-2026-00007");
  setNumber(holder.id, `DRAFT-${suffix(needy.id, 8)}`);
  const seq = (orgId: string, kind: string, year: number, value: number) =>
    sqlite.run("INSERT OR REPLACE INTO number_sequences (organization_id, kind, year, last_value) VALUES (?, ?, ?, ?)", [orgId, kind, year, value]);
  seq(co.orgId, "invoice", 2026, 10); // 00009 and 00010 went to drafts deleted since
  seq(co.orgId, "credit_note", 2026, 2);
  seq(co.orgId, "invoice", 2025, 1);
  seq(other.orgId, "invoice", 2026, 2);
  sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite.close();

  const { db: upgraded, app } = await upgradedApp(env, oldPath, pending, co.token);
  const call = async (c: Company, method: string, path: string, body?: unknown) => {
    const r = await app.handle(
      new Request(`http://localhost${path}`, { method, headers: { authorization: `Bearer ${c.token}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }),
    );
    return { status: r.status, body: (await r.json()) as any };
  };
  const numberOf = async (c: Company, id: string) => (await call(c, "GET", `/api/v1/invoices/${id}`)).body.data.number;

  // issued documents keep their numbers; drafts become provisional; a client's own number stays
  expect(await numberOf(co, i1.id)).toBe("INV-2026-00001");
  expect(await numberOf(co, i2.id)).toBe("INV-2026-00002");
  expect(await numberOf(co, i4.id)).toBe("INV-2026-00004");
  expect(await numberOf(co, cn1.id)).toBe("CN-2026-00001");
  expect(await numberOf(other, o1.id)).toBe("INV-2026-00001");
  for (const [c, id] of [[co, d3.id], [co, d5.id], [co, d25.id], [co, cn2.id], [other, o2.id]] as const) {
    expect(await numberOf(c, id)).toBe(`DRAFT-${suffix(id, 8)}`);
  }
  expect(await numberOf(co, own.id)).toBe("PO-77");
  // where 8 digits are taken, or would be by two drafts, 12
  expect(await numberOf(co, twinId)).toBe(`DRAFT-${suffix(twinId, 12)}`);
  expect(await numberOf(co, twinA.id)).toBe(`DRAFT-${suffix(twinA.id, 12)}`);
  expect(await numberOf(co, needy.id)).toBe(`DRAFT-${suffix(needy.id, 12)}`);
  expect(await numberOf(co, holder.id)).toBe(`DRAFT-${suffix(needy.id, 8)}`); // a client's number, as it was
  // the search index follows
  const searched = await call(co, "GET", `/api/v1/invoices?search=${`DRAFT-${suffix(d3.id, 8)}`}`);
  expect(searched.body.data.map((x: any) => x.id)).toEqual([d3.id]);
  expect((await call(co, "GET", "/api/v1/invoices?search=INV-2026-00005")).body.data).toEqual([]);

  // each series continues after its highest issued number: 00003 stays a gap of the earlier Kontor's
  const up = upgraded.$client;
  const counters = (orgId: string) => up.query("SELECT kind, year, last_value AS v FROM number_sequences WHERE organization_id = ? AND kind IN ('invoice', 'credit_note') ORDER BY kind, year").all(orgId);
  expect(counters(co.orgId)).toEqual([
    { kind: "credit_note", year: 2026, v: 1 },
    { kind: "invoice", year: 2026, v: 4 },
  ]);
  expect(counters(other.orgId)).toEqual([{ kind: "invoice", year: 2026, v: 1 }]);
  expect((await call(co, "POST", `/api/v1/invoices/${d5.id}/finalize`)).body.data.number).toBe("INV-2026-00005");
  const late = await call(co, "POST", `/api/v1/invoices/${d3.id}/finalize`);
  expect(late.status).toBe(422);
  expect(late.body.errors.issue_date[0]).toContain("INV-2026-00005");
  expect((await call(co, "PUT", `/api/v1/invoices/${d3.id}`, { issue_date: "2026-03-05" })).status).toBe(200);
  expect((await call(co, "POST", `/api/v1/invoices/${d3.id}/finalize`)).body.data.number).toBe("INV-2026-00006");
  expect((await call(co, "POST", `/api/v1/invoices/${cn2.id}/finalize`)).body.data.number).toBe("CN-2026-00002");
  expect((await call(co, "POST", `/api/v1/invoices/${d25.id}/finalize`)).body.data.number).toBe("INV-2025-00001");
  expect((await call(other, "POST", `/api/v1/invoices/${o2.id}/finalize`)).body.data.number).toBe("INV-2026-00002");
  expect((await call(co, "POST", `/api/v1/invoices/${own.id}/finalize`)).body.data.number).toBe("PO-77");
  upgraded.$client.close();
}, 60_000);
