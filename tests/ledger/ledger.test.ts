/**
 * The ledger (issue 19): what each event posts, line by line, on a worked example; reversals of
 * cancelled invoices and deleted payments; expenses approved and paid; manual entries and their
 * reversal; what the database itself refuses; fiscal years closed, locked and reopened; the
 * journal's filters; the abilities of the accounting routes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, asc, eq } from "drizzle-orm";
import { webhookDeliveries } from "../../db/schema.ts";
import { bankAccountService } from "../../server/bank-accounts/service.ts";
import type { Organization } from "../../server/lib/scope.ts";
import { newId } from "../../server/lib/time.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { unitOfWork, type Db } from "../../db/client.ts";
import { createTestEnv, type ApiResponse } from "../helpers.ts";
import { rawSql } from "../raw-sql.ts";

const env = await createTestEnv();
afterAll(() => env.close());
const raw = rawSql(env.db);

/** An organisation driven over the API with its `*` token: its chart, customer, VAT rates and documents. */
type Books = Awaited<ReturnType<typeof openBooks>>;

async function openBooks(name: string, options: { country?: string; currency?: string } = {}) {
  const { org, token } = await env.newOrg(name, { country: "BE", currency: "EUR", ...options });
  return booksOf(org, token);
}

async function booksOf(org: Organization, token: string) {
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  const ok = async (method: string, path: string, body: unknown, status: number) => {
    const r = await api(method, path, body);
    expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
    return r.body?.data;
  };
  const chart = async () => {
    const r = await api("GET", "/api/v1/accounts?per_page=100");
    expect(r.status, r.text).toBe(200);
    return r.body.data as any[];
  };
  const accounts = await chart();
  const byCode = new Map(accounts.map((a) => [a.code, a]));
  const codeOf = new Map(accounts.map((a) => [a.id, a.code]));
  const rates = (await api("GET", "/api/v1/vat-rates")).body.data as any[];
  const rate = (percent: string) => rates.find((r) => r.rate === percent && r.category === "S")!;
  const customer = await ok("POST", "/api/v1/customers", { name: `${org.name} customer`, email: "c@example.test", country: "BE", currency: "EUR" }, 201);
  const banks = (await api("GET", "/api/v1/bank-accounts")).body.data as any[];

  const books = {
    org,
    token,
    api,
    ok,
    customer,
    rate,
    account: (code: string) => byCode.get(code)!,
    id: (code: string) => byCode.get(code)!.id as string,
    bank: banks[0],
    async refreshChart() {
      for (const a of await chart()) {
        byCode.set(a.code, a);
        codeOf.set(a.id, a.code);
      }
    },
    /** balance of each account code, as GET /accounts shows it */
    async balances(...codes: string[]) {
      const all = new Map((await chart()).map((a) => [a.code, a.balance]));
      return Object.fromEntries(codes.map((c) => [c, all.get(c)]));
    },
    async bankBalance(id = banks[0].id) {
      return (await ok("GET", `/api/v1/bank-accounts/${id}`, undefined, 200)).balance as string;
    },
    /** an entry's lines as [code, debit, credit] */
    lines: (entry: any) => entry.lines.map((l: any) => [codeOf.get(l.account_id), l.debit, l.credit]),
    async entries(query: string) {
      const r = await api("GET", `/api/v1/journal-entries?per_page=100&${query}`);
      expect(r.status, r.text).toBe(200);
      return r.body.data as any[];
    },
    async entriesOf(sourceType: string, sourceId: string) {
      return (await books.entries(`filter[source_type]=${sourceType}&filter[source_id]=${sourceId}&sort=created_at`)) as any[];
    },
    async draft(over: Record<string, unknown> = {}) {
      return ok(
        "POST",
        "/api/v1/invoices",
        { customer_id: customer.id, issue_date: "2026-03-01", lines: [{ description: "Consulting", quantity: "2", unit_price: "100.00", vat_rate_id: rate("21.00").id }], ...over },
        201,
      );
    },
    async invoice(over: Record<string, unknown> = {}) {
      const d = await books.draft(over);
      return ok("POST", `/api/v1/invoices/${d.id}/finalize`, undefined, 200);
    },
    async pay(invoiceId: string, amount: string, payment_date: string, extra: Record<string, unknown> = {}) {
      const inv = await ok("POST", `/api/v1/invoices/${invoiceId}/record-payment`, { amount, payment_date, ...extra }, 201);
      return { invoice: inv, payment: inv.payments.at(-1) };
    },
    async expense(body: Record<string, unknown>) {
      return ok("POST", "/api/v1/expenses", { category: "Travel", amount: "100.00", date: "2026-04-01", ...body }, 201);
    },
    async approvedExpense(body: Record<string, unknown>) {
      const e = await books.expense(body);
      return ok("POST", `/api/v1/expenses/${e.id}/approve`, undefined, 200);
    },
  };
  return books;
}

const expectStatus = (r: ApiResponse, status: number) => expect(r.status, r.text).toBe(status);

/** a bank account in another currency, added as `kontor bank-account add` does */
const addBank = (org: Organization, name: string, iban: string, currency: string) =>
  bankAccountService.add({ db: env.db, org, actor: CLI_ACTOR }, { name, iban, currency });

describe("a worked example: invoice, payment, credit note, refund", () => {
  let b: Books;
  let invoice: any;
  let payment: any;
  let note: any;
  beforeAll(async () => {
    b = await openBooks("Worked example");
  });

  test("the chart's system accounts and zero balances", async () => {
    const roles = Object.fromEntries(["1110", "1200", "1400", "2100", "2200", "3200", "4100", "6800", "6500"].map((c) => [c, b.account(c).system_account]));
    expect(roles).toEqual({
      "1110": "bank",
      "1200": "receivables",
      "1400": "vat_receivable",
      "2100": "payables",
      "2200": "vat_payable",
      "3200": "retained_earnings",
      "4100": "sales",
      "6800": "purchases",
      "6500": null,
    });
    expect(b.account("6800").name).toBe("General expenses");
    expect(await b.balances("1110", "1200", "4100")).toEqual({ "1110": "0.00", "1200": "0.00", "4100": "0.00" });
    expect(b.bank.account_id).toBe(b.id("1110"));
    expect(await b.bankBalance()).toBe("0.00");
  });

  test("finalizing posts receivables against sales and VAT per category and rate", async () => {
    invoice = await b.invoice({
      issue_date: "2026-03-01",
      lines: [
        { description: "Consulting", quantity: "2", unit_price: "100.00", vat_rate_id: b.rate("21.00").id },
        { description: "Books", quantity: "1", unit_price: "50.00", vat_rate_id: b.rate("6.00").id },
      ],
    });
    expect(invoice).toMatchObject({ subtotal: "250.00", vat_amount: "45.00", total: "295.00" });
    const [entry, ...rest] = await b.entriesOf("invoice", invoice.id);
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({
      date: "2026-03-01",
      number: "JE-2026-00001",
      description: `Invoice ${invoice.number}`,
      currency: "EUR",
      source_type: "invoice",
      source_id: invoice.id,
      reverses_entry_id: null,
      reversed_by_entry_id: null,
    });
    expect(b.lines(entry)).toEqual([
      ["1200", "295.00", "0.00"],
      ["4100", "0.00", "200.00"],
      ["2200", "0.00", "42.00"],
      ["4100", "0.00", "50.00"],
      ["2200", "0.00", "3.00"],
    ]);
    expect(entry.lines.map((l: any) => l.description)).toEqual([
      `Invoice ${invoice.number}`,
      "Sales, VAT S 21.00 %",
      "VAT S 21.00 %",
      "Sales, VAT S 6.00 %",
      "VAT S 6.00 %",
    ]);
    expect((await b.ok("GET", `/api/v1/journal-entries/${entry.id}`, undefined, 200))).toEqual(entry);
    expect(await b.balances("1200", "4100", "2200", "1110")).toEqual({ "1200": "295.00", "4100": "250.00", "2200": "45.00", "1110": "0.00" });
  });

  test("a payment posts bank against receivables, dated the payment date", async () => {
    ({ payment } = await b.pay(invoice.id, "100.00", "2026-03-10", { reference: "first part" }));
    expect(payment.bank_account_id).toBe(b.bank.id);
    const [entry] = await b.entriesOf("payment", payment.id);
    expect(entry).toMatchObject({
      date: "2026-03-10",
      source_type: "payment",
      source_id: payment.id,
      description: `Payment of invoice ${invoice.number} (first part)`,
    });
    expect(b.lines(entry)).toEqual([
      ["1110", "100.00", "0.00"],
      ["1200", "0.00", "100.00"],
    ]);
    expect(await b.balances("1200", "1110")).toEqual({ "1200": "195.00", "1110": "100.00" });
    expect(await b.bankBalance()).toBe("100.00");
  });

  test("a credit note posts the mirror image; its refund moves money out", async () => {
    const draft = await b.ok("POST", `/api/v1/invoices/${invoice.id}/credit-note`, undefined, 201);
    await b.ok("PUT", `/api/v1/invoices/${draft.id}`, { issue_date: "2026-03-15" }, 200);
    note = await b.ok("POST", `/api/v1/invoices/${draft.id}/finalize`, undefined, 200);
    expect(note).toMatchObject({ type: "credit_note", total: "295.00", issue_date: "2026-03-15" });
    const [entry] = await b.entriesOf("invoice", note.id);
    expect(entry).toMatchObject({ date: "2026-03-15", source_type: "invoice", source_id: note.id, description: `Credit note ${note.number}` });
    expect(b.lines(entry)).toEqual([
      ["1200", "0.00", "295.00"],
      ["4100", "200.00", "0.00"],
      ["2200", "42.00", "0.00"],
      ["4100", "50.00", "0.00"],
      ["2200", "3.00", "0.00"],
    ]);
    // receivables: 295 − 100 − 295: the customer is owed 100.00
    expect(await b.balances("1200", "4100", "2200", "1110")).toEqual({ "1200": "-100.00", "4100": "0.00", "2200": "0.00", "1110": "100.00" });

    const refund = await b.pay(note.id, "100.00", "2026-03-20");
    const [refundEntry] = await b.entriesOf("payment", refund.payment.id);
    expect(refundEntry).toMatchObject({ date: "2026-03-20", description: `Refund of credit note ${note.number}` });
    expect(b.lines(refundEntry)).toEqual([
      ["1110", "0.00", "100.00"],
      ["1200", "100.00", "0.00"],
    ]);
    expect(await b.balances("1200", "4100", "2200", "1110")).toEqual({ "1200": "0.00", "4100": "0.00", "2200": "0.00", "1110": "0.00" });
    expect(await b.bankBalance()).toBe("0.00");
  });

  test("entries are numbered per organisation and year, in order", async () => {
    const entries = await b.entries("sort=number");
    expect(entries.map((e) => e.number)).toEqual(["JE-2026-00001", "JE-2026-00002", "JE-2026-00003", "JE-2026-00004"]);
    // every entry balances
    for (const e of entries) {
      const cents = (s: string) => Math.round(Number(s) * 100);
      expect(e.lines.reduce((s: number, l: any) => s + cents(l.debit) - cents(l.credit), 0)).toBe(0);
    }
  });

  test("a line without a VAT rate posts at Z 0 %", async () => {
    const inv = await b.invoice({ issue_date: "2026-03-02", lines: [{ description: "Tip", quantity: "1", unit_price: "10.00" }] });
    const [entry] = await b.entriesOf("invoice", inv.id);
    expect(b.lines(entry)).toEqual([
      ["1200", "10.00", "0.00"],
      ["4100", "0.00", "10.00"],
    ]);
    // a zero VAT line is not written
    expect(entry.lines.map((l: any) => l.description)).toEqual([`Invoice ${inv.number}`, "Sales, VAT Z 0.00 %"]);
  });
});

describe("reversals: cancel and payment delete", () => {
  let b: Books;
  beforeAll(async () => {
    b = await openBooks("Reversals");
  });

  test("cancelling an invoice reverses its entry on the same date", async () => {
    const inv = await b.invoice({ issue_date: "2026-02-01" });
    expect(await b.balances("1200", "4100", "2200")).toEqual({ "1200": "242.00", "4100": "200.00", "2200": "42.00" });
    await b.ok("POST", `/api/v1/invoices/${inv.id}/cancel`, undefined, 200);
    const [original, reversal, ...rest] = await b.entriesOf("invoice", inv.id);
    expect(rest).toEqual([]);
    expect(original.reversed_by_entry_id).toBe(reversal.id);
    expect(reversal).toMatchObject({
      date: "2026-02-01",
      source_type: "invoice",
      source_id: inv.id,
      reverses_entry_id: original.id,
      reversed_by_entry_id: null,
      description: `Reversal of the entry of 2026-02-01: Invoice ${inv.number}`,
    });
    expect(b.lines(reversal)).toEqual([
      ["1200", "0.00", "242.00"],
      ["4100", "200.00", "0.00"],
      ["2200", "42.00", "0.00"],
    ]);
    expect(await b.balances("1200", "4100", "2200")).toEqual({ "1200": "0.00", "4100": "0.00", "2200": "0.00" });
  });

  test("deleting a payment reverses it on the payment's date", async () => {
    const inv = await b.invoice({ issue_date: "2026-02-02" });
    const { payment } = await b.pay(inv.id, "42.00", "2026-02-20");
    expect(await b.bankBalance()).toBe("42.00");
    expectStatus(await b.api("DELETE", `/api/v1/invoices/${inv.id}/payments/${payment.id}`), 204);
    const [posted, reversal] = await b.entriesOf("payment", payment.id);
    expect(reversal).toMatchObject({ date: "2026-02-20", reverses_entry_id: posted.id, source_id: payment.id });
    expect(b.lines(reversal)).toEqual([
      ["1110", "0.00", "42.00"],
      ["1200", "42.00", "0.00"],
    ]);
    expect(await b.balances("1200", "1110")).toEqual({ "1200": "242.00", "1110": "0.00" });
    expect(await b.bankBalance()).toBe("0.00");
  });

  test("a payment through a named bank account posts to that bank account's own ledger account", async () => {
    const second = await addBank(b.org, "Savings", "NL91ABNA0417164300", "EUR");
    await b.refreshChart();
    expect(b.account("1111")).toMatchObject({ id: second.account_id, system_account: "bank", name: "Savings", type: "asset" });
    const third = await addBank(b.org, "Reserve", "DE89370400440532013000", "EUR");
    expect(third.account_id).not.toBe(second.account_id);
    await b.refreshChart();
    expect(b.account("1112").id).toBe(third.account_id);

    const inv = await b.invoice({ issue_date: "2026-02-03" });
    const { payment } = await b.pay(inv.id, "10.00", "2026-02-21", { bank_account_id: second.id });
    expect(payment.bank_account_id).toBe(second.id);
    const [entry] = await b.entriesOf("payment", payment.id);
    expect(b.lines(entry)).toEqual([
      ["1111", "10.00", "0.00"],
      ["1200", "0.00", "10.00"],
    ]);
    expect(await b.bankBalance(second.id)).toBe("10.00");
    expect(await b.bankBalance()).toBe("0.00");

    // a bank account in another currency is refused for a EUR invoice
    const usd = await addBank(b.org, "Dollar account", "GB82WEST12345698765432", "USD");
    const r = await b.api("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "1.00", payment_date: "2026-02-22", bank_account_id: usd.id });
    expectStatus(r, 422);
    expect(Object.keys(r.body.errors)).toEqual(["bank_account_id"]);
  });
});

describe("the default bank account of a payment in another currency", () => {
  // DOUBTFUL/BUG: with no USD bank account, a USD payment defaults to the EUR default bank
  // account (ledger/accounts.ts defaultBankAccount: "else its default"), posting USD into its
  // ledger account 1110, which the bank account's EUR balance never shows; naming that same bank
  // account explicitly is a 422 ("holds EUR, not USD")
  test("a USD payment never moves through a EUR bank account", async () => {
    const b = await openBooks("Currency default");
    const usdCustomer = await b.ok("POST", "/api/v1/customers", { name: "Yankee", country: "US", currency: "USD" }, 201);
    const inv = await b.invoice({ customer_id: usdCustomer.id, lines: [{ description: "x", quantity: "1", unit_price: "100.00" }] });
    expect(inv.currency).toBe("USD");
    const r = await b.api("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "100.00", payment_date: "2026-03-02" });
    if (r.status === 201) {
      const bankId = r.body.data.payments[0].bank_account_id;
      if (bankId !== null) expect((await b.ok("GET", `/api/v1/bank-accounts/${bankId}`, undefined, 200)).currency).toBe("USD");
    } else {
      expectStatus(r, 422);
      expect(Object.keys(r.body.errors)).toEqual(["bank_account_id"]);
    }
  });
});

describe("the first bank account added after payments were recorded without one (issue 26 item 2)", () => {
  test("takes the chart's 1110, where those payments went, so its balance holds them; later accounts get 1111, …", async () => {
    const { org, token } = await env.newOrg("Late bank", { country: "BE", currency: "EUR", iban: null });
    const b = await booksOf(org, token);
    expect(b.bank).toBeUndefined();
    // 2 × 100.00 + 21 % = 242.00; 100.00 received before the organisation gave its account
    const inv = await b.invoice({ issue_date: "2026-03-01" });
    const early = await b.pay(inv.id, "100.00", "2026-03-05");
    expect(early.payment.bank_account_id).toBeNull();
    expect(await b.balances("1110")).toEqual({ "1110": "100.00" });

    const first = await addBank(org, "Current account", "BE68 5390 0754 7034", "EUR");
    expect(first.account_id).toBe(b.id("1110"));
    expect(await b.bankBalance(first.id)).toBe("100.00");
    // the rest, now through that account: the same ledger account, which holds all 242.00
    const late = await b.pay(inv.id, "142.00", "2026-03-10");
    expect(late.payment.bank_account_id).toBe(first.id);
    const [entry] = await b.entriesOf("payment", late.payment.id);
    expect(b.lines(entry)).toEqual([
      ["1110", "142.00", "0.00"],
      ["1200", "0.00", "142.00"],
    ]);
    expect(await b.bankBalance(first.id)).toBe("242.00");
    expect(await b.balances("1110", "1200")).toEqual({ "1110": "242.00", "1200": "0.00" });

    const second = await addBank(org, "Savings", "NL91ABNA0417164300", "EUR");
    await b.refreshChart();
    expect(b.account("1111").id).toBe(second.account_id);
  });
});

describe("expenses: approval and payments", () => {
  let b: Books;
  let usdBank: any;
  beforeAll(async () => {
    b = await openBooks("Expense books");
    usdBank = await addBank(b.org, "USD", "GB82WEST12345698765432", "USD");
  });

  test("approving posts the category's account and input VAT against payables", async () => {
    const e = await b.approvedExpense({ category: "Travel", amount: "100.00", vat_amount: "21.00", vendor: "NMBS", date: "2026-04-01" });
    expect(e).toMatchObject({ status: "approved", total: "121.00", amount_paid: "0.00", amount_due: "121.00", payments: [] });
    const [entry] = await b.entriesOf("expense", e.id);
    expect(entry).toMatchObject({ date: "2026-04-01", source_type: "expense", source_id: e.id, description: "Expense: Travel, NMBS" });
    expect(b.lines(entry)).toEqual([
      ["6500", "100.00", "0.00"],
      ["1400", "21.00", "0.00"],
      ["2100", "0.00", "121.00"],
    ]);
    expect(await b.balances("6500", "1400", "2100")).toEqual({ "6500": "100.00", "1400": "21.00", "2100": "121.00" });
  });

  test("categories are matched case-insensitively; an unknown one posts to 6800 General expenses", async () => {
    const cases: [string, string][] = [
      ["TRAVEL", "6500"],
      ["rent", "6200"],
      ["Office", "6400"],
      ["Gadgets", "6800"],
    ];
    for (const [category, code] of cases) {
      const e = await b.approvedExpense({ category, amount: "10.00", date: "2026-04-02" });
      const [entry] = await b.entriesOf("expense", e.id);
      // no VAT: the zero line is not written
      expect(b.lines(entry), category).toEqual([
        [code, "10.00", "0.00"],
        ["2100", "0.00", "10.00"],
      ]);
    }
  });

  test("a pending or rejected expense posts nothing and cannot be paid (409)", async () => {
    const pending = await b.expense({ amount: "20.00" });
    expect(await b.entriesOf("expense", pending.id)).toEqual([]);
    const r = await b.api("POST", `/api/v1/expenses/${pending.id}/record-payment`, { amount: "1.00", payment_date: "2026-04-03" });
    expectStatus(r, 409);
    expect(r.body.message).toContain("only an approved expense can be paid");
    const rejected = await b.expense({ amount: "20.00" });
    await b.ok("POST", `/api/v1/expenses/${rejected.id}/reject`, undefined, 200);
    expect(await b.entriesOf("expense", rejected.id)).toEqual([]);
    expectStatus(await b.api("POST", `/api/v1/expenses/${rejected.id}/record-payment`, { amount: "1.00", payment_date: "2026-04-03" }), 409);
  });

  test("record-payment: 201 with the expense, payables against the bank; more than due 422; another currency's bank 422", async () => {
    const e = await b.approvedExpense({ category: "Rent", amount: "500.00", vat_amount: "105.00", date: "2026-04-05" });
    const bankBefore = await b.bankBalance();
    const r = await b.api("POST", `/api/v1/expenses/${e.id}/record-payment`, { amount: "200.00", payment_date: "2026-04-10", reference: "April" });
    expectStatus(r, 201);
    expect(r.headers.get("location")).toBe(`/api/v1/expenses/${e.id}`);
    expect(r.body.data).toMatchObject({ id: e.id, total: "605.00", amount_paid: "200.00", amount_due: "405.00" });
    const [payment] = r.body.data.payments;
    expect(payment).toMatchObject({ amount: "200.00", payment_date: "2026-04-10", reference: "April", bank_account_id: b.bank.id, payment_method: "bank_transfer" });
    const [entry] = await b.entriesOf("expense_payment", payment.id);
    expect(entry).toMatchObject({ date: "2026-04-10", source_type: "expense_payment", description: "Payment of expense: Rent (April)" });
    expect(b.lines(entry)).toEqual([
      ["2100", "200.00", "0.00"],
      ["1110", "0.00", "200.00"],
    ]);
    expect(Number(await b.bankBalance())).toBe(Number(bankBefore) - 200);

    const tooMuch = await b.api("POST", `/api/v1/expenses/${e.id}/record-payment`, { amount: "405.01", payment_date: "2026-04-11" });
    expectStatus(tooMuch, 422);
    expect(tooMuch.body.errors).toEqual({ amount: ["The amount must not be greater than the amount due (405.00)."] });
    const otherCurrency = await b.api("POST", `/api/v1/expenses/${e.id}/record-payment`, { amount: "1.00", payment_date: "2026-04-11", bank_account_id: usdBank.id });
    expectStatus(otherCurrency, 422);
    expect(Object.keys(otherCurrency.body.errors)).toEqual(["bank_account_id"]);
    expect(otherCurrency.body.errors.bank_account_id[0]).toContain("USD");
    const foreign = await b.api("POST", `/api/v1/expenses/${e.id}/record-payment`, { amount: "1.00", payment_date: "2026-04-11", bank_account_id: newId() });
    expectStatus(foreign, 422);
    expect(Object.keys(foreign.body.errors)).toEqual(["bank_account_id"]);

    // the rest, exactly the amount due: paid in full
    const rest = await b.ok("POST", `/api/v1/expenses/${e.id}/record-payment`, { amount: "405.00", payment_date: "2026-04-12" }, 201);
    expect(rest).toMatchObject({ amount_paid: "605.00", amount_due: "0.00" });
    expect(rest.payments).toHaveLength(2);

    // deleting a payment: 204, reversed on its own date, amount due back
    expectStatus(await b.api("DELETE", `/api/v1/expenses/${e.id}/payments/${payment.id}`), 204);
    const [, reversal] = await b.entriesOf("expense_payment", payment.id);
    expect(reversal).toMatchObject({ date: "2026-04-10", reverses_entry_id: entry.id });
    expect(b.lines(reversal)).toEqual([
      ["2100", "0.00", "200.00"],
      ["1110", "200.00", "0.00"],
    ]);
    expect(await b.ok("GET", `/api/v1/expenses/${e.id}`, undefined, 200)).toMatchObject({ amount_paid: "405.00", amount_due: "200.00" });
    expectStatus(await b.api("DELETE", `/api/v1/expenses/${e.id}/payments/${payment.id}`), 404);
    expectStatus(await b.api("DELETE", `/api/v1/expenses/${e.id}/payments/${newId()}`), 404);
  });

  test("record-payment needs expenses.approve", async () => {
    const e = await b.approvedExpense({ amount: "10.00" });
    const viewer = await env.orgToken(["expenses.view", "expenses.create"], b.org);
    const r = await env.api("POST", `/api/v1/expenses/${e.id}/record-payment`, { amount: "1.00", payment_date: "2026-04-03" }, viewer);
    expectStatus(r, 403);
    expect(r.body.message).toBe("This action requires the expenses.approve ability.");
  });
});

describe("manual entries", () => {
  let b: Books;
  let other: Books;
  beforeAll(async () => {
    b = await openBooks("Manual entries");
    other = await openBooks("Someone else");
  });

  const entry = (lines: unknown[], over: Record<string, unknown> = {}) => ({ date: "2026-05-01", description: "Owner pays in capital", lines, ...over });

  test("each refused entry: 422 naming the field", async () => {
    const bank = b.id("1110");
    const capital = b.id("3100");
    const cases: [unknown, string][] = [
      [entry([{ account_id: bank, debit: "100.00" }]), "lines"],
      [entry([]), "lines"],
      [entry([{ account_id: bank, debit: "100.00" }, { account_id: capital, credit: "99.99" }]), "lines"],
      [entry([{ account_id: other.id("3100"), debit: "100.00" }, { account_id: capital, credit: "100.00" }]), "lines.0.account_id"],
      [entry([{ account_id: newId(), debit: "100.00" }, { account_id: capital, credit: "100.00" }]), "lines.0.account_id"],
      [entry([{ account_id: bank, debit: "100.00" }, { account_id: capital, debit: "100.00", credit: "100.00" }]), "lines.1"],
      [entry([{ account_id: bank, debit: "100.00" }, { account_id: capital }]), "lines.1"],
      [entry([{ account_id: bank, debit: "100.00" }, { account_id: capital, credit: "0.00" }]), "lines.1"],
      [entry([{ account_id: bank, debit: "100.00" }, { account_id: capital, credit: "100.001" }]), "lines.1.credit"],
      [entry([{ account_id: bank, debit: "100.00" }, { account_id: capital, credit: "100.00" }], { date: "2026-02-30" }), "date"],
      [entry([{ account_id: bank, debit: "100.00" }, { account_id: capital, credit: "100.00" }], { description: "  " }), "description"],
    ];
    for (const [body, field] of cases) {
      const r = await b.api("POST", "/api/v1/journal-entries", body);
      expect(r.status, `${field}: ${r.text}`).toBe(422);
      expect(Object.keys(r.body.errors), `${field}: ${r.text}`).toContain(field);
    }
    // an inactive account
    await raw.run("UPDATE accounts SET is_active = 0 WHERE id = ?", b.id("4900"));
    const inactive = await b.api("POST", "/api/v1/journal-entries", entry([{ account_id: b.id("4900"), credit: "5.00" }, { account_id: bank, debit: "5.00" }]));
    expectStatus(inactive, 422);
    expect(inactive.body.errors).toEqual({ "lines.0.account_id": ["The account 4900 Other income is not active."] });
    await raw.run("UPDATE accounts SET is_active = 1 WHERE id = ?", b.id("4900"));
    const unbalanced = await b.api("POST", "/api/v1/journal-entries", entry([{ account_id: bank, debit: "100.00" }, { account_id: capital, credit: "99.99" }]));
    expect(unbalanced.body.errors).toEqual({ lines: ["The entry does not balance: debits 100.00, credits 99.99."] });
    expect(await b.entries("")).toEqual([]);
  });

  test("201 with Location: a manual entry with its lines", async () => {
    const r = await b.api(
      "POST",
      "/api/v1/journal-entries",
      entry([
        { account_id: b.id("1110"), debit: "1000.00", description: "  Transfer in " },
        { account_id: b.id("3100"), credit: 600 },
        { account_id: b.id("2300"), credit: "400.00" },
      ]),
    );
    expectStatus(r, 201);
    expect(r.headers.get("location")).toBe(`/api/v1/journal-entries/${r.body.data.id}`);
    expect(r.body.data).toMatchObject({
      date: "2026-05-01",
      number: "JE-2026-00001",
      description: "Owner pays in capital",
      currency: "EUR",
      source_type: "manual",
      source_id: null,
      reverses_entry_id: null,
      reversed_by_entry_id: null,
    });
    expect(b.lines(r.body.data)).toEqual([
      ["1110", "1000.00", "0.00"],
      ["3100", "0.00", "600.00"],
      ["2300", "0.00", "400.00"],
    ]);
    expect(r.body.data.lines.map((l: any) => l.description)).toEqual(["Transfer in", null, null]);
    expect(await b.balances("1110", "3100", "2300")).toEqual({ "1110": "1000.00", "3100": "600.00", "2300": "400.00" });
    expect(await b.bankBalance()).toBe("1000.00");
    // another organisation neither sees it nor can reverse it
    expectStatus(await other.api("GET", `/api/v1/journal-entries/${r.body.data.id}`), 404);
    expectStatus(await other.api("POST", `/api/v1/journal-entries/${r.body.data.id}/reverse`), 404);
  });

  test("reverse: the mirror image, on the entry's date or the one asked; twice is a 409", async () => {
    const made = await b.ok("POST", "/api/v1/journal-entries", entry([{ account_id: b.id("6900"), debit: "12.50" }, { account_id: b.id("1110"), credit: "12.50" }], { description: "Bank fee" }), 201);
    const r = await b.api("POST", `/api/v1/journal-entries/${made.id}/reverse`);
    expectStatus(r, 201);
    expect(r.headers.get("location")).toBe(`/api/v1/journal-entries/${r.body.data.id}`);
    expect(r.body.data).toMatchObject({ date: "2026-05-01", source_type: "manual", source_id: null, reverses_entry_id: made.id, description: "Reversal of the entry of 2026-05-01: Bank fee" });
    expect(b.lines(r.body.data)).toEqual([
      ["6900", "0.00", "12.50"],
      ["1110", "12.50", "0.00"],
    ]);
    expect((await b.ok("GET", `/api/v1/journal-entries/${made.id}`, undefined, 200)).reversed_by_entry_id).toBe(r.body.data.id);
    const twice = await b.api("POST", `/api/v1/journal-entries/${made.id}/reverse`, { date: "2026-06-01" });
    expectStatus(twice, 409);
    expect(twice.body.message).toBe(`The entry ${made.number} is reversed already, by ${r.body.data.number}.`);

    const dated = await b.ok("POST", "/api/v1/journal-entries", entry([{ account_id: b.id("6900"), debit: "3.00" }, { account_id: b.id("1110"), credit: "3.00" }], { description: "Fee" }), 201);
    const later = await b.ok("POST", `/api/v1/journal-entries/${dated.id}/reverse`, { date: "2026-06-30" }, 201);
    expect(later).toMatchObject({ date: "2026-06-30", number: expect.stringMatching(/^JE-2026-\d{5}$/), reverses_entry_id: dated.id });
    const bad = await b.api("POST", `/api/v1/journal-entries/${dated.id}/reverse`, { date: "2026-13-01" });
    expectStatus(bad, 422);
    expectStatus(await b.api("POST", `/api/v1/journal-entries/${newId()}/reverse`), 404);
    expect(await b.balances("6900")).toEqual({ "6900": "0.00" });
  });

  test("an automatic entry cannot be reversed by hand: 409 saying how to correct it", async () => {
    const inv = await b.invoice({ issue_date: "2026-05-02" });
    const [invEntry] = await b.entriesOf("invoice", inv.id);
    const r = await b.api("POST", `/api/v1/journal-entries/${invEntry.id}/reverse`);
    expectStatus(r, 409);
    expect(r.body.message).toBe(`The entry ${invEntry.number} was posted by invoice ${inv.id}; to correct it, cancel the invoice, or credit it with a credit note.`);
    const { payment } = await b.pay(inv.id, "1.00", "2026-05-03");
    const [payEntry] = await b.entriesOf("payment", payment.id);
    const p = await b.api("POST", `/api/v1/journal-entries/${payEntry.id}/reverse`);
    expectStatus(p, 409);
    expect(p.body.message).toContain("delete the payment (DELETE /api/v1/invoices/{id}/payments/{pid})");
    const e = await b.approvedExpense({ amount: "5.00", date: "2026-05-04" });
    const [expEntry] = await b.entriesOf("expense", e.id);
    expectStatus(await b.api("POST", `/api/v1/journal-entries/${expEntry.id}/reverse`), 409);
    // nothing was posted by the refusals
    expect(await b.entriesOf("invoice", inv.id)).toHaveLength(1);
  });

  test("a reversal (itself a manual entry) can be reversed once: the original's lines again", async () => {
    const made = await b.ok("POST", "/api/v1/journal-entries", entry([{ account_id: b.id("6900"), debit: "1.00" }, { account_id: b.id("1110"), credit: "1.00" }]), 201);
    const reversal = await b.ok("POST", `/api/v1/journal-entries/${made.id}/reverse`, undefined, 201);
    const again = await b.api("POST", `/api/v1/journal-entries/${reversal.id}/reverse`);
    expectStatus(again, 201);
    expect(again.body.data.reverses_entry_id).toBe(reversal.id);
    expect(b.lines(again.body.data)).toEqual([
      ["6900", "1.00", "0.00"],
      ["1110", "0.00", "1.00"],
    ]);
    expectStatus(await b.api("POST", `/api/v1/journal-entries/${reversal.id}/reverse`), 409);
  });
});

describe("the database refuses what the code never writes", () => {
  let b: Books;
  let entryId: string;
  beforeAll(async () => {
    b = await openBooks("Raw SQL");
    const inv = await b.invoice({ issue_date: "2026-06-01" });
    entryId = (await b.entriesOf("invoice", inv.id))[0].id;
  });

  // outside a unit, each statement commits on its own; a unit (one transaction) groups them
  const line = (entry: string, account: string, debit: number, credit: number, orgId = b.org.id, date = "2026-06-02", db: Db = env.db) =>
    rawSql(db).run(
      "INSERT INTO journal_lines (id, organization_id, entry_id, line_no, account_id, date, currency, debit_cents, credit_cents) VALUES (?, ?, ?, ?, ?, ?, 'EUR', ?, ?)",
      newId(), orgId, entry, 1, account, date, debit, credit,
    );
  const header = (id: string, number: string, date = "2026-06-02", db: Db = env.db) =>
    rawSql(db).run(
      "INSERT INTO journal_entries (id, organization_id, number, date, description, currency, source_type, source_id, is_closing, created_at) VALUES (?, ?, ?, ?, 'raw', 'EUR', 'manual', NULL, 0, '2026-06-02T00:00:00.000000Z')",
      id, b.org.id, number, date,
    );
  const count = async (table: string) => (await raw.get<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE organization_id = ?`, b.org.id))!.n;
  /** A FOREIGN KEY failure, as each engine words it. */
  const FOREIGN_KEY = /FOREIGN KEY constraint failed|violates foreign key constraint/;

  test("a balanced entry written by hand goes in (the control)", async () => {
    const id = newId();
    await unitOfWork(env.db, async (tx) => {
      await line(id, b.id("1110"), 500, 0, b.org.id, "2026-06-02", tx);
      await line(id, b.id("3100"), 0, 500, b.org.id, "2026-06-02", tx);
      await header(id, "RAW-1", "2026-06-02", tx);
    });
    expect(await count("journal_entries")).toBe(2);
  });

  test("an entry whose lines do not balance", async () => {
    const before = await count("journal_lines");
    const id = newId();
    await expect(
      unitOfWork(env.db, async (tx) => {
        await line(id, b.id("1110"), 500, 0, b.org.id, "2026-06-02", tx);
        await line(id, b.id("3100"), 0, 499, b.org.id, "2026-06-02", tx);
        await header(id, "RAW-2", "2026-06-02", tx);
      }),
    ).rejects.toThrow(/debits equal its credits/);
    const single = newId();
    await expect(
      unitOfWork(env.db, async (tx) => {
        await line(single, b.id("1110"), 0, 0 + 1, b.org.id, "2026-06-02", tx);
        await header(single, "RAW-3", "2026-06-02", tx);
      }),
    ).rejects.toThrow(/at least two lines/);
    expect(await count("journal_lines")).toBe(before);
  });

  test("a line of another date than its header", async () => {
    const id = newId();
    await expect(
      unitOfWork(env.db, async (tx) => {
        await line(id, b.id("1110"), 500, 0, b.org.id, "2026-06-03", tx);
        await line(id, b.id("3100"), 0, 500, b.org.id, "2026-06-02", tx);
        await header(id, "RAW-4", "2026-06-02", tx);
      }),
    ).rejects.toThrow(/of its organisation, date and currency/);
  });

  test("a line added to an existing entry", async () => {
    await expect(line(entryId, b.id("1110"), 1, 0)).rejects.toThrow(/never changed/);
  });

  test("any UPDATE or DELETE of entries and lines", async () => {
    await expect(raw.run("UPDATE journal_entries SET description = 'edited' WHERE id = ?", entryId)).rejects.toThrow(/never changed/);
    await expect(raw.run("UPDATE journal_lines SET debit_cents = debit_cents + 1 WHERE entry_id = ?", entryId)).rejects.toThrow(/never changed/);
    await expect(raw.run("DELETE FROM journal_lines WHERE entry_id = ?", entryId)).rejects.toThrow(/never deleted/);
    await expect(raw.run("DELETE FROM journal_entries WHERE id = ?", entryId)).rejects.toThrow(/never deleted/);
    expect((await raw.get("SELECT description FROM journal_entries WHERE id = ?", entryId)).description).toMatch(/^Invoice /);
  });

  test("a line with both a debit and a credit, or a negative amount (CHECK)", async () => {
    for (const [debit, credit] of [[5, 5], [0, 0], [-5, 0]]) {
      const id = newId();
      await expect(
        unitOfWork(env.db, async (tx) => {
          await line(id, b.id("1110"), debit!, credit!, b.org.id, "2026-06-02", tx);
        }),
      ).rejects.toThrow(/CHECK constraint failed|violates check constraint/);
    }
  });

  test("a line whose header never comes fails at COMMIT (deferred foreign key)", async () => {
    const before = await count("journal_lines");
    let inserted = false;
    await expect(
      unitOfWork(env.db, async (tx) => {
        await line(newId(), b.id("1110"), 7, 0, b.org.id, "2026-06-02", tx);
        await line(newId(), b.id("3100"), 0, 7, b.org.id, "2026-06-02", tx);
        inserted = true; // both lines went in: the check waits for the COMMIT
      }),
    ).rejects.toThrow(FOREIGN_KEY);
    expect(inserted).toBe(true);
    expect(await count("journal_lines")).toBe(before);
  });

  test("only deleting the organisation removes its entries (cascade)", async () => {
    const gone = await env.newOrg("To be deleted", { country: "BE", currency: "EUR" });
    const accounts = await raw.all<{ id: string; code: string }>("SELECT id, code FROM accounts WHERE organization_id = ?", gone.org.id);
    const acc = (code: string) => accounts.find((a) => a.code === code)!.id;
    const id = newId();
    await unitOfWork(env.db, async (tx) => {
      await line(id, acc("1110"), 100, 0, gone.org.id, "2026-06-02", tx);
      await line(id, acc("3100"), 0, 100, gone.org.id, "2026-06-02", tx);
      await rawSql(tx).run(
        "INSERT INTO journal_entries (id, organization_id, number, date, description, currency, source_type, is_closing, created_at) VALUES (?, ?, 'X-1', '2026-06-02', 'raw', 'EUR', 'manual', 0, '2026-06-02T00:00:00.000000Z')",
        id, gone.org.id,
      );
    });
    expect((await raw.get("SELECT count(*) AS n FROM journal_lines WHERE organization_id = ?", gone.org.id)).n).toBe(2);
    await raw.run("DELETE FROM organizations WHERE id = ?", gone.org.id);
    expect((await raw.get("SELECT count(*) AS n FROM journal_lines WHERE organization_id = ?", gone.org.id)).n).toBe(0);
    expect((await raw.get("SELECT count(*) AS n FROM journal_entries WHERE organization_id = ?", gone.org.id)).n).toBe(0);
  });
});

describe("fiscal years", () => {
  let b: Books;
  let inv2024: any;
  let inv2025: any;
  let payment2025: any;
  let expensePaid2025: any;
  let expensePayment2025: any;
  let open2025: any; // finalized 2025 invoice, unpaid: for the cancel lock
  let draft2025: any;
  let pending2025: any;
  let hookId: string;

  beforeAll(async () => {
    b = await openBooks("Fiscal");
    const hook = await b.api("POST", "/api/v1/webhooks", { url: "https://hooks.example.com/fy", events: ["fiscal_year.closed", "fiscal_year.reopened"] });
    expectStatus(hook, 201);
    hookId = hook.body.data.id;
    inv2024 = await b.invoice({ issue_date: "2024-11-01", lines: [{ description: "Old work", quantity: "1", unit_price: "100.00", vat_rate_id: b.rate("21.00").id }] });
    inv2025 = await b.invoice({ issue_date: "2025-03-01", lines: [{ description: "Work", quantity: "10", unit_price: "100.00", vat_rate_id: b.rate("21.00").id }] });
    ({ payment: payment2025 } = await b.pay(inv2025.id, "100.00", "2025-04-01"));
    open2025 = await b.invoice({ issue_date: "2025-05-01", lines: [{ description: "More", quantity: "1", unit_price: "50.00" }] });
    expensePaid2025 = await b.approvedExpense({ category: "Travel", amount: "300.00", vat_amount: "63.00", date: "2025-06-01" });
    expensePayment2025 = (await b.ok("POST", `/api/v1/expenses/${expensePaid2025.id}/record-payment`, { amount: "10.00", payment_date: "2025-06-10" }, 201)).payments[0];
    draft2025 = await b.draft({ issue_date: "2025-07-01" });
    pending2025 = await b.expense({ date: "2025-08-01", amount: "20.00" });
  });

  test("the list: from the first posting to this year, each with its result", async () => {
    const r = await b.api("GET", "/api/v1/fiscal-years");
    expectStatus(r, 200);
    expect(r.body.data).toEqual([
      { year: 2024, start_date: "2024-01-01", end_date: "2024-12-31", status: "open", closed_at: null, result: "100.00", closing_entry_ids: [] },
      // 1000.00 + 50.00 of sales, 300.00 of travel
      { year: 2025, start_date: "2025-01-01", end_date: "2025-12-31", status: "open", closed_at: null, result: "750.00", closing_entry_ids: [] },
      { year: 2026, start_date: "2026-01-01", end_date: "2026-12-31", status: "open", closed_at: null, result: "0.00", closing_entry_ids: [] },
    ]);
    expect((await b.ok("GET", "/api/v1/fiscal-years/2025", undefined, 200)).result).toBe("750.00");
    for (const bad of ["25", "abcd", "1800", "2025-01"]) expectStatus(await b.api("GET", `/api/v1/fiscal-years/${bad}`), 404);
  });

  test("close refused: the current year, a future one, a year after an open year with postings", async () => {
    const current = await b.api("POST", "/api/v1/fiscal-years/2026/close");
    expectStatus(current, 409);
    expect(current.body.message).toBe("The fiscal year 2026 is open and has not ended yet (it ends on 2026-12-31).");
    expectStatus(await b.api("POST", "/api/v1/fiscal-years/2027/close"), 409);
    const order = await b.api("POST", "/api/v1/fiscal-years/2025/close");
    expectStatus(order, 409);
    expect(order.body.message).toBe("The fiscal year 2024 is open; years close in order: close 2024 first.");
    const reopenOpen = await b.api("POST", "/api/v1/fiscal-years/2024/reopen");
    expectStatus(reopenOpen, 409);
    expect(reopenOpen.body.message).toBe("The fiscal year 2024 is open; only a closed year can be reopened.");
    expect((await b.ok("GET", "/api/v1/fiscal-years/2025", undefined, 200)).status).toBe("open");
  });

  test("closing 2024 then 2025: closing entries to retained earnings; 409 when closed already", async () => {
    const y2024 = await b.ok("POST", "/api/v1/fiscal-years/2024/close", undefined, 200);
    expect(y2024).toMatchObject({ year: 2024, status: "closed", result: "100.00" });
    expect(y2024.closed_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const y2025 = await b.ok("POST", "/api/v1/fiscal-years/2025/close", undefined, 200);
    expect(y2025).toMatchObject({ year: 2025, status: "closed", result: "750.00" });
    expect(y2025.closing_entry_ids).toHaveLength(1);
    const closing = await b.ok("GET", `/api/v1/journal-entries/${y2025.closing_entry_ids[0]}`, undefined, 200);
    expect(closing).toMatchObject({ date: "2025-12-31", source_type: "fiscal_year", source_id: "2025", description: "Closing of the fiscal year 2025", currency: "EUR" });
    expect(b.lines(closing)).toEqual([
      ["4100", "1050.00", "0.00"],
      ["6500", "0.00", "300.00"],
      ["3200", "0.00", "750.00"],
    ]);
    // revenue and expense accounts are zero, the result sits in retained earnings (2024's too)
    expect(await b.balances("4100", "6500", "3200")).toEqual({ "4100": "0.00", "6500": "0.00", "3200": "850.00" });

    const again = await b.api("POST", "/api/v1/fiscal-years/2025/close");
    expectStatus(again, 409);
    expect(again.body.message).toBe("The fiscal year 2025 is closed already.");
    const reopen2024 = await b.api("POST", "/api/v1/fiscal-years/2024/reopen");
    expectStatus(reopen2024, 409);
    expect(reopen2024.body.message).toBe("The fiscal year 2025 is closed; years reopen in reverse order: reopen 2025 first.");

    const list = (await b.ok("GET", "/api/v1/fiscal-years", undefined, 200)) as any[];
    expect(list.map((y) => [y.year, y.status, y.result])).toEqual([
      [2024, "closed", "100.00"],
      [2025, "closed", "750.00"],
      [2026, "open", "0.00"],
    ]);
  });

  test("a closed year is locked: every kind of posting dated in it is a 409 naming the year, and changes nothing", async () => {
    const entriesBefore = (await b.entries("")).length;
    const refusals: [string, string, unknown][] = [
      ["POST", `/api/v1/invoices/${draft2025.id}/finalize`, undefined],
      ["POST", `/api/v1/invoices/${inv2025.id}/record-payment`, { amount: "1.00", payment_date: "2025-12-31" }],
      ["DELETE", `/api/v1/invoices/${inv2025.id}/payments/${payment2025.id}`, undefined],
      ["POST", `/api/v1/invoices/${open2025.id}/cancel`, undefined],
      ["POST", `/api/v1/expenses/${pending2025.id}/approve`, undefined],
      ["POST", `/api/v1/expenses/${expensePaid2025.id}/record-payment`, { amount: "1.00", payment_date: "2025-12-01" }],
      ["DELETE", `/api/v1/expenses/${expensePaid2025.id}/payments/${expensePayment2025.id}`, undefined],
      ["POST", "/api/v1/journal-entries", { date: "2025-12-31", description: "Late", lines: [{ account_id: b.id("1110"), debit: "1.00" }, { account_id: b.id("3100"), credit: "1.00" }] }],
    ];
    for (const [method, path, body] of refusals) {
      const r = await b.api(method, path, body);
      expect(r.status, `${method} ${path}: ${r.text}`).toBe(409);
      expect(r.body.message, path).toContain("fiscal year 2025 is closed");
      expect(r.body.message, path).toContain("Reopen the year first.");
    }
    expect((await b.entries("")).length).toBe(entriesBefore);
    expect((await b.ok("GET", `/api/v1/invoices/${draft2025.id}`, undefined, 200)).status).toBe("draft");
    expect((await b.ok("GET", `/api/v1/invoices/${open2025.id}`, undefined, 200)).status).toBe("finalized");
    expect((await b.ok("GET", `/api/v1/invoices/${inv2025.id}`, undefined, 200)).payments).toHaveLength(1);
    expect((await b.ok("GET", `/api/v1/expenses/${pending2025.id}`, undefined, 200)).status).toBe("pending");
    expect((await b.ok("GET", `/api/v1/expenses/${expensePaid2025.id}`, undefined, 200)).amount_paid).toBe("10.00");
    // 2024 is locked as well
    const old = await b.api("POST", `/api/v1/invoices/${inv2024.id}/record-payment`, { amount: "1.00", payment_date: "2024-12-31" });
    expectStatus(old, 409);
    expect(old.body.message).toContain("fiscal year 2024 is closed");
  });

  test("postings dated after the closed year are accepted (a 2025 invoice paid in 2026)", async () => {
    const { payment } = await b.pay(inv2025.id, "21.00", "2026-01-05");
    const [entry] = await b.entriesOf("payment", payment.id);
    expect(entry.date).toBe("2026-01-05");
  });

  test("the fiscal_year.closed webhook delivery carries the year as shown", async () => {
    const rows = await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hookId)).orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id));
    expect(rows.map((r) => r.event)).toEqual(["fiscal_year.closed", "fiscal_year.closed"]);
    const payload = JSON.parse(rows[1]!.payload);
    expect(payload.event).toBe("fiscal_year.closed");
    expect(payload.data).toEqual(await b.ok("GET", "/api/v1/fiscal-years/2025", undefined, 200));
  });

  test("another organisation's 2025 is its own", async () => {
    const other = await openBooks("Fiscal neighbour");
    await other.invoice({ issue_date: "2025-02-01" });
    await other.ok("POST", "/api/v1/fiscal-years/2025/close", undefined, 200);
    // ours: reopened below; closing theirs changed nothing of ours, and theirs locks only theirs
    const mine = await b.invoice({ issue_date: "2026-02-01" });
    expect(mine.status).toBe("finalized");
    expect((await other.ok("GET", "/api/v1/fiscal-years/2025", undefined, 200)).status).toBe("closed");
    const fresh = await openBooks("Fiscal third");
    const d = await fresh.invoice({ issue_date: "2025-02-01" });
    expect(d.status).toBe("finalized");
    expect((await fresh.ok("GET", "/api/v1/fiscal-years/2025", undefined, 200)).status).toBe("open");
  });

  test("reopening reverses the closing entries and unlocks the year", async () => {
    const closingId = (await b.ok("GET", "/api/v1/fiscal-years/2025", undefined, 200)).closing_entry_ids[0];
    const y = await b.ok("POST", "/api/v1/fiscal-years/2025/reopen", undefined, 200);
    expect(y).toMatchObject({ year: 2025, status: "open", closed_at: null, result: "750.00", closing_entry_ids: [] });
    const [closing, reversal] = await b.entriesOf("fiscal_year", "2025");
    expect(closing.id).toBe(closingId);
    expect(closing.reversed_by_entry_id).toBe(reversal.id);
    expect(reversal).toMatchObject({ date: "2025-12-31", reverses_entry_id: closingId });
    expect(b.lines(reversal)).toEqual([
      ["4100", "0.00", "1050.00"],
      ["6500", "300.00", "0.00"],
      ["3200", "750.00", "0.00"],
    ]);
    // 4100 to date: 1050.00 of 2025 (no longer closed) and 200.00 of the 2026 invoice above
    expect(await b.balances("4100", "6500", "3200")).toEqual({ "4100": "1250.00", "6500": "300.00", "3200": "100.00" });
    // unlocked: a 2025 draft can be finalized now
    const finalized = await b.ok("POST", `/api/v1/invoices/${draft2025.id}/finalize`, undefined, 200);
    expect(finalized.status).toBe("finalized");
    const again = await b.api("POST", "/api/v1/fiscal-years/2025/reopen");
    expectStatus(again, 409);
    // the webhook: closed twice (2024, 2025), reopened once
    const events = await env.db.select().from(webhookDeliveries).where(and(eq(webhookDeliveries.webhookId, hookId), eq(webhookDeliveries.event, "fiscal_year.reopened")));
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.payload).data).toMatchObject({ year: 2025, status: "open" });
    // closing again posts a fresh closing entry with the new result (1000 + 50 + 200 sales − 300)
    const closedAgain = await b.ok("POST", "/api/v1/fiscal-years/2025/close", undefined, 200);
    expect(closedAgain.result).toBe("950.00");
    const fresh = await b.ok("GET", `/api/v1/journal-entries/${closedAgain.closing_entry_ids[0]}`, undefined, 200);
    expect(b.lines(fresh)).toEqual([
      ["4100", "1250.00", "0.00"],
      ["6500", "0.00", "300.00"],
      ["3200", "0.00", "950.00"],
    ]);
  });
});

describe("the journal list", () => {
  let b: Books;
  let inv: any;
  let payment: any;
  beforeAll(async () => {
    b = await openBooks("Journal list");
    inv = await b.invoice({ issue_date: "2026-01-10" });
    ({ payment } = await b.pay(inv.id, "42.00", "2026-01-20"));
    await b.approvedExpense({ amount: "10.00", date: "2026-01-15" });
    await b.ok("POST", "/api/v1/journal-entries", { date: "2026-01-25", description: "Manual", lines: [{ account_id: b.id("1300"), debit: "5.00" }, { account_id: b.id("1110"), credit: "5.00" }] }, 201);
  });

  const dates = (entries: any[]) => entries.map((e) => `${e.date} ${e.source_type}`);

  test("sorted by -date by default", async () => {
    expect(dates(await b.entries(""))).toEqual(["2026-01-25 manual", "2026-01-20 payment", "2026-01-15 expense", "2026-01-10 invoice"]);
    expect(dates(await b.entries("sort=date"))).toEqual(["2026-01-10 invoice", "2026-01-15 expense", "2026-01-20 payment", "2026-01-25 manual"]);
  });

  test("each filter", async () => {
    expect(dates(await b.entries("filter[date_from]=2026-01-15&filter[date_to]=2026-01-20"))).toEqual(["2026-01-20 payment", "2026-01-15 expense"]);
    expect(dates(await b.entries(`filter[account_id]=${b.id("1110")}`))).toEqual(["2026-01-25 manual", "2026-01-20 payment"]);
    expect(dates(await b.entries(`filter[account_id]=${b.id("1200")}`))).toEqual(["2026-01-20 payment", "2026-01-10 invoice"]);
    expect(dates(await b.entries("filter[source_type]=expense"))).toEqual(["2026-01-15 expense"]);
    expect(dates(await b.entries(`filter[source_id]=${payment.id}`))).toEqual(["2026-01-20 payment"]);
    expect(dates(await b.entries(`filter[source_type]=invoice&filter[source_id]=${inv.id}`))).toEqual(["2026-01-10 invoice"]);
    expect(await b.entries(`filter[account_id]=${b.id("6200")}`)).toEqual([]);
    for (const bad of ["filter[date_from]=2026-02-30", "filter[source_type]=bogus", "filter[account_id]=nope", "sort=amount"]) {
      expectStatus(await b.api("GET", `/api/v1/journal-entries?${bad}`), 422);
    }
  });

  test("one account's journal: read from its lines, an entry with two lines on it once, with the date filters, by date, paged", async () => {
    // the invoice has one line per rate: two lines on 4100 Sales and two on 2200, one entry
    const mixed = await b.invoice({
      issue_date: "2026-01-12",
      lines: [
        { description: "A", quantity: 1, unit_price: "10.00", vat_rate_id: b.rate("21.00").id },
        { description: "B", quantity: 1, unit_price: "10.00", vat_rate_id: b.rate("6.00").id },
      ],
    });
    const sales = `filter[account_id]=${b.id("4100")}`;
    expect(dates(await b.entries(sales))).toEqual(["2026-01-12 invoice", "2026-01-10 invoice"]);
    expect(dates(await b.entries(`${sales}&sort=date`))).toEqual(["2026-01-10 invoice", "2026-01-12 invoice"]);
    expect(dates(await b.entries(`${sales}&filter[date_from]=2026-01-11`))).toEqual(["2026-01-12 invoice"]);
    expect(dates(await b.entries(`${sales}&filter[date_to]=2026-01-11`))).toEqual(["2026-01-10 invoice"]);
    const paged = await b.api("GET", `/api/v1/journal-entries?${sales}&per_page=1&page=2`);
    expect(paged.body.data.map((e: any) => e.source_id)).toEqual([inv.id]);
    expect(paged.body.meta).toMatchObject({ total: 2, last_page: 2, current_page: 2, per_page: 1 });
    expect((await b.api("GET", `/api/v1/journal-entries?${sales}&per_page=1`)).body.data[0].source_id).toBe(mixed.id);
    for (const [bad, key] of [["filter[source_type]=invoice", "filter.source_type"], ["sort=number", "sort"]]) {
      const r = await b.api("GET", `/api/v1/journal-entries?${sales}&${bad}`);
      expectStatus(r, 422);
      expect(Object.keys(r.body.errors)).toEqual([key]);
    }
  });
});

describe("abilities", () => {
  let b: Books;
  beforeAll(async () => {
    b = await openBooks("Abilities");
  });

  const refused = async (token: string, method: string, path: string, ability: string, body?: unknown) => {
    const r = await env.api(method, path, body, token);
    expect(r.status, `${method} ${path}: ${r.text}`).toBe(403);
    expect(r.body.message).toBe(`This action requires the ${ability} ability.`);
  };

  test("journal: view to read, create to post and reverse", async () => {
    const viewer = await env.orgToken(["accounting.view"], b.org);
    const body = { date: "2026-01-01", description: "x", lines: [{ account_id: b.id("1300"), debit: "1.00" }, { account_id: b.id("1110"), credit: "1.00" }] };
    await refused(viewer, "POST", "/api/v1/journal-entries", "accounting.create", body);
    const made = await b.ok("POST", "/api/v1/journal-entries", body, 201);
    await refused(viewer, "POST", `/api/v1/journal-entries/${made.id}/reverse`, "accounting.create");
    expectStatus(await env.api("GET", "/api/v1/journal-entries", undefined, viewer), 200);
    const nobody = await env.orgToken(["invoicing.view"], b.org);
    await refused(nobody, "GET", "/api/v1/journal-entries", "accounting.view");
    await refused(nobody, "GET", `/api/v1/journal-entries/${made.id}`, "accounting.view");
    await refused(nobody, "GET", "/api/v1/journal-entries/export?format=csv", "accounting.view");
    await refused(nobody, "GET", "/api/v1/fiscal-years", "accounting.view");
    const creator = await env.orgToken(["accounting.create"], b.org);
    expectStatus(await env.api("POST", "/api/v1/journal-entries", body, creator), 201);
  });

  test("close-year and reopen-year are abilities of their own", async () => {
    await b.invoice({ issue_date: "2025-01-10" });
    const accountant = await env.orgToken(["accounting.view", "accounting.create", "accounting.edit", "accounting.reopen-year"], b.org);
    await refused(accountant, "POST", "/api/v1/fiscal-years/2025/close", "accounting.close-year");
    const closer = await env.orgToken(["accounting.close-year"], b.org);
    expect((await env.api("POST", "/api/v1/fiscal-years/2025/close", undefined, closer)).status).toBe(200);
    await refused(closer, "POST", "/api/v1/fiscal-years/2025/reopen", "accounting.reopen-year");
    expect((await env.api("POST", "/api/v1/fiscal-years/2025/reopen", undefined, accountant)).status).toBe(200);
  });

  test("reports need reporting.view", async () => {
    const accountant = await env.orgToken(["accounting.view", "accounting.create"], b.org);
    for (const report of ["trial-balance", "profit-and-loss", "balance-sheet", "aged-receivables", "vat"]) {
      await refused(accountant, "GET", `/api/v1/reports/${report}`, "reporting.view");
    }
    const reader = await env.orgToken(["reporting.view"], b.org);
    expectStatus(await env.api("GET", "/api/v1/reports/trial-balance", undefined, reader), 200);
  });
});

describe("inputs that would break the books are refused (review)", () => {
  test("a date before 1900 or after 2999 is a 422 wherever a date is taken: the ledger's years close in order", async () => {
    const b = await openBooks("Ancient dates");
    const lines = [{ account_id: b.id("1300"), debit: "1.00" }, { account_id: b.id("3100"), credit: "1.00" }];
    for (const date of ["0001-01-01", "1899-12-31", "3000-01-01"]) {
      const r = await b.api("POST", "/api/v1/journal-entries", { date, description: "Too old", lines });
      expect(r.status, date).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual(["date"]);
    }
    expect((await b.api("POST", "/api/v1/journal-entries", { date: "1900-01-01", description: "Old enough", lines })).status).toBe(201);
    const fiscal = await b.api("GET", "/api/v1/fiscal-years");
    expect(fiscal.status).toBe(200);
    expect(fiscal.body.data[0]).toMatchObject({ year: 1900, start_date: "1900-01-01" });
  });

  test("a manual entry whose debits add up past 999 999 999 999.99 is a 422 on lines, never a float that rounds a cent away", async () => {
    const b = await openBooks("Huge entry");
    const big = "999999999999.99";
    const lines = [
      ...Array.from({ length: 91 }, () => ({ account_id: b.id("1300"), debit: big })),
      ...Array.from({ length: 90 }, () => ({ account_id: b.id("3100"), credit: big })),
      { account_id: b.id("3100"), credit: "999999999999.98" },
    ];
    const r = await b.api("POST", "/api/v1/journal-entries", { date: "2026-01-02", description: "Huge", lines });
    expect(r.status).toBe(422);
    expect(r.body.errors.lines[0]).toContain("must not be greater than 999999999999.99 in all");
  });
});

test("a year without postings between two that have some need not be closed first (review)", async () => {
  const b = await openBooks("Gap year");
  const lines = [{ account_id: b.id("1300"), debit: "1.00" }, { account_id: b.id("3100"), credit: "1.00" }];
  for (const date of ["2023-05-01", "2025-05-01"]) expect((await b.api("POST", "/api/v1/journal-entries", { date, description: "Cash", lines })).status).toBe(201);
  const early = await b.api("POST", "/api/v1/fiscal-years/2025/close");
  expectStatus(early, 409);
  expect(early.body.message).toBe("The fiscal year 2023 is open; years close in order: close 2023 first.");
  expect((await b.api("POST", "/api/v1/fiscal-years/2023/close")).status).toBe(200);
  // 2024 has no postings: nothing to close before 2025
  expect((await b.api("POST", "/api/v1/fiscal-years/2025/close")).body.data).toMatchObject({ year: 2025, status: "closed" });
});
