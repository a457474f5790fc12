/**
 * Issue 27, items 2 and 3, on files of the XRechnung test suite (fixtures/xrechnung/README.md):
 * an imported invoice's amount due is its PayableAmount (BT-115 = TaxInclusiveAmount − PrepaidAmount
 * BT-113 + PayableRoundingAmount BT-114), and the books post the whole invoice and the prepayment;
 * a valid invoice whose totals are all 0 is kept as a received document; what cannot be booked is
 * a 422 with nothing stored. Every expected figure is read off the files.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const bytesOf = (name: string) => readFileSync(join(import.meta.dir, "fixtures", "xrechnung", name));
const fixture = (name: string) => bytesOf(name).toString("utf8");
const importXml = (xml: string, token: string) =>
  env.request("POST", "/api/v1/expenses/import", { rawBody: xml, token, headers: { "content-type": "application/xml" } });
const get = async (path: string, token: string) => (await env.request("GET", path, { token })).body;

type Account = { code: string; name: string; system_account: string | null; balance: string };
const accountsOf = async (token: string) => (await get("/api/v1/accounts?per_page=100", token)).data as Account[];
const balanceOf = (accounts: Account[], role: string) => accounts.find((a) => a.system_account === role)?.balance;

/** A one-statement camt.053.001.02 of `iban` with debit lines [amount, creditor IBAN] (written for this test). */
function camt053(iban: string, opening: string, closing: string, debits: [string, string][]): string {
  const entries = debits
    .map(
      ([amount, creditor], i) => `<Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>
<BookgDt><Dt>2019-06-03</Dt></BookgDt><ValDt><Dt>2019-06-03</Dt></ValDt><AcctSvcrRef>PREPAID-${i + 1}</AcctSvcrRef>
<NtryDtls><TxDtls><RltdPties><Cdtr><Nm>M. Meier Handwerk GbR</Nm></Cdtr><CdtrAcct><Id><IBAN>${creditor}</IBAN></Id></CdtrAcct></RltdPties>
<RmtInf><Ustrd>Rechnung 12345</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`,
    )
    .join("\n");
  const balance = (code: string, amount: string) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2019-06-03</Dt></Dt></Bal>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>
<GrpHdr><MsgId>PREPAID-TEST</MsgId><CreDtTm>2019-06-03T18:00:00</CreDtTm></GrpHdr>
<Stmt><Id>2019-001</Id><ElctrncSeqNb>1</ElctrncSeqNb><CreDtTm>2019-06-03T18:00:00</CreDtTm>
<Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>EUR</Ccy></Acct>
${balance("OPBD", opening)}${balance("CLBD", closing)}
${entries}
</Stmt></BkToCstmrStmt></Document>`;
}

describe("what is owed is what the document says is due", () => {
  test("04.01a: 14,918.84 invoiced, 10,000.00 prepaid → 4,918.84 due; payables end at it and the advance is settled", async () => {
    const { token } = await env.newOrg("Prepaid Meier", { country: "BE", currency: "EUR" });
    const imported = await importXml(fixture("04.01a-INVOICE_ubl.xml"), token);
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.data).toMatchObject({
      amount: "12536.84",
      vat_amount: "2382.00",
      total: "14918.84",
      prepaid_amount: "10000.00",
      rounding_amount: "0.00",
      amount_due: "0.00", // pending: nothing is owed yet
    });
    const id = imported.body.data.id;
    const approved = await env.request("POST", `/api/v1/expenses/${id}/approve`, { token });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.data).toMatchObject({ status: "approved", total: "14918.84", amount_due: "4918.84" });

    const books = await accountsOf(token);
    // payables: credited 14,918.84, debited 10,000.00 → 4,918.84 owed
    expect(balanceOf(books, "payables")).toBe("4918.84");
    // the advance paid before the invoice is settled by it: −10,000.00 until the payment out is booked
    const advances = books.find((a) => a.system_account === "supplier_advances");
    expect(advances).toMatchObject({ code: "1500", name: "Advances to suppliers", balance: "-10000.00" });
    expect(balanceOf(books, "vat_receivable")).toBe("2382.00");

    // paying more than the amount due is refused; paying it settles the expense
    const tooMuch = await env.request("POST", `/api/v1/expenses/${id}/record-payment`, { token, body: { amount: "4918.85", payment_date: "2019-06-01" } });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.errors.amount[0]).toContain("4918.84");
    const paid = await env.request("POST", `/api/v1/expenses/${id}/record-payment`, { token, body: { amount: "4918.84", payment_date: "2019-06-01" } });
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body.data).toMatchObject({ status: "paid", amount_paid: "4918.84", amount_due: "0.00" });
    expect(balanceOf(await accountsOf(token), "payables")).toBe("0.00");
  });

  test("04.01a: a bank debit of the amount due (4,918.84) to the supplier's IBAN (BT-84) pays the expense (its IBAN and amount due, issue 27 item 5); one of the total does not, nor is it suggested", async () => {
    const { token } = await env.newOrg("Prepaid matching", { country: "BE", currency: "EUR" });
    const bank = (await get("/api/v1/bank-accounts", token)).data[0];
    const imported = await importXml(fixture("04.01a-INVOICE_ubl.xml"), token);
    expect(imported.body.data.payee_iban).toBe("DE79000000001234567890");
    await env.request("POST", `/api/v1/expenses/${imported.body.data.id}/approve`, { token });
    // 20,000.00 − 4,918.84 − 14,918.84 = 162.32
    const statement = camt053(bank.iban, "20000.00", "162.32", [
      ["4918.84", "DE79000000001234567890"],
      ["14918.84", "DE79000000001234567890"],
    ]);
    const r = await env.request("POST", `/api/v1/bank-accounts/${bank.id}/statements`, { rawBody: statement, token, headers: { "content-type": "application/xml" } });
    expect(r.status, r.text).toBe(201);
    const listed = await get(`/api/v1/bank-transactions?filter[bank_account_id]=${bank.id}&per_page=100`, token);
    const lines = listed.data as { amount: string; status: string; expense_id: string | null; suggested_expense_id: string | null }[];
    expect(lines.find((l) => l.amount === "4918.84")).toMatchObject({ status: "matched", expense_id: imported.body.data.id });
    expect(lines.find((l) => l.amount === "14918.84")).toMatchObject({ status: "unmatched", expense_id: null, suggested_expense_id: null });
    expect((await get(`/api/v1/expenses/${imported.body.data.id}`, token)).data).toMatchObject({ status: "paid", amount_due: "0.00" });
  });

  test("a pending imported expense edited by hand keeps its prepaid amount: a total below it is a 422 naming amount", async () => {
    const { token } = await env.newOrg("Prepaid edited", { country: "BE", currency: "EUR" });
    const id = (await importXml(fixture("04.01a-INVOICE_ubl.xml"), token)).body.data.id;
    // 7,000.00 + 2,382.00 VAT < 10,000.00 prepaid
    const refused = await env.request("PUT", `/api/v1/expenses/${id}`, { token, body: { amount: "7000.00" } });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.amount[0]).toContain("10000.00");
    expect((await get(`/api/v1/expenses/${id}`, token)).data).toMatchObject({ amount: "12536.84", prepaid_amount: "10000.00" });
    const edited = await env.request("PUT", `/api/v1/expenses/${id}`, { token, body: { amount: "8000.00" } });
    expect(edited.status, edited.text).toBe(200);
    const approved = await env.request("POST", `/api/v1/expenses/${id}/approve`, { token });
    // 8,000.00 + 2,382.00 − 10,000.00
    expect(approved.body.data).toMatchObject({ total: "10382.00", amount_due: "382.00" });
  });

  test("03.04a: 41,836.62 invoiced, 39,839.00 prepaid → 1,997.62 due", async () => {
    const { token } = await env.newOrg("Prepaid energy", { country: "BE", currency: "EUR" });
    const imported = await importXml(fixture("03.04a-INVOICE_ubl.xml"), token);
    expect(imported.status, imported.text).toBe(201);
    const approved = await env.request("POST", `/api/v1/expenses/${imported.body.data.id}/approve`, { token });
    expect(approved.body.data).toMatchObject({ total: "41836.62", prepaid_amount: "39839.00", amount_due: "1997.62" });
    expect(balanceOf(await accountsOf(token), "payables")).toBe("1997.62");
  });

  test("01.17a: 336.90 invoiced with 0.01 rounding → 336.91 due, the rounding booked as cost", async () => {
    const { token } = await env.newOrg("Rounded", { country: "BE", currency: "EUR" });
    const imported = await importXml(fixture("01.17a-INVOICE_ubl.xml"), token);
    expect(imported.status, imported.text).toBe(201);
    const approved = await env.request("POST", `/api/v1/expenses/${imported.body.data.id}/approve`, { token });
    expect(approved.body.data).toMatchObject({ total: "336.90", prepaid_amount: "0.00", rounding_amount: "0.01", amount_due: "336.91" });
    const books = await accountsOf(token);
    expect(balanceOf(books, "payables")).toBe("336.91");
    expect(books.some((a) => a.system_account === "supplier_advances")).toBe(false);
  });

  test("a credit note with a prepaid amount reverses likewise: the supplier owes back total − prepaid", async () => {
    const { token } = await env.newOrg("Prepaid credit note", { country: "BE", currency: "EUR" });
    // 04.01a as the credit note it would be with the same figures (type 381): the reverse postings
    const note = fixture("04.01a-INVOICE_ubl.xml").replace("<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>", "<cbc:InvoiceTypeCode>381</cbc:InvoiceTypeCode>");
    expect(note).toContain("<cbc:InvoiceTypeCode>381</cbc:InvoiceTypeCode>");
    const asCorrective = note
      .replaceAll(/(<cbc:(?:LineExtension|TaxExclusive|TaxInclusive|Prepaid|Payable|Taxable|Tax)Amount currencyID="EUR">)(\d)/g, "$1-$2");
    const imported = await importXml(asCorrective, token);
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.data).toMatchObject({ document_type: "credit_note", total: "14918.84", prepaid_amount: "10000.00" });
    const approved = await env.request("POST", `/api/v1/expenses/${imported.body.data.id}/approve`, { token });
    expect(approved.body.data).toMatchObject({ amount_due: "4918.84" });
    const books = await accountsOf(token);
    expect(balanceOf(books, "payables")).toBe("-4918.84");
    expect(balanceOf(books, "supplier_advances")).toBe("10000.00");
  });

  test("03.01a: more prepaid than invoiced (PayableAmount −225.14) is an expense of its total, nothing due, the excess owed back once approved", async () => {
    // the file: TaxExclusiveAmount 687.28, TaxAmount 117.58, TaxInclusiveAmount 804.86, PrepaidAmount 1030, PayableAmount -225.14
    const { token } = await env.newOrg("Overpaid", { country: "BE", currency: "EUR" });
    const imported = await importXml(fixture("03.01a-INVOICE_ubl.xml"), token);
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.data).toMatchObject({ document_type: "invoice", amount: "687.28", vat_amount: "117.58", total: "804.86", prepaid_amount: "1030.00", amount_due: "0.00", refund_due: "0.00" });
    const approved = await env.request("POST", `/api/v1/expenses/${imported.body.data.id}/approve`, { token });
    expect(approved.status, approved.text).toBe(200);
    // 1030.00 − 804.86 = 225.14
    expect(approved.body.data).toMatchObject({ status: "approved", amount_due: "0.00", refund_due: "225.14" });
  });
});

describe("every valid document is kept", () => {
  test("02.04a: an invoice whose totals are all 0 is kept as a received document, byte for byte, with its supplier", async () => {
    const { token } = await env.newOrg("Free delivery", { country: "BE", currency: "EUR" });
    const bytes = bytesOf("02.04a-INVOICE_ubl.xml");
    const kept = await importXml(bytes.toString("utf8"), token);
    expect(kept.status, kept.text).toBe(201);
    const id = kept.body.data.id;
    expect(kept.headers.get("location")).toBe(`/api/v1/received-documents/${id}`);
    expect(kept.body.data).toMatchObject({
      document_type: "invoice",
      supplier_invoice_number: "1234567",
      date: "2018-04-13",
      vendor: "[Seller name]",
      currency: "EUR",
      total: "0.00",
      document_url: `/api/v1/received-documents/${id}/document`,
      sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex"),
    });
    const supplier = await get(`/api/v1/suppliers/${kept.body.data.supplier_id}`, token);
    expect(supplier.data.name).toBe("[Seller name]");
    expect((await get("/api/v1/expenses", token)).data).toEqual([]);

    const list = await get("/api/v1/received-documents", token);
    expect(list.data).toEqual([kept.body.data]);
    expect(list.meta.total).toBe(1);
    expect((await get(`/api/v1/received-documents?filter[supplier_id]=${kept.body.data.supplier_id}`, token)).data).toHaveLength(1);
    expect((await get(`/api/v1/received-documents/${id}`, token)).data).toEqual(kept.body.data);
    const original = await env.request("GET", `/api/v1/received-documents/${id}/document`, { token });
    expect(original.status).toBe(200);
    expect(original.headers.get("content-type")).toContain("application/xml");
    expect(original.text).toBe(bytes.toString("utf8"));

    // kept once: the same document again is a 409 naming it, and nothing more is stored
    const again = await importXml(bytes.toString("utf8"), token);
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(id);
    expect((await get("/api/v1/received-documents", token)).meta.total).toBe(1);

    // its supplier cannot be deleted while it keeps the document
    const deleted = await env.request("DELETE", `/api/v1/suppliers/${kept.body.data.supplier_id}`, { token });
    expect(deleted.status).toBe(409);
  });

  test("another organisation sees none of it", async () => {
    const a = await env.newOrg("Keeper", { country: "BE", currency: "EUR" });
    const b = await env.newOrg("Stranger", { country: "BE", currency: "EUR" });
    const kept = await importXml(fixture("02.04a-INVOICE_ubl.xml"), a.token);
    expect(kept.status).toBe(201);
    expect((await env.request("GET", `/api/v1/received-documents/${kept.body.data.id}`, { token: b.token })).status).toBe(404);
    expect((await env.request("GET", `/api/v1/received-documents/${kept.body.data.id}/document`, { token: b.token })).status).toBe(404);
    expect((await get("/api/v1/received-documents", b.token)).data).toEqual([]);
  });
});
