/**
 * Statutory interest and interest notes (issue 30 items 2 and 4), through the API and the
 * claim's functions: every figure is worked out by hand in the comments, from the rates the law
 * published (server/interest/rates-be.ts: 10.50 % for the second half of 2025 and the first half
 * of 2026), actual/365, the running sum of exact fractions rounded half-up once per period end.
 * The UBL of a finalized interest note passes the CEN and Peppol rules; `kontor rates` runs once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLog, statutoryInterestRates } from "../../db/schema.ts";
import { computeClaim, consumerChargeableFrom, consumerDamagesCapCents, lateClaim, type ClaimInput } from "../../server/interest/claim.ts";
import { issueInterestNote } from "../../server/interest/note.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { snapshot, unitOfWork } from "../../server/lib/scope.ts";
import { describe as describeValidation, validateUbl } from "../einvoicing/validate.ts";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv, runCli } from "../helpers.ts";
import { firstRow } from "../../db/client.ts";

const env = await createTestEnv();
afterAll(() => env.close());

/** An organisation of its own per case (its own number series), with its token. */
async function orgOf(name: string, options: { country?: string } = {}) {
  const { org, token } = await env.newOrg(name, { country: "BE", currency: "EUR", ...options });
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const r = await env.api(method, path, body, token);
    expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
    return r.status === 204 ? undefined : (r.body?.data ?? r.body);
  };
  const raw = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  /** an invoice of `amount` without VAT (a line without a VAT rate), issued and due as given, finalized */
  const invoice = async (customerId: string, amount: string, issue_date: string, due_date: string, extra: Record<string, unknown> = {}) => {
    const draft = await call("POST", "/api/v1/invoices", { customer_id: customerId, issue_date, due_date, lines: [{ description: "Work", quantity: "1", unit_price: amount }], ...extra }, 201);
    return call("POST", `/api/v1/invoices/${draft.id}/finalize`);
  };
  /** a business customer (a VAT number); with its Peppol id, its documents are e-invoices (finalize checks their UBL) */
  const business = (peppol = false) =>
    call("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", vat_number: "BE0404795549", address: "Rue de l'Église 5", city: "Liège", postal_code: "4000", ...(peppol ? { peppol_id: "0208:0404795549" } : {}) }, 201);
  const consumer = () => call("POST", "/api/v1/customers", { name: "Jan Peeters", country: "BE" }, 201);
  const note = (invoiceId: string, as_of: string, status = 201) => call("POST", `/api/v1/invoices/${invoiceId}/interest-note`, { as_of }, status);
  const claim = async (invoiceId: string, asOf: string, firstReminderAcceptedOn: string | null = null) =>
    await snapshot(env.db, (tx) => lateClaim(tx, org.id, invoiceId, asOf, { firstReminderAcceptedOn }));
  return { org, token, call, raw, invoice, business, consumer, note, claim };
}
const lines = (doc: any) => doc.lines.map((l: any) => [l.description, l.amount]);

describe("business customers: interest from the day after the due date, the compensation once", () => {
  let acme: Awaited<ReturnType<typeof orgOf>>;
  let inv: any;
  beforeAll(async () => {
    acme = await orgOf("Partly paid BV");
    const customer = await acme.business();
    // 1000.00 due 2025-11-15; 400.00 paid on 2026-01-20
    inv = await acme.invoice(customer.id, "1000.00", "2025-10-16", "2025-11-15");
    await acme.call("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "400.00", payment_date: "2026-01-20" }, 201);
  });

  test("partly paid across a rate period: split at the half year and at the payment, rounded once", async () => {
    // 2025-11-16–2025-12-31: 15 + 31 = 46 days at 10.50 % on 1000.00: 100000 × 1050 × 46 = 4 830 000 000 / 3 650 000 = 1323.29 cents
    // 2026-01-01–2026-01-19: 19 days at 10.50 % on 1000.00: 100000 × 1050 × 19 = 1 995 000 000 → running sum 6 825 000 000 / 3 650 000 = 1869.86 → 1870
    // 2026-01-20–2026-02-28: 12 + 28 = 40 days at 10.50 % on 600.00: 60000 × 1050 × 40 = 2 520 000 000 → running sum 9 345 000 000 / 3 650 000 = 2560.27 → 2560
    // periods: 13.23, 18.70 − 13.23 = 5.47, 25.60 − 18.70 = 6.90; interest 25.60 (the exact total 25.6027 rounded once)
    const claim = await acme.claim(inv.id, "2026-02-28");
    expect(claim).toMatchObject({ customer_type: "organization", currency: "EUR", chargeable_from: "2025-11-16" });
    expect(claim.principal_periods).toEqual([
      { from: "2025-11-16", to: "2025-12-31", days: 46, rate: "10.50", base: "1000.00", interest: "13.23" },
      { from: "2026-01-01", to: "2026-01-19", days: 19, rate: "10.50", base: "1000.00", interest: "5.47" },
      { from: "2026-01-20", to: "2026-02-28", days: 40, rate: "10.50", base: "600.00", interest: "6.90" },
    ]);
    expect(claim.interest).toBe("25.60");
    expect(claim.compensation).toBe("40.00");
    expect(claim.chargeable).toEqual({ interest: "25.60", compensation: "40.00" });
    expect(claim.law).toContain("law of 2 August 2002");
  });

  test("the interest note: a draft with a line per period and the compensation, numbered INT- at finalize, posted to late-payment income", async () => {
    const draft = await acme.note(inv.id, "2026-02-28");
    expect(draft).toMatchObject({ type: "interest_note", status: "draft", related_invoice_id: inv.id, issue_date: "2026-02-28", total: "65.60", vat_amount: "0.00" });
    expect(lines(draft)).toEqual([
      ["Interest 2025-11-16–2025-12-31 at 10.50 % on 1000.00 EUR (46 days)", "13.23"],
      ["Interest 2026-01-01–2026-01-19 at 10.50 % on 1000.00 EUR (19 days)", "5.47"],
      ["Interest 2026-01-20–2026-02-28 at 10.50 % on 600.00 EUR (40 days)", "6.90"],
      ["Fixed compensation for recovery costs", "40.00"],
    ]);
    const issued = await acme.call("POST", `/api/v1/invoices/${draft.id}/finalize`);
    expect(issued.number).toBe("INT-2026-00001");
    // the original invoice is untouched
    expect(await acme.call("GET", `/api/v1/invoices/${inv.id}`)).toMatchObject({ total: "1000.00", amount_paid: "400.00", amount_due: "600.00" });
    // the entry: receivables 65.60 against 4950 late-payment income, no VAT
    const entries = await acme.call("GET", `/api/v1/journal-entries?filter[source_id]=${draft.id}`);
    expect(entries).toHaveLength(1);
    const codes = new Map((await acme.call("GET", "/api/v1/accounts")).map((a: any) => [a.id, a.code]));
    expect(entries[0].lines.map((l: any) => [codes.get(l.account_id), l.debit, l.credit])).toEqual([
      ["1200", "65.60", "0.00"],
      ["4950", "0.00", "65.60"],
    ]);
    // in the P&L as income; in the VAT report not at all
    const pl = await acme.call("GET", "/api/v1/reports/profit-and-loss?from=2026-01-01&to=2026-12-31");
    expect(pl.revenue.map((r: any) => [r.code, r.amount])).toEqual([["4950", "65.60"]]);
    const vat = await acme.call("GET", "/api/v1/reports/vat?from=2026-01-01&to=2026-12-31");
    expect(vat.sales).toEqual([]);
    // paid like an invoice
    const paid = await acme.call("POST", `/api/v1/invoices/${draft.id}/record-payment`, { amount: "65.60", payment_date: "2026-03-05" }, 201);
    expect(paid).toMatchObject({ status: "paid", amount_due: "0.00" });
    const listed = await acme.call("GET", "/api/v1/invoices?filter[type]=interest_note");
    expect(listed.map((d: any) => d.number)).toEqual(["INT-2026-00001"]);
  });

  test("a second note charges only the interest since the first, and no compensation", async () => {
    // 2026-03-01–2026-03-31: 31 days at 10.50 % on 600.00: 60000 × 1050 × 31 = 1 953 000 000;
    // running sum 9 345 000 000 + 1 953 000 000 = 11 298 000 000 / 3 650 000 = 3095.34 → 30.95; less 25.60 charged = 5.35
    const claim = await acme.claim(inv.id, "2026-03-31");
    expect(claim.interest).toBe("30.95");
    expect(claim.already_charged).toEqual({ interest: "25.60", compensation: "40.00" });
    expect(claim.chargeable).toEqual({ interest: "5.35", compensation: "0.00" });
    const second = await acme.note(inv.id, "2026-03-31");
    expect(lines(second)).toEqual([["Interest 2026-03-01–2026-03-31 at 10.50 % on 600.00 EUR (31 days)", "5.35"]]);
    expect(second.total).toBe("5.35");
    // charged up to that day already (the draft counts): nothing more, said why
    const again = await acme.raw("POST", `/api/v1/invoices/${inv.id}/interest-note`, { as_of: "2026-03-31" });
    expect(again.status).toBe(422);
    expect(again.body.message).toContain("earlier interest notes charged everything due so far");
    // deleting the draft gives its days back
    await acme.call("DELETE", `/api/v1/invoices/${second.id}`, undefined, 204);
    expect((await acme.claim(inv.id, "2026-03-31")).chargeable.interest).toBe("5.35");
  });

  test("refusals: not yet late (422), a draft or a credit note (409), a future date (422), another organisation's invoice (404)", async () => {
    const customer = await acme.business();
    const fresh = await acme.invoice(customer.id, "100.00", "2026-03-01", "2026-03-31");
    const early = await acme.raw("POST", `/api/v1/invoices/${fresh.id}/interest-note`, { as_of: "2026-03-31" });
    expect(early.status).toBe(422);
    expect(early.body.message).toContain("it is due on 2026-03-31");
    const draft = await acme.call("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-01", lines: [{ description: "x", quantity: "1", unit_price: "5.00" }] }, 201);
    expect((await acme.raw("POST", `/api/v1/invoices/${draft.id}/interest-note`, { as_of: "2026-05-01" })).status).toBe(409);
    const future = await acme.raw("POST", `/api/v1/invoices/${fresh.id}/interest-note`, { as_of: "2999-01-01" });
    expect(future.status).toBe(422);
    expect(Object.keys(future.body.errors)).toEqual(["as_of"]);
    expect((await acme.raw("POST", `/api/v1/invoices/${fresh.id}/interest-note`, { as_of: "2026-02-30" })).status).toBe(422);
    expect((await env.api("POST", `/api/v1/invoices/${fresh.id}/interest-note`, { as_of: "2026-05-01" })).status).toBe(404);
  });
});

describe("a credit note in the middle", () => {
  test("reduces the amount due from its issue date", async () => {
    const o = await orgOf("Credited BV");
    const customer = await o.business();
    // 500.00 due 2026-01-31; a credit note of 200.00 issued 2026-02-10
    const inv = await o.invoice(customer.id, "500.00", "2026-01-01", "2026-01-31");
    const cn = await o.call("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines: [{ description: "Returned", quantity: "1", unit_price: "200.00" }] }, 201);
    await o.call("PUT", `/api/v1/invoices/${cn.id}`, { issue_date: "2026-02-10" });
    await o.call("POST", `/api/v1/invoices/${cn.id}/finalize`);
    // 2026-02-01–2026-02-09: 9 days on 500.00: 50000 × 1050 × 9 = 472 500 000 / 3 650 000 = 129.45 → 1.29
    // 2026-02-10–2026-03-12: 19 + 12 = 31 days on 300.00: 30000 × 1050 × 31 = 976 500 000; running sum 1 449 000 000 / 3 650 000 = 396.99 → 3.97; the period 3.97 − 1.29 = 2.68
    const claim = await o.claim(inv.id, "2026-03-12");
    expect(claim.principal_periods.map((p) => [p.from, p.to, p.days, p.base, p.interest])).toEqual([
      ["2026-02-01", "2026-02-09", 9, "500.00", "1.29"],
      ["2026-02-10", "2026-03-12", 31, "300.00", "2.68"],
    ]);
    expect(claim.chargeable).toEqual({ interest: "3.97", compensation: "40.00" });
  });
});

describe("consumers: Book XIX", () => {
  test("nothing before the first reminder's 14-day term has run; then interest from its end and the capped damages, no €40", async () => {
    const o = await orgOf("Shop BV");
    const customer = await o.consumer();
    const inv = await o.invoice(customer.id, "1000.00", "2026-01-01", "2026-01-31");
    // no reminder accepted yet: nothing, and the API's note (the reminders record none yet) is a 422 saying why
    const none = await o.claim(inv.id, "2026-03-31");
    expect(none).toMatchObject({ customer_type: "individual", principal_periods: [], chargeable: { interest: "0.00", compensation: "0.00" }, chargeable_from: null });
    const refused = await o.raw("POST", `/api/v1/invoices/${inv.id}/interest-note`, { as_of: "2026-03-31" });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain("Book XIX");
    // accepted Friday 2026-02-06: the term starts on the next working day, Monday 2026-02-09, and runs 14 days to 2026-02-22
    expect(consumerChargeableFrom("2026-02-06")).toBe("2026-02-23");
    const inTerm = await o.claim(inv.id, "2026-02-22", "2026-02-06");
    expect(inTerm).toMatchObject({ chargeable_from: "2026-02-23", interest: "0.00", compensation: "0.00", principal_periods: [] });
    // 2026-02-23–2026-03-04: 6 + 4 = 10 days at 10.50 % on 1000.00: 100000 × 1050 × 10 = 1 050 000 000 / 3 650 000 = 287.67 → 2.88
    // damages on 1000.00 due: 65.00 + 5 % × (1000.00 − 500.00) = 65.00 + 25.00 = 90.00
    const after = await o.claim(inv.id, "2026-03-04", "2026-02-06");
    expect(after.principal_periods).toEqual([{ from: "2026-02-23", to: "2026-03-04", days: 10, rate: "10.50", base: "1000.00", interest: "2.88" }]);
    expect(after.chargeable).toEqual({ interest: "2.88", compensation: "90.00" });
    expect(after.law).toContain("art. XIX.2");
    // issued in a caller's transaction (the reminder run's), created and finalized
    const note = await unitOfWork(env.db, (tx) => issueInterestNote(tx, { db: env.db, org: o.org, actor: CLI_ACTOR }, inv.id, "2026-03-04", { firstReminderAcceptedOn: "2026-02-06" }));
    expect(note).toMatchObject({ status: "finalized", number: "INT-2026-00001", total: "92.88" });
    expect(lines(note).at(-1)).toEqual(["Damages for late payment (Code of Economic Law, art. XIX.4)", "90.00"]);
  });

  test("the caps of art. XIX.4", () => {
    expect(consumerDamagesCapCents(0)).toBe(0);
    expect(consumerDamagesCapCents(100)).toBe(2000); // 1.00 due: 20.00
    expect(consumerDamagesCapCents(15_000)).toBe(2000); // 150.00: 20.00
    expect(consumerDamagesCapCents(15_001)).toBe(3000); // 150.01: 30.00 + 10 % × 0.01 = 30.001 → 30.00
    expect(consumerDamagesCapCents(20_000)).toBe(3500); // 200.00: 30.00 + 5.00
    expect(consumerDamagesCapCents(50_000)).toBe(6500); // 500.00: 30.00 + 35.00
    expect(consumerDamagesCapCents(50_010)).toBe(6501); // 500.10: 65.00 + 5 % × 0.10 = 65.005 → 65.01 (half-up)
    expect(consumerDamagesCapCents(3_920_000)).toBe(200_000); // 39 200.00: 65.00 + 1935.00 = 2000.00
    expect(consumerDamagesCapCents(10_000_000)).toBe(200_000); // capped at 2000.00
  });
});

describe("currencies and settings", () => {
  test("a non-euro invoice: no compensation until the organisation sets one for its currency; a higher EUR amount", async () => {
    const o = await orgOf("Export BV");
    const customer = await o.business();
    // USD 100.00 due 2026-01-31; 2026-02-01–2026-03-02: 28 + 2 = 30 days at 10.50 %: 10000 × 1050 × 30 = 315 000 000 / 3 650 000 = 86.30 → 0.86
    const inv = await o.invoice(customer.id, "100.00", "2026-01-01", "2026-01-31", { currency: "USD" });
    const before = await o.claim(inv.id, "2026-03-02");
    expect(before).toMatchObject({ currency: "USD", interest: "0.86", compensation: "0.00" });
    expect(before.law).toContain("No compensation is set for USD");
    const set = await o.call("PUT", "/api/v1/organization", { late_compensation: "55.00", late_compensation_by_currency: { USD: "45.00" } });
    expect(set).toMatchObject({ late_compensation: "55.00", late_compensation_by_currency: { USD: "45.00" } });
    expect((await o.claim(inv.id, "2026-03-02")).chargeable).toEqual({ interest: "0.86", compensation: "45.00" });
    const eur = await o.invoice(customer.id, "100.00", "2026-01-01", "2026-01-31");
    expect((await o.claim(eur.id, "2026-03-02")).compensation).toBe("55.00");
    // 0 sets it back to the statutory 40.00
    expect(await o.call("PUT", "/api/v1/organization", { late_compensation: 0 })).toMatchObject({ late_compensation: null });
    expect((await o.claim(eur.id, "2026-03-02")).compensation).toBe("40.00");
    const bad = await o.raw("PUT", "/api/v1/organization", { late_compensation_by_currency: { ZZZ: "1.00" } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["late_compensation_by_currency.ZZZ"]);
  });

  test("an organisation whose country has no table: no interest, the compensation, said in law", async () => {
    const o = await orgOf("Nederland BV", { country: "NL" });
    const customer = await o.business();
    const inv = await o.invoice(customer.id, "100.00", "2026-01-01", "2026-01-31");
    const claim = await o.claim(inv.id, "2026-03-02");
    expect(claim).toMatchObject({ interest: "0.00", compensation: "40.00", principal_periods: [] });
    expect(claim.law).toContain("No statutory interest rates are known for NL");
    // 1 February to 2 March: no day has a rate
    expect(claim.missing_rates).toEqual([{ from: "2026-02-01", to: "2026-03-02" }]);
  });

  test("days without a published rate earn nothing until the rate is added", () => {
    // pure: 100.00 due 2026-06-29, as of 2026-07-10, the table ends on 2026-06-30
    const input: ClaimInput = {
      invoiceId: "x", asOf: "2026-07-10", dueDate: "2026-06-29", currency: "EUR", totalCents: 10_000, customerType: "organization", reductions: [],
      country: "BE", hasTable: true, rates: [{ from: "2026-01-01", to: "2026-06-30", rateBp: 1050 }], compensationCents: null, compensationByCurrency: {},
      firstReminderAcceptedOn: null, already: { interestCents: 0, compensationCents: 0, through: null },
    };
    // 2026-06-30: 1 day on 100.00: 10000 × 1050 × 1 = 10 500 000 / 3 650 000 = 2.88 → 0.03
    const figures = computeClaim(input);
    expect(figures.claim.principal_periods).toEqual([{ from: "2026-06-30", to: "2026-06-30", days: 1, rate: "10.50", base: "100.00", interest: "0.03" }]);
    expect(figures.through).toBe("2026-06-30");
    expect(figures.claim.law).toContain("No published rate for 2026-07-01–2026-07-10");
    expect(figures.claim.missing_rates).toEqual([{ from: "2026-07-01", to: "2026-07-10" }]);
  });
});

describe("the e-invoice of an interest note", () => {
  test("category O, type 383, the invoice in BillingReference, no VAT identifiers: passes the CEN and Peppol rules; a bank line naming its reference pays it", async () => {
    const o = await orgOf("Peppol BV");
    await o.call("PUT", "/api/v1/organization", SELLER_IDENTITY);
    const customer = await o.business(true);
    const inv = await o.invoice(customer.id, "1000.00", "2025-10-16", "2025-11-15", { buyer_reference: "PO-77" });
    const draft = await o.note(inv.id, "2026-02-28");
    const issued = await o.call("POST", `/api/v1/invoices/${draft.id}/finalize`);
    const r = await o.raw("GET", `/api/v1/invoices/${issued.id}/ubl`);
    expect(r.status, r.text).toBe(200);
    const xml = r.text;
    expect(xml).toContain("<cbc:InvoiceTypeCode>383</cbc:InvoiceTypeCode>");
    expect(xml.replace(/>\s+</g, "><")).toContain(`<cac:BillingReference><cac:InvoiceDocumentReference><cbc:ID>${inv.number}</cbc:ID><cbc:IssueDate>2025-10-16</cbc:IssueDate></cac:InvoiceDocumentReference></cac:BillingReference>`);
    expect(xml).toContain("VATEX-EU-O");
    // BR-O-02: neither the seller's nor the buyer's VAT identifier
    expect(xml).not.toContain("cac:PartyTaxScheme");
    expect(xml).not.toContain("BE0123456749");
    expect(xml).not.toContain("BE0404795549");
    const validation = await validateUbl(xml);
    expect(validation.fatal, describeValidation(validation)).toEqual([]);
    expect(validation.xsdErrors).toEqual([]);
    const pdf = await o.raw("GET", `/api/v1/invoices/${issued.id}/pdf`);
    expect(pdf.status).toBe(200);

    // paid by a bank transfer naming its payment reference: the statement's line matches it
    const bank = (await o.call("GET", "/api/v1/bank-accounts"))[0];
    const xml053 =
      `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>INT-1</MsgId><CreDtTm>2026-03-10T18:00:00</CreDtTm></GrpHdr>` +
      `<Stmt><Id>INT-1</Id><CreDtTm>2026-03-10T18:00:00</CreDtTm><Acct><Id><IBAN>${bank.iban}</IBAN></Id><Ccy>EUR</Ccy></Acct>` +
      `<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-03-10</Dt></Dt></Bal>` +
      `<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${issued.total}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-03-10</Dt></Dt></Bal>` +
      `<Ntry><Amt Ccy="EUR">${issued.total}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-03-10</Dt></BookgDt><ValDt><Dt>2026-03-10</Dt></ValDt><AcctSvcrRef>INT-1-0</AcctSvcrRef>` +
      `<NtryDtls><TxDtls><RmtInf><Strd><CdtrRefInf><Ref>${issued.payment_reference}</Ref></CdtrRefInf></Strd></RmtInf></TxDtls></NtryDtls></Ntry></Stmt></BkToCstmrStmt></Document>`;
    const imported = await env.request("POST", `/api/v1/bank-accounts/${bank.id}/statements`, { rawBody: xml053, token: o.token, headers: { "content-type": "application/xml" } });
    expect(imported.status, imported.text).toBe(201);
    expect(await o.call("GET", `/api/v1/invoices/${issued.id}`)).toMatchObject({ status: "paid", amount_due: "0.00" });
  }, 120_000);
});

describe("kontor rates", () => {
  test("add and list through the real CLI: audited, overlaps and malformed input refused", async () => {
    const cli = (...args: string[]) => runCli([...args, "--db", env.config.dbPath]);
    const seeded = JSON.parse((await cli("rates", "list", "--country", "BE", "--json")).stdout);
    // Belgium from 2013 to the first half of 2026, 10.50 % then (issue 30)
    expect(seeded.at(-1)).toMatchObject({ country: "BE", valid_from: "2026-01-01", valid_to: "2026-06-30", rate: "10.50", created_by: "seed" });
    expect(seeded.every((r: any) => r.source.includes("Belgian Official Journal"))).toBe(true);
    const added = await cli("rates", "add", "--country", "BE", "--from", "2026-07-01", "--to", "2026-12-31", "--rate", "10", "--source", "FPS Finance notice, second half of 2026", "--json");
    expect(added.code, added.stderr).toBe(0);
    const row = JSON.parse(added.stdout);
    expect(row).toMatchObject({ country: "BE", valid_from: "2026-07-01", rate: "10.00", created_by: "cli" });
    // audited in each Belgian organisation (the first one's, here)
    const entry = await firstRow(env.db.select().from(auditLog).where(and(eq(auditLog.organizationId, env.org.id), eq(auditLog.resourceId, row.id))));
    expect(entry).toMatchObject({ action: "statutory_interest_rate.added", actorType: "cli" });
    const overlap = await cli("rates", "add", "--country", "BE", "--from", "2026-12-01", "--to", "2027-06-30", "--rate", "9.5", "--source", "x");
    expect(overlap.code).toBe(1);
    expect(overlap.stderr).toContain("BE already has a rate from 2026-07-01 to 2026-12-31 (10.00 %)");
    const bad = await cli("rates", "add", "--country", "XX", "--from", "2027-01-01", "--to", "2026-12-31", "--rate", "ten", "--source", "x");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('"XX" is not an ISO 3166-1 alpha-2 country code');
    expect(bad.stderr).toContain('"ten" is not a percentage');
    // nothing half stored
    expect(await env.db.select().from(statutoryInterestRates).where(eq(statutoryInterestRates.country, "XX"))).toEqual([]);
    await env.db.delete(statutoryInterestRates).where(eq(statutoryInterestRates.id, row.id));
  }, 60_000);
});
