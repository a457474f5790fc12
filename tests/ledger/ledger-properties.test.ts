/**
 * The books hold whatever happens (issue 19): random sequences of every operation that posts
 * (create, finalize, pay, delete a payment, cancel, credit, approve and pay an expense, manual
 * entries and their reversal, closing and reopening years), driven through the API of a fresh
 * organisation each, some of them refused (409, 422) as they should be; bank statements (CAMT.053)
 * paying invoices by their payment reference, and matches undone. After every sequence:
 * - every entry balances, and the running balances the triggers keep equal the postings;
 * - the trial balance's totals are equal, the balance sheet balances;
 * - receivables = Σ amount_due of open invoices − open credit notes; VAT payable = VAT of the
 *   issued invoices − credit notes; payables and VAT receivable follow the approved (and paid) expenses;
 * - credit allocation (credit notes of open, partly paid and paid invoices, whole or partial, refunds
 *   as their payments, cancels): an invoice's amount_credited is the sum of its issued credit notes'
 *   allocations, nothing is settled beyond a total, each status follows paid + credited, and the
 *   aged receivables at ?date= (today, and the end of 2024) equal the receivables account then;
 * - each bank account's balance = its opening entry + every line of its statements + the payments recorded through
 *   it that no line holds (+ a transfer booked on the other account whose line has not come in); since its first
 *   statement: its last statement's closing balance + the payments recorded by hand that no line holds (fees with
 *   their VAT, interest, transfers paired once, refunds by reference, lines split over documents and accounts,
 *   partly allocated, reclassified, unmatched, ignored); the suspense account holds exactly what no one has placed;
 *   a booked line or an allocation holds a standing entry, other entries of a line move it into or out of suspense;
 * - the Beancount export passes bean-check, and its balances are the trial balance's.
 */
import { afterAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bankAccountService } from "../../server/bank-accounts/service.ts";
import { toCents } from "../../server/lib/money.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { createTestEnv, type ApiResponse } from "../helpers.ts";
import { rawSql } from "../raw-sql.ts";

const env = await createTestEnv();
const scratch = mkdtempSync(join(tmpdir(), "kontor-ledger-"));
afterAll(() => {
  env.close();
  rmSync(scratch, { recursive: true, force: true });
});

const day = fc.integer({ min: 0, max: 729 }).map((n) => new Date(Date.UTC(2024, 0, 1 + n)).toISOString().slice(0, 10));
const pick = fc.nat({ max: 1000 });
const cents = (min: number, max: number) => fc.integer({ min, max }).map((c) => (c / 100).toFixed(2));
const share = fc.integer({ min: 1, max: 100 });

/**
 * An invoice as a shop or a discounting seller writes it (issue 26 item 6): VAT-inclusive or net
 * prices, line discounts (percent or amount) and document allowances and charges at the rates.
 */
const pricedInvoice = fc.record({
  op: fc.constant("pricedInvoice" as const),
  date: day,
  gross: fc.boolean(),
  lines: fc.array(
    fc.record({
      qty: fc.integer({ min: 1, max: 500 }),
      price: cents(1, 20_000),
      rate: fc.nat({ max: 4 }),
      discount: fc.option(fc.oneof(fc.record({ percent: fc.integer({ min: 1, max: 10_000 }) }), fc.record({ amount: fc.integer({ min: 1, max: 100 }) })), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 4 },
  ),
  acs: fc.array(fc.record({ charge: fc.boolean(), amount: cents(1, 2_000), percent: fc.option(fc.integer({ min: 1, max: 2_000 }), { nil: undefined }), line: fc.nat({ max: 3 }) }), { maxLength: 3 }),
});

const operation = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant("invoice" as const), date: day, business: fc.boolean(), lines: fc.array(fc.record({ qty: fc.integer({ min: 1, max: 500 }), price: cents(1, 200_000), rate: fc.nat({ max: 4 }) }), { minLength: 1, maxLength: 4 }) }) },
  { weight: 3, arbitrary: pricedInvoice },
  { weight: 4, arbitrary: fc.record({ op: fc.constant("finalize" as const), i: pick }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant("pay" as const), i: pick, share, date: day }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("deletePayment" as const), i: pick }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("cancel" as const), i: pick }) },
  // a credit note: the invoice's lines copied, or a share of it in one line without VAT
  // an interest note on a late invoice (issue 30), `days` after its due date: finalized and paid, or left a draft
  { weight: 3, arbitrary: fc.record({ op: fc.constant("interestNote" as const), i: pick, days: fc.integer({ min: 1, max: 400 }), finalize: fc.boolean(), pay: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("credit" as const), i: pick, finalize: fc.boolean(), share: fc.option(share, { nil: undefined }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("expense" as const), category: fc.constantFrom("Travel", "rent", "Software", "Catering"), amount: cents(1, 500_000), vat: cents(0, 100_000), date: day, approve: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("payExpense" as const), i: pick, share, date: day }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("deleteExpensePayment" as const), i: pick }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("manual" as const), debit: pick, credit: pick, amount: cents(1, 1_000_000), date: day }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("reverse" as const), i: pick }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("statement" as const),
      date: day,
      // the first statement's opening balance (issue 27: posted as the account's opening entry)
      opening: fc.integer({ min: -50_000, max: 5_000_000 }),
      // each line pays an invoice by its payment reference (a share of its amount due, or more than due), refunds a credit
      // note by its reference, is a bank fee or interest (booked by hand), a transfer to the own savings account, or unknown money
      lines: fc.array(
        fc.record({ i: pick, share: fc.integer({ min: 1, max: 120 }), kind: fc.constantFrom("pay", "pay", "pay", "unknown", "debit", "refund", "refund", "refund", "fee", "fee", "interest", "transfer", "transfer", "transfer") }),
        { minLength: 1, maxLength: 4 },
      ),
    }),
  },
  // the savings account's statement: the transfers that left the current account arrive (the same day), paired with them
  // the incoming lines name the current account, nobody, or (as the bank may) a third party
  { weight: 4, arbitrary: fc.record({ op: fc.constant("savings" as const), opening: fc.integer({ min: 0, max: 1_000_000 }), naming: fc.constantFrom("own", "own", "none", "third") }) },
  // an invoice paid in full, then credited in part: the credit note owes money back (a refund a statement line can pay)
  { weight: 3, arbitrary: fc.record({ op: fc.constant("refundable" as const), price: cents(100, 100_000), share }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant("book" as const), i: pick, rate: fc.nat({ max: 4 }), transfer: fc.constantFrom(false, false, false, true) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("unbook" as const), i: pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("unmatch" as const), i: pick }) },
  // a line waiting in suspense (or partly allocated) split over open documents and an account, for shares of what it has left
  { weight: 3, arbitrary: fc.record({ op: fc.constant("allocate" as const), i: pick, shares: fc.array(share, { minLength: 1, maxLength: 3 }), account: fc.boolean(), rate: fc.nat({ max: 4 }) }) },
  // whatever holds a line replaced by an account (and an open document) for a share of it
  { weight: 2, arbitrary: fc.record({ op: fc.constant("reclassify" as const), i: pick, share, document: fc.boolean(), rate: fc.nat({ max: 4 }) }) },
  // any line that is not unmatched, unmatched; an unmatched line ignored
  { weight: 1, arbitrary: fc.record({ op: fc.constant("unmatchAny" as const), i: pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("ignore" as const), i: pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("close" as const), year: fc.constantFrom(2024, 2025) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("reopen" as const), year: fc.constantFrom(2024, 2025) }) },
);
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

/** What a client may be told: never a 5xx, only the documented refusals. */
const ALLOWED = new Set([200, 201, 204, 409, 422]);

/** What the sequences exercised, counted as it happens (asserted once all have run: a property that never books a line proves nothing). */
const exercised = new Map<string, number>();
const saw = (what: string, n = 1) => exercised.set(what, (exercised.get(what) ?? 0) + n);
/** What an imported statement's lines show: openings are counted by the caller. */
const sawLines = (lines: { status: string; direction: string; transfer_transaction_id: string | null; invoice_id: string | null }[], refunds: Set<string>) => {
  for (const t of lines) {
    if (t.transfer_transaction_id) saw("paired");
    if (t.status === "booked") saw("booked");
    if (t.status === "matched" && t.direction === "debit" && t.invoice_id && refunds.has(t.invoice_id)) saw("refunds");
  }
};

/** The organisation's second bank account, which transfers from the first go to. */
const SAVINGS_IBAN = "BE68539007547034";

/** Manual entries stay off the accounts whose balance the documents determine. */
const MANUAL_CODES = ["1300", "2300", "3100", "4900", "6200", "6400", "6900"];

async function runSequence(operations: Operation[], run: number): Promise<void> {
  const { org, token } = await env.newOrg(`Ledger ${run}`, { country: "BE", currency: "EUR" });
  const call = async (method: string, path: string, body?: unknown): Promise<ApiResponse> => {
    const r = await env.api(method, path, body, token);
    if (!ALLOWED.has(r.status)) throw new Error(`${method} ${path} → ${r.status} ${r.text.slice(0, 300)}`);
    return r;
  };
  const accounts: { id: string; code: string }[] = (await call("GET", "/api/v1/accounts?per_page=100")).body.data;
  const code = (c: string) => accounts.find((a) => a.code === c)!.id;
  const rates: { id: string }[] = (await call("GET", "/api/v1/vat-rates")).body.data;
  const customer = (await call("POST", "/api/v1/customers", { name: "Buyer", country: "BE" })).body.data.id;
  // a business customer (a VAT number): its late invoices earn statutory interest and the compensation
  const business = (await call("POST", "/api/v1/customers", { name: "Business Buyer BV", country: "BE", vat_number: "BE0404795549" })).body.data.id;
  const invoices: string[] = [];
  const expenses: string[] = [];
  const manual: string[] = [];
  const matched: string[] = [];
  const bank = (await call("GET", "/api/v1/bank-accounts")).body.data[0] as { id: string; iban: string };
  const savings = await bankAccountService.add({ db: env.db, org, actor: CLI_ACTOR }, { name: "Savings", iban: SAVINGS_IBAN });
  // statements follow on: each opens with the last one's closing balance, dated no earlier
  const statement = { number: 0, balance: null as number | null, date: "2024-01-01" };
  const savingsStatement = { number: 0, balance: null as number | null, date: "2024-01-01" };
  // the transfers to the savings account its next statement brings in
  let incoming: StatementLine[] = [];
  const lines: string[] = [];
  const booked: string[] = [];
  const notes = new Set<string>();
  const at = <T>(list: T[], i: number) => (list.length === 0 ? undefined : list[i % list.length]);
  /** Finalizes a draft; one dated before its series' last number (a 422: numbers follow issue dates) is redated to that day first. */
  const finalize = async (id: string) => {
    const r = await call("POST", `/api/v1/invoices/${id}/finalize`);
    const after = r.status === 422 ? /must not be before (\d{4}-\d{2}-\d{2})/.exec(r.body.errors?.issue_date?.[0] ?? "")?.[1] : undefined;
    if (after && (await call("PUT", `/api/v1/invoices/${id}`, { issue_date: after })).status === 200) await call("POST", `/api/v1/invoices/${id}/finalize`);
  };

  for (const o of operations) {
    switch (o.op) {
      case "invoice": {
        const lines = o.lines.map((l) => ({ description: "Work", quantity: (l.qty / 100).toFixed(2), unit_price: l.price, ...(rates[l.rate] ? { vat_rate_id: rates[l.rate]!.id } : {}) }));
        const r = await call("POST", "/api/v1/invoices", { customer_id: o.business ? business : customer, issue_date: o.date, lines });
        if (r.status === 201) invoices.push(r.body.data.id);
        break;
      }
      case "interestNote": {
        const id = at(invoices, o.i);
        if (!id) break;
        const late = (await call("GET", `/api/v1/invoices/${id}`)).body.data;
        // as of a day after the due date, not after today (refused: 422); a draft, a note, a consumer's invoice: 409 or 422
        const asOf = [new Date(Date.parse(`${late.due_date}T00:00:00Z`) + o.days * 86_400_000).toISOString().slice(0, 10), new Date().toISOString().slice(0, 10)].sort()[0]!;
        const r = await call("POST", `/api/v1/invoices/${id}/interest-note`, { as_of: asOf });
        if (r.status !== 201) break;
        saw("interestNotes");
        invoices.push(r.body.data.id);
        if (!o.finalize) break;
        await finalize(r.body.data.id);
        const note = (await call("GET", `/api/v1/invoices/${r.body.data.id}`)).body.data;
        if (o.pay && note.status === "finalized") {
          await call("POST", `/api/v1/invoices/${note.id}/record-payment`, { amount: note.amount_due, payment_date: note.issue_date });
          saw("interestPaid");
        }
        break;
      }
      case "pricedInvoice": {
        const lines = o.lines.map((l) => ({
          description: "Goods",
          quantity: (l.qty / 100).toFixed(2),
          unit_price: l.price,
          ...(rates[l.rate] ? { vat_rate_id: rates[l.rate]!.id } : {}),
          // an amount discount of at most the line (a share of it, in hundredths)
          ...(l.discount && "percent" in l.discount ? { discount_percent: (l.discount.percent / 100).toFixed(2) } : {}),
          ...(l.discount && "amount" in l.discount
            ? { discount_amount: (Math.max(1, Math.floor((Math.round((l.qty * toCents(l.price)!) / 100) * l.discount.amount) / 100)) / 100).toFixed(2) }
            : {}),
        }));
        // each allowance or charge at the rate of one of the lines, so that a percentage has a base
        const allowances_charges = o.acs.map((ac) => {
          const line = lines[ac.line % lines.length]!;
          return {
            type: ac.charge ? "charge" : "allowance",
            ...(ac.percent ? { percent: (ac.percent / 100).toFixed(2) } : { amount: ac.amount }),
            reason: ac.charge ? "Freight" : "Volume rebate",
            ...(line.vat_rate_id ? { vat_rate_id: line.vat_rate_id } : {}),
          };
        });
        // refused (422) when the allowances exceed their rate's lines, or a line is free: as it should be
        const r = await call("POST", "/api/v1/invoices", { customer_id: customer, issue_date: o.date, prices_include_vat: o.gross, lines, allowances_charges });
        if (r.status === 201) invoices.push(r.body.data.id);
        break;
      }
      case "finalize": {
        const id = at(invoices, o.i);
        if (id) await finalize(id);
        break;
      }
      case "pay": {
        const id = at(invoices, o.i);
        if (!id) break;
        const due = toCents((await call("GET", `/api/v1/invoices/${id}`)).body.data.amount_due)!;
        const amount = Math.max(1, Math.floor((due * o.share) / 100));
        await call("POST", `/api/v1/invoices/${id}/record-payment`, { amount: (amount / 100).toFixed(2), payment_date: o.date });
        break;
      }
      case "deletePayment": {
        const id = at(invoices, o.i);
        if (!id) break;
        const payment = (await call("GET", `/api/v1/invoices/${id}`)).body.data.payments[0];
        if (payment) await call("DELETE", `/api/v1/invoices/${id}/payments/${payment.id}`);
        break;
      }
      case "cancel": {
        const id = at(invoices, o.i);
        if (id) await call("POST", `/api/v1/invoices/${id}/cancel`);
        break;
      }
      case "credit": {
        const id = at(invoices, o.i);
        if (!id) break;
        let body: unknown;
        if (o.share !== undefined) {
          const shown = (await call("GET", `/api/v1/invoices/${id}`)).body.data;
          const cents = Math.max(1, Math.floor((toCents(shown.total)! * o.share) / 100));
          body = { lines: [{ description: "Credited", quantity: "1", unit_price: (cents / 100).toFixed(2) }] };
        }
        const r = await call("POST", `/api/v1/invoices/${id}/credit-note`, body);
        if (r.status !== 201) break;
        invoices.push(r.body.data.id);
        notes.add(r.body.data.id);
        if (o.finalize) await finalize(r.body.data.id);
        break;
      }
      case "expense": {
        const r = await call("POST", "/api/v1/expenses", { category: o.category, amount: o.amount, vat_amount: o.vat, date: o.date });
        if (r.status !== 201) break;
        expenses.push(r.body.data.id);
        if (o.approve) await call("POST", `/api/v1/expenses/${r.body.data.id}/approve`);
        break;
      }
      case "payExpense": {
        const id = at(expenses, o.i);
        if (!id) break;
        const due = toCents((await call("GET", `/api/v1/expenses/${id}`)).body.data.amount_due)!;
        const amount = Math.max(1, Math.floor((due * o.share) / 100));
        await call("POST", `/api/v1/expenses/${id}/record-payment`, { amount: (amount / 100).toFixed(2), payment_date: o.date });
        break;
      }
      case "deleteExpensePayment": {
        const id = at(expenses, o.i);
        if (!id) break;
        const payment = (await call("GET", `/api/v1/expenses/${id}`)).body.data.payments[0];
        if (payment) await call("DELETE", `/api/v1/expenses/${id}/payments/${payment.id}`);
        break;
      }
      case "manual": {
        const debit = MANUAL_CODES[o.debit % MANUAL_CODES.length]!;
        const credit = MANUAL_CODES[(o.debit + 1 + (o.credit % (MANUAL_CODES.length - 1))) % MANUAL_CODES.length]!;
        const r = await call("POST", "/api/v1/journal-entries", {
          date: o.date,
          description: "Manual",
          lines: [{ account_id: code(debit), debit: o.amount }, { account_id: code(credit), credit: o.amount }],
        });
        if (r.status === 201) manual.push(r.body.data.id);
        break;
      }
      case "reverse": {
        const id = at(manual, o.i);
        if (id) await call("POST", `/api/v1/journal-entries/${id}/reverse`, {});
        break;
      }
      case "statement": {
        const entries: StatementLine[] = [];
        const transfers: StatementLine[] = [];
        const date = o.date > statement.date ? o.date : statement.date;
        for (const l of o.lines) {
          // an invoice (a credit note for a refund) awaiting payment, if one of the next few is
          const type = l.kind === "refund" ? "credit_note" : "invoice";
          let shown: { amount_due: string; payment_reference: string | null } | null = null;
          if (l.kind === "refund") {
            // a credit note owing money back: one of an invoice paid before it was credited
            const notes = (await call("GET", "/api/v1/invoices?filter[type]=credit_note&per_page=100")).body.data;
            shown = at(notes.filter((n: { status: string }) => ["finalized", "sent", "partially_paid"].includes(n.status)), l.i) ?? null;
          }
          for (let k = 0; k < Math.min(5, invoices.length) && !shown && l.kind === "pay"; k++) {
            const candidate = (await call("GET", `/api/v1/invoices/${at(invoices, l.i + k)}`)).body.data;
            if (candidate.type === type && ["finalized", "sent", "partially_paid"].includes(candidate.status)) shown = candidate;
          }
          const due = shown ? toCents(shown.amount_due)! : 0;
          const cents = Math.max(1, Math.floor((Math.max(due, 100) * l.share) / 100));
          const reference = shown?.payment_reference ?? null;
          const credit = l.kind === "pay" || l.kind === "unknown" || l.kind === "interest";
          const line: StatementLine = { cents, credit, reference, date, counterparty: l.kind === "transfer" ? SAVINGS_IBAN : null };
          entries.push(line);
          if (l.kind === "transfer") transfers.push({ ...line, credit: true, counterparty: bank.iban, reference: null });
        }
        const opening = statement.balance ?? o.opening;
        const closing = opening + entries.reduce((sum, e) => sum + (e.credit ? e.cents : -e.cents), 0);
        const xml = camt053(bank.iban, `P-${++statement.number}`, opening, closing, entries, date);
        const r = await env.request("POST", `/api/v1/bank-accounts/${bank.id}/statements`, { rawBody: xml, token, headers: { "content-type": "application/xml" } });
        if (!ALLOWED.has(r.status)) throw new Error(`statement → ${r.status} ${r.text.slice(0, 300)}`);
        if (r.status === 201) {
          if (statement.balance === null) {
            expect(await ledgerBefore(bank.id, date)).toBe(opening);
            saw("openings");
          }
          sawLines(r.body.data.transactions, notes);
          statement.balance = closing;
          statement.date = date;
          incoming.push(...transfers);
          for (const t of r.body.data.transactions) {
            lines.push(t.id);
            if (t.status === "matched") matched.push(t.id);
            if (t.status === "booked") booked.push(t.id);
          }
        }
        break;
      }
      case "savings": {
        if (incoming.length === 0) break;
        const opening = savingsStatement.balance ?? o.opening;
        const closing = opening + incoming.reduce((sum, e) => sum + e.cents, 0);
        const named = incoming.map((l) => ({ ...l, counterparty: o.naming === "own" ? bank.iban : o.naming === "none" ? null : "NL91ABNA0417164300" }));
        const xml = camt053(SAVINGS_IBAN, `S-${++savingsStatement.number}`, opening, closing, named);
        const r = await env.request("POST", `/api/v1/bank-accounts/${savings.id}/statements`, { rawBody: xml, token, headers: { "content-type": "application/xml" } });
        if (!ALLOWED.has(r.status)) throw new Error(`savings statement → ${r.status} ${r.text.slice(0, 300)}`);
        if (r.status === 201) {
          if (savingsStatement.balance === null) {
            expect(await ledgerBefore(savings.id, named[0]!.date)).toBe(opening);
            saw("openings");
          }
          sawLines(r.body.data.transactions, notes);
          savingsStatement.balance = closing;
          incoming = [];
          for (const t of r.body.data.transactions) {
            lines.push(t.id);
            if (t.status === "booked") booked.push(t.id);
          }
        }
        break;
      }
      case "refundable": {
        // on the last day any other document can have: its number follows theirs
        const created = await call("POST", "/api/v1/invoices", { customer_id: customer, issue_date: "2025-12-31", lines: [{ description: "Goods", quantity: "1", unit_price: o.price }] });
        if (created.status !== 201) break;
        const id = created.body.data.id;
        invoices.push(id);
        if ((await call("POST", `/api/v1/invoices/${id}/finalize`)).status !== 200) break;
        await call("POST", `/api/v1/invoices/${id}/record-payment`, { amount: o.price, payment_date: "2025-12-31" });
        const part = Math.max(1, Math.floor((toCents(o.price)! * o.share) / 100));
        const note = await call("POST", `/api/v1/invoices/${id}/credit-note`, { lines: [{ description: "Returned", quantity: "1", unit_price: (part / 100).toFixed(2) }] });
        if (note.status !== 201) break;
        invoices.push(note.body.data.id);
        notes.add(note.body.data.id);
        await call("POST", `/api/v1/invoices/${note.body.data.id}/finalize`);
        break;
      }
      case "book": {
        // one of the lines waiting for a person
        const line = at((await call("GET", "/api/v1/bank-transactions?filter[status]=unmatched&per_page=100")).body.data as { id: string; bank_account_id: string; direction: string }[], o.i);
        if (!line) break;
        const id = line.id;
        // a fee (money out) to bank charges with a VAT rate; money in (interest, unknown) to other income, without
        // or, as the user may say of any line, a transfer to or from the organisation's other bank account
        const own = (await call("GET", "/api/v1/bank-accounts")).body.data.find((b: { id: string }) => b.id !== line.bank_account_id).account_id;
        const body = o.transfer
          ? { account_id: own }
          : line.direction === "debit"
            ? { account_id: code("6900"), ...(rates[o.rate] ? { vat_rate_id: rates[o.rate]!.id } : {}) }
            : { account_id: code("4900") };
        const r = await call("POST", `/api/v1/bank-transactions/${id}/book`, body);
        if (r.status === 200) {
          booked.push(id);
          saw(r.body.data.vat_rate_id ? "vatBooked" : "booked");
          if (r.body.data.transfer_transaction_id) saw("paired");
        }
        break;
      }
      case "unbook": {
        const id = at(booked, o.i);
        if (id) await call("POST", `/api/v1/bank-transactions/${id}/unbook`);
        break;
      }
      case "unmatch": {
        const id = at(matched, o.i);
        if (id) await call("POST", `/api/v1/bank-transactions/${id}/unmatch`);
        break;
      }
      case "allocate":
      case "reclassify": {
        type Shown = { id: string; direction: string; amount: string; unallocated_amount: string; status: string; transfer_transaction_id: string | null };
        const status = o.op === "allocate" ? ["unmatched", "partially_matched"] : ["unmatched", "partially_matched", "matched", "ignored", "booked"];
        const candidates: Shown[] = [];
        for (const st of status) candidates.push(...(await call("GET", `/api/v1/bank-transactions?filter[status]=${st}&per_page=100`)).body.data);
        const line = at(
          candidates.filter((c) => c.transfer_transaction_id === null),
          o.i,
        );
        if (!line) break;
        let rest = toCents(o.op === "allocate" ? line.unallocated_amount : line.amount)!;
        // open documents the line's money can pay: invoices for money in, approved expenses for money out
        const open =
          line.direction === "credit"
            ? ((await call("GET", "/api/v1/invoices?filter[type]=invoice&per_page=100")).body.data as { id: string; status: string; amount_due: string }[]).filter((d) =>
                ["finalized", "sent", "partially_paid"].includes(d.status),
              )
            : ((await call("GET", "/api/v1/expenses?filter[status]=approved&per_page=100")).body.data as { id: string; amount_due: string }[]);
        const shares = o.op === "allocate" ? o.shares : o.document ? [o.share, 100] : [o.share];
        const allocations: Record<string, unknown>[] = [];
        shares.forEach((sh, k) => {
          const accountPart = o.op === "reclassify" ? k === shares.length - 1 : o.account && k === shares.length - 1;
          const doc = accountPart ? undefined : at(open, o.i + k);
          const due = doc ? toCents(doc.amount_due)! : rest;
          const cents = Math.min(due, Math.max(1, Math.floor((rest * sh) / 100)));
          if (cents <= 0 || rest <= 0 || (!doc && !accountPart)) return;
          rest -= cents;
          const amount = (cents / 100).toFixed(2);
          if (doc) allocations.push({ [line.direction === "credit" ? "invoice_id" : "expense_id"]: doc.id, amount });
          else if (line.direction === "debit") allocations.push({ account_id: code("6900"), amount, ...(rates[o.rate] ? { vat_rate_id: rates[o.rate]!.id } : {}) });
          else allocations.push({ account_id: code("4900"), amount });
        });
        if (allocations.length === 0) break;
        const r = await call("POST", `/api/v1/bank-transactions/${line.id}/${o.op === "allocate" ? "match" : "reclassify"}`, { allocations });
        if (r.status === 200) {
          saw(o.op === "allocate" ? "allocated" : "reclassified");
          if (r.body.data.allocations.length > 1) saw("split");
          if (r.body.data.status === "partially_matched") saw("partial");
          matched.push(line.id);
        }
        break;
      }
      case "unmatchAny": {
        const candidates: { id: string }[] = [];
        for (const st of ["matched", "partially_matched", "ignored"]) candidates.push(...(await call("GET", `/api/v1/bank-transactions?filter[status]=${st}&per_page=100`)).body.data);
        const line = at(candidates, o.i);
        if (line && (await call("POST", `/api/v1/bank-transactions/${line.id}/unmatch`)).status === 200) saw("unmatched");
        break;
      }
      case "ignore": {
        const line = at((await call("GET", "/api/v1/bank-transactions?filter[status]=unmatched&per_page=100")).body.data as { id: string }[], o.i);
        if (line && (await call("POST", `/api/v1/bank-transactions/${line.id}/ignore`)).status === 200) saw("ignored");
        break;
      }
      case "close":
      case "reopen":
        await call("POST", `/api/v1/fiscal-years/${o.year}/${o.op}`);
        break;
    }
  }
  await checkBooks(org.id, token, call, code);
}

type StatementLine = { cents: number; credit: boolean; reference: string | null; date: string; counterparty: string | null };

/**
 * A camt.053.001.02 statement of `lines`, the minimum the reader needs (tests/inbound has full ones, XSD-checked):
 * dated `date`, else from its first line's booking date to its last's.
 */
function camt053(iban: string, id: string, openingCents: number, closingCents: number, lines: StatementLine[], date?: string): string {
  const amount = (cents: number) => (Math.abs(cents) / 100).toFixed(2);
  const side = (cents: number) => (cents < 0 ? "DBIT" : "CRDT");
  const opened = date ?? lines[0]!.date;
  const closed = date ?? lines[lines.length - 1]!.date;
  const balance = (code: string, cents: number, on: string) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount(cents)}</Amt><CdtDbtInd>${side(cents)}</CdtDbtInd><Dt><Dt>${on}</Dt></Dt></Bal>`;
  const entries = lines.map((l, n) => {
    const remittance = l.reference
      ? `<RmtInf><Strd><CdtrRefInf><Ref>${l.reference}</Ref></CdtrRefInf></Strd></RmtInf>`
      : `<RmtInf><Ustrd>Unknown money ${n}</Ustrd></RmtInf>`;
    const party = l.counterparty ? `<RltdPties><${l.credit ? "DbtrAcct" : "CdtrAcct"}><Id><IBAN>${l.counterparty}</IBAN></Id></${l.credit ? "DbtrAcct" : "CdtrAcct"}></RltdPties>` : "";
    return `<Ntry><Amt Ccy="EUR">${amount(l.cents)}</Amt><CdtDbtInd>${l.credit ? "CRDT" : "DBIT"}</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${l.date}</Dt></BookgDt><ValDt><Dt>${l.date}</Dt></ValDt><AcctSvcrRef>${id}-${n}</AcctSvcrRef><NtryDtls><TxDtls>${party}${remittance}</TxDtls></NtryDtls></Ntry>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>${id}</MsgId><CreDtTm>${closed}T18:00:00</CreDtTm></GrpHdr><Stmt><Id>${id}</Id><CreDtTm>${closed}T18:00:00</CreDtTm><Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>EUR</Ccy></Acct>${balance("OPBD", openingCents, opened)}${balance("CLBD", closingCents, closed)}${entries.join("")}</Stmt></BkToCstmrStmt></Document>`;
}

/** What moved on a ledger account from `date` on. */
async function ledgerSince(accountId: string, date: string): Promise<number> {
  return (await one<{ cents: number }>(`SELECT coalesce(sum(debit_cents - credit_cents), 0) AS cents FROM journal_lines WHERE account_id = ? AND date >= ?`, accountId, date)).cents;
}

/** A bank account's ledger balance on the days before `date`. */
async function ledgerBefore(bankId: string, date: string): Promise<number> {
  return (await one<{ cents: number }>(
    `SELECT coalesce(sum(l.debit_cents - l.credit_cents), 0) AS cents FROM journal_lines l JOIN bank_accounts b ON b.account_id = l.account_id WHERE b.id = ? AND l.date < ?`,
    bankId,
    date,
  )).cents;
}

const raw = rawSql(env.db);
const sql = <T = any>(query: string, ...params: unknown[]) => raw.all<T>(query, ...params);
const one = async <T>(query: string, ...params: unknown[]) => (await sql<T>(query, ...params))[0]!;

async function checkBooks(orgId: string, token: string, call: (method: string, path: string) => Promise<ApiResponse>, code: (c: string) => string) {
  // every entry balances and has its lines; the running balances equal the postings
  expect(await sql(`SELECT entry_id FROM journal_lines WHERE organization_id = ? GROUP BY entry_id HAVING sum(debit_cents) <> sum(credit_cents) OR count(*) < 2`, orgId)).toEqual([]);
  expect((await one<{ n: number }>(`SELECT count(*) AS n FROM journal_entries e WHERE organization_id = ? AND NOT EXISTS (SELECT 1 FROM journal_lines l WHERE l.entry_id = e.id)`, orgId)).n).toBe(0);
  const byPosting = (await sql<{ k: string }>(
    `SELECT account_id || ' ' || currency || ' ' || date || ' ' || sum(debit_cents) || ' ' || sum(credit_cents) AS k FROM journal_lines l WHERE organization_id = ? GROUP BY account_id, currency, date ORDER BY k`,
    orgId,
  )).map((r) => r.k);
  const byDay = (await sql<{ k: string }>(
    `SELECT account_id || ' ' || currency || ' ' || date || ' ' || sum(debit_cents) || ' ' || sum(credit_cents) AS k FROM account_days WHERE organization_id = ? GROUP BY account_id, currency, date ORDER BY k`,
    orgId,
  )).map((r) => r.k);
  expect(byDay).toEqual(byPosting);
  expect(
    (await sql<{ k: string }>(`SELECT account_id || ' ' || debit_cents || ' ' || credit_cents AS k FROM account_totals WHERE organization_id = ? ORDER BY k`, orgId)).map((r) => r.k),
  ).toEqual(
    (await sql<{ k: string }>(`SELECT account_id || ' ' || sum(debit_cents) || ' ' || sum(credit_cents) AS k FROM journal_lines WHERE organization_id = ? GROUP BY account_id ORDER BY k`, orgId)).map((r) => r.k),
  );

  const trial = (await call("GET", "/api/v1/reports/trial-balance")).body.data;
  expect(trial.total_debit).toBe(trial.total_credit);
  const sheet = (await call("GET", "/api/v1/reports/balance-sheet")).body.data;
  expect(toCents(sheet.total_assets)).toBe(toCents(sheet.total_liabilities)! + toCents(sheet.total_equity)!);

  const balances = new Map<string, number>(
    ((await call("GET", "/api/v1/accounts?per_page=100")).body.data as { id: string; balance: string }[]).map((a) => [a.id, toCents(a.balance)!]),
  );
  const documents = await one<{ due: number; vat: number }>(
    `SELECT coalesce(sum(CASE type WHEN 'credit_note' THEN -1 ELSE 1 END * (total_cents - paid_cents)), 0) AS due,
            coalesce(sum(CASE type WHEN 'credit_note' THEN -1 ELSE 1 END * vat_cents), 0) AS vat
     FROM invoices WHERE organization_id = ? AND status IN ('finalized', 'sent', 'partially_paid', 'paid')`,
    orgId,
  );
  expect(balances.get(code("1200"))).toBe(documents.due);
  // each issued document's finalize posted its net (subtotal: lines less allowances plus charges) as sales, and its VAT
  expect(
    await sql(
      `SELECT i.id FROM invoices i JOIN journal_entries e ON e.source_type = 'invoice' AND e.source_id = i.id AND e.reverses_entry_id IS NULL
       WHERE i.organization_id = ? AND i.status NOT IN ('draft', 'cancelled')
       AND (i.subtotal_cents <> (SELECT CASE i.type WHEN 'credit_note' THEN -1 ELSE 1 END * sum(l.credit_cents - l.debit_cents) FROM journal_lines l WHERE l.entry_id = e.id AND l.vat_role = 'base')
         OR i.vat_cents <> (SELECT CASE i.type WHEN 'credit_note' THEN -1 ELSE 1 END * sum(l.credit_cents - l.debit_cents) FROM journal_lines l WHERE l.entry_id = e.id AND l.vat_role = 'vat'))`,
      orgId,
    ),
  ).toEqual([]);
  // each issued interest note posted its total to late-payment income (4950), and no VAT: outside its scope
  expect(
    await sql(
      `SELECT i.id FROM invoices i JOIN journal_entries e ON e.source_type = 'invoice' AND e.source_id = i.id AND e.reverses_entry_id IS NULL
       WHERE i.organization_id = ? AND i.type = 'interest_note' AND i.status NOT IN ('draft', 'cancelled')
       AND (i.vat_cents <> 0 OR EXISTS (SELECT 1 FROM journal_lines l WHERE l.entry_id = e.id AND l.vat_role IS NOT NULL)
         OR i.total_cents <> (SELECT coalesce(sum(l.credit_cents - l.debit_cents), 0) FROM journal_lines l JOIN accounts a ON a.id = l.account_id WHERE l.entry_id = e.id AND a.code = '4950'))`,
      orgId,
    ),
  ).toEqual([]);
  // and the running totals of what customers owe (aged receivables) equal the open documents
  const due = `CASE WHEN type = 'credit_note' THEN paid_cents + credited_cents - total_cents ELSE total_cents - paid_cents - credited_cents END`;
  const open = `FROM invoices WHERE organization_id = ? AND status IN ('finalized', 'sent', 'partially_paid')`;
  const kept = async (table: string, key: string) =>
    (await sql<{ k: string }>(`SELECT ${key} || ' ' || open_cents AS k FROM ${table} WHERE organization_id = ? AND open_cents <> 0 ORDER BY k`, orgId)).map((r) => r.k);
  const computed = async (key: string) =>
    (await sql<{ k: string }>(`SELECT ${key} || ' ' || sum(${due}) AS k ${open} GROUP BY ${key} HAVING sum(${due}) <> 0 ORDER BY k`, orgId)).map((r) => r.k);
  expect(await kept("customer_receivables", "customer_id")).toEqual(await computed("customer_id"));
  expect(await kept("receivable_due_days", "due_date")).toEqual(await computed("due_date"));
  const aged = (await call("GET", "/api/v1/reports/aged-receivables?per_page=1000")).body.data;
  expect(toCents(aged.totals.total)).toBe(documents.due);
  // Σ amount_due of the open documents (invoices less the refunds owed on credit notes) is the receivables
  const shownDue: { type: string; amount_due: string }[] = [];
  for (const status of ["finalized", "sent", "partially_paid"]) shownDue.push(...(await call("GET", `/api/v1/invoices?filter[status]=${status}&per_page=100`)).body.data);
  if (shownDue.length < 100) expect(shownDue.reduce((sum, d) => sum + (d.type === "credit_note" ? -1 : 1) * toCents(d.amount_due)!, 0)).toBe(documents.due);
  expect((await one<{ due: number }>(`SELECT coalesce(sum(${due}), 0) AS due ${open}`, orgId)).due).toBe(documents.due);
  // as of today and as of the end of 2024 (the documents themselves, not the running totals): the receivables account then
  const asOfToday = (await call("GET", `/api/v1/reports/aged-receivables?per_page=1000&date=${new Date().toISOString().slice(0, 10)}`)).body.data;
  expect(asOfToday.totals).toEqual(aged.totals);
  const yearEnd = (await call("GET", "/api/v1/reports/aged-receivables?per_page=1000&date=2024-12-31")).body.data;
  const receivables2024 = ((await call("GET", "/api/v1/reports/trial-balance?date=2024-12-31")).body.data.accounts as { code: string; debit: string; credit: string }[]).find((a) => a.code === "1200");
  expect(toCents(yearEnd.totals.total)).toBe(receivables2024 ? toCents(receivables2024.debit)! - toCents(receivables2024.credit)! : 0);
  // allocation: an invoice's credited amount is its issued credit notes' allocations; nothing settled beyond a total; statuses follow
  expect(
    await sql(
      `SELECT i.id FROM invoices i WHERE i.organization_id = ? AND i.type <> 'credit_note' AND i.credited_cents <>
         coalesce((SELECT sum(c.credited_cents) FROM invoices c WHERE c.related_invoice_id = i.id AND c.type = 'credit_note' AND c.status NOT IN ('draft', 'cancelled')), 0)`,
      orgId,
    ),
  ).toEqual([]);
  expect(await sql(`SELECT id FROM invoices WHERE organization_id = ? AND (paid_cents < 0 OR credited_cents < 0 OR paid_cents + credited_cents > total_cents)`, orgId)).toEqual([]);
  expect(
    await sql(
      `SELECT id, status FROM invoices WHERE organization_id = ? AND status NOT IN ('draft', 'cancelled') AND status <> CASE
         WHEN paid_cents + credited_cents = 0 THEN CASE WHEN sent_at IS NULL THEN 'finalized' ELSE 'sent' END
         WHEN paid_cents + credited_cents >= total_cents THEN 'paid' ELSE 'partially_paid' END`,
      orgId,
    ),
  ).toEqual([]);
  expect(await sql(`SELECT id FROM invoices WHERE organization_id = ? AND status IN ('draft', 'cancelled') AND credited_cents <> 0`, orgId)).toEqual([]);

  const bought = await one<{ owed: number; vat: number }>(
    `SELECT coalesce(sum(amount_cents + vat_cents - paid_cents), 0) AS owed, coalesce(sum(vat_cents), 0) AS vat FROM expenses WHERE organization_id = ? AND status IN ('approved', 'paid')`,
    orgId,
  );
  // bank lines booked with a VAT rate: the VAT of their gross amount, rounded half-up (money out: input VAT; in: output VAT)
  const bookedVat = (await sql<{ direction: string; cents: number; bp: number; category: string }>(
    `SELECT t.direction, t.amount_cents AS cents, r.rate_bp AS bp, r.category FROM bank_transactions t JOIN vat_rates r ON r.id = t.booked_vat_rate_id WHERE t.organization_id = ? AND t.status = 'booked'`,
    orgId,
  ))
    .concat(
      // and the allocations to an account with a VAT rate, on their amount
      await sql<{ direction: string; cents: number; bp: number; category: string }>(
        `SELECT t.direction, a.amount_cents AS cents, r.rate_bp AS bp, r.category FROM bank_transaction_allocations a JOIN bank_transactions t ON t.id = a.bank_transaction_id JOIN vat_rates r ON r.id = a.vat_rate_id WHERE a.organization_id = ?`,
        orgId,
      ),
    )
    .map((l) => ({ ...l, vat: Number((BigInt(l.cents) * BigInt(l.bp) * 2n + BigInt(10_000 + l.bp)) / (BigInt(10_000 + l.bp) * 2n)) }));
  const vatOf = (direction: string) => bookedVat.filter((l) => l.direction === direction).reduce((sum, l) => sum + l.vat, 0);
  // money out at a reverse-charge rate (K, AE: 0 %) self-assesses 21 % of it, half-up: deductible (1400) and due (2200) alike
  const selfAssessed = bookedVat
    .filter((l) => l.direction === "debit" && (l.category === "K" || l.category === "AE"))
    .reduce((sum, l) => sum + Number((BigInt(l.cents) * 2100n * 2n + 10_000n) / 20_000n), 0);
  expect(balances.get(code("2100"))).toBe(bought.owed);
  expect(balances.get(code("1400"))).toBe(bought.vat + vatOf("debit") + selfAssessed);
  expect(balances.get(code("2200"))).toBe(documents.vat + vatOf("credit") + selfAssessed);

  // a booked line holds a standing entry, every standing entry of a line is held by a booked one, other lines hold none
  const standing = `NOT EXISTS (SELECT 1 FROM journal_entries r WHERE r.reverses_entry_id = e.id) AND e.reverses_entry_id IS NULL`;
  expect(await sql(`SELECT t.id FROM bank_transactions t WHERE t.organization_id = ? AND t.status = 'booked' AND NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.id = t.journal_entry_id AND ${standing})`, orgId)).toEqual([]);
  // every other standing entry of a line is an allocation's, the one that took a transfer's second line out of
  // suspense, or one between the line's bank account and suspense (into suspense, or back)
  expect(
    await sql(
      `SELECT e.id FROM journal_entries e WHERE e.organization_id = ? AND e.source_type = 'bank_transaction' AND ${standing}
         AND NOT EXISTS (SELECT 1 FROM bank_transactions t WHERE (t.journal_entry_id = e.id OR t.suspense_exit_entry_id = e.id) AND t.status = 'booked')
         AND NOT EXISTS (SELECT 1 FROM bank_transaction_allocations a WHERE a.journal_entry_id = e.id)
         AND NOT EXISTS (SELECT 1 FROM journal_lines l JOIN accounts s ON s.id = l.account_id WHERE l.entry_id = e.id AND s.system_account = 'suspense')`,
      orgId,
    ),
  ).toEqual([]);
  // an allocation's entry stands; a line's allocations add up to at most its amount, and its status says how much
  expect(await sql(`SELECT a.id FROM bank_transaction_allocations a WHERE a.organization_id = ? AND a.journal_entry_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM journal_entries e WHERE e.id = a.journal_entry_id AND ${standing})`, orgId)).toEqual([]);
  const allocatedOf = `coalesce((SELECT sum(a.amount_cents) FROM bank_transaction_allocations a WHERE a.bank_transaction_id = t.id), 0)`;
  expect(
    await sql(
      `SELECT t.id, t.status FROM bank_transactions t WHERE t.organization_id = ? AND t.status <> 'booked' AND t.status <> CASE
         WHEN ${allocatedOf} = 0 THEN CASE WHEN t.status = 'ignored' THEN 'ignored' ELSE 'unmatched' END WHEN ${allocatedOf} = t.amount_cents THEN 'matched' WHEN ${allocatedOf} < t.amount_cents THEN 'partially_matched' ELSE 'too much' END`,
      orgId,
    ),
  ).toEqual([]);
  // suspense holds exactly what of the lines nobody has placed: all of an unmatched or ignored line, the rest of a partial one
  const unplaced = (await one<{ cents: number }>(
    `SELECT coalesce(sum(CASE WHEN t.direction = 'credit' THEN 1 ELSE -1 END * (t.amount_cents - ${allocatedOf})), 0) AS cents FROM bank_transactions t WHERE t.organization_id = ? AND t.status <> 'booked'`,
    orgId,
  )).cents;
  expect(balances.get(code("1900")) ?? 0).toBe(0 - unplaced);
  expect(await sql(`SELECT id FROM bank_transactions WHERE organization_id = ? AND status <> 'booked' AND (journal_entry_id IS NOT NULL OR booked_account_id IS NOT NULL OR transfer_line_id IS NOT NULL)`, orgId)).toEqual([]);
  // a transfer's two lines name each other: opposite directions, the same money, two accounts, one entry
  expect(
    await sql(
      `SELECT a.id FROM bank_transactions a LEFT JOIN bank_transactions b ON b.id = a.transfer_line_id WHERE a.organization_id = ? AND a.transfer_line_id IS NOT NULL
       AND (b.id IS NULL OR b.transfer_line_id <> a.id OR b.amount_cents <> a.amount_cents OR b.direction = a.direction OR b.bank_account_id = a.bank_account_id OR b.journal_entry_id <> a.journal_entry_id)`,
      orgId,
    ),
  ).toEqual([]);
  // each account's opening balance is posted once at most
  expect(await sql(`SELECT source_id FROM journal_entries e WHERE organization_id = ? AND source_type = 'bank_statement' GROUP BY source_id HAVING count(*) > 1`, orgId)).toEqual([]);

  // each bank account's balance: its opening entry, every line of its statements (all of them are in it from the import
  // on: through a payment, a booking, or against suspense), the payments recorded through it that no line holds, and a
  // transfer booked on the other account whose line here has not come in (money in transit), nothing else
  const heldByNoLine = (table: string) =>
    `NOT EXISTS (SELECT 1 FROM bank_transaction_allocations a WHERE a.payment_id = p.id) AND NOT EXISTS (SELECT 1 FROM bank_transactions t WHERE t.payment_id = p.id)`.replaceAll("p.id", `${table}.id`);
  for (const bank of (await call("GET", "/api/v1/bank-accounts")).body.data as { id: string; balance: string; account_id: string }[]) {
    const expected = await one<{ cents: number }>(
      `SELECT coalesce((SELECT sum(CASE i.type WHEN 'credit_note' THEN -p.amount_cents ELSE p.amount_cents END) FROM payments p JOIN invoices i ON i.id = p.invoice_id WHERE p.bank_account_id = ?1 AND ${heldByNoLine("p")}), 0)
            - coalesce((SELECT sum(amount_cents) FROM expense_payments p WHERE bank_account_id = ?1 AND ${heldByNoLine("p")}), 0)
            + coalesce((SELECT sum(l.debit_cents - l.credit_cents) FROM journal_lines l JOIN journal_entries e ON e.id = l.entry_id WHERE e.source_type = 'bank_statement' AND l.account_id = ?2), 0)
            + coalesce((SELECT sum(CASE WHEN direction = 'credit' THEN amount_cents ELSE -amount_cents END) FROM bank_transactions WHERE bank_account_id = ?1), 0)
            + coalesce((SELECT sum(CASE WHEN direction = 'credit' THEN -amount_cents ELSE amount_cents END) FROM bank_transactions WHERE booked_account_id = ?2 AND bank_account_id <> ?1 AND status = 'booked' AND transfer_line_id IS NULL), 0) AS cents`,
      bank.id,
      bank.account_id,
    );
    expect(toCents(bank.balance)).toBe(expected.cents);

    // and as the bank sees it: since its first statement opened, the ledger balance moved to the last statement's closing
    // balance plus the payments recorded by hand through it that no line holds yet (and the money in transit above)
    const first = (await sql<{ opening_date: string; opening_cents: number }>(`SELECT opening_date, opening_cents FROM bank_statements WHERE bank_account_id = ? ORDER BY closing_date, created_at LIMIT 1`, bank.id))[0];
    if (!first) continue;
    const lastClosing = (await one<{ cents: number }>(`SELECT closing_cents AS cents FROM bank_statements WHERE bank_account_id = ? ORDER BY closing_date DESC, created_at DESC LIMIT 1`, bank.id)).cents;
    const handPaymentsNoLineHolds = (await one<{ cents: number }>(
      `SELECT coalesce((SELECT sum(CASE i.type WHEN 'credit_note' THEN -p.amount_cents ELSE p.amount_cents END) FROM payments p JOIN invoices i ON i.id = p.invoice_id
                        WHERE p.bank_account_id = ?1 AND p.payment_date >= ?2 AND ${heldByNoLine("p")}), 0)
            - coalesce((SELECT sum(amount_cents) FROM expense_payments p WHERE bank_account_id = ?1 AND payment_date >= ?2 AND ${heldByNoLine("p")}), 0) AS cents`,
      bank.id,
      first.opening_date,
    )).cents;
    const inTransit = (await one<{ cents: number }>(
      `SELECT coalesce(sum(CASE WHEN direction = 'credit' THEN -amount_cents ELSE amount_cents END), 0) AS cents FROM bank_transactions WHERE booked_account_id = ?1 AND bank_account_id <> ?2 AND status = 'booked' AND transfer_line_id IS NULL AND booking_date >= ?3`,
      bank.account_id,
      bank.id,
      first.opening_date,
    )).cents;
    expect((await ledgerSince(bank.account_id, first.opening_date) + first.opening_cents), `the books of ${bank.id} since ${first.opening_date}`).toBe(lastClosing + handPaymentsNoLineHolds + inTransit);
  }

  // the accountant's copy: bean-check accepts it, and its balances are the trial balance's
  const exported = await env.request("GET", "/api/v1/journal-entries/export?format=beancount", { token });
  expect(exported.status).toBe(200);
  const file = join(scratch, `${orgId}.beancount`);
  writeFileSync(file, exported.text);
  const check = Bun.spawnSync(["bean-check", file]);
  expect(check.stderr.toString() + check.stdout.toString()).toBe("");
  expect(check.exitCode).toBe(0);
  const asserted = new Map(
    [...exported.text.matchAll(/^\S+ balance \S+:(\d+)-\S*\s+(-?\d+\.\d{2}) ~ 0\.00 EUR$/gm)].map((m) => [m[1]!, toCents(m[2]!)!]),
  );
  for (const a of trial.accounts as { code: string; debit: string; credit: string }[]) {
    expect(asserted.get(a.code), a.code).toBe(toCents(a.debit)! - toCents(a.credit)!);
  }
}

/**
 * A month of banking, written out: an invoice paid by statement, a credit note refunded by it, a
 * fee, interest and a transfer to savings; the savings statement naming the current account; the
 * fee and the interest booked (the fee with VAT), unbooked and booked again.
 */
const BANKING_WALK: Operation[] = [
  { op: "invoice", date: "2025-03-01", business: false, lines: [{ qty: 100, price: "1000.00", rate: 1 }] },
  { op: "finalize", i: 0 },
  { op: "refundable", price: "500.00", share: 40 },
  {
    op: "statement",
    date: "2025-12-31",
    opening: 250_000,
    lines: [
      { i: 0, share: 50, kind: "pay" },
      { i: 0, share: 100, kind: "refund" },
      { i: 0, share: 10, kind: "fee" },
      { i: 0, share: 30, kind: "transfer" },
      { i: 0, share: 5, kind: "interest" },
    ],
  },
  { op: "savings", opening: 10_000, naming: "own" },
  { op: "book", i: 0, rate: 1, transfer: false },
  { op: "book", i: 0, rate: 1, transfer: false },
  { op: "unbook", i: 0 },
  { op: "book", i: 0, rate: 1, transfer: false },
  // suspense: an invoice paid by a line split with an account, partly; completed; reclassified; unmatched; ignored
  { op: "invoice", date: "2025-12-01", business: false, lines: [{ qty: 100, price: "300.00", rate: 1 }] },
  { op: "finalize", i: 3 },
  { op: "statement", date: "2026-01-05", opening: 0, lines: [{ i: 0, share: 100, kind: "unknown" }, { i: 0, share: 100, kind: "unknown" }, { i: 0, share: 50, kind: "fee" }] },
  { op: "allocate", i: 0, shares: [30, 20], account: true, rate: 0 },
  { op: "allocate", i: 0, shares: [100], account: true, rate: 0 },
  { op: "reclassify", i: 0, share: 60, document: true, rate: 1 },
  { op: "allocate", i: 1, shares: [50], account: true, rate: 1 },
  { op: "unmatchAny", i: 0 },
  { op: "ignore", i: 0 },
];

/** A late business invoice with two interest notes, the first finalized and paid (issue 30). */
const INTEREST_WALK: Operation[] = [
  { op: "invoice", date: "2025-01-10", business: true, lines: [{ qty: 100, price: "1000.00", rate: 1 }] },
  { op: "finalize", i: 0 },
  { op: "interestNote", i: 0, days: 100, finalize: true, pay: true },
  { op: "interestNote", i: 0, days: 200, finalize: true, pay: false },
];

describe("the books hold whatever happens", () => {
  test("random sequences of every operation keep every invariant", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 10, maxLength: 60 }), async (operations) => {
        await runSequence(operations, ++run);
      }),
      // besides the random sequences, one written out that does each banking operation at least once
      { numRuns: 50, endOnFailure: true, examples: [[BANKING_WALK], [INTEREST_WALK]] },
    );
    expect(run).toBeGreaterThanOrEqual(50);
    // booked lines, with and without VAT, transfers paired across the two accounts, refunds matched by reference, opening entries
    for (const k of ["booked", "paired", "refunds", "openings", "vatBooked", "interestNotes", "interestPaid", "allocated", "split", "partial", "reclassified", "unmatched", "ignored"]) {
      expect(exercised.get(k) ?? 0, k).toBeGreaterThan(0);
    }
  }, 120_000);
});
