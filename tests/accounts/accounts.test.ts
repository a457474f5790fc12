/**
 * The chart of accounts and bank accounts (api-spec 2.7, 2.8, 4.7, 4.8; contract 3, 5, 6):
 * the seeded generic chart's integrity, lists and shows, abilities, tenant isolation (editing
 * the chart: editing.test.ts; the Belgian chart: be-chart.test.ts); `kontor bank-account add` as a real process (IBAN check, link, audit).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditLog, bankAccounts } from "../../db/schema.ts";
import { BANK_ACCOUNT_CODE, GENERIC_CHART } from "../../server/accounts/seed.ts";
import { ibanProblem, normalizeIban } from "../../server/lib/iban.ts";
import { newId } from "../../server/lib/time.ts";
import { createTestEnv, runCli } from "../helpers.ts";
import { slowListSteps } from "../query-plan.ts";

const env = await createTestEnv();
afterAll(() => env.close());

type Account = { id: string; code: string; name: string; type: string; parent_id: string | null; is_active: boolean; description: string };

const chartOf = async (token = env.token) => (await env.api("GET", "/api/v1/accounts?per_page=100", undefined, token)).body.data as Account[];
const bankAccountsOf = async (token = env.token) => (await env.api("GET", "/api/v1/bank-accounts?per_page=100", undefined, token)).body.data as any[];

describe("the seeded chart of accounts", () => {
  test("every parent exists in the same chart, codes are unique, children share their parent's type", async () => {
    const chart = await chartOf();
    expect(chart.length).toBe(GENERIC_CHART.length);
    const byId = new Map(chart.map((a) => [a.id, a]));
    expect(new Set(chart.map((a) => a.code)).size).toBe(chart.length);
    for (const account of chart) {
      expect(["asset", "liability", "equity", "revenue", "expense"]).toContain(account.type);
      expect(account.is_active).toBe(true);
      expect(account.description.length).toBeGreaterThan(0);
      if (account.parent_id === null) continue;
      const parent = byId.get(account.parent_id);
      expect(parent, `parent of ${account.code}`).toBeDefined();
      expect(parent!.type).toBe(account.type);
    }
  });

  test("the generic chart: assets incl. bank and receivables, liabilities incl. VAT payable, equity, revenue, expenses", async () => {
    const chart = await chartOf();
    const roots = chart.filter((a) => a.parent_id === null).map((a) => a.type);
    expect(roots.sort()).toEqual(["asset", "equity", "expense", "liability", "revenue"]);
    const named = (pattern: RegExp, type: string) => chart.filter((a) => pattern.test(a.name) && a.type === type);
    expect(named(/bank/i, "asset").length).toBeGreaterThan(0);
    expect(named(/receivable/i, "asset").length).toBeGreaterThan(0);
    expect(named(/VAT payable/i, "liability").length).toBe(1);
  });

  test("each bank account links to an asset account of its own organisation's chart", async () => {
    for (const token of [env.token, (await env.newOrg("Second Chart")).token]) {
      const chart = await chartOf(token);
      const banks = await bankAccountsOf(token);
      expect(banks.length).toBeGreaterThanOrEqual(1);
      for (const bank of banks) {
        const account = chart.find((a) => a.id === bank.account_id);
        expect(account, bank.name).toBeDefined();
        expect(account!.type).toBe("asset");
      }
      expect(banks.find((b) => b.name === "Current account")!.account_id).toBe(chart.find((a) => a.code === BANK_ACCOUNT_CODE)!.id);
    }
  });

  test("every organisation gets its own chart", async () => {
    const other = await env.newOrg("Own Chart");
    const mine = await chartOf();
    const theirs = await chartOf(other.token);
    expect(theirs.map((a) => a.code)).toEqual(mine.map((a) => a.code));
    expect(theirs.some((a) => mine.some((m) => m.id === a.id))).toBe(false);
  });
});

describe("accounts API (accounting.view)", () => {
  test("show: the fields of api-spec 2.7", async () => {
    const [first] = await chartOf();
    const r = await env.api("GET", `/api/v1/accounts/${first!.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(first);
    for (const field of ["id", "code", "name", "type", "parent_id", "is_active", "description"]) expect(r.body.data).toHaveProperty(field);
    expect((await env.api("GET", `/api/v1/accounts/${newId()}`)).status).toBe(404);
  });

  test("sorts: code (default), -code, name (case-insensitive); unknown sort 422", async () => {
    const codes = (await chartOf()).map((a) => a.code);
    expect(codes).toEqual([...codes].sort());
    const desc = (await env.api("GET", "/api/v1/accounts?per_page=100&sort=-code")).body.data.map((a: Account) => a.code);
    expect(desc).toEqual([...codes].sort().reverse());
    const byName = (await env.api("GET", "/api/v1/accounts?per_page=100&sort=name")).body.data.map((a: Account) => a.name);
    expect(byName).toEqual([...byName].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
    expect((await env.api("GET", "/api/v1/accounts?sort=type")).status).toBe(422);
  });

  test("filters: type, is_active, parent_id (an id, or null for the top level)", async () => {
    const chart = await chartOf();
    const get = async (q: string) => (await env.api("GET", `/api/v1/accounts?per_page=100&${q}`)).body.data as Account[];
    expect((await get("filter[type]=liability")).map((a) => a.code)).toEqual(chart.filter((a) => a.type === "liability").map((a) => a.code));
    expect((await get("filter[is_active]=true")).length).toBe(chart.length);
    expect(await get("filter[is_active]=false")).toEqual([]);
    const assets = chart.find((a) => a.code === "1000")!;
    expect((await get(`filter[parent_id]=${assets.id}`)).map((a) => a.code)).toEqual(chart.filter((a) => a.parent_id === assets.id).map((a) => a.code));
    expect((await get("filter[parent_id]=null")).map((a) => a.code)).toEqual(["1000", "2000", "3000", "4000", "6000"]);
    for (const [q, key] of [
      ["filter[type]=income", "filter.type"],
      ["filter[is_active]=yes", "filter.is_active"],
      ["filter[parent_id]=1000", "filter.parent_id"],
      ["filter[code]=1000", "filter.code"],
    ]) {
      const r = await env.api("GET", `/api/v1/accounts?${q}`);
      expect(r.status, q).toBe(422);
      expect(Object.keys(r.body.errors), q).toEqual([key]);
    }
  });

  test("search: code and name", async () => {
    const search = async (q: string) => (await env.api("GET", `/api/v1/accounts?search=${q}`)).body.data.map((a: Account) => a.code);
    expect(await search("2200")).toEqual(["2200"]);
    expect(await search("receivable")).toEqual(["1200", "1400"]);
    expect(await search("VAT%20pay")).toEqual(["2200"]);
  });

  test("PATCH is a 405 with Allow (PUT changes an account: editing.test.ts)", async () => {
    const [first] = await chartOf();
    const r = await env.api("PATCH", `/api/v1/accounts/${first!.id}`, { name: "Hacked" });
    expect(r.status).toBe(405);
    expect(r.headers.get("allow")).toContain("PUT");
    expect((await env.api("GET", `/api/v1/accounts/${first!.id}`)).body.data.name).toBe(first!.name);
  });

  test("accounting.view is needed: 403 naming it", async () => {
    const [first] = await chartOf();
    const token = await env.orgToken(["banking.view", "accounting.create"]);
    for (const path of ["/api/v1/accounts", `/api/v1/accounts/${first!.id}`]) {
      const r = await env.api("GET", path, undefined, token);
      expect(r.status).toBe(403);
      expect(r.body.message).toContain("accounting.view");
      expect((await env.api("GET", path, undefined, await env.orgToken(["accounting.view"]))).status).toBe(200);
    }
  });

  test("another organisation's account is a 404", async () => {
    const [first] = await chartOf();
    const other = await env.newOrg("Account Intruder");
    const r = await env.api("GET", `/api/v1/accounts/${first!.id}`, undefined, other.token);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: "not_found", message: "Not found." });
    expect((await env.api("GET", `/api/v1/accounts?filter[parent_id]=${first!.id}`, undefined, other.token)).body.data).toEqual([]);
  });

  test("list queries read through indexes (EXPLAIN QUERY PLAN)", async () => {
    const slow: string[] = [];
    for (const q of ["", "?sort=-code", "?sort=name", "?filter[type]=asset", "?filter[is_active]=true", "?filter[parent_id]=null", "?search=bank"]) {
      slow.push(...(await slowListSteps(env, "accounts", `/api/v1/accounts${q}`)));
    }
    expect(slow).toEqual([]);
  });
});

describe("bank accounts API (banking.view)", async () => {
  const org = await env.newOrg("Bank Co");
  let seeded: any;
  const cli = (...args: string[]) => runCli([...args, "--db", env.config.dbPath]);

  beforeAll(async () => {
    seeded = (await bankAccountsOf(org.token))[0];
    for (const [name, iban, currency] of [
      ["savings", "BE68 5390 0754 7034", "EUR"],
      ["US Dollar account", "GB82WEST12345698765432", "USD"],
    ]) {
      const r = await cli("bank-account", "add", "--org", org.org.id, "--name", name!, "--iban", iban!, "--currency", currency!, "--json");
      expect(r.code, r.stderr).toBe(0);
    }
    await env.db.update(bankAccounts).set({ isActive: false }).where(eq(bankAccounts.name, "savings"));
  });

  test("show: the fields of api-spec 2.8 and the BIC (issue 26 item 7); balance a decimal string, its ledger account's", async () => {
    const r = await env.api("GET", `/api/v1/bank-accounts/${seeded.id}`, undefined, org.token);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.data).sort()).toEqual(["account_id", "balance", "bank_name", "bic", "created_at", "currency", "iban", "id", "is_active", "name", "updated_at"]);
    expect(r.body.data).toMatchObject({ name: "Current account", balance: "0.00", is_active: true, currency: "EUR", bic: null });
    const capital = (await env.api("GET", "/api/v1/accounts?search=capital", undefined, org.token)).body.data[0];
    const entry = await env.api("POST", "/api/v1/journal-entries", {
      date: "2026-01-02",
      description: "Capital paid in",
      lines: [{ account_id: seeded.account_id, debit: "12345.67" }, { account_id: capital.id, credit: "12345.67" }],
    }, org.token);
    expect(entry.status, entry.text).toBe(201);
    expect((await env.api("GET", `/api/v1/bank-accounts/${seeded.id}`, undefined, org.token)).body.data.balance).toBe("12345.67");
    expect((await env.api("GET", `/api/v1/bank-accounts/${newId()}`, undefined, org.token)).status).toBe(404);
  });

  test("sort name (default, case-insensitive) and -name; filters is_active, currency; search name, iban", async () => {
    const names = async (q: string) => (await env.api("GET", `/api/v1/bank-accounts${q}`, undefined, org.token)).body.data.map((b: any) => b.name);
    expect(await names("")).toEqual(["Current account", "savings", "US Dollar account"]);
    expect(await names("?sort=-name")).toEqual(["US Dollar account", "savings", "Current account"]);
    expect(await names("?filter[is_active]=false")).toEqual(["savings"]);
    expect(await names("?filter[is_active]=true")).toEqual(["Current account", "US Dollar account"]);
    expect(await names("?filter[currency]=USD")).toEqual(["US Dollar account"]);
    expect(await names("?search=dollar")).toEqual(["US Dollar account"]);
    expect(await names("?search=BE68539007547034")).toEqual(["savings"]);
    for (const q of ["?sort=iban", "?filter[currency]=dollars", "?filter[is_active]=1", "?filter[iban]=x"]) {
      expect((await env.api("GET", `/api/v1/bank-accounts${q}`, undefined, org.token)).status, q).toBe(422);
    }
  });

  test("read-only: write methods are 405", async () => {
    for (const [method, path] of [
      ["POST", "/api/v1/bank-accounts"],
      ["PUT", `/api/v1/bank-accounts/${seeded.id}`],
      ["DELETE", `/api/v1/bank-accounts/${seeded.id}`],
    ]) {
      const r = await env.api(method!, path!, method === "DELETE" ? undefined : { name: "x" }, org.token);
      expect(r.status, `${method} ${path}`).toBe(405);
    }
  });

  test("banking.view is needed: 403 naming it", async () => {
    const token = await env.orgToken(["accounting.view", "banking.create"], org.org);
    for (const path of ["/api/v1/bank-accounts", `/api/v1/bank-accounts/${seeded.id}`]) {
      const r = await env.api("GET", path, undefined, token);
      expect(r.status).toBe(403);
      expect(r.body.message).toContain("banking.view");
    }
    expect((await env.api("GET", "/api/v1/bank-accounts", undefined, await env.orgToken(["banking.view"], org.org))).status).toBe(200);
  });

  test("another organisation's bank account is a 404", async () => {
    const r = await env.api("GET", `/api/v1/bank-accounts/${seeded.id}`);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: "not_found", message: "Not found." });
    expect((await bankAccountsOf()).some((b) => b.id === seeded.id)).toBe(false);
  });

  test("list queries read through indexes (EXPLAIN QUERY PLAN)", async () => {
    const slow: string[] = [];
    for (const q of ["", "?sort=-name", "?filter[is_active]=true", "?filter[currency]=EUR", "?search=savings"]) {
      slow.push(...(await slowListSteps(env, "bank_accounts", `/api/v1/bank-accounts${q}`, org.token)));
    }
    expect(slow).toEqual([]);
  });
});

describe("kontor bank-account add (a real process)", async () => {
  const org = await env.newOrg("CLI Bank Co", { currency: "CHF", country: "CH" });
  const cli = (...args: string[]) => runCli([...args, "--db", env.config.dbPath]);

  test("--json: the bank account as the API shows it, with a ledger account of its own under 1100 Bank, audited as cli", async () => {
    const r = await cli("bank-account", "add", "--org", "CLI Bank Co", "--name", "Postfinance", "--iban", "ch93 0076 2011 6238 5295 7", "--bank-name", "PostFinance AG", "--json");
    expect(r.code, r.stderr).toBe(0);
    const added = JSON.parse(r.stdout);
    expect(added).toMatchObject({ name: "Postfinance", iban: "CH9300762011623852957", bank_name: "PostFinance AG", currency: "CHF", balance: "0.00", is_active: true });
    const shown = await env.api("GET", `/api/v1/bank-accounts/${added.id}`, undefined, org.token);
    expect(shown.body.data).toEqual(added);
    const ledger = (await env.api("GET", `/api/v1/accounts/${added.account_id}`, undefined, org.token)).body.data;
    const bank = (await env.api("GET", "/api/v1/accounts?search=1100", undefined, org.token)).body.data[0];
    expect(ledger).toMatchObject({ code: "1111", name: "Postfinance", type: "asset", system_account: "bank", parent_id: bank.id, balance: "0.00" });
    const entries = await env.db.select().from(auditLog).where(eq(auditLog.resourceId, added.id));
    expect(entries.map((a) => [a.action, a.resourceType, a.actorType, a.actorId, a.organizationId])).toEqual([["bank_account.created", "bank_account", "cli", null, org.org.id]]);
  });

  test("a human table without --json; --currency is normalised", async () => {
    const r = await cli("bank-account", "add", "--org", org.org.id, "--name", "Euro account", "--iban", "DE89370400440532013000", "--currency", "eur");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^id\s+\S+/m);
    expect(r.stdout).toMatch(/^iban\s+DE89370400440532013000$/m);
    expect(r.stdout).toMatch(/^currency\s+EUR$/m);
  });

  test("a wrong IBAN checksum is exit 1 with a clear message, and writes nothing", async () => {
    const count = async () => (await env.db.select().from(bankAccounts).where(eq(bankAccounts.organizationId, org.org.id))).length;
    const audited = async () => (await env.db.select().from(auditLog).where(eq(auditLog.organizationId, org.org.id))).length;
    const [before, auditedBefore] = [await count(), await audited()];
    const r = await cli("bank-account", "add", "--org", org.org.id, "--name", "Typo", "--iban", "CH9300762011623852958");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("IBAN");
    expect(r.stderr).toContain("mod 97");
    expect(r.stdout).toBe("");
    expect(await count()).toBe(before);
    expect(await audited()).toBe(auditedBefore);
  });

  test("user errors are exit 1, usage errors exit 2", async () => {
    const cases: [string[], number, RegExp][] = [
      [["--org", org.org.id, "--name", "Short", "--iban", "CH93"], 1, /IBAN/],
      [["--org", org.org.id, "--name", "Dup", "--iban", "CH9300762011623852957"], 1, /already has a bank account/],
      [["--org", org.org.id, "--name", "Bad currency", "--iban", "NL91ABNA0417164300", "--currency", "XYZ"], 1, /currency/],
      [["--org", "No Such Org", "--name", "X", "--iban", "NL91ABNA0417164300"], 1, /No organisation/],
      [["--org", org.org.id, "--name", "   ", "--iban", "NL91ABNA0417164300"], 1, /name/],
      [["--org", org.org.id, "--name", "No IBAN"], 2, /--iban/],
      [["--org", org.org.id, "--iban", "NL91ABNA0417164300"], 2, /--name/],
    ];
    for (const [args, code, message] of cases) {
      const r = await cli("bank-account", "add", ...args);
      expect(r.code, args.join(" ")).toBe(code);
      expect(r.stderr, args.join(" ")).toMatch(message);
    }
  });
});

describe("IBAN check (ISO 13616, mod 97)", () => {
  test("valid IBANs of several countries, with spaces and lower case", () => {
    for (const iban of ["BE71 0961 2345 6769", "be68539007547034", "GB82WEST12345698765432", "DE89370400440532013000", "NL91ABNA0417164300", "FR1420041010050500013M02606", "CH9300762011623852957", "NO9386011117947"]) {
      expect(ibanProblem(normalizeIban(iban)), iban).toBeNull();
    }
  });

  test("a changed digit, swapped digits, a bad shape", () => {
    for (const iban of ["BE71096123456768", "BE17096123456769", "GB82WEST12345698765423", "B171096123456769", "BE7109612345", "BE71-0961-2345-6769", "X".repeat(35)]) {
      expect(ibanProblem(normalizeIban(iban)), iban).not.toBeNull();
    }
  });
});
