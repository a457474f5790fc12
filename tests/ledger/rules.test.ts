/**
 * The posting rules of server/ledger/rules.ts not covered by tests/ledger/posting-rules.test.ts: the bank
 * line booked to an account with its VAT (which side of the VAT report, base and VAT, a note when
 * the money goes the other way), suspense, the opening balance; and the readers, which gather a
 * rule's figures in the transaction: an invoice's allowances and charges (net and gross prices),
 * a line without a VAT rate, an interest note's late-payment income, an expense's VAT rate and
 * self-assessed rate, an expense payment that refunds an excess prepayment, a year's results and
 * a first statement's opening balance. Every figure is worked out by hand in the comments.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { expenses, invoices, organizations } from "../../db/schema.ts";
import { systemAccount, categoryAccount, lateIncomeAccountId, openingBalanceAccountId, supplierAdvancesAccountId } from "../../server/ledger/accounts.ts";
import type { EntryDraft } from "../../server/ledger/draft.ts";
import {
  bankLineEntry,
  bankLineSelfAssessment,
  expenseEntry,
  invoiceEntry,
  closingPostings,
  expensePaymentPosting,
  expensePosting,
  invoicePosting,
  openingBalanceEntry,
  openingBalancePosting,
  paymentPosting,
  readYearResults,
  selfAssessedLines,
  standardRateBp,
  suspenseEntry,
  type BankLineFigures,
} from "../../server/ledger/rules.ts";
import { snapshot } from "../../server/lib/scope.ts";
import { asTx, createTestEnv } from "../helpers.ts";
import { firstRow } from "../../db/client.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const cents = (draft: EntryDraft) => draft.lines.map((l) => [l.accountId, l.cents + 0]);
const tags = (draft: EntryDraft) => draft.lines.map((l) => (l.vat ? [l.vat.side, l.vat.role, l.vat.category, l.vat.rateBp, l.vat.note] : null));

describe("a bank line booked to an account", () => {
  const chart = { bank: "bank", account: "acc", vat: "vat" };
  const line = (over: Partial<BankLineFigures>): BankLineFigures => ({
    lineId: "line", entryId: "entry", date: "2026-03-31", currency: "EUR", direction: "debit", amountCents: 1210, description: "Bank fee", vat: { category: "S", rateBp: 2100, side: "purchases" }, ...over,
  });

  test("money out at 21 % on the purchases side: the account the net, the input VAT, the bank the gross", () => {
    // 12.10 gross at 21 %: VAT 12.10 × 21 / 121 = 2.10, net 10.00
    const draft = bankLineEntry(line({}), chart);
    expect(cents(draft)).toEqual([["bank", -1210], ["acc", 1000], ["vat", 210]]);
    expect(tags(draft)).toEqual([null, ["purchases", "base", "S", 2100, false], ["purchases", "vat", "S", 2100, false]]);
    expect(draft.lines.map((l) => l.description)).toEqual(["Bank fee", "Bank fee, VAT S 21.00 %", "VAT S 21.00 %"]);
    expect([draft.id, draft.date, draft.currency, draft.source]).toEqual(["entry", "2026-03-31", "EUR", { type: "bank_transaction", id: "line" }]);
  });

  test("money in on the purchases side (a fee refunded) is a note; on the sales side money in is a sale and money out a note", () => {
    expect(cents(bankLineEntry(line({ direction: "credit" }), chart))).toEqual([["bank", 1210], ["acc", -1000], ["vat", -210]]);
    expect(tags(bankLineEntry(line({ direction: "credit" }), chart)).map((t) => t?.[4])).toEqual([undefined, true, true]);
    const sale = { category: "S" as const, rateBp: 600, side: "sales" as const };
    // 10.60 gross at 6 %: VAT 10.60 × 6 / 106 = 0.60, net 10.00
    const paidIn = bankLineEntry(line({ direction: "credit", amountCents: 1060, vat: sale }), chart);
    expect(cents(paidIn)).toEqual([["bank", 1060], ["acc", -1000], ["vat", -60]]);
    expect(tags(paidIn)).toEqual([null, ["sales", "base", "S", 600, false], ["sales", "vat", "S", 600, false]]);
    expect(tags(bankLineEntry(line({ direction: "debit", amountCents: 1060, vat: sale }), chart)).map((t) => t?.[4])).toEqual([undefined, true, true]);
  });

  test("without a VAT rate, or without a VAT account: all of it to the account, untagged", () => {
    for (const draft of [bankLineEntry(line({ vat: null }), chart), bankLineEntry(line({}), { ...chart, vat: null })]) {
      expect(cents(draft)).toEqual([["bank", -1210], ["acc", 1210]]);
      expect(tags(draft)).toEqual([null, null]);
    }
  });

  test("bought at K: the VAT self-assessed at the standard rate, due and deductible; sold at K, none", () => {
    const selfAssessment = { rateBp: 2100, vatPayable: "vat-payable", vatReceivable: "vat-receivable" };
    // 100.00 at K (0 %): self-assessed 21.00 both ways
    const bought = bankLineEntry(line({ amountCents: 10_000, vat: { category: "K", rateBp: 0, side: "purchases" } }), { ...chart, selfAssessment });
    expect(cents(bought)).toEqual([["bank", -10_000], ["acc", 10_000], ["vat", 0], ["vat-receivable", 2100], ["vat-payable", -2100]]);
    expect(tags(bought).slice(3)).toEqual([["purchases", "self_assessed_deductible", "K", 0, false], ["purchases", "self_assessed_due", "K", 0, false]]);
    expect(bought.lines[3]!.description).toBe("Self-assessed VAT 21.00 %, VAT K 0.00 %, deductible");
    const sold = bankLineEntry(line({ direction: "credit", amountCents: 10_000, vat: { category: "K", rateBp: 0, side: "sales" } }), { ...chart, selfAssessment });
    expect(sold.lines).toHaveLength(3);
    // money back on a K purchase: both taken back
    const back = bankLineEntry(line({ direction: "credit", amountCents: 10_000, vat: { category: "K", rateBp: 0, side: "purchases" } }), { ...chart, selfAssessment });
    expect(cents(back).slice(3)).toEqual([["vat-receivable", -2100], ["vat-payable", 2100]]);
    // other categories self-assess nothing
    expect(selfAssessedLines(10_000, selfAssessment, { side: "purchases", category: "S", rateBp: 2100, note: false }, "")).toEqual([]);
    expect(selfAssessedLines(10_000, selfAssessment, { side: "purchases", category: "AE", rateBp: 0, note: false }, "")).toHaveLength(2);
  });
});

describe("suspense and the opening balance", () => {
  const chart = { bank: "bank", suspense: "susp" };
  const base = { lineId: "line", date: "2026-03-02", currency: "EUR", description: "Unknown" };

  test("money in: the bank debited, suspense credited; money out the reverse; a negative amount takes it back out", () => {
    const into = suspenseEntry({ ...base, direction: "credit", cents: 500 }, chart);
    expect([cents(into), into.description, into.lines[0]!.description]).toEqual([[["bank", 500], ["susp", -500]], "Into suspense: Unknown", "Into suspense: Unknown"]);
    expect(cents(suspenseEntry({ ...base, direction: "debit", cents: 500 }, chart))).toEqual([["bank", -500], ["susp", 500]]);
    const out = suspenseEntry({ ...base, direction: "credit", cents: -500, id: "e1" }, chart);
    expect([cents(out), out.description, out.id, out.source]).toEqual([[["bank", -500], ["susp", 500]], "Out of suspense: Unknown", "e1", { type: "bank_transaction", id: "line" }]);
    expect(cents(suspenseEntry({ ...base, direction: "debit", cents: -500 }, chart))).toEqual([["bank", 500], ["susp", -500]]);
    const long = suspenseEntry({ ...base, direction: "credit", cents: 1, description: "x".repeat(1200) }, chart);
    expect([long.description.length, long.lines[0]!.description!.length, long.lines[1]!.description!.length]).toEqual([1000, 1000, 1000]);
  });

  test("an opening balance: the bank against opening balances, on its date", () => {
    const draft = openingBalanceEntry({ statementId: "st", date: "2026-02-28", currency: "EUR", bankName: "KBC", cents: 12_345 }, { bank: "bank", openingBalance: "ob" });
    expect([cents(draft), draft.description, draft.date, draft.source]).toEqual([[["bank", 12_345], ["ob", -12_345]], "Opening balance of KBC", "2026-02-28", { type: "bank_statement", id: "st" }]);
  });
});

describe("the readers", () => {
  let org: Awaited<ReturnType<typeof env.newOrg>>;
  let rates: Record<string, string>;
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const r = await env.api(method, path, body, org.token);
    expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBe(status);
    return r.body?.data ?? r.body;
  };
  type Role = Parameters<typeof systemAccount>[2];
  // the system accounts' ids, read once the organisation exists: the expected postings name them
  const accountIds = new Map<Role, string>();
  const account = (role: Role) => accountIds.get(role)!;
  const row = async (id: string) => (await firstRow(env.db.select().from(invoices).where(eq(invoices.id, id))))!;
  let customer: any;

  beforeAll(async () => {
    org = await env.newOrg("Readers BV", { country: "BE", currency: "EUR" });
    rates = Object.fromEntries((await call("GET", "/api/v1/vat-rates")).map((r: any) => [`${r.category}:${r.rate}`, r.id]));
    customer = await call("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", vat_number: "BE0404795549" }, 201);
    for (const role of ["payables", "receivables", "sales", "vat_payable", "vat_receivable"] as const) accountIds.set(role, (await systemAccount(asTx(env.db), org.org.id, role)).id);
  });
  const invoice = async (body: Record<string, unknown>) => {
    const draft = await call("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-02", due_date: "2026-04-01", ...body }, 201);
    return call("POST", `/api/v1/invoices/${draft.id}/finalize`);
  };

  test("net prices with an allowance at 21 % and a charge at 6 %: sales and VAT per rate net of them", async () => {
    // 100.00 at 21 % less an allowance of 10.00 at 21 %: base 90.00, VAT 18.90; 50.00 at 6 % plus a charge of 5.00 at 6 %: base 55.00, VAT 3.30
    const inv = await invoice({
      lines: [{ description: "Beer", quantity: "1", unit_price: "100.00", vat_rate_id: rates["S:21.00"] }, { description: "Bread", quantity: "1", unit_price: "50.00", vat_rate_id: rates["S:6.00"] }],
      allowances_charges: [{ type: "allowance", amount: "10.00", reason: "Discount", vat_rate_id: rates["S:21.00"] }, { type: "charge", amount: "5.00", reason: "Freight", vat_rate_id: rates["S:6.00"] }],
    });
    expect(inv.total).toBe("167.20");
    const draft = await snapshot(env.db, async (tx) => invoicePosting(tx, await row(inv.id)));
    expect(cents(draft)).toEqual([[account("receivables"), 16_720], [account("sales"), -9000], [account("vat_payable"), -1890], [account("sales"), -5500], [account("vat_payable"), -330]]);
    expect(tags(draft).slice(1).map((t) => [t![1], t![2], t![3]])).toEqual([["base", "S", 2100], ["vat", "S", 2100], ["base", "S", 600], ["vat", "S", 600]]);
  });

  test("gross prices: net and VAT derived per rate, an allowance included", async () => {
    // 121.00 gross at 21 % less 12.10 gross: 108.90 gross, VAT 108.90 × 21 / 121 = 18.90, net 90.00
    const inv = await invoice({
      prices_include_vat: true,
      lines: [{ description: "Beer", quantity: "1", unit_price: "121.00", vat_rate_id: rates["S:21.00"] }],
      allowances_charges: [{ type: "allowance", amount: "12.10", reason: "Discount", vat_rate_id: rates["S:21.00"] }],
    });
    expect(inv.total).toBe("108.90");
    expect(cents(await snapshot(env.db, async (tx) => invoicePosting(tx, await row(inv.id))))).toEqual([[account("receivables"), 10_890], [account("sales"), -9000], [account("vat_payable"), -1890]]);
    // gross prices without allowances: the lines alone
    const plain = await invoice({ prices_include_vat: true, lines: [{ description: "Beer", quantity: "2", unit_price: "12.10", vat_rate_id: rates["S:21.00"] }] });
    // 24.20 gross at 21 %: VAT 4.20, net 20.00
    expect(cents(await snapshot(env.db, async (tx) => invoicePosting(tx, await row(plain.id))))).toEqual([[account("receivables"), 2420], [account("sales"), -2000], [account("vat_payable"), -420]]);
  });

  test("a line without a VAT rate is zero rated (Z, 0 %); an interest note posts to late-payment income, untagged", async () => {
    const inv = await invoice({ lines: [{ description: "Work", quantity: "1", unit_price: "1000.00" }] });
    const draft = await snapshot(env.db, async (tx) => invoicePosting(tx, await row(inv.id)));
    expect(cents(draft)).toEqual([[account("receivables"), 100_000], [account("sales"), -100_000], [account("vat_payable"), 0]]);
    expect(tags(draft)[1]).toEqual(["sales", "base", "Z", 0, false]);
    // 2026-04-02 to 2026-04-30: 29 days on 1000.00 at 10.50 %: 100000 × 1050 × 29 / 3 650 000 = 834.25 → 8.34, and 40.00
    const note = await call("POST", `/api/v1/invoices/${inv.id}/interest-note`, { as_of: "2026-04-30" }, 201);
    expect(note.total).toBe("48.34");
    const income = await snapshot(env.db, (tx) => lateIncomeAccountId(tx, org.org.id));
    const posted = await snapshot(env.db, async (tx) => invoicePosting(tx, await row(note.id)));
    expect([cents(posted), tags(posted)]).toEqual([[[await account("receivables"), 4834], [income, -4834]], [null, null]]);
  });

  test("a payment: the bank against receivables", async () => {
    const inv = await invoice({ lines: [{ description: "Work", quantity: "1", unit_price: "10.00" }] });
    const draft = await snapshot(env.db, async (tx) => paymentPosting(tx, await row(inv.id), { id: "p", invoiceId: inv.id, amountCents: 1000, paymentDate: "2026-03-05", reference: null } as any, "bank"));
    expect(cents(draft)).toEqual([["bank", 1000], [await account("receivables"), -1000]]);
  });

  const expense = async (body: Record<string, unknown>) => {
    const created = await call("POST", "/api/v1/expenses", { category: "Travel", date: "2026-03-03", ...body }, 201);
    return (await firstRow(env.db.select().from(expenses).where(eq(expenses.id, created.id))))!;
  };

  test("an expense at its VAT rate's category and rate; without one at its effective rate", async () => {
    const travel = await snapshot(env.db, async (tx) => (await categoryAccount(tx, org.org.id, "Travel")).id);
    const at6 = await expense({ amount: "100.00", vat_amount: "6.00", vat_rate_id: rates["S:6.00"] });
    const draft = await snapshot(env.db, (tx) => expensePosting(tx, at6));
    expect(cents(draft)).toEqual([[travel, 10_000], [account("vat_receivable"), 600], [account("payables"), -10_600]]);
    expect(tags(draft)[0]).toEqual(["purchases", "base", "S", 600, false]);
    // 12.00 on 100.00, no rate named: S at 12.00 %
    const effective = await snapshot(env.db, (tx) => expensePosting(tx, { ...at6, vatRateId: null, vatCents: 1200 }));
    expect(tags(effective)[0]).toEqual(["purchases", "base", "S", 1200, false]);
  });

  test("reverse charged: self-assessed at the rate the expense names, else the organisation's standard rate (its highest S)", async () => {
    expect(await snapshot(env.db, (tx) => standardRateBp(tx, org.org.id))).toBe(2100);
    // an organisation without an S rate: 21 %
    expect(await snapshot(env.db, (tx) => standardRateBp(tx, "no-such-org"))).toBe(2100);
    // a German organisation's standard rate: 19 %
    const de = await env.newOrg("Standard GmbH", { country: "DE", currency: "EUR" });
    expect(await snapshot(env.db, (tx) => standardRateBp(tx, de.org.id))).toBe(1900);
    const k = Object.entries(rates).find(([key]) => key.startsWith("K:"))![1];
    const rc = await expense({ amount: "100.00", vat_amount: "0.00", vat_rate_id: k });
    // 100.00 at 21 %: 21.00 due and deductible
    const standard = await snapshot(env.db, (tx) => expensePosting(tx, rc));
    expect(standard.lines.filter((l) => l.vat?.role?.startsWith("self_assessed")).map((l) => [l.accountId, l.cents])).toEqual([[account("vat_receivable"), 2100], [account("vat_payable"), -2100]]);
    // named 6 %: 6.00
    const named = await snapshot(env.db, (tx) => expensePosting(tx, { ...rc, selfAssessedVatRateId: rates["S:6.00"]! }));
    expect(named.lines.filter((l) => l.vat?.role === "self_assessed_due").map((l) => l.cents)).toEqual([-600]);
    expect(await snapshot(env.db, (tx) => bankLineSelfAssessment(tx, org.org.id))).toEqual({ rateBp: 2100, vatPayable: await account("vat_payable"), vatReceivable: await account("vat_receivable") });
  });

  test("an expense with a prepaid amount settles the advance to the supplier", async () => {
    const e = await expense({ amount: "100.00", vat_amount: "21.00", vat_rate_id: rates["S:21.00"] });
    const advances = await snapshot(env.db, (tx) => supplierAdvancesAccountId(tx, org.org.id));
    // 121.00 of which 50.00 prepaid: payables credited 121.00, debited 50.00 against the advance
    const draft = await snapshot(env.db, (tx) => expensePosting(tx, { ...e, prepaidCents: 5000 }));
    expect(cents(draft).slice(3)).toEqual([[await account("payables"), 5000], [advances, -5000]]);
    expect(await (await snapshot(env.db, (tx) => expensePosting(tx, e))).lines).toHaveLength(3);
  });

  test("an expense payment: payables against the bank; more prepaid than the total, the supplier's refund of the excess the other way", async () => {
    const e = await expense({ amount: "100.00", vat_amount: "21.00", vat_rate_id: rates["S:21.00"] });
    const payment = { id: "p", amountCents: 12_100, paymentDate: "2026-03-10", reference: null };
    expect(cents(await snapshot(env.db, (tx) => expensePaymentPosting(tx, e, payment, "bank")))).toEqual([[await account("payables"), 12_100], ["bank", -12_100]]);
    // 121.00 prepaid 150.00: 29.00 comes back
    const refund = await snapshot(env.db, (tx) => expensePaymentPosting(tx, { ...e, prepaidCents: 15_000 }, { ...payment, amountCents: 2900 }, "bank"));
    expect([cents(refund), refund.description]).toEqual([[[await account("payables"), -2900], ["bank", 2900]], "Refund of expense: Travel"]);
    // exactly prepaid: nothing to refund, a payment
    expect(await (await snapshot(env.db, (tx) => expensePaymentPosting(tx, { ...e, prepaidCents: 12_100 }, payment, "bank"))).description).toBe("Payment of expense: Travel");
    // rounding counts: 121.00 + 0.02 rounding − 121.01 prepaid is still 0.01 to pay
    expect(await (await snapshot(env.db, (tx) => expensePaymentPosting(tx, { ...e, prepaidCents: 12_101, roundingCents: 2 }, payment, "bank"))).description).toBe("Payment of expense: Travel");
  });

  test("a year's results: only revenue and expense accounts, only the year's days, closed into retained earnings", async () => {
    const o = await env.newOrg("Year BV", { country: "BE", currency: "EUR" });
    const c = (await env.api("POST", "/api/v1/customers", { name: "C", country: "BE" }, o.token)).body.data;
    const issue = async (date: string, price: string) => {
      const d = (await env.api("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: date, lines: [{ description: "W", quantity: "1", unit_price: price }] }, o.token)).body.data;
      expect((await env.api("POST", `/api/v1/invoices/${d.id}/finalize`, undefined, o.token)).status).toBe(200);
    };
    await issue("2025-01-01", "100.00");
    await issue("2025-12-31", "50.00");
    await issue("2026-01-01", "7.00");
    // an approved expense of 2025: 30.00 to Travel (no VAT)
    const e = (await env.api("POST", "/api/v1/expenses", { category: "Travel", amount: "30.00", date: "2025-06-30" }, o.token)).body.data;
    expect((await env.api("POST", `/api/v1/expenses/${e.id}/approve`, undefined, o.token)).status).toBe(200);
    const travel = await snapshot(env.db, async (tx) => (await categoryAccount(tx, o.org.id, "Travel")).id);
    const sales = await snapshot(env.db, async (tx) => (await systemAccount(tx, o.org.id, "sales")).id);
    // 2025: 150.00 of sales (a credit balance), no expense; receivables are not a result
    const results = await snapshot(env.db, (tx) => readYearResults(tx, o.org.id, "2025-01-01", "2025-12-31"));
    expect(results.sort((a, b) => a.net - b.net)).toEqual([{ accountId: sales, currency: "EUR", net: -15_000 }, { accountId: travel, currency: "EUR", net: 3000 }]);
    const [closing] = await snapshot(env.db, (tx) => closingPostings(tx, o.org.id, { year: 2025, start: "2025-01-01", end: "2025-12-31" }));
    const retained = await snapshot(env.db, async (tx) => (await systemAccount(tx, o.org.id, "retained_earnings")).id);
    // a profit of 120.00: retained earnings credited
    expect([closing!.date, cents(closing!).sort()]).toEqual(["2025-12-31", [[sales, 15_000], [travel, -3000], [retained, -12_000]].sort()]);
    // a year ending on 30 December (its last day the entry's date): without the invoice of the 31st
    const [short] = await snapshot(env.db, (tx) => closingPostings(tx, o.org.id, { year: 2025, start: "2025-01-01", end: "2025-12-30" }));
    expect([short!.date, cents(short!).sort()]).toEqual(["2025-12-30", [[sales, 10_000], [travel, -3000], [retained, -7000]].sort()]);
  });

  test("a first statement's opening balance: less what the books hold the day before, dated then; nothing when they agree", async () => {
    const o = await env.newOrg("Opening BV", { country: "BE", currency: "EUR" });
    const bankAccount = (await env.api("GET", "/api/v1/bank-accounts", undefined, o.token)).body.data[0];
    const bank = { organizationId: o.org.id, accountId: bankAccount.account_id as string, currency: "EUR", name: "KBC" };
    const c = (await env.api("POST", "/api/v1/customers", { name: "C", country: "BE" }, o.token)).body.data;
    const d = (await env.api("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2026-03-02", lines: [{ description: "W", quantity: "1", unit_price: "30.00" }] }, o.token)).body.data;
    await env.api("POST", `/api/v1/invoices/${d.id}/finalize`, undefined, o.token);
    const paid = await env.api("POST", `/api/v1/invoices/${d.id}/record-payment`, { amount: "30.00", payment_date: "2026-03-05", payment_method: "bank_transfer", bank_account_id: bankAccount.id }, o.token);
    expect(paid.status, paid.text).toBe(201);
    const ob = await snapshot(env.db, (tx) => openingBalanceAccountId(tx, o.org.id));
    // the statement opens on 10 March with 100.00; the books hold 30.00 on the 9th: 70.00
    const draft = (await snapshot(env.db, (tx) => openingBalancePosting(tx, bank, { statementId: "st", cents: 10_000, date: "2026-03-10" })))!;
    expect([draft.date, cents(draft)]).toEqual(["2026-03-09", [[bank.accountId, 7000], [ob, -7000]]]);
    // opening on the day of the payment: it is not held yet the day before
    expect(cents((await snapshot(env.db, (tx) => openingBalancePosting(tx, bank, { statementId: "st", cents: 10_000, date: "2026-03-05" })))!)).toEqual([[bank.accountId, 10_000], [ob, -10_000]]);
    expect(await snapshot(env.db, (tx) => openingBalancePosting(tx, bank, { statementId: "st", cents: 3000, date: "2026-03-10" }))).toBeNull();
    // a new company's first statement on its first day: dated that day, not the day before its first year
    await env.db.update(organizations).set({ firstFiscalYearStart: "2026-03-01", firstFiscalYearEnd: "2026-12-31" }).where(eq(organizations.id, o.org.id));
    expect((await snapshot(env.db, (tx) => openingBalancePosting(tx, bank, { statementId: "st", cents: 500, date: "2026-03-01" })))!.date).toBe("2026-03-01");
    expect((await snapshot(env.db, (tx) => openingBalancePosting(tx, bank, { statementId: "st", cents: 500, date: "2026-03-02" })))!.date).toBe("2026-03-01");
    // before the first year: the day before, as ever
    expect((await snapshot(env.db, (tx) => openingBalancePosting(tx, bank, { statementId: "st", cents: 500, date: "2026-02-20" })))!.date).toBe("2026-02-19");
  });
});

describe("expense and interest note entries, the edges", () => {
  const chart = { expense: "exp", vatReceivable: "vat-in", payables: "pay", supplierAdvances: "adv" };
  const expense = {
    id: "e", documentType: "invoice" as const, category: "Travel", vendor: "SNCB", description: null, date: "2026-03-03", currency: "EUR",
    amountCents: 10_000, vatCents: 2100, prepaidCents: 0, roundingCents: 0, vatLines: [], vatRate: { category: "S" as const, rateBp: 2100 },
  };

  test("a rounding of 2 cents (BT-114) is cost and payable; a supplier's credit note takes it back", () => {
    expect(cents(expenseEntry({ ...expense, roundingCents: 2 }, chart)).slice(3)).toEqual([["exp", 2], ["pay", -2]]);
    expect(cents(expenseEntry({ ...expense, documentType: "credit_note", roundingCents: 2 }, chart)).slice(3)).toEqual([["exp", -2], ["pay", 2]]);
  });

  test("a prepaid amount without an advances account is refused", () => {
    expect(() => expenseEntry({ ...expense, prepaidCents: 5000 }, { ...chart, supplierAdvances: null })).toThrow("expenseEntry: a prepaid amount needs the advances to suppliers account");
  });

  test("an interest note's entry: named as one, its source the note, its income line said", () => {
    const draft = invoiceEntry({ id: "n", type: "interest_note", number: "INT-2026-00001", issueDate: "2026-04-30", currency: "EUR", totalCents: 4834, vatLines: [] }, { receivables: "rec", sales: "sales", vatPayable: "vat", lateIncome: "late" });
    expect([draft.description, draft.source, draft.date, draft.currency]).toEqual(["Interest note INT-2026-00001", { type: "invoice", id: "n" }, "2026-04-30", "EUR"]);
    expect(draft.lines.map((l) => [l.accountId, l.cents, l.description])).toEqual([["rec", 4834, "Interest note INT-2026-00001"], ["late", -4834, "Late-payment interest and compensation"]]);
  });
});
