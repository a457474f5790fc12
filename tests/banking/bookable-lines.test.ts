/**
 * Every bank line bookable (issue 27, item 5), driven through the API with a Belgian user's first
 * month: tests/banking/fixtures/walk-a.camt053.xml (the current account's first statement) and
 * walk-b.camt053.xml (the savings account's), both validated against the camt.053.001.02 XSD.
 * The first statement of each account posts its opening balance; a customer's payment and refund,
 * two supplier payments (by IBAN and amount, by structured reference) are matched on import; the
 * transfer between the two accounts is booked once, its two lines paired; the fee and the interest
 * are booked by hand with their VAT. Every expected figure is the files' own (their comments add
 * them up): after it all, each account's ledger balance is its statement's closing balance.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { validateXML } from "xmllint-wasm";
import { invoices, journalEntries, journalLines } from "../../db/schema.ts";
import { bankAccountService } from "../../server/bank-accounts/service.ts";
import type { Organization } from "../../server/lib/scope.ts";
import { backfillOpeningBalances } from "../../server/ledger/backfill.ts";
import { newId, nowIso } from "../../server/lib/time.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { listVatRates } from "../../server/vat-rates/service.ts";
import { createTestEnv, asTx } from "../helpers.ts";
import { sqliteOnly } from "../raw-sql.ts";
import { databaseBefore, upgradedApp } from "../upgrade-copy.ts";
import { firstRow } from "../../db/client.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const WALK_A = readFileSync(join(import.meta.dir, "fixtures", "walk-a.camt053.xml"), "utf8");
const WALK_B = readFileSync(join(import.meta.dir, "fixtures", "walk-b.camt053.xml"), "utf8");
const CAMT_XSD = readFileSync(join(import.meta.dir, "..", "inbound", "xsd", "camt.053.001.02.xsd"), "utf8");
const A = "BE71096123456769";
const B = "BE68539007547034";

type Walk = {
  org: Organization;
  token: string;
  a: string;
  b: string;
  accountA: string;
  accountB: string;
  invoiceId: string;
  noteId: string;
  printerId: string;
  coffeeId: string;
  code: (code: string) => string;
};

/**
 * The organisation before its first statements: an invoice of 1210.00 awaiting payment; another of
 * 605.00 paid by hand through the current account on 2026-03-20 and credited 121.00 afterwards
 * (a refund owed); two approved supplier invoices (363.00 to BE43068999999501, 242.00 with a
 * structured reference); and the savings account.
 */
async function walk(name: string): Promise<Walk> {
  const { org, token } = await env.newOrg(name, { country: "BE", currency: "EUR" });
  const a = (await env.api("GET", "/api/v1/bank-accounts", undefined, token)).body.data.find((x: any) => x.iban === A).id;
  const b = (await bankAccountService.add({ db: env.db, org, actor: CLI_ACTOR }, { name: "Savings", iban: B })).id;
  const rate21 = (await listVatRates(asTx(env.db), org.id)).find((r) => r.rateBp === 2100)!;
  const customer = (await env.api("POST", "/api/v1/customers", { name: "Brasserie De Kroon BV" }, token)).body.data;
  const issue = async (price: string, reference: string) => {
    const created = await env.api("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-02", lines: [{ description: "Beer", quantity: "1", unit_price: price, vat_rate_id: rate21.id }] }, token);
    const id = created.body.data.id;
    expect((await env.api("POST", `/api/v1/invoices/${id}/finalize`, undefined, token)).status).toBe(200);
    // the references the statement quotes (a finalize draws one of its own)
    await env.db.update(invoices).set({ paymentReference: reference }).where(eq(invoices.id, id));
    return id;
  };
  const invoiceId = await issue("1000.00", "+++202/6000/10195+++");
  const paidId = await issue("500.00", "+++202/6000/20606+++");
  const paid = await env.api("POST", `/api/v1/invoices/${paidId}/record-payment`, { amount: "605.00", payment_date: "2026-03-20", payment_method: "bank_transfer", bank_account_id: a }, token);
  expect(paid.status, paid.text).toBe(201);
  const note = await env.api("POST", `/api/v1/invoices/${paidId}/credit-note`, { lines: [{ description: "Returned crate", quantity: "1", unit_price: "100.00", vat_rate_id: rate21.id }] }, token);
  expect(note.status, note.text).toBe(201);
  const noteId = note.body.data.id;
  const final = await env.api("POST", `/api/v1/invoices/${noteId}/finalize`, undefined, token);
  expect(final.status, final.text).toBe(200);
  // the invoice was paid in full: nothing to allocate the credit to, 121.00 is owed back
  expect(final.body.data).toMatchObject({ amount_due: "121.00" });
  await env.db.update(invoices).set({ paymentReference: "+++202/6000/10502+++" }).where(eq(invoices.id, noteId));

  const expense = async (body: Record<string, unknown>) => {
    const created = await env.api("POST", "/api/v1/expenses", { date: "2026-03-25", ...body }, token);
    expect(created.status, created.text).toBe(201);
    expect((await env.api("POST", `/api/v1/expenses/${created.body.data.id}/approve`, undefined, token)).status).toBe(200);
    return created.body.data.id as string;
  };
  const printerId = await expense({ category: "Printing", amount: "300.00", vat_amount: "63.00", vendor: "Drukkerij Peeters NV", payee_iban: "BE43068999999501" });
  const coffeeId = await expense({ category: "Office", amount: "200.00", vat_amount: "42.00", vendor: "Vlaamse Koffie BV", payment_reference: "+++440/0000/00173+++" });

  const banks = (await env.api("GET", "/api/v1/bank-accounts", undefined, token)).body.data;
  const chart = (await env.api("GET", "/api/v1/accounts?per_page=100", undefined, token)).body.data;
  const code = (c: string) => chart.find((x: any) => x.code === c).id;
  return {
    org, token, a, b, invoiceId, noteId, printerId, coffeeId, code,
    accountA: banks.find((x: any) => x.id === a).account_id,
    accountB: banks.find((x: any) => x.id === b).account_id,
  };
}

const importFile = (w: Walk, xml: string, bankId: string) =>
  env.request("POST", `/api/v1/bank-accounts/${bankId}/statements`, { rawBody: xml, token: w.token, headers: { "content-type": "application/xml" } });

async function balanceOf(w: Walk, accountId: string): Promise<number> {
  return (await firstRow(env.db
    .select({ net: sql<number>`coalesce(sum(${journalLines.debitCents}) - sum(${journalLines.creditCents}), 0)` })
    .from(journalLines)
    .where(and(eq(journalLines.organizationId, w.org.id), eq(journalLines.accountId, accountId)))))!.net;
}

async function assertBalanced(w: Walk) {
  const unbalanced = (await env.db
    .select({ entry: journalLines.entryId, net: sql<number>`sum(${journalLines.debitCents}) - sum(${journalLines.creditCents})` })
    .from(journalLines)
    .where(eq(journalLines.organizationId, w.org.id))
    .groupBy(journalLines.entryId))
    .filter((e) => e.net !== 0);
  expect(unbalanced).toEqual([]);
}

const line = (statement: any, ref: string) => statement.transactions.find((t: any) => t.entry_ref === ref);
const get = async (w: Walk, path: string) => (await env.api("GET", path, undefined, w.token)).body.data;
const act = (w: Walk, id: string, action: string, body?: unknown) => env.api("POST", `/api/v1/bank-transactions/${id}/${action}`, body, w.token);

describe("a Belgian user's first month, line by line", () => {
  let w: Walk;
  let a: any;

  test("the fixtures are valid camt.053.001.02", async () => {
    for (const [name, xml] of [["walk-a", WALK_A], ["walk-b", WALK_B]]) {
      const result = await validateXML({ xml: [{ fileName: `${name}.xml`, contents: xml }], schema: [{ fileName: "camt.053.001.02.xsd", contents: CAMT_XSD }] });
      expect(result.errors.map((e) => e.message)).toEqual([]);
    }
  });

  test("the first statement posts the opening balance and matches the payment, the refund and both supplier payments; the transfer is booked", async () => {
    w = await walk("Brouwerij Walk");
    // before: the books hold the hand-recorded 605.00 on the current account
    expect(await balanceOf(w, w.accountA)).toBe(60500);
    const r = await importFile(w, WALK_A, w.a);
    expect(r.status, r.text).toBe(201);
    a = r.body.data;
    expect(a).toMatchObject({ opening_balance: "5000.00", closing_balance: "4470.77", transactions_imported: 7 });
    // the opening entry: the bank's 5000.00 less the 605.00 the books held, on the day before, against opening balances (equity)
    const opening = await env.db.select().from(journalEntries).where(and(eq(journalEntries.organizationId, w.org.id), eq(journalEntries.sourceType, "bank_statement")));
    expect(opening).toHaveLength(1);
    expect(opening[0]!.date).toBe("2026-03-31");
    const equity = (await get(w, "/api/v1/accounts?per_page=100")).find((x: any) => x.system_account === "opening_balance");
    expect(equity).toMatchObject({ code: "3900", type: "equity" });
    expect(await balanceOf(w, equity.id)).toBe(-(500000 - 60500));

    expect(line(a, "1010001")).toMatchObject({ status: "matched", invoice_id: w.invoiceId, matched_amount: "1210.00" });
    // the refund: a debit line quoting the credit note's reference
    expect(line(a, "1010004")).toMatchObject({ status: "matched", invoice_id: w.noteId, matched_amount: "121.00" });
    expect(await get(w, `/api/v1/invoices/${w.noteId}`)).toMatchObject({ status: "paid", amount_due: "0.00" });
    // the suppliers: by IBAN and amount, and by the structured reference
    expect(line(a, "1010005")).toMatchObject({ status: "matched", expense_id: w.printerId, matched_amount: "363.00" });
    expect(line(a, "1010006")).toMatchObject({ status: "matched", expense_id: w.coffeeId, matched_amount: "242.00" });
    expect((await get(w, `/api/v1/expenses/${w.printerId}`)).status).toBe("paid");
    expect((await get(w, `/api/v1/expenses/${w.coffeeId}`)).status).toBe("paid");
    // the transfer to the own savings account, by its IBAN: booked to the savings account's ledger account
    expect(line(a, "1010003")).toMatchObject({ status: "booked", booked_account_id: w.accountB, transfer_transaction_id: null });
    // the fee and the interest wait for a person
    expect(line(a, "1010002")).toMatchObject({ status: "unmatched" });
    expect(line(a, "1010007")).toMatchObject({ status: "unmatched" });
    await assertBalanced(w);
  });

  test("the fee is booked to bank charges with 21 % VAT, the interest to other income; the ledger balance is the bank's", async () => {
    const rate21 = (await listVatRates(asTx(env.db), w.org.id)).find((r) => r.rateBp === 2100)!;
    const fee = await act(w, line(a, "1010002").id, "book", { account_id: w.code("6900"), vat_rate_id: rate21.id });
    expect(fee.status, fee.text).toBe(200);
    expect(fee.body.data).toMatchObject({ status: "booked", booked_account_id: w.code("6900"), vat_rate_id: rate21.id });
    // 15.73 = 13.00 + 2.73 VAT (the fixture's comment)
    const entry = await get(w, `/api/v1/journal-entries/${fee.body.data.journal_entry_id}`);
    const amounts = Object.fromEntries(entry.lines.map((l: any) => [l.account_id, [l.debit, l.credit]]));
    expect(amounts[w.code("6900")]).toEqual(["13.00", "0.00"]);
    expect(amounts[w.code("1400")]).toEqual(["2.73", "0.00"]);
    // the fee waited in suspense since the import (the bank account held it already): booking takes it out of there
    expect(amounts[w.code("1900")]).toEqual(["0.00", "15.73"]);
    expect(amounts[w.accountA]).toBeUndefined();
    // the Belgian return reports a bank line booked with VAT: money out is a purchase, by the account it went to (6900: services, 82)
    const day = line(a, "1010002").booking_date;
    const vat = await get(w, `/api/v1/reports/vat?from=${day}&to=${day}`);
    expect(vat.belgian_return.grids).toEqual({ "59": "2.73", "72": "2.73", "82": "13.00" });
    const interest = await act(w, line(a, "1010007").id, "book", { account_id: w.code("4900"), description: "Interest Q1" });
    expect(interest.status, interest.text).toBe(200);
    expect(await balanceOf(w, w.code("4900"))).toBe(-250);
    // every line of the statement is settled or booked: the books say what the bank says
    expect(await balanceOf(w, w.accountA)).toBe(447077);
    expect((await get(w, `/api/v1/bank-accounts/${w.a}`)).balance).toBe("4470.77");
    await assertBalanced(w);
  });

  test("the savings account's first statement: its opening balance, and its line of the transfer paired with the current account's", async () => {
    const r = await importFile(w, WALK_B, w.b);
    expect(r.status, r.text).toBe(201);
    const incoming = r.body.data.transactions[0];
    const outgoing = line(a, "1010003");
    expect(incoming).toMatchObject({ status: "booked", booked_account_id: w.accountA, transfer_transaction_id: outgoing.id });
    const out = await get(w, `/api/v1/bank-transactions/${outgoing.id}`);
    expect(out).toMatchObject({ transfer_transaction_id: incoming.id });
    // one entry for the two lines: the money is counted once
    expect(incoming.journal_entry_id).toBe(out.journal_entry_id);
    expect(await balanceOf(w, w.accountB)).toBe(125000);
    expect(await balanceOf(w, w.accountA)).toBe(447077);
    await assertBalanced(w);
  });

  test("unbooking the transfer from either side reverses its one entry and frees both lines; booking again pairs them again", async () => {
    const incoming = (await get(w, `/api/v1/bank-transactions?filter[bank_account_id]=${w.b}`))[0];
    const undone = await act(w, incoming.id, "unbook");
    expect(undone.status, undone.text).toBe(200);
    expect(undone.body.data).toMatchObject({ status: "unmatched", booked_account_id: null, journal_entry_id: null, transfer_transaction_id: null });
    const outgoing = await get(w, `/api/v1/bank-transactions/${line(a, "1010003").id}`);
    expect(outgoing).toMatchObject({ status: "unmatched", transfer_transaction_id: null });
    // both lines are back in suspense: each bank account still holds what its statement says
    expect(await balanceOf(w, w.accountB)).toBe(125000);
    expect(await balanceOf(w, w.accountA)).toBe(447077);
    expect(await balanceOf(w, w.code("1900"))).toBe(100000 - 100000);
    const again = await act(w, outgoing.id, "book", { account_id: w.accountB });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.transfer_transaction_id).toBe(incoming.id);
    expect(await balanceOf(w, w.accountB)).toBe(125000);
    expect(await balanceOf(w, w.accountA)).toBe(447077);
    await assertBalanced(w);
  });

  test("what cannot be booked: 409 for a line that is not unmatched, 422 naming the field", async () => {
    const fee = line(a, "1010002");
    expect((await act(w, fee.id, "book", { account_id: w.code("6900") })).status).toBe(409);
    // a booked line is unbooked, not unmatched
    expect((await act(w, fee.id, "unmatch")).status).toBe(409);
    expect((await act(w, line(a, "1010001").id, "unbook")).status).toBe(409);
    expect((await act(w, fee.id, "unbook")).status).toBe(200);
    const refused = async (body: unknown, field: string, words: string) => {
      const r = await act(w, fee.id, "book", body);
      expect(r.status, r.text).toBe(422);
      expect(r.body.errors[field][0]).toContain(words);
    };
    await refused({ account_id: w.code("1200") }, "account_id", "match the line with its invoice");
    await refused({ account_id: w.code("2100") }, "account_id", "match the line with its invoice");
    await refused({ account_id: w.accountA }, "account_id", "own bank account");
    await refused({ account_id: "0190a0a0-0000-7000-8000-000000000000" }, "account_id", "invalid");
    await refused({ account_id: w.code("6900"), vat_rate_id: "0190a0a0-0000-7000-8000-000000000000" }, "vat_rate_id", "invalid");
    const rate21 = (await listVatRates(asTx(env.db), w.org.id)).find((r) => r.rateBp === 2100)!;
    await refused({ account_id: w.accountB, vat_rate_id: rate21.id }, "vat_rate_id", "no VAT");
    const other = await env.newOrg("Someone else");
    expect((await env.api("POST", `/api/v1/bank-transactions/${fee.id}/book`, { account_id: w.code("6900") }, other.token)).status).toBe(404);
    expect((await env.api("POST", `/api/v1/bank-transactions/${fee.id}/book`, { account_id: w.code("6900") }, await env.orgToken(["banking.view"], w.org))).status).toBe(403);
    // the unbooked fee is back in suspense (debited: money out): the bank account holds the bank's balance all along
    expect(await balanceOf(w, w.accountA)).toBe(447077);
    expect(await balanceOf(w, w.code("1900"))).toBe(1573);
    expect((await act(w, fee.id, "book", { account_id: w.code("6900"), vat_rate_id: rate21.id })).status).toBe(200);
    expect(await balanceOf(w, w.accountA)).toBe(447077);
  });

  test("a statement older than the first one imported is refused: the books start at the first", async () => {
    const older = WALK_A.replace("<Id>2026-101</Id>", "<Id>2026-100</Id>").replaceAll("2026-04-01", "2026-03-01").replaceAll("2026-04-02", "2026-03-02").replaceAll("2026-04-03", "2026-03-03");
    const r = await importFile(w, older, w.a);
    expect(r.status, r.text).toBe(422);
    expect(r.body.errors.opening_date[0]).toContain("(2026-101, opening on 2026-04-01)");
  });
});

describe("the savings account's statement first", () => {
  test("its line names the current account: booked as a transfer by itself, and the current account's line pairs with it", async () => {
    const w = await walk("Brouwerij Reverse");
    const b = await importFile(w, WALK_B, w.b);
    expect(b.status, b.text).toBe(201);
    expect(b.body.data.transactions[0]).toMatchObject({ status: "booked", booked_account_id: w.accountA, transfer_transaction_id: null });
    const a = (await importFile(w, WALK_A, w.a)).body.data;
    expect(line(a, "1010003")).toMatchObject({ status: "booked", booked_account_id: w.accountB, transfer_transaction_id: b.body.data.transactions[0].id });
    expect(await balanceOf(w, w.accountB)).toBe(125000);
    // the current account: 4470.77, the fee (-15.73) and the interest (+2.50) waiting in suspense
    expect(await balanceOf(w, w.accountA)).toBe(447077);
    expect(await balanceOf(w, w.code("1900"))).toBe(1573 - 250);
    await assertBalanced(w);
  });
});

describe("transfers between own accounts are counted once, and only with their own other half", () => {
  // walk-b.camt053.xml with its line's counterparty account removed, or replaced by a third party's
  const bNaming = (iban: string | null) => WALK_B.replace(/<DbtrAcct>[\s\S]*?<\/DbtrAcct>\n/, iban ? `<DbtrAcct><Id><IBAN>${iban}</IBAN></Id></DbtrAcct>\n` : "");

  test("the savings line first, naming no account: left unmatched, then the current account's transfer takes it in (one entry)", async () => {
    const w = await walk("Brouwerij Silent");
    const b = await importFile(w, bNaming(null), w.b);
    expect(b.status, b.text).toBe(201);
    const incoming = b.body.data.transactions[0];
    expect(incoming).toMatchObject({ status: "unmatched", counterparty_iban: null });
    const a = (await importFile(w, WALK_A, w.a)).body.data;
    expect(line(a, "1010003")).toMatchObject({ status: "booked", booked_account_id: w.accountB, transfer_transaction_id: incoming.id });
    expect(await get(w, `/api/v1/bank-transactions/${incoming.id}`)).toMatchObject({ status: "booked", transfer_transaction_id: line(a, "1010003").id });
    // 250.00 + 1000.00: the bank's closing balance, not 2250.00
    expect(await balanceOf(w, w.accountB)).toBe(125000);
    await assertBalanced(w);
  });

  test("a line of the same amount naming a third party's IBAN is that party's money: not paired, the transfer waits for its own half", async () => {
    const w = await walk("Brouwerij Third");
    const b = await importFile(w, bNaming("NL91ABNA0417164300"), w.b);
    const stranger = b.body.data.transactions[0];
    const a = (await importFile(w, WALK_A, w.a)).body.data;
    expect(line(a, "1010003")).toMatchObject({ status: "booked", booked_account_id: w.accountB, transfer_transaction_id: null });
    expect(await get(w, `/api/v1/bank-transactions/${stranger.id}`)).toMatchObject({ status: "unmatched" });
    // booking the stranger's money by hand to the current account is the user's call: then it is the other half
    const booked = await act(w, stranger.id, "book", { account_id: w.accountA });
    expect(booked.body.data).toMatchObject({ status: "booked", transfer_transaction_id: line(a, "1010003").id });
    expect(await balanceOf(w, w.accountB)).toBe(125000);
    await assertBalanced(w);
  });
});

describe("a payment recorded by hand before the first statement", () => {
  test("is in the opening balance: the statement's line of the same money is not taken to be it, and the books still equal the bank", async () => {
    const w = await walk("Brouwerij Early");
    // the 1210.00 invoice paid by hand on 29 March, through the current account: the bank's line of 1 April is other money
    const paid = await env.api("POST", `/api/v1/invoices/${w.invoiceId}/record-payment`, { amount: "1210.00", payment_date: "2026-03-29", payment_method: "bank_transfer", bank_account_id: w.a }, w.token);
    expect(paid.status, paid.text).toBe(201);
    const a = (await importFile(w, WALK_A, w.a)).body.data;
    expect(line(a, "1010001")).toMatchObject({ status: "unmatched", payment_id: null });
    // the fee and the interest booked: the ledger is the bank's closing balance, the line left unmatched (+1210.00) in suspense
    const rate21 = (await listVatRates(asTx(env.db), w.org.id)).find((r) => r.rateBp === 2100)!;
    expect((await act(w, line(a, "1010002").id, "book", { account_id: w.code("6900"), vat_rate_id: rate21.id })).status).toBe(200);
    expect((await act(w, line(a, "1010007").id, "book", { account_id: w.code("4900") })).status).toBe(200);
    expect(await balanceOf(w, w.accountA)).toBe(447077);
    expect(await balanceOf(w, w.code("1900"))).toBe(-121000);
  });
});

describe("VAT follows the account booked to", () => {
  test("a refunded bank fee (money in, to bank charges) reduces input VAT; interest to other income at a rate is output VAT", async () => {
    const w = await walk("Brouwerij VAT");
    const a = (await importFile(w, WALK_A, w.a)).body.data;
    const rate21 = (await listVatRates(asTx(env.db), w.org.id)).find((r) => r.rateBp === 2100)!;
    // the interest line (2.50, money in) booked as if a fee came back: 2.07 + 0.43 VAT, credited to 6900 and 1400
    const back = await act(w, line(a, "1010007").id, "book", { account_id: w.code("6900"), vat_rate_id: rate21.id });
    const entry = await get(w, `/api/v1/journal-entries/${back.body.data.journal_entry_id}`);
    const amounts = Object.fromEntries(entry.lines.map((l: any) => [l.account_id, [l.debit, l.credit]]));
    expect(amounts[w.code("6900")]).toEqual(["0.00", "2.07"]);
    expect(amounts[w.code("1400")]).toEqual(["0.00", "0.43"]);
    expect((await act(w, line(a, "1010007").id, "unbook")).status).toBe(200);
    const sold = await act(w, line(a, "1010007").id, "book", { account_id: w.code("4900"), vat_rate_id: rate21.id });
    const sale = await get(w, `/api/v1/journal-entries/${sold.body.data.journal_entry_id}`);
    expect(Object.fromEntries(sale.lines.map((l: any) => [l.account_id, [l.debit, l.credit]]))[w.code("2200")]).toEqual(["0.00", "0.43"]);
  });
});

// an upgrade of a SQLite database (tests/upgrade-copy.ts): a PostgreSQL database starts from a baseline after it
sqliteOnly.describe("the opening balance of databases that imported statements before", () => {
  test("an account whose first statement was imported by an earlier Kontor gets its opening entry from the upgrade's data migration", async () => {
    const w = await walk("Brouwerij Upgrade");
    // the database of migration 0029, where an earlier Kontor imported statement 2026-101 without an opening entry
    const dir = mkdtempSync(join(tmpdir(), "kontor-opening-"));
    const oldPath = join(dir, "kontor.db");
    const { sqlite, pending } = databaseBefore(env, "0030_", oldPath);
    sqlite.run(
      "INSERT INTO bank_statements (id, organization_id, bank_account_id, statement_id, format, currency, opening_cents, opening_date, closing_cents, closing_date, sha256, created_at) VALUES (?, ?, ?, '2026-101', 'camt.053', 'EUR', 500000, '2026-04-01', 500000, '2026-04-01', 'x', ?)",
      [newId(), w.org.id, w.a, nowIso()],
    );
    sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    sqlite.close();
    const { db: upgraded, get } = await upgradedApp(env, oldPath, pending, w.token);
    // 5000.00, of which the books held the 605.00 recorded by hand: the entry is 4395.00, dated the day before
    expect((await get(`/api/v1/bank-accounts/${w.a}`)).balance).toBe("5000.00");
    const entries = async () => await upgraded.select().from(journalEntries).where(and(eq(journalEntries.organizationId, w.org.id), eq(journalEntries.sourceType, "bank_statement")));
    expect((await entries()).map((e) => e.date)).toEqual(["2026-03-31"]);
    // run again: the books already hold the bank's opening balance, nothing is added
    await upgraded.connection.transactions.run("immediate", () => backfillOpeningBalances(asTx(upgraded)));
    expect(await entries()).toHaveLength(1);
    upgraded.$client.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
