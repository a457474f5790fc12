/**
 * Suspense and bank lines that pay several documents (docs/banking.md#suspense), through the API:
 * an unknown payer's money waits in the suspense account from the import on, so the bank
 * account's ledger balance is the statement's closing balance at every step; a line split over
 * two invoices, allocated partly and then completed; an invoice and its interest note paid by one
 * transfer on import; reclassify, unmatch (back into suspense), ignore (stays there); every
 * refusal of the routes. The figures are worked out by hand below, from the statement.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, sql } from "drizzle-orm";
import { accounts, invoices, journalLines, webhookDeliveries } from "../../db/schema.ts";
import type { Organization } from "../../server/lib/scope.ts";
import { listVatRates } from "../../server/vat-rates/service.ts";
import { createTestEnv, asTx } from "../helpers.ts";
import { firstRow } from "../../db/client.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const IBAN = "BE71096123456769";
const R1 = "+++202/6000/10195+++";
const R2 = "+++202/6000/10296+++";
const R3 = "+++202/6000/10397+++";

type Line = { cents: number; credit: boolean; reference: string | null; text: string };

/** A camt.053.001.02 statement of `lines`, all booked on `date` (the minimum the reader needs; tests/inbound has XSD-checked ones). */
function camt053(id: string, date: string, openingCents: number, lines: Line[]): string {
  const amount = (cents: number) => (Math.abs(cents) / 100).toFixed(2);
  const closing = lines.reduce((s, l) => s + (l.credit ? l.cents : -l.cents), openingCents);
  const balance = (code: string, cents: number) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount(cents)}</Amt><CdtDbtInd>${cents < 0 ? "DBIT" : "CRDT"}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`;
  const entries = lines.map((l, n) => {
    const remittance = l.reference ? `<RmtInf><Strd><CdtrRefInf><Ref>${l.reference}</Ref></CdtrRefInf></Strd></RmtInf>` : `<RmtInf><Ustrd>${l.text}</Ustrd></RmtInf>`;
    return `<Ntry><Amt Ccy="EUR">${amount(l.cents)}</Amt><CdtDbtInd>${l.credit ? "CRDT" : "DBIT"}</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${date}</Dt></BookgDt><ValDt><Dt>${date}</Dt></ValDt><AcctSvcrRef>${id}-${n}</AcctSvcrRef><NtryDtls><TxDtls>${remittance}</TxDtls></NtryDtls></Ntry>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>${id}</MsgId><CreDtTm>${date}T18:00:00</CreDtTm></GrpHdr><Stmt><Id>${id}</Id><CreDtTm>${date}T18:00:00</CreDtTm><Acct><Id><IBAN>${IBAN}</IBAN></Id><Ccy>EUR</Ccy></Acct>${balance("OPBD", openingCents)}${balance("CLBD", closing)}${entries.join("")}</Stmt></BkToCstmrStmt></Document>`;
}

describe("suspense, split lines, partial allocations, reclassify, unmatch, ignore", () => {
  let org: Organization;
  let token: string;
  let bank: { id: string; account_id: string };
  let code: (c: string) => string;
  let inv1: string, inv2: string, inv3: string, noteId: string, expenseId: string;
  let noteCents: number;
  let lines: Record<string, any>;
  let rate21: string;

  const call = (method: string, path: string, body?: unknown, t = token) => env.api(method, path, body, t);
  const act = (id: string, action: string, body?: unknown) => call("POST", `/api/v1/bank-transactions/${id}/${action}`, body);
  const get = async (path: string) => (await call("GET", path)).body.data;
  const balanceOf = async (accountId: string) =>
    (await firstRow(env.db
      .select({ net: sql<number>`coalesce(sum(${journalLines.debitCents}) - sum(${journalLines.creditCents}), 0)` })
      .from(journalLines)
      .where(and(eq(journalLines.organizationId, org.id), eq(journalLines.accountId, accountId)))))!.net;
  const suspense = async () => balanceOf((await firstRow(env.db.select().from(accounts).where(and(eq(accounts.organizationId, org.id), eq(accounts.systemAccount, "suspense")))))!.id);

  // The statement: opens with 1000.00 on 2026-04-01; 400.00 from an unknown payer, the invoice of
  // 1210.00 and its interest note in one transfer, 50.00 out (a bank fee), 99.99 in (a refund of
  // something no one can place).
  const OPENING = 100000;
  let CLOSING: number;

  /** The invariant: the bank account's ledger balance is its statement's closing balance (no payment recorded by hand here), and suspense holds `suspenseCents` (debit positive). */
  const assertBooks = async (suspenseCents: number) => {
    expect(await balanceOf(bank.account_id)).toBe(CLOSING);
    expect(await suspense()).toBe(suspenseCents);
    const unbalanced = (await env.db
      .select({ net: sql<number>`sum(${journalLines.debitCents}) - sum(${journalLines.creditCents})` })
      .from(journalLines)
      .where(eq(journalLines.organizationId, org.id))
      .groupBy(journalLines.entryId))
      .filter((e) => e.net !== 0);
    expect(unbalanced).toEqual([]);
  };

  beforeAll(async () => {
    ({ org, token } = await env.newOrg("Suspense BV", { country: "BE", currency: "EUR" }));
    bank = (await get("/api/v1/bank-accounts")).find((a: any) => a.iban === IBAN);
    const chart = (await get("/api/v1/accounts?per_page=100")) as any[];
    code = (c: string) => chart.find((x) => x.code === c).id;
    rate21 = (await listVatRates(asTx(env.db), org.id)).find((r) => r.rateBp === 2100)!.id;
    const customer = (await call("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", vat_number: "BE0404795549" })).body.data;
    const issue = async (net: string, reference: string, issue_date = "2026-03-02", due_date = "2026-04-01") => {
      const created = await call("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date, due_date, lines: [{ description: "Beer", quantity: "1", unit_price: net, vat_rate_id: rate21 }] });
      expect(created.status, created.text).toBe(201);
      expect((await act(created.body.data.id, "x")).status).toBe(404);
      const finalized = await call("POST", `/api/v1/invoices/${created.body.data.id}/finalize`);
      expect(finalized.status, finalized.text).toBe(200);
      await env.db.update(invoices).set({ paymentReference: reference }).where(eq(invoices.id, created.body.data.id));
      return created.body.data.id as string;
    };
    inv3 = await issue("1000.00", R3, "2026-01-02", "2026-02-01"); // 1210.00, late
    inv1 = await issue("100.00", R1); // 121.00
    inv2 = await issue("200.00", R2); // 242.00
    const draft = await call("POST", `/api/v1/invoices/${inv3}/interest-note`, { as_of: "2026-03-31" });
    expect(draft.status, draft.text).toBe(201);
    const note = await call("POST", `/api/v1/invoices/${draft.body.data.id}/finalize`);
    expect(note.status, note.text).toBe(200);
    noteId = note.body.data.id;
    noteCents = Math.round(Number(note.body.data.total) * 100);
    expect(noteCents).toBeGreaterThan(4000); // the €40 compensation and some interest
    const expense = await call("POST", "/api/v1/expenses", { category: "Printing", amount: "300.00", vat_amount: "63.00", date: "2026-03-20" });
    expenseId = expense.body.data.id;
    expect((await call("POST", `/api/v1/expenses/${expenseId}/approve`)).status).toBe(200);
    expect((await call("POST", "/api/v1/webhooks", { url: "https://hooks.example.test/s", events: ["bank_transaction.allocated", "bank_transaction.reclassified", "bank_transaction.matched"] })).status).toBe(201);

    const statement: Line[] = [
      { cents: 40000, credit: true, reference: null, text: "Dupont april" },
      { cents: 121000 + noteCents, credit: true, reference: R3, text: "" },
      { cents: 5000, credit: false, reference: null, text: "Fee" },
      { cents: 9999, credit: true, reference: null, text: "Refund" },
    ];
    CLOSING = OPENING + 40000 + 121000 + noteCents - 5000 + 9999;
    const r = await env.request("POST", `/api/v1/bank-accounts/${bank.id}/statements`, {
      rawBody: camt053("2026-077", "2026-04-01", OPENING, statement),
      token,
      headers: { "content-type": "application/xml" },
    });
    expect(r.status, r.text).toBe(201);
    const byRef = (n: number) => r.body.data.transactions.find((t: any) => t.entry_ref === `2026-077-${n}`);
    lines = { unknown: byRef(0), both: byRef(1), fee: byRef(2), refund: byRef(3) };
  });

  test("on import: the unknown lines go to suspense, the invoice and its interest note are paid by one transfer", async () => {
    expect(lines.unknown).toMatchObject({ status: "unmatched", allocations: [], unallocated_amount: "400.00" });
    expect(lines.fee).toMatchObject({ status: "unmatched", unallocated_amount: "50.00" });
    // the invoice's amount due plus the note's, with the invoice's reference: one allocation each
    expect(lines.both).toMatchObject({ status: "matched", invoice_id: inv3, matched_amount: "1210.00", unallocated_amount: "0.00" });
    expect(lines.both.allocations.map((a: any) => [a.invoice_id, a.amount])).toEqual([
      [inv3, "1210.00"],
      [noteId, (noteCents / 100).toFixed(2)],
    ]);
    expect((await get(`/api/v1/invoices/${inv3}`)).status).toBe("paid");
    expect((await get(`/api/v1/invoices/${noteId}`)).status).toBe("paid");
    expect(lines.both.allocations[1].payment_id).toBe((await get(`/api/v1/invoices/${noteId}`)).payments[0].id);
    // suspense: 400.00 + 99.99 in, 50.00 out, credited 449.99
    await assertBooks(-(40000 + 9999 - 5000));
  });

  test("a line split over two invoices, partly: partially_matched, the rest in suspense; then completed with an account", async () => {
    const split = await act(lines.unknown.id, "match", {
      allocations: [
        { invoice_id: inv1, amount: "121.00" },
        { invoice_id: inv2, amount: "242.00" },
      ],
    });
    expect(split.status, split.text).toBe(200);
    expect(split.body.data).toMatchObject({ status: "partially_matched", invoice_id: inv1, matched_amount: "121.00", unallocated_amount: "37.00" });
    expect(split.body.data.allocations.map((a: any) => [a.invoice_id, a.amount])).toEqual([
      [inv1, "121.00"],
      [inv2, "242.00"],
    ]);
    expect(split.body.data.payment_id).toBe(split.body.data.allocations[0].payment_id);
    expect((await get(`/api/v1/invoices/${inv1}`)).status).toBe("paid");
    expect((await get(`/api/v1/invoices/${inv2}`)).status).toBe("paid");
    // 363.00 left suspense: 37.00 + 99.99 - 50.00 = 86.99 still credited there
    await assertBooks(-(3700 + 9999 - 5000));
    // a partially matched line is not ignored, and cannot be allocated beyond what it has left
    expect((await act(lines.unknown.id, "ignore")).status).toBe(409);
    const over = await act(lines.unknown.id, "match", { allocations: [{ account_id: code("4900"), amount: "37.01" }] });
    expect(over.status).toBe(422);
    expect(over.body.errors["allocations.0.amount"][0]).toContain("37.00");
    // the rest to other income: matched
    const rest = await act(lines.unknown.id, "match", { allocations: [{ account_id: code("4900"), amount: "37.00", description: "Tip" }] });
    expect(rest.status, rest.text).toBe(200);
    expect(rest.body.data).toMatchObject({ status: "matched", unallocated_amount: "0.00" });
    expect(rest.body.data.allocations[2]).toMatchObject({ account_id: code("4900"), amount: "37.00", payment_id: null });
    expect(await balanceOf(code("4900"))).toBe(-3700);
    await assertBooks(-(9999 - 5000));
    expect((await act(lines.unknown.id, "match", { allocations: [{ account_id: code("4900"), amount: "1.00" }] })).status).toBe(409);
    const events = (await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.organizationId, org.id))).map((d) => d.event);
    expect(events.filter((e) => e === "bank_transaction.allocated")).toHaveLength(2);
  });

  test("ignore leaves a line in suspense; unmatch brings it back to the list, still in suspense", async () => {
    const ignored = await act(lines.refund.id, "ignore");
    expect(ignored.body.data).toMatchObject({ status: "ignored", unallocated_amount: "99.99" });
    await assertBooks(-(9999 - 5000));
    expect((await act(lines.refund.id, "ignore")).status).toBe(409);
    expect((await act(lines.refund.id, "unmatch")).body.data.status).toBe("unmatched");
    await assertBooks(-(9999 - 5000));
    expect((await act(lines.refund.id, "unmatch")).status).toBe(409);
  });

  test("reclassify: the fee to bank charges with its VAT; a matched line's allocations replaced in one go", async () => {
    const fee = await act(lines.fee.id, "reclassify", { allocations: [{ account_id: code("6900"), amount: "50.00", vat_rate_id: rate21 }] });
    expect(fee.status, fee.text).toBe(200);
    expect(fee.body.data).toMatchObject({ status: "matched", unallocated_amount: "0.00" });
    // 50.00 = 41.32 + 8.68 VAT at 21 % (50.00 / 1.21 = 41.32)
    expect(await balanceOf(code("6900"))).toBe(4132);
    // input VAT: the printer's 63.00 approved before, and the fee's 8.68
    expect(await balanceOf(code("1400"))).toBe(6300 + 868);
    await assertBooks(-9999);
    // the 400.00 line: 121.00 to the first invoice, the rest (279.00) to other income; the second invoice is open again
    const again = await act(lines.unknown.id, "reclassify", {
      allocations: [
        { invoice_id: inv1, amount: "121.00" },
        { account_id: code("4900"), amount: "279.00" },
      ],
    });
    expect(again.status, again.text).toBe(200);
    expect(again.body.data.allocations.map((a: any) => [a.invoice_id ?? a.account_id, a.amount])).toEqual([
      [inv1, "121.00"],
      [code("4900"), "279.00"],
    ]);
    expect((await get(`/api/v1/invoices/${inv1}`)).status).toBe("paid");
    expect((await get(`/api/v1/invoices/${inv2}`))).toMatchObject({ status: "finalized", amount_due: "242.00", payments: [] });
    expect((await get(`/api/v1/invoices/${inv1}`)).payments).toHaveLength(1);
    expect(await balanceOf(code("4900"))).toBe(-27900);
    await assertBooks(-9999);
    // a refused reclassification changes nothing
    const refused = await act(lines.unknown.id, "reclassify", { allocations: [{ invoice_id: inv2, amount: "500.00" }] });
    expect(refused.status).toBe(422);
    expect((await get(`/api/v1/bank-transactions/${lines.unknown.id}`)).allocations).toHaveLength(2);
    await assertBooks(-9999);
    const events = (await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.organizationId, org.id))).map((d) => d.event);
    expect(events.filter((e) => e === "bank_transaction.reclassified")).toHaveLength(2);
  });

  test("unmatch undoes every allocation in one transaction: payments deleted, entries reversed, the line back in suspense", async () => {
    const undone = await act(lines.unknown.id, "unmatch");
    expect(undone.status, undone.text).toBe(200);
    expect(undone.body.data).toMatchObject({ status: "unmatched", allocations: [], invoice_id: null, payment_id: null, matched_amount: null, unallocated_amount: "400.00" });
    expect((await get(`/api/v1/invoices/${inv1}`))).toMatchObject({ status: "finalized", payments: [] });
    expect(await balanceOf(code("4900"))).toBe(0);
    await assertBooks(-(9999 + 40000));
    // the line matched on import: the invoice and its note open again, 1210.00 + the note back in suspense
    const both = await act(lines.both.id, "unmatch");
    expect(both.body.data).toMatchObject({ status: "unmatched", allocations: [] });
    expect((await get(`/api/v1/invoices/${inv3}`)).status).toBe("finalized");
    expect((await get(`/api/v1/invoices/${noteId}`)).status).toBe("finalized");
    await assertBooks(-(9999 + 40000 + 121000 + noteCents));
    // and allocated again by hand, out of suspense
    const redo = await act(lines.both.id, "match", { allocations: [{ invoice_id: noteId, amount: (noteCents / 100).toFixed(2) }, { invoice_id: inv3, amount: "1210.00" }] });
    expect(redo.body.data).toMatchObject({ status: "matched", invoice_id: noteId });
    await assertBooks(-(9999 + 40000));
    // a payment of an allocation deleted by hand: that allocation goes, its money back into suspense
    const paymentId = redo.body.data.allocations[1].payment_id;
    expect((await call("DELETE", `/api/v1/invoices/${inv3}/payments/${paymentId}`)).status).toBe(204);
    expect(await get(`/api/v1/bank-transactions/${lines.both.id}`)).toMatchObject({ status: "partially_matched", unallocated_amount: "1210.00" });
    await assertBooks(-(9999 + 40000 + 121000));
  });

  test("the refusals: 422 naming the allocation and field, 409, 404, 403", async () => {
    const line = lines.unknown.id;
    const refused = async (body: unknown, field: string, words: string) => {
      const r = await act(line, "match", body);
      expect(r.status, r.text).toBe(422);
      expect(r.body.errors[field]?.[0], JSON.stringify(r.body.errors)).toContain(words);
    };
    await refused({ allocations: [{ invoice_id: inv2, expense_id: expenseId, amount: "1.00" }] }, "allocations.0.invoice_id", "exactly one");
    await refused({ allocations: [{ amount: "1.00" }] }, "allocations.0.invoice_id", "exactly one");
    await refused({ allocations: [{ invoice_id: inv2, amount: "242.00" }, { account_id: code("4900"), amount: "158.01" }] }, "allocations.1.amount", "400.00");
    await refused({ allocations: [{ invoice_id: inv2, amount: "242.01" }] }, "allocations.0.amount", "242.00");
    await refused({ allocations: [{ invoice_id: inv2, amount: "100.00" }, { invoice_id: inv2, amount: "100.00" }] }, "allocations.1.invoice_id", "twice");
    await refused({ allocations: [{ expense_id: expenseId, amount: "10.00" }] }, "allocations.0.expense_id", "money in");
    await refused({ allocations: [{ invoice_id: "0190a0a0-0000-7000-8000-000000000000", amount: "10.00" }] }, "allocations.0.invoice_id", "invalid");
    await refused({ allocations: [{ invoice_id: inv2, amount: "10.00", vat_rate_id: rate21 }] }, "allocations.0.vat_rate_id", "account");
    await refused({ allocations: [{ account_id: code("1200"), amount: "10.00" }] }, "allocations.0.account_id", "owe");
    await refused({ allocations: [{ account_id: code("1900"), amount: "10.00" }] }, "allocations.0.account_id", "waits");
    await refused({ allocations: [{ account_id: bank.account_id, amount: "10.00" }] }, "allocations.0.account_id", "transfer");
    await refused({ allocations: [{ account_id: code("4900"), amount: "10.00", vat_rate_id: "0190a0a0-0000-7000-8000-000000000000" }] }, "allocations.0.vat_rate_id", "invalid");
    await refused({ invoice_id: inv2, allocations: [{ invoice_id: inv2, amount: "10.00" }] }, "allocations", "not both");
    // paid already (inv3 is partly paid again: its note is paid)
    await refused({ allocations: [{ invoice_id: noteId, amount: "1.00" }] }, "allocations.0.invoice_id", "paid");
    // the schema: a zero or negative amount, an unknown field, no allocation
    for (const body of [{ allocations: [{ invoice_id: inv2, amount: "0.00" }] }, { allocations: [{ invoice_id: inv2, amount: "-5.00" }] }, { allocations: [{ invoice_id: inv2, amount: "5.00", extra: 1 }] }, { allocations: [] }]) {
      expect((await act(line, "match", body)).status).toBe(422);
    }
    expect((await act(line, "reclassify", {})).status).toBe(422);
    // a debit line cannot pay an invoice
    const feeLine = (await get(`/api/v1/bank-transactions/${lines.fee.id}`)).id;
    const outgoing = await act(feeLine, "reclassify", { allocations: [{ invoice_id: inv2, amount: "10.00" }] });
    expect(outgoing.status).toBe(422);
    expect(outgoing.body.errors["allocations.0.invoice_id"][0]).toContain("money out");
    // 404 and 403
    const other = await env.newOrg("Someone else");
    expect((await call("POST", `/api/v1/bank-transactions/${line}/reclassify`, { allocations: [{ invoice_id: inv2, amount: "1.00" }] }, other.token)).status).toBe(404);
    expect((await call("POST", `/api/v1/bank-transactions/${line}/match`, { allocations: [{ invoice_id: inv2, amount: "1.00" }] }, await env.orgToken(["banking.view"], org))).status).toBe(403);
    expect((await call("POST", `/api/v1/bank-transactions/${line}/reclassify`, { allocations: [{ invoice_id: inv2, amount: "1.00" }] }, await env.orgToken(["banking.view"], org))).status).toBe(403);
    // nothing of it changed the books
    await assertBooks(-(9999 + 40000 + 121000));
  });
});
