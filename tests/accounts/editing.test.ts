/**
 * Editing the chart over the API (docs/books.md#editing-the-chart): POST adds an account (a code of
 * its own, a parent of a compatible type), PUT renames, archives and restores one (archiving only
 * at a zero balance, never a role's last account, nor one a bank account or an expense category
 * uses), DELETE removes one never posted to; each change audited and an event; the abilities.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLog } from "../../db/schema.ts";
import { bankAccountService } from "../../server/bank-accounts/service.ts";
import { newId } from "../../server/lib/time.ts";
import { CLI_ACTOR, createOrganization } from "../../server/orgs/service.ts";
import { createTestEnv, TEST_IBAN } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

type Account = { id: string; code: string; name: string; type: string; parent_id: string | null; is_active: boolean; description: string; system_account: string | null; balance: string };

const { org, token } = await env.newOrg("Chart Editors");
const api = (method: string, path: string, body?: unknown, as = token) => env.api(method, path, body, as);
const chart = async (as = token) => (await api("GET", "/api/v1/accounts?per_page=100", undefined, as)).body.data as Account[];
const byCode = async (code: string, as = token) => (await chart(as)).find((a) => a.code === code)!;
const audits = async (id: string) =>
  (await env.db.select().from(auditLog).where(and(eq(auditLog.organizationId, org.id), eq(auditLog.resourceId, id))).orderBy(auditLog.createdAt, auditLog.id)).map((a) => [a.action, a.resourceType, a.actorType]);
const eventsOf = async (id: string) =>
  ((await api("GET", "/api/v1/events?per_page=100")).body.data as any[]).filter((e) => e.resource.id === id).map((e) => [e.type, e.data]);
const journal = (lines: { account_id: string; debit?: string; credit?: string }[], date = "2026-02-01") =>
  api("POST", "/api/v1/journal-entries", { date, description: "Test entry", lines });

describe("POST /api/v1/accounts", () => {
  test("adds an account: 201, Location, no role, zero balance; audited and an account.created event", async () => {
    const expenses = await byCode("6000");
    const r = await api("POST", "/api/v1/accounts", { code: "6450", name: "Training", type: "expense", parent_id: expenses.id });
    expect(r.status, r.text).toBe(201);
    expect(r.headers.get("location")).toBe(`/api/v1/accounts/${r.body.data.id}`);
    expect(r.body.data).toMatchObject({ code: "6450", name: "Training", type: "expense", parent_id: expenses.id, is_active: true, system_account: null, balance: "0.00", description: "" });
    expect((await api("GET", `/api/v1/accounts/${r.body.data.id}`)).body.data).toEqual(r.body.data);
    expect(await audits(r.body.data.id)).toEqual([["account.created", "account", "token"]]);
    expect(await eventsOf(r.body.data.id)).toEqual([["account.created", r.body.data]]);
    // and it can be posted to
    const bank = await byCode("1110");
    expect((await journal([{ account_id: r.body.data.id, debit: "10.00" }, { account_id: bank.id, credit: "10.00" }])).status).toBe(201);
    expect((await byCode("6450")).balance).toBe("10.00");
  });

  test("a top-level account needs no parent", async () => {
    const r = await api("POST", "/api/v1/accounts", { code: "5000", name: "Memorandum", type: "asset" });
    expect(r.status, r.text).toBe(201);
    expect(r.body.data.parent_id).toBeNull();
  });

  test("a code taken is a 422 naming code and its holder; nothing is written", async () => {
    const before = (await chart()).length;
    const r = await api("POST", "/api/v1/accounts", { code: "1200", name: "Customers again", type: "asset" });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(["code"]);
    expect(r.body.errors.code[0]).toContain("1200 Accounts receivable");
    expect((await chart()).length).toBe(before);
  });

  test("a parent that does not fit is a 422 naming parent_id: unknown, another organisation's, another type", async () => {
    const other = await env.newOrg("Other Chart");
    const theirs = await byCode("6000", other.token);
    const sales = await byCode("4100");
    const assets = await byCode("1000");
    for (const [parent_id, type, message] of [
      [newId(), "expense", /invalid/],
      [theirs.id, "expense", /invalid/],
      // an expense account under a revenue account
      [sales.id, "expense", /revenue account/],
      // a revenue account under the top-level Assets: another statement
      [assets.id, "revenue", /income statement/],
    ] as const) {
      const r = await api("POST", "/api/v1/accounts", { code: "6999", name: "Misplaced", type, parent_id });
      expect(r.status, `${type} under ${parent_id}`).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual(["parent_id"]);
      expect(r.body.errors.parent_id[0]).toMatch(message);
    }
    // a liability under a top-level account of the balance sheet is fine (a PCMN class holds both)
    const r = await api("POST", "/api/v1/accounts", { code: "1950", name: "Deposits received", type: "liability", parent_id: assets.id });
    expect(r.status, r.text).toBe(201);
  });

  test("the request schema: a missing type, a bad code, a read-only field are 422 naming them", async () => {
    for (const [body, field] of [
      [{ code: "7001", name: "No type" }, "type"],
      [{ code: "70 01", name: "Spaced", type: "revenue" }, "code"],
      [{ code: "", name: "Empty", type: "revenue" }, "code"],
      [{ code: "7002", name: "", type: "revenue" }, "name"],
      [{ code: "7003", name: "Typed", type: "income" }, "type"],
      [{ code: "7004", name: "Role", type: "revenue", system_account: "sales" }, "system_account"],
    ] as const) {
      const r = await api("POST", "/api/v1/accounts", body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(r.body.errors), JSON.stringify(body)).toContain(field);
    }
  });
});

describe("PUT /api/v1/accounts/{id}", () => {
  test("renames: 200, audited account.updated, an account.updated event", async () => {
    const travel = await byCode("6500");
    const r = await api("PUT", `/api/v1/accounts/${travel.id}`, { name: "Travel and lodging" });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toMatchObject({ code: "6500", name: "Travel and lodging", is_active: true });
    expect(await audits(travel.id)).toEqual([["account.updated", "account", "token"]]);
    expect(await eventsOf(travel.id)).toEqual([["account.updated", r.body.data]]);
    // a system account may be renamed: its role stays
    const receivables = await byCode("1200");
    const renamed = await api("PUT", `/api/v1/accounts/${receivables.id}`, { name: "Trade debtors" });
    expect(renamed.body.data).toMatchObject({ name: "Trade debtors", system_account: "receivables" });
  });

  test("archiving wants a zero balance: 409 naming it; at zero it is archived, not posted to, and restored", async () => {
    const r0 = await api("POST", "/api/v1/accounts", { code: "2400", name: "Director's loan", type: "liability", parent_id: (await byCode("2000")).id });
    const loan = r0.body.data as Account;
    const bank = await byCode("1110");
    expect((await journal([{ account_id: bank.id, debit: "500.00" }, { account_id: loan.id, credit: "500.00" }])).status).toBe(201);
    const refused = await api("PUT", `/api/v1/accounts/${loan.id}`, { is_active: false });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain("500.00 EUR");
    expect((await api("GET", `/api/v1/accounts/${loan.id}`)).body.data.is_active).toBe(true);

    expect((await journal([{ account_id: loan.id, debit: "500.00" }, { account_id: bank.id, credit: "500.00" }], "2026-02-02")).status).toBe(201);
    const archived = await api("PUT", `/api/v1/accounts/${loan.id}`, { is_active: false });
    expect(archived.status, archived.text).toBe(200);
    expect(archived.body.data).toMatchObject({ is_active: false, balance: "0.00" });
    const posted = await journal([{ account_id: loan.id, credit: "1.00" }, { account_id: bank.id, debit: "1.00" }]);
    expect(posted.status).toBe(422);
    expect(Object.keys(posted.body.errors)).toEqual(["lines.0.account_id"]);
    expect((await api("GET", "/api/v1/accounts?filter[is_active]=false")).body.data.map((a: Account) => a.code)).toEqual(["2400"]);

    const restored = await api("PUT", `/api/v1/accounts/${loan.id}`, { is_active: true });
    expect(restored.body.data.is_active).toBe(true);
    expect((await audits(loan.id)).map((a) => a[0])).toEqual(["account.created", "account.archived", "account.restored"]);
    expect((await eventsOf(loan.id)).map((e) => [e[0], (e[1] as Account).is_active])).toEqual([
      ["account.created", true],
      ["account.updated", false],
      ["account.updated", true],
    ]);
  });

  test("a system role's account is never archived: 409 naming the role", async () => {
    for (const [code, role] of [
      ["1200", "receivables"],
      ["2200", "vat_payable"],
      ["6800", "purchases"],
      ["1900", "suspense"],
      ["4950", "late_payment_income"],
    ]) {
      const account = await byCode(code!);
      const r = await api("PUT", `/api/v1/accounts/${account.id}`, { is_active: false });
      expect(r.status, code).toBe(409);
      expect(r.body.message, code).toContain(`system_account "${role}"`);
      expect((await byCode(code!)).is_active).toBe(true);
    }
  });

  test("a bank account's ledger account, or an expense category's account, is not archived: 409 naming it", async () => {
    // a second bank account: 1111, in the bank role too, so 1110 is not the role's last account
    const savings = await bankAccountService.add({ db: env.db, org, actor: CLI_ACTOR }, { name: "Savings", iban: "NL91ABNA0417164300" });
    const bank = await byCode("1110");
    const r = await api("PUT", `/api/v1/accounts/${bank.id}`, { is_active: false });
    expect(r.status).toBe(409);
    expect(r.body.message).toContain(TEST_IBAN);
    const second = await byCode("1111");
    expect(second.system_account).toBe("bank");
    expect((await api("PUT", `/api/v1/accounts/${second.id}`, { is_active: false })).body.message).toContain("NL91ABNA0417164300");
    // once its bank account is deactivated, its ledger account (at zero) may be archived; deleting it stays refused (the bank account still names it)
    await bankAccountService.deactivate({ db: env.db, org, actor: CLI_ACTOR }, await bankAccountService.find({ db: env.db, org, actor: CLI_ACTOR }, savings.id));
    expect((await api("PUT", `/api/v1/accounts/${second.id}`, { is_active: false })).status).toBe(200);
    const d = await api("DELETE", `/api/v1/accounts/${second.id}`);
    expect(d.status).toBe(409);
    expect(d.body.message).toContain("NL91ABNA0417164300");
    const rent = await byCode("6200");
    const mapped = await api("PUT", `/api/v1/accounts/${rent.id}`, { is_active: false });
    expect(mapped.status).toBe(409);
    expect(mapped.body.message).toContain('"rent"');
  });

  test("code, type and parent are fixed: naming them is a 422; an empty name too", async () => {
    const office = await byCode("6400");
    for (const [body, field] of [
      [{ code: "6401" }, "code"],
      [{ type: "asset" }, "type"],
      [{ parent_id: null }, "parent_id"],
      [{ name: "" }, "name"],
    ] as const) {
      const r = await api("PUT", `/api/v1/accounts/${office.id}`, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(r.body.errors), JSON.stringify(body)).toEqual([field]);
    }
  });
});

describe("DELETE /api/v1/accounts/{id}", () => {
  test("an account never posted to: 204, gone; audited, and account.deleted carries its last state", async () => {
    const created = (await api("POST", "/api/v1/accounts", { code: "4960", name: "Grants", type: "revenue", parent_id: (await byCode("4000")).id })).body.data;
    const r = await api("DELETE", `/api/v1/accounts/${created.id}`);
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await api("GET", `/api/v1/accounts/${created.id}`)).status).toBe(404);
    expect((await audits(created.id)).map((a) => a[0])).toEqual(["account.created", "account.deleted"]);
    expect(await eventsOf(created.id)).toEqual([
      ["account.created", created],
      ["account.deleted", created],
    ]);
    // its code is free again
    expect((await api("POST", "/api/v1/accounts", { code: "4960", name: "Subsidies", type: "revenue" })).status).toBe(201);
  });

  test("an account with postings is a 409 (archive it instead), even at a zero balance", async () => {
    const training = await byCode("6450");
    const bank = await byCode("1110");
    expect((await journal([{ account_id: bank.id, debit: "10.00" }, { account_id: training.id, credit: "10.00" }], "2026-02-03")).status).toBe(201);
    expect((await byCode("6450")).balance).toBe("0.00");
    const r = await api("DELETE", `/api/v1/accounts/${training.id}`);
    expect(r.status).toBe(409);
    expect(r.body.message).toContain("postings");
    expect((await api("PUT", `/api/v1/accounts/${training.id}`, { is_active: false })).status).toBe(200);
    expect((await api("DELETE", `/api/v1/accounts/${training.id}`)).status).toBe(409);
  });

  test("a role's account, a bank account's, a category's, or a parent: 409 naming what needs it", async () => {
    for (const [code, expected] of [
      ["2100", 'system_account "payables"'],
      ["3200", 'system_account "retained_earnings"'],
      // 1111 was archived above: 1110 is the bank role's last active account again
      ["1110", 'system_account "bank"'],
      ["6900", '"bank charges"'],
      ["1100", "sub-accounts (1110"],
    ]) {
      const account = await byCode(code!);
      const r = await api("DELETE", `/api/v1/accounts/${account.id}`);
      expect(r.status, code).toBe(409);
      expect(r.body.message, code).toContain(expected);
    }
  });

  test("a category mapped elsewhere frees its account: then it can go", async () => {
    const cash = await byCode("1300");
    expect((await api("DELETE", `/api/v1/accounts/${cash.id}`)).status).toBe(204);
    const charges = await byCode("6900");
    const general = await byCode("6800");
    for (const category of ["bank charges", "bank fees"]) {
      expect((await api("PUT", `/api/v1/expense-categories/${encodeURIComponent(category)}`, { account_id: general.id })).status).toBe(200);
    }
    expect((await api("DELETE", `/api/v1/accounts/${charges.id}`)).status).toBe(204);
  });
});

describe("the bank role keeps an account", () => {
  test("the role's last active account is never archived nor deleted, even with no bank account linked to it", async () => {
    const other = await createOrganization(env.db, { name: "Bank Role Co", iban: null });
    const otherToken = await env.orgToken(["*"], other);
    const bankRole = await byCode("1110", otherToken);
    const r = await api("PUT", `/api/v1/accounts/${bankRole.id}`, { is_active: false }, otherToken);
    expect(r.status).toBe(409);
    expect(r.body.message).toContain('system_account "bank"');
    const d = await api("DELETE", `/api/v1/accounts/${bankRole.id}`, undefined, otherToken);
    expect(d.status).toBe(409);
    expect(d.body.message).toContain('system_account "bank"');
  });
});

describe("abilities and isolation", () => {
  test("POST needs accounting.create, PUT accounting.edit, DELETE accounting.delete: 403 naming each", async () => {
    const office = await byCode("6400");
    for (const [method, path, body, ability] of [
      ["POST", "/api/v1/accounts", { code: "6401", name: "Books", type: "expense" }, "accounting.create"],
      ["PUT", `/api/v1/accounts/${office.id}`, { name: "Office" }, "accounting.edit"],
      ["DELETE", `/api/v1/accounts/${office.id}`, undefined, "accounting.delete"],
    ] as const) {
      const lacking = await env.orgToken(["accounting.view", ...["accounting.create", "accounting.edit", "accounting.delete"].filter((a) => a !== ability)], org);
      const r = await api(method, path, body, lacking);
      expect(r.status, method).toBe(403);
      expect(r.body.message, method).toContain(ability);
    }
    // a member may view the chart, not change it; an accountant may
    const member = (await env.userToken("member", undefined, org)).token;
    expect((await api("POST", "/api/v1/accounts", { code: "6402", name: "Member's", type: "expense" }, member)).status).toBe(403);
    const accountant = (await env.userToken("accountant", undefined, org)).token;
    expect((await api("POST", "/api/v1/accounts", { code: "6402", name: "Accountant's", type: "expense" }, accountant)).status).toBe(201);
  });

  test("another organisation's account: PUT and DELETE are 404, and nothing changes", async () => {
    const office = await byCode("6400");
    const intruder = (await env.newOrg("Chart Intruder")).token;
    expect((await api("PUT", `/api/v1/accounts/${office.id}`, { name: "Mine" }, intruder)).status).toBe(404);
    expect((await api("DELETE", `/api/v1/accounts/${office.id}`, undefined, intruder)).status).toBe(404);
    expect(await byCode("6400")).toEqual(office);
  });
});
