/**
 * The Belgian chart (docs/books.md#the-belgian-chart-pcmn): `kontor org create --chart be` seeds
 * the PCMN accounts of tests/reference-data/pcmn.csv (read here, not through Kontor's copy), named
 * in the organisation's language, with every system role mapped; an invoice, its payment and an
 * expense post to 400 / 700 / 451 / 550 / 411 / 440; `chart` shows on the organisation and stays.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { SYSTEM_ACCOUNTS } from "../../db/values.ts";
import { readPcmnCsv } from "../../scripts/pcmn.ts";
import { PCMN_ACCOUNTS } from "../../server/accounts/pcmn.ts";
import { createOrganization, findOrganization } from "../../server/orgs/service.ts";
import { createTestEnv, runCli, TEST_IBAN } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const csv = readPcmnCsv();
const csvByCode = new Map(csv.map((row) => [row.code, row]));

/**
 * The account of each role, as docs/books.md#role-map decides it (written out here, not read from
 * the seed): a role added to SYSTEM_ACCOUNTS without a Belgian account fails the first test.
 */
const ROLE_CODES: Record<string, string> = {
  receivables: "400",
  payables: "440",
  vat_payable: "451",
  vat_receivable: "411",
  sales: "700",
  purchases: "643",
  bank: "550",
  retained_earnings: "140",
  supplier_advances: "406",
  opening_balance: "4990",
  late_payment_income: "7510",
  suspense: "499",
};
/** The accounts the be chart adds to the CSV's selection, for a role the PCMN leaves to each business. */
const EXTRA_CODES = ["700", "4990", "7510"];

type Account = { id: string; code: string; name: string; type: string; parent_id: string | null; is_active: boolean; description: string; system_account: string | null; balance: string };

async function beOrg(name: string, language?: string) {
  const org = await createOrganization(env.db, { name, country: "BE", currency: "EUR", iban: TEST_IBAN, chart: "be", language });
  return { org, token: await env.orgToken(["*"], org) };
}

async function chartOf(token: string): Promise<Account[]> {
  const all: Account[] = [];
  for (let page = 1; ; page++) {
    const r = await env.api("GET", `/api/v1/accounts?per_page=100&page=${page}`, undefined, token);
    expect(r.status, r.text).toBe(200);
    all.push(...r.body.data);
    if (r.body.data.length < 100) return all;
  }
}

describe("kontor org create --chart be (a real process)", () => {
  test("seeds the PCMN in Dutch with --language nl; the organisation shows chart be, read-only", async () => {
    const r = await runCli(["org", "create", "--name", "Brussels IT", "--chart", "be", "--language", "nl", "--iban", "BE68 5390 0754 7034", "--json", "--db", env.config.dbPath]);
    expect(r.code, r.stderr).toBe(0);
    const org = await findOrganization(env.db, JSON.parse(r.stdout).id);
    const token = await env.orgToken(["*"], org);
    const shown = await env.api("GET", "/api/v1/organization", undefined, token);
    expect(shown.body.data).toMatchObject({ chart: "be", language: "nl" });
    const chart = await chartOf(token);
    expect(chart.find((a) => a.code === "400")!.name).toBe("Klanten");
    expect(chart.find((a) => a.code === "657200")!.name).toBe("Bankkosten");
    // its bank account is the organisation's first: linked to 550
    const [bank] = (await env.api("GET", "/api/v1/bank-accounts", undefined, token)).body.data;
    expect(bank.account_id).toBe(chart.find((a) => a.code === "550")!.id);

    const put = await env.api("PUT", "/api/v1/organization", { chart: "generic" }, token);
    expect(put.status).toBe(422);
    expect(Object.keys(put.body.errors)).toEqual(["chart"]);
    expect((await env.api("GET", "/api/v1/organization", undefined, token)).body.data.chart).toBe("be");
  });

  test("an unknown chart is a usage error (exit 2) naming the choices", async () => {
    const r = await runCli(["org", "create", "--name", "Nowhere", "--chart", "pcg", "--db", env.config.dbPath]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("generic");
    expect(r.stderr).toContain("be");
  });

  test("the generic chart stays the default, shown as chart generic", async () => {
    expect((await env.api("GET", "/api/v1/organization")).body.data.chart).toBe("generic");
    expect((await chartOf(env.token)).some((a) => a.code === "1110" && a.system_account === "bank")).toBe(true);
  });
});

describe("the be chart as seeded", async () => {
  const { token } = await beOrg("Gent Consulting", "nl");

  test("server/accounts/pcmn.ts is pcmn.csv as scripts/pcmn.ts writes it (run it again when the CSV changes)", () => {
    expect(PCMN_ACCOUNTS.map(([code, nl, fr, en, type, parent]) => ({ code, nl, fr, en, type, parent }))).toEqual(csv);
  });

  test("every system role has exactly one account, the one the role map names", async () => {
    const chart = await chartOf(token);
    for (const role of SYSTEM_ACCOUNTS) {
      expect(ROLE_CODES[role], `the role map has no account for ${role}`).toBeDefined();
      const held = chart.filter((a) => a.system_account === role).map((a) => a.code);
      expect(held, role).toEqual([ROLE_CODES[role]!]);
    }
    expect(Object.keys(ROLE_CODES).sort()).toEqual([...SYSTEM_ACCOUNTS].sort());
  });

  test("every account of pcmn.csv, with its code, Dutch name, type and parent; and only the documented extras beside them", async () => {
    const chart = await chartOf(token);
    const byId = new Map(chart.map((a) => [a.id, a]));
    expect(chart.length).toBe(csv.length + EXTRA_CODES.length);
    for (const row of csv) {
      const account = chart.find((a) => a.code === row.code);
      expect(account, row.code).toBeDefined();
      expect([account!.name, account!.type, account!.parent_id === null ? null : byId.get(account!.parent_id)!.code], row.code).toEqual([row.nl, row.type, row.parent]);
      expect(account!.description).toContain(row.fr);
      expect(account!.description).toContain(row.en);
    }
    const extras = chart.filter((a) => !csvByCode.has(a.code)).map((a) => a.code);
    expect(extras.sort()).toEqual([...EXTRA_CODES].sort());
    // each extra sits under a PCMN account of the CSV
    for (const code of EXTRA_CODES) {
      const account = chart.find((a) => a.code === code)!;
      expect(csvByCode.has(byId.get(account.parent_id!)!.code), code).toBe(true);
    }
  });

  test("the roles' accounts are of the type each role needs, and the PCMN's own accounts where it has one", async () => {
    const chart = await chartOf(token);
    const typeOf = (role: string) => chart.find((a) => a.system_account === role)!.type;
    const types = Object.fromEntries(SYSTEM_ACCOUNTS.map((role) => [role, typeOf(role)]));
    expect(types).toEqual({
      receivables: "asset",
      payables: "liability",
      vat_payable: "liability",
      vat_receivable: "asset",
      sales: "revenue",
      purchases: "expense",
      bank: "asset",
      retained_earnings: "equity",
      supplier_advances: "asset",
      opening_balance: "asset",
      late_payment_income: "revenue",
      suspense: "asset",
    });
    // the CSV's own names for the PCMN accounts the roles use
    expect(csvByCode.get("400")!.en).toBe("Customers");
    expect(csvByCode.get("440")!.en).toBe("Suppliers");
    expect(csvByCode.get("451")!.en).toBe("VAT Payable");
    expect(csvByCode.get("411")!.en).toBe("VAT Recoverable");
    expect(csvByCode.get("499")!.en).toBe("Suspense Accounts");
    expect(csvByCode.get("550")!.en).toBe("Credit Institutions");
  });

  test("names follow the language at creation: fr in French, en and de in English", async () => {
    for (const [language, code, name] of [
      ["fr", "440", "Fournisseurs"],
      ["en", "440", "Suppliers"],
      ["de", "440", "Suppliers"],
      [undefined, "6100", "Rent"],
      ["fr", "700", "Ventes et prestations de services"],
    ] as const) {
      const org = await beOrg(`Lang ${language} ${code}`, language);
      const account = (await chartOf(org.token)).find((a) => a.code === code)!;
      expect(account.name, `${language} ${code}`).toBe(name);
    }
  });

  test("the expense categories map to PCMN accounts", async () => {
    const chart = await chartOf(token);
    const codeOf = new Map(chart.map((a) => [a.id, a.code]));
    const mapped: Record<string, string> = Object.fromEntries(((await env.api("GET", "/api/v1/expense-categories", undefined, token)).body.data as any[]).map((m) => [m.category, codeOf.get(m.account_id)!]));
    expect(mapped).toMatchObject({ goods: "604", rent: "6100", software: "613310", travel: "616505", "bank charges": "657200", salaries: "6202", office: "6120" });
    for (const code of Object.values(mapped)) expect(csvByCode.get(code)?.type, code).toBe("expense");
  });

  test("a further bank account gets 550001 under 550, then 550002 (the first, TEST_IBAN, is on 550)", async () => {
    const org = await beOrg("Two Banks");
    for (const [iban, code] of [
      ["NL91ABNA0417164300", "550001"],
      ["DE89370400440532013000", "550002"],
    ] as const) {
      const r = await runCli(["bank-account", "add", "--org", org.org.id, "--name", `Bank ${code}`, "--iban", iban, "--json", "--db", env.config.dbPath]);
      expect(r.code, r.stderr).toBe(0);
      const ledger = (await env.api("GET", `/api/v1/accounts/${JSON.parse(r.stdout).account_id}`, undefined, org.token)).body.data;
      const parent = (await env.api("GET", `/api/v1/accounts/${ledger.parent_id}`, undefined, org.token)).body.data;
      expect([ledger.code, ledger.system_account, ledger.type, parent.code]).toEqual([code, "bank", "asset", "550"]);
    }
  });
});

describe("postings in a be organisation", async () => {
  const { token } = await beOrg("Liège Services", "fr");
  const api = async (method: string, path: string, body?: unknown) => await env.api(method, path, body, token);
  const ok = async (method: string, path: string, body: unknown, status: number) => {
    const r = await api(method, path, body);
    expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
    return r.body.data;
  };
  let codeOf: Map<string, string>;
  const linesOf = async (sourceType: string, sourceId: string) => {
    const entries = (await api("GET", `/api/v1/journal-entries?per_page=100&filter[source_type]=${sourceType}&filter[source_id]=${sourceId}`)).body.data as any[];
    expect(entries.length).toBe(1);
    return entries[0].lines.map((l: any) => [codeOf.get(l.account_id), l.debit, l.credit]);
  };
  const balances = async (...codes: string[]) => {
    const chart = await chartOf(token);
    return Object.fromEntries(codes.map((c) => [c, chart.find((a) => a.code === c)!.balance]));
  };

  test("an invoice: 400 against 700 and 451; its payment: 550 against 400", async () => {
    codeOf = new Map((await chartOf(token)).map((a) => [a.id, a.code]));
    const rate = ((await api("GET", "/api/v1/vat-rates")).body.data as any[]).find((r) => r.rate === "21.00" && r.category === "S");
    const customer = await ok("POST", "/api/v1/customers", { name: "Client SA", country: "BE", currency: "EUR" }, 201);
    const draft = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-02", lines: [{ description: "Audit", quantity: "4", unit_price: "250.00", vat_rate_id: rate.id }] }, 201);
    const invoice = await ok("POST", `/api/v1/invoices/${draft.id}/finalize`, undefined, 200);
    // 4 × 250.00 = 1000.00 net; 21 % VAT = 210.00; 1210.00 due
    expect(await linesOf("invoice", invoice.id)).toEqual([
      ["400", "1210.00", "0.00"],
      ["700", "0.00", "1000.00"],
      ["451", "0.00", "210.00"],
    ]);
    const paid = await ok("POST", `/api/v1/invoices/${invoice.id}/record-payment`, { amount: "1210.00", payment_date: "2026-03-20" }, 201);
    expect(await linesOf("payment", paid.payments[0].id)).toEqual([
      ["550", "1210.00", "0.00"],
      ["400", "0.00", "1210.00"],
    ]);
    expect(await balances("400", "700", "451", "550")).toEqual({ "400": "0.00", "700": "1000.00", "451": "210.00", "550": "1210.00" });
  });

  test("an expense: its category's account and 411 against 440; its payment: 440 against 550; no category: 643", async () => {
    const rate = ((await api("GET", "/api/v1/vat-rates")).body.data as any[]).find((r) => r.rate === "21.00" && r.category === "S");
    const draft = await ok("POST", "/api/v1/expenses", { category: "Software", amount: "100.00", vat_amount: "21.00", vat_rate_id: rate.id, date: "2026-03-05" }, 201);
    const expense = await ok("POST", `/api/v1/expenses/${draft.id}/approve`, undefined, 200);
    expect(await linesOf("expense", expense.id)).toEqual([
      ["613310", "100.00", "0.00"],
      ["411", "21.00", "0.00"],
      ["440", "0.00", "121.00"],
    ]);
    const paid = await ok("POST", `/api/v1/expenses/${expense.id}/record-payment`, { amount: "121.00", payment_date: "2026-03-25" }, 201);
    expect(await linesOf("expense_payment", paid.payments[0].id)).toEqual([
      ["440", "121.00", "0.00"],
      ["550", "0.00", "121.00"],
    ]);
    const other = await ok("POST", "/api/v1/expenses", { category: "Something new", amount: "40.00", date: "2026-03-06" }, 201);
    await ok("POST", `/api/v1/expenses/${other.id}/approve`, undefined, 200);
    expect(await linesOf("expense", other.id)).toEqual([
      ["643", "40.00", "0.00"],
      ["440", "0.00", "40.00"],
    ]);
    // 1210.00 received, 121.00 paid out
    expect(await balances("550", "411", "440", "613310", "643")).toEqual({ "550": "1089.00", "411": "21.00", "440": "40.00", "613310": "100.00", "643": "40.00" });
  });
});
