/**
 * The reports (issue 19) on a small worked dataset whose every figure is computed by hand below:
 * trial balance, profit and loss, balance sheet (before and after closing 2025), aged receivables
 * by date, VAT per category and rate with the Belgian return's grids, one currency at a time,
 * and each report as CSV.
 *
 * The 2025 dataset (Acme, BE, EUR):
 *   A1 Alpha 2025-01-10 due 02-09  10 × 100.00 @21 %  1000 + 210 = 1210, paid 210.00 on 03-01   open 1000
 *   A2 Alpha 2025-11-01 due 12-15   1 × 200.00 @12 %   200 +  24 =  224                           open  224
 *   A3 Alpha 2025-06-01 due 07-01   1 × 500.00 @21 %   500 + 105 =  605, paid in full 06-20      open    0
 *   B1 Beta  2025-09-01 due 10-15   1 × 300.00 @6 %    300 +  18 =  318                           open  318
 *   B2 Beta  2025-10-01 due 11-20   100.00 @21 % + 50.00 without rate: 150 + 21 = 171            open  171
 *   B3 Beta  2025-12-20 due 2026-01-19  1 × 400.00 @21 %  400 + 84 = 484, paid 84.00 on 12-28    open  400
 *   CN Beta  2025-09-15 due 10-15   credit note of B1: 1 × 100.00 @6 %  100 + 6 = 106, allocated to B1: B1 open 212, CN 0
 *   E1 Travel 2025-05-01 200.00 + VAT 42.00 (21 %), paid 242.00 on 05-10 → 6500
 *   E2 Office 2025-07-01 100.00 + VAT 6.00 (6 %) → 6400
 *   E3 Gadgets 2025-08-01 50.00, no VAT → 6800
 *   a pending expense (posts nothing)
 *   Y1 Yankee (USD) 2025-04-01 due 05-01  1 × 1000.00 @21 %  1210 USD, paid 500.00 USD into a USD bank account
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bankAccountService } from "../../server/bank-accounts/service.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { createTestEnv, type ApiResponse } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const ok = async (method: string, path: string, body?: unknown, status = 200, token?: string) => {
  const r = await env.api(method, path, body, token);
  expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
  return r.body?.data;
};
const report = (path: string, token?: string) => ok("GET", `/api/v1/reports/${path}`, undefined, 200, token);
const csv = async (path: string, token?: string): Promise<ApiResponse> => {
  const r = await env.request("GET", `/api/v1/reports/${path}`, { headers: { accept: "text/csv" }, token });
  expect(r.status, r.text).toBe(200);
  expect(r.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  return r;
};

let rates: any[];
const rate = (percent: string) => rates.find((r) => r.rate === percent && r.category === "S")!.id as string;
let alpha: any;
let beta: any;
let yankee: any;
let usdBank: any;
const chart = new Map<string, any>();
const acc = (code: string) => chart.get(code)!;
let nl: { token: string };

async function invoice(customer: any, issue_date: string, due_date: string, lines: unknown[], token?: string) {
  const d = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date, due_date, lines }, 201, token);
  return ok("POST", `/api/v1/invoices/${d.id}/finalize`, undefined, 200, token);
}
const line = (quantity: string, unit_price: string, percent?: string) => ({
  description: "Work",
  quantity,
  unit_price,
  ...(percent ? { vat_rate_id: rate(percent) } : {}),
});
const pay = (inv: any, amount: string, payment_date: string, extra: Record<string, unknown> = {}, token?: string) =>
  ok("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount, payment_date, ...extra }, 201, token);
async function approved(body: Record<string, unknown>) {
  const e = await ok("POST", "/api/v1/expenses", body, 201);
  return ok("POST", `/api/v1/expenses/${e.id}/approve`);
}

beforeAll(async () => {
  rates = await ok("GET", "/api/v1/vat-rates");
  alpha = await ok("POST", "/api/v1/customers", { name: "Alpha NV", country: "BE", currency: "EUR" }, 201);
  beta = await ok("POST", "/api/v1/customers", { name: "Beta BV", country: "BE", currency: "EUR" }, 201);
  yankee = await ok("POST", "/api/v1/customers", { name: "Yankee Inc", country: "US", currency: "USD" }, 201);
  usdBank = await bankAccountService.add({ db: env.db, org: env.org, actor: CLI_ACTOR }, { name: "Dollar account", iban: "GB82WEST12345698765432", currency: "USD" });

  // finalized in the order of their issue dates: the numbers of a series follow them (contract 3)
  const a1 = await invoice(alpha, "2025-01-10", "2025-02-09", [line("10", "100.00", "21.00")]);
  await pay(a1, "210.00", "2025-03-01");
  const y1 = await invoice(yankee, "2025-04-01", "2025-05-01", [line("1", "1000.00", "21.00")]);
  expect(y1).toMatchObject({ currency: "USD", total: "1210.00" });
  await pay(y1, "500.00", "2025-04-15", { bank_account_id: usdBank.id });
  const a3 = await invoice(alpha, "2025-06-01", "2025-07-01", [line("1", "500.00", "21.00")]);
  await pay(a3, "605.00", "2025-06-20");
  const b1 = await invoice(beta, "2025-09-01", "2025-10-15", [line("1", "300.00", "6.00")]);
  await invoice(beta, "2025-10-01", "2025-11-20", [line("1", "100.00", "21.00"), line("1", "50.00")]);
  await invoice(alpha, "2025-11-01", "2025-12-15", [line("1", "200.00", "12.00")]);
  const b3 = await invoice(beta, "2025-12-20", "2026-01-19", [line("1", "400.00", "21.00")]);
  await pay(b3, "84.00", "2025-12-28");
  const cn = await ok("POST", `/api/v1/invoices/${b1.id}/credit-note`, undefined, 201);
  await ok("PUT", `/api/v1/invoices/${cn.id}`, { issue_date: "2025-09-15", due_date: "2025-10-15", lines: [line("1", "100.00", "6.00")] });
  expect(await ok("POST", `/api/v1/invoices/${cn.id}/finalize`)).toMatchObject({ type: "credit_note", total: "106.00" });

  const e1 = await approved({ category: "Travel", amount: "200.00", vat_amount: "42.00", vat_rate_id: rate("21.00"), date: "2025-05-01" });
  await ok("POST", `/api/v1/expenses/${e1.id}/record-payment`, { amount: "242.00", payment_date: "2025-05-10" }, 201);
  await approved({ category: "Office", amount: "100.00", vat_amount: "6.00", vat_rate_id: rate("6.00"), date: "2025-07-01" });
  await approved({ category: "Gadgets", amount: "50.00", date: "2025-08-01" });
  await ok("POST", "/api/v1/expenses", { category: "Travel", amount: "999.00", date: "2025-08-02" }, 201);


  for (const a of await ok("GET", "/api/v1/accounts?per_page=100")) chart.set(a.code, a);
});

/** a report's account rows as [code, amount…] */
const rows = (list: any[], ...fields: string[]) => list.map((a) => [a.code, ...fields.map((f) => a[f])]);

describe("trial balance", () => {
  test("2025-12-31 in EUR: every account with a balance, totals equal", async () => {
    const tb = await report("trial-balance?date=2025-12-31");
    expect(tb).toMatchObject({ date: "2025-12-31", currency: "EUR", total_debit: "3062.00", total_credit: "3062.00" });
    expect(rows(tb.accounts, "type", "debit", "credit")).toEqual([
      ["1110", "asset", "657.00", "0.00"],
      ["1200", "asset", "2007.00", "0.00"],
      ["1400", "asset", "48.00", "0.00"],
      ["2100", "liability", "0.00", "156.00"],
      ["2200", "liability", "0.00", "456.00"],
      ["4100", "revenue", "0.00", "2450.00"],
      ["6400", "expense", "100.00", "0.00"],
      ["6500", "expense", "200.00", "0.00"],
      ["6800", "expense", "50.00", "0.00"],
    ]);
    expect(tb.accounts[0]).toEqual({ account_id: acc("1110").id, code: "1110", name: "Current account", type: "asset", debit: "657.00", credit: "0.00" });
  });

  test("a date in the middle of the year: what was posted to the end of that day", async () => {
    const tb = await report("trial-balance?date=2025-03-01");
    // A1 and its payment only
    expect(rows(tb.accounts, "debit", "credit")).toEqual([
      ["1110", "210.00", "0.00"],
      ["1200", "1000.00", "0.00"],
      ["2200", "0.00", "210.00"],
      ["4100", "0.00", "1000.00"],
    ]);
    expect([tb.total_debit, tb.total_credit]).toEqual(["1210.00", "1210.00"]);
    expect((await report("trial-balance?date=2024-12-31")).accounts).toEqual([]);
  });

  test("currency=USD reports only the USD documents", async () => {
    const tb = await report("trial-balance?date=2025-12-31&currency=USD");
    expect(tb).toMatchObject({ currency: "USD", total_debit: "1210.00", total_credit: "1210.00" });
    expect(rows(tb.accounts, "name", "debit", "credit")).toEqual([
      ["1111", "Dollar account", "500.00", "0.00"],
      ["1200", "Accounts receivable", "710.00", "0.00"],
      ["2200", "VAT payable", "0.00", "210.00"],
      ["4100", "Sales", "0.00", "1000.00"],
    ]);
    expect((await ok("GET", `/api/v1/bank-accounts/${usdBank.id}`)).balance).toBe("500.00");
    // accounts show the organisation's currency only
    expect(acc("1111").balance).toBe("0.00");
    expect(acc("1200").balance).toBe("2007.00");
    expect((await report("trial-balance?currency=GBP")).accounts).toEqual([]);
  });

  test("bad dates and currencies: 422", async () => {
    for (const q of ["date=2025-02-30", "date=31-12-2025", "currency=usd", "currency=EURO", "bogus=1"]) {
      const r = await env.api("GET", `/api/v1/reports/trial-balance?${q}`);
      expect(r.status, q).toBe(422);
    }
  });
});

describe("profit and loss", () => {
  test("2025: revenue less expenses", async () => {
    const pl = await report("profit-and-loss?from=2025-01-01&to=2025-12-31");
    expect(pl).toMatchObject({ from: "2025-01-01", to: "2025-12-31", currency: "EUR", total_revenue: "2450.00", total_expenses: "350.00", net_result: "2100.00" });
    expect(rows(pl.revenue, "name", "amount")).toEqual([["4100", "Sales", "2450.00"]]);
    expect(rows(pl.expenses, "name", "amount")).toEqual([
      ["6400", "Office and software", "100.00"],
      ["6500", "Travel", "200.00"],
      ["6800", "General expenses", "50.00"],
    ]);
  });

  test("a period: the third quarter; from defaults to 1 January of to's year", async () => {
    const q3 = await report("profit-and-loss?from=2025-07-01&to=2025-09-30");
    // E2 100, E3 50; B1 300 less the credit note's 100
    expect(rows(q3.revenue, "amount")).toEqual([["4100", "200.00"]]);
    expect(rows(q3.expenses, "amount")).toEqual([["6400", "100.00"], ["6800", "50.00"]]);
    expect(q3.net_result).toBe("50.00");
    const toMay = await report("profit-and-loss?to=2025-05-31");
    expect(toMay).toMatchObject({ from: "2025-01-01", to: "2025-05-31", total_revenue: "1000.00", total_expenses: "200.00", net_result: "800.00" });
    expect((await report("profit-and-loss?from=2025-01-01&to=2025-12-31&currency=USD")).net_result).toBe("1000.00");
  });

  test("from after to, or a bad date: 422", async () => {
    const r = await env.api("GET", "/api/v1/reports/profit-and-loss?from=2025-12-01&to=2025-01-01");
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual({ from: ["The from date (2025-12-01) must not be after the to date (2025-01-01)."] });
    expect((await env.api("GET", "/api/v1/reports/profit-and-loss?to=2025-13-01")).status).toBe(422);
    expect((await env.api("GET", "/api/v1/reports/vat?from=2025-06-01&to=2025-05-31")).status).toBe(422);
  });
});

describe("balance sheet", () => {
  test("2025-12-31: assets = liabilities + equity, the unclosed result in equity", async () => {
    const bs = await report("balance-sheet?date=2025-12-31");
    expect(bs).toMatchObject({ date: "2025-12-31", currency: "EUR", current_result: "2100.00", total_assets: "2712.00", total_liabilities: "612.00", total_equity: "2100.00" });
    expect(rows(bs.assets, "amount")).toEqual([["1110", "657.00"], ["1200", "2007.00"], ["1400", "48.00"]]);
    expect(rows(bs.liabilities, "amount")).toEqual([["2100", "156.00"], ["2200", "456.00"]]);
    expect(bs.equity).toEqual([]);
  });
});

describe("aged receivables", () => {
  test("on 2025-12-31: per customer, by days past due; the open credit note negative", async () => {
    const ar = await report("aged-receivables?date=2025-12-31");
    expect(ar).toEqual({
      date: "2025-12-31",
      currency: "EUR",
      customers: [
        // A1 due 02-09: 325 days; A2 due 12-15: 16 days
        { customer_id: alpha.id, name: "Alpha NV", current: "0.00", days_1_30: "224.00", days_31_60: "0.00", days_61_90: "0.00", over_90: "1000.00", total: "1224.00" },
        // B3 not due; B2 due 11-20: 41 days; B1 318 less the 106 credited, due 10-15: 77 days
        { customer_id: beta.id, name: "Beta BV", current: "400.00", days_1_30: "0.00", days_31_60: "171.00", days_61_90: "212.00", over_90: "0.00", total: "783.00" },
      ],
      totals: { current: "400.00", days_1_30: "224.00", days_31_60: "171.00", days_61_90: "212.00", over_90: "1000.00", total: "2007.00" },
      meta: { current_page: 1, per_page: 100, last_page: 1, total: 2 },
    });
  });

  test("the customers owing most first, a page at a time; the totals over all of them", async () => {
    const second = await report("aged-receivables?date=2025-12-31&per_page=1&page=2");
    expect(second.customers.map((c: any) => [c.name, c.total])).toEqual([["Beta BV", "783.00"]]);
    expect(second.totals.total).toBe("2007.00");
    expect(second.meta).toEqual({ current_page: 2, per_page: 1, last_page: 2, total: 2 });
    expect((await report("aged-receivables?date=2025-12-31&per_page=1&page=3")).customers).toEqual([]);
    const tooMany = await env.api("GET", "/api/v1/reports/aged-receivables?per_page=1001");
    expect(tooMany.status).toBe(422);
    expect(Object.keys(tooMany.body.errors)).toEqual(["per_page"]);
  });

  test("on 2025-10-31: as it stood that day (A2 and B3 not issued yet), aged on that day", async () => {
    const ar = await report("aged-receivables?date=2025-10-31");
    expect(ar.customers.map((c: any) => [c.name, c.current, c.days_1_30, c.days_31_60, c.days_61_90, c.over_90, c.total])).toEqual([
      // A1 1210 less 210 paid on 03-01, due 02-09: 264 days; A3 paid
      ["Alpha NV", "0.00", "0.00", "0.00", "0.00", "1000.00", "1000.00"],
      // B2 due 11-20: current; B1 318 less the 106 credited on 09-15, due 10-15: 16 days
      ["Beta BV", "171.00", "212.00", "0.00", "0.00", "0.00", "383.00"],
    ]);
    expect(ar.totals).toEqual({ current: "171.00", days_1_30: "212.00", days_31_60: "0.00", days_61_90: "0.00", over_90: "1000.00", total: "1383.00" });
    // on 2025-09-10: B1 issued, its credit note not yet; A1's payment of 03-01 made
    const before = await report("aged-receivables?date=2025-09-10");
    expect(before.customers.map((c: any) => [c.name, c.current, c.total])).toEqual([
      ["Alpha NV", "0.00", "1000.00"],
      ["Beta BV", "318.00", "318.00"],
    ]);
    // on 2025-02-28: A1 whole, 19 days past due (its payment is dated 03-01)
    expect((await report("aged-receivables?date=2025-02-28")).totals).toMatchObject({ days_1_30: "1210.00", total: "1210.00" });
  });

  test("a due date on the day itself is current; 30 days past due is still days_1_30", async () => {
    const onDue = await report("aged-receivables?date=2025-10-15");
    const beta1 = onDue.customers.find((c: any) => c.name === "Beta BV");
    // B1 less its credit note due that day (212), B2 not due yet (171), B3 not issued
    expect([beta1.current, beta1.days_1_30]).toEqual(["383.00", "0.00"]);
    const thirty = await report("aged-receivables?date=2025-11-14");
    const beta2 = thirty.customers.find((c: any) => c.name === "Beta BV");
    expect([beta2.current, beta2.days_1_30, beta2.days_31_60]).toEqual(["171.00", "212.00", "0.00"]);
    const thirtyOne = await report("aged-receivables?date=2025-11-15");
    expect(thirtyOne.customers.find((c: any) => c.name === "Beta BV").days_31_60).toBe("212.00");
  });

  test("USD on its own", async () => {
    const ar = await report("aged-receivables?date=2025-12-31&currency=USD");
    expect(ar.customers).toEqual([
      { customer_id: yankee.id, name: "Yankee Inc", current: "0.00", days_1_30: "0.00", days_31_60: "0.00", days_61_90: "0.00", over_90: "710.00", total: "710.00" },
    ]);
  });
});

describe("VAT", () => {
  test("2025: sales and purchases per category and rate, and the Belgian grids", async () => {
    const vat = await report("vat?from=2025-01-01&to=2025-12-31");
    expect(vat).toEqual({
      from: "2025-01-01",
      to: "2025-12-31",
      currency: "EUR",
      sales: [
        { category: "S", rate: "21.00", base: "2000.00", vat: "420.00" },
        { category: "S", rate: "12.00", base: "200.00", vat: "24.00" },
        // B1 300/18 less the credit note 100/6
        { category: "S", rate: "6.00", base: "200.00", vat: "12.00" },
        { category: "Z", rate: "0.00", base: "50.00", vat: "0.00" },
      ],
      purchases: [
        { category: "S", rate: "21.00", base: "200.00", vat: "42.00" },
        { category: "S", rate: "6.00", base: "100.00", vat: "6.00" },
        { category: "Z", rate: "0.00", base: "50.00", vat: "0.00" },
      ],
      total_sales_vat: "456.00",
      total_purchases_vat: "48.00",
      vat_balance: "408.00",
      belgian_return: {
        grids: {
          // 00 zero rated; 01/02/03 the bases at 6/12/21 % before credit notes; 49/64 the credit note
          "00": "50.00",
          "01": "300.00",
          "02": "200.00",
          "03": "2000.00",
          "49": "100.00",
          // 210 + 105 + 21 + 84 + 24 + 18
          "54": "462.00",
          "59": "48.00",
          "64": "6.00",
          // (54 + 63) − (59 + 64) = 462 − 48 − 6
          "71": "408.00",
          "82": "350.00",
        },
      },
    });
  });

  test("a month: September (B1 and its credit note)", async () => {
    const vat = await report("vat?from=2025-09-01&to=2025-09-30");
    expect(vat.sales).toEqual([{ category: "S", rate: "6.00", base: "200.00", vat: "12.00" }]);
    expect(vat.purchases).toEqual([]);
    expect(vat.belgian_return).toEqual({ grids: { "01": "300.00", "49": "100.00", "54": "18.00", "64": "6.00", "71": "12.00" } });
  });

  test("a period of input VAT only: 72, VAT to recover", async () => {
    const vat = await report("vat?from=2025-05-01&to=2025-05-31");
    expect(vat).toMatchObject({ sales: [], total_sales_vat: "0.00", total_purchases_vat: "42.00", vat_balance: "-42.00" });
    expect(vat.belgian_return).toEqual({ grids: { "59": "42.00", "72": "42.00", "82": "200.00" } });
  });

  test("USD: its own figures, no Belgian return (it is in EUR)", async () => {
    const vat = await report("vat?from=2025-01-01&to=2025-12-31&currency=USD");
    expect(vat).toMatchObject({ currency: "USD", sales: [{ category: "S", rate: "21.00", base: "1000.00", vat: "210.00" }], purchases: [], total_sales_vat: "210.00", belgian_return: null });
  });

  test("an organisation outside Belgium has no Belgian return", async () => {
    const org = await env.newOrg("Nederland BV", { country: "NL", currency: "EUR" });
    nl = { token: org.token };
    const nlRates = await ok("GET", "/api/v1/vat-rates", undefined, 200, org.token);
    const customer = await ok("POST", "/api/v1/customers", { name: "Klant", country: "NL", currency: "EUR" }, 201, org.token);
    const nine = nlRates.find((r: any) => r.rate === "9.00").id;
    const d = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2025-03-01", lines: [{ description: "Boek", quantity: "1", unit_price: "100.00", vat_rate_id: nine }] }, 201, org.token);
    await ok("POST", `/api/v1/invoices/${d.id}/finalize`, undefined, 200, org.token);
    const vat = await report("vat?from=2025-01-01&to=2025-12-31", org.token);
    expect(vat).toMatchObject({ sales: [{ category: "S", rate: "9.00", base: "100.00", vat: "9.00" }], vat_balance: "9.00", belgian_return: null });
  });
});

describe("CSV", () => {
  test("trial balance: a header, a row per account, the totals", async () => {
    const r = await csv("trial-balance?date=2025-12-31");
    expect(r.headers.get("content-disposition")).toBe('attachment; filename="trial-balance-2025-12-31.csv"');
    expect(r.text).toBe(
      [
        "account_code,account_name,type,debit,credit",
        "1110,Current account,asset,657.00,0.00",
        "1200,Accounts receivable,asset,2007.00,0.00",
        "1400,VAT receivable,asset,48.00,0.00",
        "2100,Accounts payable,liability,0.00,156.00",
        "2200,VAT payable,liability,0.00,456.00",
        "4100,Sales,revenue,0.00,2450.00",
        "6400,Office and software,expense,100.00,0.00",
        "6500,Travel,expense,200.00,0.00",
        "6800,General expenses,expense,50.00,0.00",
        ",Total,,3062.00,3062.00",
        "",
      ].join("\r\n"),
    );
  });

  test("profit and loss, balance sheet, aged receivables, VAT", async () => {
    expect((await csv("profit-and-loss?from=2025-01-01&to=2025-12-31")).text.split("\r\n")).toEqual([
      "section,account_code,account_name,amount",
      "revenue,4100,Sales,2450.00",
      "expenses,6400,Office and software,100.00",
      "expenses,6500,Travel,200.00",
      "expenses,6800,General expenses,50.00",
      "total,,Total revenue,2450.00",
      "total,,Total expenses,350.00",
      "total,,Net result,2100.00",
      "",
    ]);
    expect((await csv("balance-sheet?date=2025-12-31")).text.split("\r\n")).toEqual([
      "section,account_code,account_name,amount",
      "assets,1110,Current account,657.00",
      "assets,1200,Accounts receivable,2007.00",
      "assets,1400,VAT receivable,48.00",
      "liabilities,2100,Accounts payable,156.00",
      "liabilities,2200,VAT payable,456.00",
      "equity,,Current result,2100.00",
      "total,,Total assets,2712.00",
      "total,,Total liabilities,612.00",
      "total,,Total equity,2100.00",
      "",
    ]);
    expect((await csv("aged-receivables?date=2025-12-31")).text.split("\r\n")).toEqual([
      "customer_id,name,current,days_1_30,days_31_60,days_61_90,over_90,total",
      `${alpha.id},Alpha NV,0.00,224.00,0.00,0.00,1000.00,1224.00`,
      `${beta.id},Beta BV,400.00,0.00,171.00,212.00,0.00,783.00`,
      ",Total,400.00,224.00,171.00,212.00,1000.00,2007.00",
      "",
    ]);
    expect((await csv("vat?from=2025-09-01&to=2025-09-30")).text.split("\r\n")).toEqual([
      "side,category,rate,base,vat",
      "sales,S,6.00,200.00,12.00",
      "total_sales,,,,12.00",
      "total_purchases,,,,0.00",
      "vat_balance,,,,12.00",
      "grid,01,,,300.00",
      "grid,49,,,100.00",
      "grid,54,,,18.00",
      "grid,64,,,6.00",
      "grid,71,,,12.00",
      "",
    ]);
    // a non-Belgian organisation: no grid rows
    expect((await csv("vat?from=2025-01-01&to=2025-12-31", nl.token)).text).not.toContain("grid");
  });

  test("a text cell a spreadsheet would run is prefixed with '; negative amounts are left alone", async () => {
    const evil = await env.newOrg("Formula", { country: "BE", currency: "EUR" });
    const customer = await ok("POST", "/api/v1/customers", { name: "=HYPERLINK(\"x\")", country: "BE", currency: "EUR" }, 201, evil.token);
    const d = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2025-03-01", due_date: "2025-03-31", lines: [{ description: "x", quantity: "1", unit_price: "100.00" }] }, 201, evil.token);
    const inv = await ok("POST", `/api/v1/invoices/${d.id}/finalize`, undefined, 200, evil.token);
    await pay(inv, "100.00", "2025-03-02", {}, evil.token);
    const cn = await ok("POST", `/api/v1/invoices/${inv.id}/credit-note`, undefined, 201, evil.token);
    await ok("PUT", `/api/v1/invoices/${cn.id}`, { issue_date: "2025-03-05", due_date: "2025-04-04" }, 200, evil.token);
    await ok("POST", `/api/v1/invoices/${cn.id}/finalize`, undefined, 200, evil.token);
    const r = await csv("aged-receivables?date=2025-12-31", evil.token);
    expect(r.text.split("\r\n")[1]).toBe(`${customer.id},"'=HYPERLINK(""x"")",0.00,0.00,0.00,0.00,-100.00,-100.00`);
  });
});

describe("closing 2025", () => {
  test("closing moves the result to retained earnings: the P&L is unchanged, revenue accounts are zero, the balance sheet still balances", async () => {
    const plBefore = await report("profit-and-loss?from=2025-01-01&to=2025-12-31");
    const year = await ok("POST", "/api/v1/fiscal-years/2025/close");
    expect(year).toMatchObject({ status: "closed", result: "2100.00" });
    // one closing entry per currency posted in
    expect(year.closing_entry_ids).toHaveLength(2);

    expect(await report("profit-and-loss?from=2025-01-01&to=2025-12-31")).toEqual(plBefore);

    const tb = await report("trial-balance?date=2025-12-31");
    expect(rows(tb.accounts, "debit", "credit")).toEqual([
      ["1110", "657.00", "0.00"],
      ["1200", "2007.00", "0.00"],
      ["1400", "48.00", "0.00"],
      ["2100", "0.00", "156.00"],
      ["2200", "0.00", "456.00"],
      ["3200", "0.00", "2100.00"],
    ]);
    expect([tb.total_debit, tb.total_credit]).toEqual(["2712.00", "2712.00"]);
    // the day before the closing entries, the revenue is still there
    expect(rows((await report("trial-balance?date=2025-12-30")).accounts, "credit").find((r) => r[0] === "4100")).toEqual(["4100", "2450.00"]);

    const bs = await report("balance-sheet?date=2025-12-31");
    expect(bs).toMatchObject({ current_result: "0.00", total_assets: "2712.00", total_liabilities: "612.00", total_equity: "2100.00" });
    expect(rows(bs.equity, "name", "amount")).toEqual([["3200", "Retained earnings", "2100.00"]]);

    const usd = await report("trial-balance?date=2025-12-31&currency=USD");
    expect(rows(usd.accounts, "debit", "credit")).toEqual([
      ["1111", "500.00", "0.00"],
      ["1200", "710.00", "0.00"],
      ["2200", "0.00", "210.00"],
      ["3200", "0.00", "1000.00"],
    ]);
    // the VAT report is not touched by closing entries
    expect((await report("vat?from=2025-01-01&to=2025-12-31")).vat_balance).toBe("408.00");
  });

  test("2026: the balance sheet carries 2025 in retained earnings and adds 2026's own result", async () => {
    const inv = await invoice(alpha, "2026-02-01", "2026-03-01", [line("1", "100.00", "21.00")]);
    expect(inv.total).toBe("121.00");
    const bs = await report("balance-sheet?date=2026-06-30");
    expect(bs).toMatchObject({ current_result: "100.00", total_assets: "2833.00", total_liabilities: "633.00", total_equity: "2200.00" });
    expect((await report("profit-and-loss?from=2026-01-01&to=2026-06-30")).net_result).toBe("100.00");
    const tb = await report("trial-balance?date=2026-06-30");
    expect(tb.total_debit).toBe(tb.total_credit);
  });
});
