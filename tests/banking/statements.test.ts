/**
 * Bank statements and reconciliation (issue 20, parts 2–4), driven through the API with the
 * CAMT.053 fixtures (validated against the XSD in tests/inbound) and their CODA twins:
 * statement 1 pays three invoices by structured reference (one partly), carries an unknown
 * reference (left unmatched) and a supplier's debit (suggested, not applied); statement 2 pays
 * the rest and must chain on from statement 1's closing balance. After every import the ledger
 * invariants hold: the bank account's balance is its ledger account's, which is what Kontor
 * recorded through it; receivables are the amounts due of open invoices; every entry balances.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { accounts, bankTransactions, expenses, invoices, journalLines, payments, webhookDeliveries } from "../../db/schema.ts";
import { bankAccountService } from "../../server/bank-accounts/service.ts";
import type { Organization } from "../../server/lib/scope.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { listVatRates } from "../../server/vat-rates/service.ts";
import { createTestEnv, asTx } from "../helpers.ts";
import { slowListSteps } from "../query-plan.ts";
import { sqliteOnly } from "../raw-sql.ts";
import { firstRow } from "../../db/client.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const FIXTURES = join(import.meta.dir, "..", "inbound", "fixtures");
const fixture = (name: string) => readFileSync(join(FIXTURES, name));
const IBAN = "BE71096123456769";
// the references of the fixtures (tests/inbound/expected-statements.ts)
const REFERENCES = ["+++202/6000/10195+++", "+++202/6000/10296+++", "+++202/6000/10397+++"];
// statement 1 opens with 1000.00 (the fixtures' OPBD / CODA record 1)
const OPENING_CENTS = 100000;

type Books = { org: Organization; token: string; bankId: string; invoiceIds: string[] };

/** An organisation with the fixtures' bank account and three finalized invoices (1210.00, 605.00, 726.00) carrying the fixtures' references. */
async function books(name: string): Promise<Books> {
  const { org, token } = await env.newOrg(name, { country: "BE", currency: "EUR" });
  // the seeded bank account has the fixtures' IBAN
  const bank = (await env.api("GET", "/api/v1/bank-accounts", undefined, token)).body.data.find((a: any) => a.iban === IBAN);
  const rate21 = (await listVatRates(asTx(env.db), org.id)).find((r) => r.rateBp === 2100)!;
  const customer = await env.api("POST", "/api/v1/customers", { name: "Brasserie De Kroon BV" }, token);
  const invoiceIds: string[] = [];
  for (const [i, price] of ["1000.00", "500.00", "600.00"].entries()) {
    const created = await env.api("POST", "/api/v1/invoices", { customer_id: customer.body.data.id, issue_date: "2026-02-01", lines: [{ description: "Beer", quantity: "1", unit_price: price, vat_rate_id: rate21.id }] }, token);
    const id = created.body.data.id;
    expect((await env.api("POST", `/api/v1/invoices/${id}/finalize`, undefined, token)).status).toBe(200);
    await env.db.update(invoices).set({ paymentReference: REFERENCES[i] }).where(eq(invoices.id, id));
    invoiceIds.push(id);
  }
  return { org, token, bankId: bank.id, invoiceIds };
}

const contentTypes: Record<string, string> = { xml: "application/xml", coda: "text/plain" };
function importStatement(b: Books, file: string, token = b.token, bankId = b.bankId) {
  return env.request("POST", `/api/v1/bank-accounts/${bankId}/statements`, {
    rawBody: fixture(file) as unknown as string,
    token,
    headers: { "content-type": contentTypes[file.split(".").pop()!]! },
  });
}

const invoice = async (b: Books, i: number) => (await env.api("GET", `/api/v1/invoices/${b.invoiceIds[i]}`, undefined, b.token)).body.data;

/**
 * The ledger invariants of issues 20 and 27, read from the database and the API. `openingCents`:
 * the first statement's opening balance once one is imported (issue 27: posted as the opening entry).
 */
/**
 * `suspenseCents`: the lines nothing holds (unmatched, ignored), money in positive: they are in the
 * bank account's balance against the suspense account (docs/banking.md#suspense), so that the
 * balance is the bank's closing balance.
 */
async function assertLedger(b: Books, expectedBankCents: number, openingCents = OPENING_CENTS, suspenseCents = 0) {
  const orgId = b.org.id;
  // every journal entry balances
  const unbalanced = (await env.db
    .select({ entry: journalLines.entryId, net: sql<number>`sum(${journalLines.debitCents}) - sum(${journalLines.creditCents})` })
    .from(journalLines)
    .where(eq(journalLines.organizationId, orgId))
    .groupBy(journalLines.entryId))
    .filter((e) => e.net !== 0);
  expect(unbalanced).toEqual([]);
  const balanceOf = async (accountId: string) =>
    (await firstRow(env.db
      .select({ net: sql<number>`coalesce(sum(${journalLines.debitCents}) - sum(${journalLines.creditCents}), 0)` })
      .from(journalLines)
      .where(and(eq(journalLines.organizationId, orgId), eq(journalLines.accountId, accountId)))))!.net;
  // the bank account's balance is its ledger account's: its opening balance and what Kontor recorded through it
  const bank = (await env.api("GET", `/api/v1/bank-accounts/${b.bankId}`, undefined, b.token)).body.data;
  expect(await balanceOf(bank.account_id)).toBe(openingCents + expectedBankCents + suspenseCents);
  expect(bank.balance).toBe(((openingCents + expectedBankCents + suspenseCents) / 100).toFixed(2));
  const suspense = (await firstRow(env.db.select().from(accounts).where(and(eq(accounts.organizationId, orgId), eq(accounts.systemAccount, "suspense")))))!;
  expect(await balanceOf(suspense.id)).toBe(0 - suspenseCents);
  const recorded = (await firstRow(env.db
    .select({ sum: sql<number>`coalesce(sum(${payments.amountCents}), 0)` })
    .from(payments)
    .where(and(eq(payments.organizationId, orgId), eq(payments.bankAccountId, b.bankId)))))!.sum;
  expect(recorded).toBe(expectedBankCents);
  // receivables = Σ amount due of open invoices (no credit notes here)
  const receivables = (await firstRow(env.db.select().from(accounts).where(and(eq(accounts.organizationId, orgId), eq(accounts.systemAccount, "receivables")))))!;
  const open = (await firstRow(env.db
    .select({ due: sql<number>`coalesce(sum(${invoices.totalCents} - ${invoices.paidCents}), 0)` })
    .from(invoices)
    .where(and(eq(invoices.organizationId, orgId), sql`${invoices.status} IN ('finalized', 'sent', 'partially_paid', 'paid')`, eq(invoices.type, "invoice")))))!.due;
  expect(await balanceOf(receivables.id)).toBe(open);
}

for (const format of ["camt053.xml", "coda"] as const) {
  describe(`a month of ${format} statements`, () => {
    let b: Books;

    test("statement 1 pays three invoices by structured reference, one partly; the unknown reference stays unmatched", async () => {
      b = await books(`Brewery ${format}`);
      await assertLedger(b, 0, 0);
      const r = await importStatement(b, `statement-1.${format}`);
      expect(r.status, r.text).toBe(201);
      const s = r.body.data;
      expect(s).toMatchObject({ statement_id: "2026-042", format: format === "coda" ? "coda" : "camt.053", opening_balance: "1000.00", closing_balance: "2801.99", transactions_imported: 5, transactions_matched: 3 });
      const byRef = (ref: string) => s.transactions.find((t: any) => t.structured_reference === ref);
      expect(byRef(REFERENCES[0])).toMatchObject({ status: "matched", invoice_id: b.invoiceIds[0], matched_amount: "1210.00" });
      expect(byRef(REFERENCES[1])).toMatchObject({ status: "matched", invoice_id: b.invoiceIds[1], matched_amount: "605.00" });
      expect(byRef(REFERENCES[2])).toMatchObject({ status: "matched", invoice_id: b.invoiceIds[2], matched_amount: "250.00" });
      expect(byRef("+++000/7777/77726+++")).toMatchObject({ status: "unmatched", invoice_id: null, payment_id: null });
      expect((await invoice(b, 0)).status).toBe("paid");
      expect((await invoice(b, 1)).status).toBe("paid");
      const partly = await invoice(b, 2);
      expect(partly).toMatchObject({ status: "partially_paid", amount_paid: "250.00", amount_due: "476.00" });
      expect(partly.payments[0]).toMatchObject({ amount: "250.00", payment_date: "2026-03-02", bank_account_id: b.bankId, reference: REFERENCES[2] });
      await assertLedger(b, 121000 + 60500 + 25000, OPENING_CENTS, 9999 - 36300);
    });

    test("the same statement again adds nothing: 200, no new line, no new payment", async () => {
      const lines = (await env.db.select().from(bankTransactions).where(eq(bankTransactions.organizationId, b.org.id))).length;
      const r = await importStatement(b, `statement-1.${format}`);
      expect(r.status, r.text).toBe(200);
      expect(r.body.data).toMatchObject({ transactions_imported: 0, transactions_matched: 3 });
      expect((await env.db.select().from(bankTransactions).where(eq(bankTransactions.organizationId, b.org.id))).length).toBe(lines);
      await assertLedger(b, 206500, OPENING_CENTS, 9999 - 36300);
    });

    test("statement 2 follows on from statement 1 and pays the rest; the bank fee stays unmatched", async () => {
      const r = await importStatement(b, `statement-2.${format}`);
      expect(r.status, r.text).toBe(201);
      expect(r.body.data).toMatchObject({ opening_balance: "2801.99", closing_balance: "3265.89", transactions_imported: 2, transactions_matched: 1 });
      expect((await invoice(b, 2)).status).toBe("paid");
      const fee = r.body.data.transactions.find((t: any) => t.direction === "debit");
      expect(fee).toMatchObject({ status: "unmatched", amount: "12.10", communication: "Beheerskosten rekening februari 2026" });
      // and statement 2 the bank fee of 12.10
      await assertLedger(b, 206500 + 47600, OPENING_CENTS, 9999 - 36300 - 1210);
    });

    test("a wrong closing balance is refused, naming the difference", async () => {
      const fresh = await books(`Broken ${format}`);
      const r = await importStatement(fresh, `statement-1-broken.${format}`);
      expect(r.status).toBe(422);
      expect(r.body.message).toContain("difference");
      expect(await env.db.select().from(bankTransactions).where(eq(bankTransactions.organizationId, fresh.org.id))).toEqual([]);
      // refused as a whole: no opening entry either
      await assertLedger(fresh, 0, 0);
    });
  });
}

describe("the statement's account and balance chain", () => {
  test("an opening balance that does not follow on from the last statement: 422 naming both and the difference", async () => {
    const b = await books("Chain");
    expect((await importStatement(b, "statement-1.camt053.xml")).status).toBe(201);
    // statement 2 as if 1.99 had gone missing in between: it opens (and so closes) 1.99 lower
    const gap = fixture("statement-2.camt053.xml").toString("utf8").replace(">2801.99<", ">2800.00<").replace(">3265.89<", ">3263.90<");
    const r = await env.request("POST", `/api/v1/bank-accounts/${b.bankId}/statements`, { rawBody: gap, token: b.token, headers: { "content-type": "application/xml" } });
    expect(r.status, r.text).toBe(422);
    expect(r.body.errors.opening_balance[0]).toContain("opens with 2800.00");
    expect(r.body.errors.opening_balance[0]).toContain("closed with 2801.99");
    expect(r.body.errors.opening_balance[0]).toContain("difference of -1.99");
  });

  test("a statement older than the first one imported: 422 naming the first (its opening balance is in the books)", async () => {
    const b = await books("Older");
    expect((await importStatement(b, "statement-2.camt053.xml")).status).toBe(201);
    const r = await importStatement(b, "statement-1.camt053.xml");
    expect(r.status).toBe(422);
    expect(r.body.errors.opening_date[0]).toContain("before the first statement imported");
    expect(r.body.errors.opening_date[0]).toContain("(2026-043, opening on 2026-03-02)");
    // statement 2 opened the books with its own opening balance, 2801.99; and pays the rest of the third invoice
    await assertLedger(b, 47600, 280199, -1210);
  });

  test("another account's statement: 422 naming both IBANs; an unknown bank account: 404; banking.import needed", async () => {
    const b = await books("Other IBAN");
    const other = await bankAccountService.add({ db: env.db, org: b.org, actor: CLI_ACTOR }, { name: "Belfius", iban: "BE68539007547034" });
    const r = await importStatement(b, "statement-1.camt053.xml", b.token, other.id);
    expect(r.status).toBe(422);
    expect(r.body.errors.iban[0]).toContain(IBAN);
    expect((await importStatement(b, "statement-1.camt053.xml", b.token, "0190a0a0-0000-7000-8000-000000000000")).status).toBe(404);
    expect((await importStatement(b, "statement-1.camt053.xml", await env.orgToken(["banking.view"], b.org))).status).toBe(403);
    expect((await importStatement(b, "statement-1.camt053.xml", await env.orgToken(["banking.import"], b.org))).status).toBe(201);
  });

  test("a statement file as JSON is a 415; the JSON routes still refuse XML", async () => {
    const b = await books("Media types");
    const r = await env.request("POST", `/api/v1/bank-accounts/${b.bankId}/statements`, { body: {}, token: b.token });
    expect(r.status).toBe(415);
  });
});

describe("reconciliation by hand, and never twice for the same money", () => {
  test("an invoice paid by hand through another account: the imported line takes that payment over; no second payment", async () => {
    const b = await books("Paid by hand");
    // recorded by hand through another account, before the statement came in
    const other = await bankAccountService.add({ db: env.db, org: b.org, actor: CLI_ACTOR }, { name: "Belfius", iban: "BE68539007547034" });
    const hand = await env.api("POST", `/api/v1/invoices/${b.invoiceIds[0]}/record-payment`, { amount: "1210.00", payment_date: "2026-03-01", bank_account_id: other.id }, b.token);
    expect(hand.status).toBe(201);
    const handPaymentId = hand.body.data.payments[0].id;
    expect(hand.body.data.payments[0].bank_account_id).not.toBe(b.bankId);
    const r = await importStatement(b, "statement-1.camt053.xml");
    expect(r.status).toBe(201);
    const line = r.body.data.transactions.find((t: any) => t.structured_reference === REFERENCES[0]);
    expect(line).toMatchObject({ status: "matched", payment_id: handPaymentId, invoice_id: b.invoiceIds[0] });
    const paid = await invoice(b, 0);
    expect(paid.payments).toHaveLength(1);
    expect(paid.payments[0].bank_account_id).toBe(b.bankId);
    // the hand payment's posting moved to this bank account: its balance counts it once
    await assertLedger(b, 206500, OPENING_CENTS, 9999 - 36300);
  });

  test("a cash payment of the same amount is other money: the bank line does not take it over, and stays unmatched", async () => {
    const b = await books("Other money");
    // the first invoice paid in full in cash, by hand
    const cash = await env.api("POST", `/api/v1/invoices/${b.invoiceIds[0]}/record-payment`, { amount: "1210.00", payment_date: "2026-03-01", payment_method: "cash" }, b.token);
    expect(cash.status).toBe(201);
    const r = await importStatement(b, "statement-1.camt053.xml");
    expect(r.status).toBe(201);
    const line = r.body.data.transactions.find((t: any) => t.structured_reference === REFERENCES[0]);
    // the invoice is paid in cash: the bank's 1210.00 is not that payment, and nothing is due
    expect(line).toMatchObject({ status: "unmatched", payment_id: null });
    expect((await invoice(b, 0)).payments.map((p: any) => p.payment_method)).toEqual(["cash"]);
  });

  test("match, unmatch and ignore; the matched event and the suggestion of an approved expense", async () => {
    const b = await books("By hand");
    const hook = await env.api("POST", "/api/v1/webhooks", { url: "https://hooks.example.test/k", events: ["bank_transaction.imported", "bank_transaction.matched", "invoice.payment_recorded"] }, b.token);
    expect(hook.status, hook.text).toBe(201);
    // the printer's two invoices, approved: 300.00 + 63.00 VAT each, to be paid to BE43068999999501 (the debit line's
    // counterparty); which one the line pays is not certain, so it is suggested (the earlier), not matched
    const printer = await env.api("POST", "/api/v1/expenses", { category: "Printing", amount: "300.00", vat_amount: "63.00", date: "2026-02-20", vendor: "Drukkerij Peeters NV" }, b.token);
    const printer2 = await env.api("POST", "/api/v1/expenses", { category: "Printing", amount: "300.00", vat_amount: "63.00", date: "2026-02-27", vendor: "Drukkerij Peeters NV" }, b.token);
    for (const p of [printer, printer2]) {
      await env.db.update(expenses).set({ payeeIban: "BE43068999999501" }).where(eq(expenses.id, p.body.data.id));
      expect((await env.api("POST", `/api/v1/expenses/${p.body.data.id}/approve`, undefined, b.token)).status).toBe(200);
    }

    const s = (await importStatement(b, "statement-1.camt053.xml")).body.data;
    const debit = s.transactions.find((t: any) => t.direction === "debit");
    expect(debit).toMatchObject({ status: "unmatched", suggested_expense_id: printer.body.data.id });
    const unknown = s.transactions.find((t: any) => t.structured_reference === "+++000/7777/77726+++");

    const events = async () => (await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.organizationId, b.org.id))).map((d) => d.event);
    expect((await events()).filter((e) => e === "bank_transaction.imported")).toHaveLength(5);
    expect((await events()).filter((e) => e === "bank_transaction.matched")).toHaveLength(3);

    const reconcile = await env.orgToken(["banking.reconcile", "banking.view"], b.org);
    expect((await env.api("POST", `/api/v1/bank-transactions/${debit.id}/match`, { expense_id: printer.body.data.id }, await env.orgToken(["banking.view"], b.org))).status).toBe(403);
    const matched = await env.api("POST", `/api/v1/bank-transactions/${debit.id}/match`, { expense_id: printer.body.data.id }, reconcile);
    expect(matched.status, matched.text).toBe(200);
    expect(matched.body.data).toMatchObject({ status: "matched", expense_id: printer.body.data.id, matched_amount: "363.00" });
    const expense = (await env.api("GET", `/api/v1/expenses/${printer.body.data.id}`, undefined, b.token)).body.data;
    // the line's payment covers the expense: paid (contract section 4), in the match's transaction
    expect(expense).toMatchObject({ amount_due: "0.00", amount_paid: "363.00", status: "paid" });
    expect(expense.payments[0].bank_account_id).toBe(b.bankId);
    expect((await events()).filter((e) => e === "bank_transaction.matched")).toHaveLength(4);
    // a credit line cannot pay an expense; a matched line cannot be matched again
    expect((await env.api("POST", `/api/v1/bank-transactions/${unknown.id}/match`, { expense_id: printer.body.data.id }, reconcile)).status).toBe(422);
    expect((await env.api("POST", `/api/v1/bank-transactions/${debit.id}/match`, { expense_id: printer.body.data.id }, reconcile)).status).toBe(409);

    // unmatch: the payment the match recorded is deleted, its posting reversed
    const undone = await env.api("POST", `/api/v1/bank-transactions/${debit.id}/unmatch`, undefined, reconcile);
    expect(undone.body.data).toMatchObject({ status: "unmatched", expense_id: null, payment_id: null });
    expect((await env.api("GET", `/api/v1/expenses/${printer.body.data.id}`, undefined, b.token)).body.data).toMatchObject({ amount_due: "363.00", status: "approved" });
    await assertLedger(b, 206500, OPENING_CENTS, 9999 - 36300);

    // unmatching an auto-matched invoice line: the invoice is open again
    const first = s.transactions.find((t: any) => t.structured_reference === REFERENCES[0]);
    expect((await env.api("POST", `/api/v1/bank-transactions/${first.id}/unmatch`, undefined, reconcile)).status).toBe(200);
    expect((await invoice(b, 0)).status).toBe("finalized");
    await // its 1210.00 is back in suspense: the bank account still holds it
    await assertLedger(b, 206500 - 121000, OPENING_CENTS, 9999 - 36300 + 121000);
    // and matched by hand again, with an amount
    const again = await env.api("POST", `/api/v1/bank-transactions/${first.id}/match`, { invoice_id: b.invoiceIds[0], amount: "1210.00" }, reconcile);
    expect(again.body.data).toMatchObject({ status: "matched", matched_amount: "1210.00" });
    await assertLedger(b, 206500, OPENING_CENTS, 9999 - 36300);

    // ignore: only an unmatched line; unmatch brings it back
    expect((await env.api("POST", `/api/v1/bank-transactions/${unknown.id}/ignore`, undefined, reconcile)).body.data.status).toBe("ignored");
    expect((await env.api("POST", `/api/v1/bank-transactions/${unknown.id}/ignore`, undefined, reconcile)).status).toBe(409);
    expect((await env.api("POST", `/api/v1/bank-transactions/${unknown.id}/unmatch`, undefined, reconcile)).body.data.status).toBe("unmatched");

    // deleting the recorded payment by hand leaves its line unmatched (server/settlement), audited
    const paymentId = again.body.data.payment_id;
    const unmatchedEntries = async () =>
      (await env.api("GET", `/api/v1/audit-log?filter[resource_id]=${first.id}&filter[action]=bank_transaction.unmatched`, undefined, b.token)).body.meta.total;
    const unmatchedBefore = await unmatchedEntries();
    expect((await env.api("DELETE", `/api/v1/invoices/${b.invoiceIds[0]}/payments/${paymentId}`, undefined, b.token)).status).toBe(204);
    expect((await env.api("GET", `/api/v1/bank-transactions/${first.id}`, undefined, reconcile)).body.data).toMatchObject({ status: "unmatched", payment_id: null });
    expect(await unmatchedEntries()).toBe(unmatchedBefore + 1);
    await assertLedger(b, 206500 - 121000, OPENING_CENTS, 9999 - 36300 + 121000);
  });
});

describe("GET /bank-transactions", () => {
  let b: Books;
  beforeAll(async () => {
    b = await books("Lists");
    await importStatement(b, "statement-1.camt053.xml");
    await importStatement(b, "statement-2.camt053.xml");
  });
  const list = (query: string) => env.api("GET", `/api/v1/bank-transactions${query}`, undefined, b.token);
  const paths = () => ["", "?sort=amount", "?sort=-created_at", "?sort=updated_at", `?filter[bank_account_id]=${b.bankId}`, "?filter[status]=matched", "?filter[date_from]=2026-03-01", "?search=peeters"];

  test("filters, search, sorts and the events in meta", async () => {
    expect((await list("")).body.meta.total).toBe(7);
    expect((await list("?filter[status]=unmatched")).body.data.map((t: any) => t.amount).sort()).toEqual(["12.10", "363.00", "99.99"]);
    expect((await list(`?filter[bank_account_id]=${b.bankId}&filter[date_from]=2026-03-03`)).body.meta.total).toBe(2);
    expect((await list("?filter[date_to]=2026-03-02")).body.meta.total).toBe(5);
    expect((await list("?search=peeters")).body.data.map((t: any) => t.counterparty_name)).toEqual(["Drukkerij Peeters NV"]);
    expect((await list("?search=beheerskosten")).body.meta.total).toBe(1);
    expect((await list("?filter[status]=lost")).status).toBe(422);
    for (const p of paths()) {
      const r = await list(p);
      expect(r.status, `${p}: ${r.text.slice(0, 200)}`).toBe(200);
    }
    const other = await env.newOrg("Nobody's lines");
    expect((await env.api("GET", "/api/v1/bank-transactions", undefined, other.token)).body.meta.total).toBe(0);
    const events = (await env.api("GET", "/api/v1/meta/webhook-events")).body.data;
    expect(events).toContain("bank_transaction.imported");
    expect(events).toContain("bank_transaction.matched");
  });

  sqliteOnly.test("list plans without scans or sorts (EXPLAIN QUERY PLAN)", async () => {
    // one at a time: plansOf records every statement prepared while a request runs
    const slow: string[] = [];
    for (const p of paths()) slow.push(...(await slowListSteps(env, "bank_transactions", `/api/v1/bank-transactions${p}`, b.token)));
    expect(slow).toEqual([]);
  });
});
