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
 * - each bank account's balance = its payments in − its payments out;
 * - the Beancount export passes bean-check, and its balances are the trial balance's.
 */
import { afterAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toCents } from "../server/lib/money.ts";
import { createTestEnv, type ApiResponse } from "./helpers.ts";

const env = createTestEnv();
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
  { weight: 4, arbitrary: fc.record({ op: fc.constant("invoice" as const), date: day, lines: fc.array(fc.record({ qty: fc.integer({ min: 1, max: 500 }), price: cents(1, 200_000), rate: fc.nat({ max: 4 }) }), { minLength: 1, maxLength: 4 }) }) },
  { weight: 3, arbitrary: pricedInvoice },
  { weight: 4, arbitrary: fc.record({ op: fc.constant("finalize" as const), i: pick }) },
  { weight: 4, arbitrary: fc.record({ op: fc.constant("pay" as const), i: pick, share, date: day }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("deletePayment" as const), i: pick }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("cancel" as const), i: pick }) },
  // a credit note: the invoice's lines copied, or a share of it in one line without VAT
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
      // each line pays an invoice by its payment reference (a share of its amount due, or more than due), or is unknown money
      lines: fc.array(
        fc.record({ i: pick, share: fc.integer({ min: 1, max: 120 }), known: fc.constantFrom(true, true, true, false), debit: fc.constantFrom(false, false, false, true) }),
        { minLength: 1, maxLength: 4 },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("unmatch" as const), i: pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("close" as const), year: fc.constantFrom(2024, 2025) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("reopen" as const), year: fc.constantFrom(2024, 2025) }) },
);
type Operation = typeof operation extends fc.Arbitrary<infer T> ? T : never;

/** What a client may be told: never a 5xx, only the documented refusals. */
const ALLOWED = new Set([200, 201, 204, 409, 422]);

/** Manual entries stay off the accounts whose balance the documents determine. */
const MANUAL_CODES = ["1300", "2300", "3100", "4900", "6200", "6400", "6900"];

async function runSequence(operations: Operation[], run: number): Promise<void> {
  const { org, token } = env.newOrg(`Ledger ${run}`, { country: "BE", currency: "EUR" });
  const call = async (method: string, path: string, body?: unknown): Promise<ApiResponse> => {
    const r = await env.api(method, path, body, token);
    if (!ALLOWED.has(r.status)) throw new Error(`${method} ${path} → ${r.status} ${r.text.slice(0, 300)}`);
    return r;
  };
  const accounts: { id: string; code: string }[] = (await call("GET", "/api/v1/accounts?per_page=100")).body.data;
  const code = (c: string) => accounts.find((a) => a.code === c)!.id;
  const rates: { id: string }[] = (await call("GET", "/api/v1/vat-rates")).body.data;
  const customer = (await call("POST", "/api/v1/customers", { name: "Buyer", country: "BE" })).body.data.id;
  const invoices: string[] = [];
  const expenses: string[] = [];
  const manual: string[] = [];
  const matched: string[] = [];
  const bank = (await call("GET", "/api/v1/bank-accounts")).body.data[0] as { id: string; iban: string };
  // statements follow on: each opens with the last one's closing balance, dated no earlier
  const statement = { number: 0, balance: 0, date: "2024-01-01" };
  const at = <T>(list: T[], i: number) => (list.length === 0 ? undefined : list[i % list.length]);

  for (const o of operations) {
    switch (o.op) {
      case "invoice": {
        const lines = o.lines.map((l) => ({ description: "Work", quantity: (l.qty / 100).toFixed(2), unit_price: l.price, ...(rates[l.rate] ? { vat_rate_id: rates[l.rate]!.id } : {}) }));
        const r = await call("POST", "/api/v1/invoices", { customer_id: customer, issue_date: o.date, lines });
        if (r.status === 201) invoices.push(r.body.data.id);
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
        if (id) await call("POST", `/api/v1/invoices/${id}/finalize`);
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
        if (o.finalize) await call("POST", `/api/v1/invoices/${r.body.data.id}/finalize`);
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
        for (const l of o.lines) {
          // an invoice awaiting payment, if one of the next few is
          let shown: { amount_due: string; payment_reference: string | null } | null = null;
          for (let k = 0; k < Math.min(5, invoices.length) && !shown; k++) {
            const candidate = (await call("GET", `/api/v1/invoices/${at(invoices, l.i + k)}`)).body.data;
            if (candidate.type === "invoice" && ["finalized", "sent", "partially_paid"].includes(candidate.status)) shown = candidate;
          }
          const due = shown ? toCents(shown.amount_due)! : 0;
          const cents = Math.max(1, Math.floor((Math.max(due, 100) * l.share) / 100));
          const reference = l.known && shown?.payment_reference ? shown.payment_reference : null;
          entries.push({ cents, credit: !l.debit, reference });
        }
        const closing = statement.balance + entries.reduce((sum, e) => sum + (e.credit ? e.cents : -e.cents), 0);
        const date = o.date > statement.date ? o.date : statement.date;
        const xml = camt053(bank.iban, `P-${++statement.number}`, date, statement.balance, closing, entries);
        const r = await env.request("POST", `/api/v1/bank-accounts/${bank.id}/statements`, { rawBody: xml, token, headers: { "content-type": "application/xml" } });
        if (!ALLOWED.has(r.status)) throw new Error(`statement → ${r.status} ${r.text.slice(0, 300)}`);
        if (r.status === 201) {
          statement.balance = closing;
          statement.date = date;
          for (const t of r.body.data.transactions) if (t.status === "matched") matched.push(t.id);
        }
        break;
      }
      case "unmatch": {
        const id = at(matched, o.i);
        if (id) await call("POST", `/api/v1/bank-transactions/${id}/unmatch`);
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

type StatementLine = { cents: number; credit: boolean; reference: string | null };

/** A camt.053.001.02 statement of `lines`, the minimum the reader needs (tests/inbound has full ones, XSD-checked). */
function camt053(iban: string, id: string, date: string, openingCents: number, closingCents: number, lines: StatementLine[]): string {
  const amount = (cents: number) => (Math.abs(cents) / 100).toFixed(2);
  const side = (cents: number) => (cents < 0 ? "DBIT" : "CRDT");
  const balance = (code: string, cents: number) =>
    `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount(cents)}</Amt><CdtDbtInd>${side(cents)}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`;
  const entries = lines.map((l, n) => {
    const remittance = l.reference
      ? `<RmtInf><Strd><CdtrRefInf><Ref>${l.reference}</Ref></CdtrRefInf></Strd></RmtInf>`
      : `<RmtInf><Ustrd>Unknown money ${n}</Ustrd></RmtInf>`;
    return `<Ntry><Amt Ccy="EUR">${amount(l.cents)}</Amt><CdtDbtInd>${l.credit ? "CRDT" : "DBIT"}</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${date}</Dt></BookgDt><ValDt><Dt>${date}</Dt></ValDt><AcctSvcrRef>${id}-${n}</AcctSvcrRef><NtryDtls><TxDtls>${remittance}</TxDtls></NtryDtls></Ntry>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>${id}</MsgId><CreDtTm>${date}T18:00:00</CreDtTm></GrpHdr><Stmt><Id>${id}</Id><CreDtTm>${date}T18:00:00</CreDtTm><Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>EUR</Ccy></Acct>${balance("OPBD", openingCents)}${balance("CLBD", closingCents)}${entries.join("")}</Stmt></BkToCstmrStmt></Document>`;
}

const sql = <T>(query: string, ...params: string[]) => env.db.$client.query<T, string[]>(query).all(...params);
const one = <T>(query: string, ...params: string[]) => sql<T>(query, ...params)[0]!;

async function checkBooks(orgId: string, token: string, call: (method: string, path: string) => Promise<ApiResponse>, code: (c: string) => string) {
  // every entry balances and has its lines; the running balances equal the postings
  expect(sql(`SELECT entry_id FROM journal_lines WHERE organization_id = ? GROUP BY entry_id HAVING sum(debit_cents) <> sum(credit_cents) OR count(*) < 2`, orgId)).toEqual([]);
  expect(one<{ n: number }>(`SELECT count(*) AS n FROM journal_entries e WHERE organization_id = ? AND NOT EXISTS (SELECT 1 FROM journal_lines l WHERE l.entry_id = e.id)`, orgId).n).toBe(0);
  const byPosting = sql<{ k: string }>(
    `SELECT account_id || ' ' || currency || ' ' || date || ' ' || sum(debit_cents) || ' ' || sum(credit_cents) AS k FROM journal_lines l WHERE organization_id = ? GROUP BY account_id, currency, date ORDER BY k`,
    orgId,
  ).map((r) => r.k);
  const byDay = sql<{ k: string }>(
    `SELECT account_id || ' ' || currency || ' ' || date || ' ' || sum(debit_cents) || ' ' || sum(credit_cents) AS k FROM account_days WHERE organization_id = ? GROUP BY account_id, currency, date ORDER BY k`,
    orgId,
  ).map((r) => r.k);
  expect(byDay).toEqual(byPosting);
  expect(
    sql<{ k: string }>(`SELECT account_id || ' ' || debit_cents || ' ' || credit_cents AS k FROM account_totals WHERE organization_id = ? ORDER BY k`, orgId).map((r) => r.k),
  ).toEqual(
    sql<{ k: string }>(`SELECT account_id || ' ' || sum(debit_cents) || ' ' || sum(credit_cents) AS k FROM journal_lines WHERE organization_id = ? GROUP BY account_id ORDER BY k`, orgId).map((r) => r.k),
  );

  const trial = (await call("GET", "/api/v1/reports/trial-balance")).body.data;
  expect(trial.total_debit).toBe(trial.total_credit);
  const sheet = (await call("GET", "/api/v1/reports/balance-sheet")).body.data;
  expect(toCents(sheet.total_assets)).toBe(toCents(sheet.total_liabilities)! + toCents(sheet.total_equity)!);

  const balances = new Map<string, number>(
    ((await call("GET", "/api/v1/accounts?per_page=100")).body.data as { id: string; balance: string }[]).map((a) => [a.id, toCents(a.balance)!]),
  );
  const documents = one<{ due: number; vat: number }>(
    `SELECT coalesce(sum(CASE type WHEN 'credit_note' THEN -1 ELSE 1 END * (total_cents - paid_cents)), 0) AS due,
            coalesce(sum(CASE type WHEN 'credit_note' THEN -1 ELSE 1 END * vat_cents), 0) AS vat
     FROM invoices WHERE organization_id = ? AND status IN ('finalized', 'sent', 'partially_paid', 'paid')`,
    orgId,
  );
  expect(balances.get(code("1200"))).toBe(documents.due);
  expect(balances.get(code("2200"))).toBe(documents.vat);
  // each issued document's finalize posted its net (subtotal: lines less allowances plus charges) as sales, and its VAT
  expect(
    sql(
      `SELECT i.id FROM invoices i JOIN journal_entries e ON e.source_type = 'invoice' AND e.source_id = i.id AND e.reverses_entry_id IS NULL
       WHERE i.organization_id = ? AND i.status NOT IN ('draft', 'cancelled')
       AND (i.subtotal_cents <> (SELECT CASE i.type WHEN 'credit_note' THEN -1 ELSE 1 END * sum(l.credit_cents - l.debit_cents) FROM journal_lines l WHERE l.entry_id = e.id AND l.vat_role = 'base')
         OR i.vat_cents <> (SELECT CASE i.type WHEN 'credit_note' THEN -1 ELSE 1 END * sum(l.credit_cents - l.debit_cents) FROM journal_lines l WHERE l.entry_id = e.id AND l.vat_role = 'vat'))`,
      orgId,
    ),
  ).toEqual([]);
  // and the running totals of what customers owe (aged receivables) equal the open documents
  const due = `CASE WHEN type = 'credit_note' THEN paid_cents + credited_cents - total_cents ELSE total_cents - paid_cents - credited_cents END`;
  const open = `FROM invoices WHERE organization_id = ? AND status IN ('finalized', 'sent', 'partially_paid')`;
  const kept = (table: string, key: string) =>
    sql<{ k: string }>(`SELECT ${key} || ' ' || open_cents AS k FROM ${table} WHERE organization_id = ? AND open_cents <> 0 ORDER BY k`, orgId).map((r) => r.k);
  const computed = (key: string) =>
    sql<{ k: string }>(`SELECT ${key} || ' ' || sum(${due}) AS k ${open} GROUP BY ${key} HAVING sum(${due}) <> 0 ORDER BY k`, orgId).map((r) => r.k);
  expect(kept("customer_receivables", "customer_id")).toEqual(computed("customer_id"));
  expect(kept("receivable_due_days", "due_date")).toEqual(computed("due_date"));
  const aged = (await call("GET", "/api/v1/reports/aged-receivables?per_page=1000")).body.data;
  expect(toCents(aged.totals.total)).toBe(documents.due);
  // Σ amount_due of the open documents (invoices less the refunds owed on credit notes) is the receivables
  const shownDue: { type: string; amount_due: string }[] = [];
  for (const status of ["finalized", "sent", "partially_paid"]) shownDue.push(...(await call("GET", `/api/v1/invoices?filter[status]=${status}&per_page=100`)).body.data);
  if (shownDue.length < 100) expect(shownDue.reduce((sum, d) => sum + (d.type === "credit_note" ? -1 : 1) * toCents(d.amount_due)!, 0)).toBe(documents.due);
  expect(one<{ due: number }>(`SELECT coalesce(sum(${due}), 0) AS due ${open}`, orgId).due).toBe(documents.due);
  // as of today and as of the end of 2024 (the documents themselves, not the running totals): the receivables account then
  const asOfToday = (await call("GET", `/api/v1/reports/aged-receivables?per_page=1000&date=${new Date().toISOString().slice(0, 10)}`)).body.data;
  expect(asOfToday.totals).toEqual(aged.totals);
  const yearEnd = (await call("GET", "/api/v1/reports/aged-receivables?per_page=1000&date=2024-12-31")).body.data;
  const receivables2024 = ((await call("GET", "/api/v1/reports/trial-balance?date=2024-12-31")).body.data.accounts as { code: string; debit: string; credit: string }[]).find((a) => a.code === "1200");
  expect(toCents(yearEnd.totals.total)).toBe(receivables2024 ? toCents(receivables2024.debit)! - toCents(receivables2024.credit)! : 0);
  // allocation: an invoice's credited amount is its issued credit notes' allocations; nothing settled beyond a total; statuses follow
  expect(
    sql(
      `SELECT i.id FROM invoices i WHERE i.organization_id = ? AND i.type <> 'credit_note' AND i.credited_cents <>
         coalesce((SELECT sum(c.credited_cents) FROM invoices c WHERE c.related_invoice_id = i.id AND c.type = 'credit_note' AND c.status NOT IN ('draft', 'cancelled')), 0)`,
      orgId,
    ),
  ).toEqual([]);
  expect(sql(`SELECT id FROM invoices WHERE organization_id = ? AND (paid_cents < 0 OR credited_cents < 0 OR paid_cents + credited_cents > total_cents)`, orgId)).toEqual([]);
  expect(
    sql(
      `SELECT id, status FROM invoices WHERE organization_id = ? AND status NOT IN ('draft', 'cancelled') AND status <> CASE
         WHEN paid_cents + credited_cents = 0 THEN iif(sent_at IS NULL, 'finalized', 'sent')
         WHEN paid_cents + credited_cents >= total_cents THEN 'paid' ELSE 'partially_paid' END`,
      orgId,
    ),
  ).toEqual([]);
  expect(sql(`SELECT id FROM invoices WHERE organization_id = ? AND status IN ('draft', 'cancelled') AND credited_cents <> 0`, orgId)).toEqual([]);

  const bought = one<{ owed: number; vat: number }>(
    `SELECT coalesce(sum(amount_cents + vat_cents - paid_cents), 0) AS owed, coalesce(sum(vat_cents), 0) AS vat FROM expenses WHERE organization_id = ? AND status IN ('approved', 'paid')`,
    orgId,
  );
  expect(balances.get(code("2100"))).toBe(bought.owed);
  expect(balances.get(code("1400"))).toBe(bought.vat);

  for (const bank of (await call("GET", "/api/v1/bank-accounts")).body.data as { id: string; balance: string }[]) {
    const moved = one<{ cents: number }>(
      `SELECT coalesce((SELECT sum(CASE i.type WHEN 'credit_note' THEN -p.amount_cents ELSE p.amount_cents END) FROM payments p JOIN invoices i ON i.id = p.invoice_id WHERE p.bank_account_id = ?1), 0)
            - coalesce((SELECT sum(amount_cents) FROM expense_payments WHERE bank_account_id = ?1), 0) AS cents`,
      bank.id,
    );
    expect(toCents(bank.balance)).toBe(moved.cents);
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

describe("the books hold whatever happens", () => {
  test("random sequences of every operation keep every invariant", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 10, maxLength: 60 }), async (operations) => {
        await runSequence(operations, ++run);
      }),
      { numRuns: 50, endOnFailure: true },
    );
    expect(run).toBeGreaterThanOrEqual(50);
  }, 120_000);
});
