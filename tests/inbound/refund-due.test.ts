/**
 * A supplier invoice prepaid beyond its total (BT-115 negative; KoSIT's 03.01a): imported as an
 * expense of its total, nothing due, the excess owed back as refund_due once approved, settled by a
 * recorded refund (POST /expenses/{id}/record-payment: money in) or an incoming bank line; no money
 * field negative. Figures by hand from the file: TaxExclusiveAmount 687.28, TaxAmount 117.58,
 * TaxInclusiveAmount 804.86, PrepaidAmount 1030.00, PayableAmount −225.14 (1030.00 − 804.86 = 225.14).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTestEnv, type ApiResponse } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const FILE = readFileSync(join(import.meta.dir, "..", "fixtures", "xrechnung-testsuite", "business-cases", "standard", "03.01a-INVOICE_ubl.xml"));
const CII = readFileSync(join(import.meta.dir, "..", "fixtures", "xrechnung-testsuite", "business-cases", "standard", "03.01a-INVOICE_uncefact.xml"));
const importXml = (bytes: Uint8Array, token: string) =>
  env.request("POST", "/api/v1/expenses/import", { rawBody: bytes, token, headers: { "content-type": "application/xml" } });
const get = async (path: string, token: string) => (await env.request("GET", path, { token })).body;
type Account = { system_account: string | null; balance: string };
const balanceOf = async (token: string, role: string) => ((await get("/api/v1/accounts?per_page=100", token)).data as Account[]).find((a) => a.system_account === role)?.balance;

/** Every decimal string in an expense is ≥ 0. */
const noNegativeMoney = (r: ApiResponse) => {
  const d = r.body.data;
  for (const field of ["amount", "vat_amount", "total", "prepaid_amount", "rounding_amount", "amount_paid", "amount_due", "refund_due"]) {
    expect(d[field], field).toMatch(/^\d+\.\d{2}$/);
  }
};

async function approvedOverpaid(name: string) {
  const { token } = await env.newOrg(name, { country: "BE", currency: "EUR" });
  const imported = await importXml(FILE, token);
  expect(imported.status, imported.text).toBe(201);
  noNegativeMoney(imported);
  expect(imported.body.data).toMatchObject({ document_type: "invoice", total: "804.86", prepaid_amount: "1030.00", amount_due: "0.00", refund_due: "0.00", status: "pending" });
  const approved = await env.request("POST", `/api/v1/expenses/${imported.body.data.id}/approve`, { token });
  expect(approved.status, approved.text).toBe(200);
  noNegativeMoney(approved);
  expect(approved.body.data).toMatchObject({ status: "approved", amount_due: "0.00", refund_due: "225.14", amount_paid: "0.00" });
  return { token, id: imported.body.data.id as string };
}

describe("an invoice prepaid beyond its total", () => {
  test("UBL and CII alike: 201, an expense of its total, amount_due 0.00; approved: refund_due 225.14; the books hold the supplier's debt", async () => {
    const cii = await env.newOrg("Overpaid CII", { country: "BE", currency: "EUR" });
    const fromCii = await importXml(CII, cii.token);
    expect(fromCii.status, fromCii.text).toBe(201);
    expect(fromCii.body.data).toMatchObject({ amount: "687.28", vat_amount: "117.58", total: "804.86", prepaid_amount: "1030.00", amount_due: "0.00" });

    const { token } = await approvedOverpaid("Overpaid");
    // approval: payables credited 804.86 (the invoice) and debited 1030.00 (the prepayment it settles):
    // a debit balance of 225.14, what the supplier owes; the advances account gives up the 1030.00
    expect(await balanceOf(token, "payables")).toBe("-225.14");
    expect(await balanceOf(token, "supplier_advances")).toBe("-1030.00");
    // nothing to pay: not in a payment run
    const bank = (await get("/api/v1/bank-accounts", token)).data[0];
    const run = await env.request("POST", "/api/v1/payment-runs", { token, body: { bank_account_id: bank.id, due_by: "2030-12-31" } });
    expect(run.status).toBe(422);
  });

  test("a recorded refund of at most 225.14 settles it (money in: bank debited, payables credited); a deleted one reopens it", async () => {
    const { token, id } = await approvedOverpaid("Refund recorded");
    const tooMuch = await env.request("POST", `/api/v1/expenses/${id}/record-payment`, { token, body: { amount: "225.15", payment_date: "2019-03-20" } });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.errors.amount[0]).toContain("225.14");
    const part = await env.request("POST", `/api/v1/expenses/${id}/record-payment`, { token, body: { amount: "200.00", payment_date: "2019-03-20" } });
    expect(part.status, part.text).toBe(201);
    noNegativeMoney(part);
    expect(part.body.data).toMatchObject({ status: "approved", amount_paid: "200.00", amount_due: "0.00", refund_due: "25.14" });
    // −225.14 + 200.00
    expect(await balanceOf(token, "payables")).toBe("-25.14");
    const rest = await env.request("POST", `/api/v1/expenses/${id}/record-payment`, { token, body: { amount: "25.14", payment_date: "2019-03-21" } });
    expect(rest.body.data).toMatchObject({ status: "paid", amount_paid: "225.14", amount_due: "0.00", refund_due: "0.00" });
    expect(await balanceOf(token, "payables")).toBe("0.00");
    // the bank received 225.14 (the organisation's bank account, debited)
    const journal = (await get(`/api/v1/journal-entries?per_page=100`, token)).data as { description: string }[];
    expect(journal.filter((e) => e.description.startsWith("Refund of expense")).length).toBe(2);
    const again = await env.request("DELETE", `/api/v1/expenses/${id}/payments/${rest.body.data.payments[1].id}`, { token });
    expect(again.status, again.text).toBe(204);
    expect((await get(`/api/v1/expenses/${id}`, token)).data).toMatchObject({ status: "approved", refund_due: "25.14" });
    expect(await balanceOf(token, "payables")).toBe("-25.14");
  });

  test("an incoming bank line settles it; an outgoing one cannot", async () => {
    const { token, id } = await approvedOverpaid("Refund by bank");
    const bank = (await get("/api/v1/bank-accounts", token)).data[0];
    const entry = (amount: string, indicator: "CRDT" | "DBIT", ref: string) => `<Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>${indicator}</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>2019-03-20</Dt></BookgDt><ValDt><Dt>2019-03-20</Dt></ValDt><AcctSvcrRef>${ref}</AcctSvcrRef>
<NtryDtls><TxDtls><RmtInf><Ustrd>Erstattung 123456789</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`;
    const balance = (code: string, amount: string) =>
      `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2019-03-20</Dt></Dt></Bal>`;
    // 1000.00 + 225.14 − 225.14 = 1000.00
    const statement = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>
<GrpHdr><MsgId>REFUND-TEST</MsgId><CreDtTm>2019-03-20T18:00:00</CreDtTm></GrpHdr>
<Stmt><Id>2019-R1</Id><ElctrncSeqNb>1</ElctrncSeqNb><CreDtTm>2019-03-20T18:00:00</CreDtTm>
<Acct><Id><IBAN>${bank.iban}</IBAN></Id><Ccy>EUR</Ccy></Acct>
${balance("OPBD", "1000.00")}${balance("CLBD", "1000.00")}
${entry("225.14", "CRDT", "R-1")}
${entry("225.14", "DBIT", "R-2")}
</Stmt></BkToCstmrStmt></Document>`;
    const r = await env.request("POST", `/api/v1/bank-accounts/${bank.id}/statements`, { rawBody: statement, token, headers: { "content-type": "application/xml" } });
    expect(r.status, r.text).toBe(201);
    const lines = (await get(`/api/v1/bank-transactions?filter[bank_account_id]=${bank.id}&per_page=100`, token)).data as { id: string; direction: string }[];
    const credit = lines.find((l) => l.direction === "credit")!;
    const debit = lines.find((l) => l.direction === "debit")!;
    const wrongWay = await env.request("POST", `/api/v1/bank-transactions/${debit.id}/match`, { token, body: { expense_id: id } });
    expect(wrongWay.status).toBe(422);
    const matched = await env.request("POST", `/api/v1/bank-transactions/${credit.id}/match`, { token, body: { expense_id: id } });
    expect(matched.status, matched.text).toBe(200);
    const expense = await env.request("GET", `/api/v1/expenses/${id}`, { token });
    expect(expense.body.data).toMatchObject({ status: "paid", amount_paid: "225.14", amount_due: "0.00", refund_due: "0.00" });
    expect(await balanceOf(token, "payables")).toBe("0.00");
  });
});
