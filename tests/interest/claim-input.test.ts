/**
 * What a late claim reads of the database (server/interest/claim.ts `readClaimInput`): the
 * invoice's due date and total, its payments at their dates and its issued credit notes at their
 * issue dates (the part allocated to it), what its interest notes charged (drafts too: a draft
 * reserves what it charges; cancelled ones not) and through which day, the customer's type as the
 * invoice was issued, and the rates from the day after the due date. Only an issued invoice can
 * be late.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readClaimInput } from "../../server/interest/claim.ts";
import { issueInterestNote } from "../../server/interest/note.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { snapshot, unitOfWork } from "../../server/lib/scope.ts";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const call = async (method: string, path: string, body?: unknown, status = 200) => {
  const r = await env.api(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBe(status);
  return r.body?.data ?? r.body;
};
const input = async (invoiceId: string, asOf: string, firstReminderAcceptedOn: string | null = null) =>
  await snapshot(env.db, (tx) => readClaimInput(tx, env.org.id, invoiceId, asOf, { firstReminderAcceptedOn }));

let business: any;
let consumer: any;
beforeAll(async () => {
  business = await call("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", vat_number: "BE0404795549" }, 201);
  consumer = await call("POST", "/api/v1/customers", { name: "Jan Peeters", country: "BE" }, 201);
});
/** 1000.00 without VAT, issued 2025-10-01, due 2025-10-15. */
const draft = (customerId: string) => call("POST", "/api/v1/invoices", { customer_id: customerId, issue_date: "2025-10-01", due_date: "2025-10-15", lines: [{ description: "Work", quantity: "1", unit_price: "1000.00" }] }, 201);
const issued = async (customerId: string) => call("POST", `/api/v1/invoices/${(await draft(customerId)).id}/finalize`);

describe("readClaimInput", () => {
  test("the invoice's figures, its payments and issued credit notes as reductions, the rates from the day after the due date", async () => {
    const inv = await issued(business.id);
    await call("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "100.00", payment_date: "2025-10-20" }, 201);
    // a draft credit note reduces nothing; issued, its allocation from its issue date
    const note = await call("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines: [{ description: "Credit", quantity: "1", unit_price: "50.00" }] }, 201);
    expect((await input(inv.id, "2025-11-30")).reductions).toEqual([{ date: "2025-10-20", cents: 10_000 }]);
    const final = await call("POST", `/api/v1/invoices/${note.id}/finalize`);
    const read = await input(inv.id, "2025-11-30");
    expect(read).toMatchObject({ invoiceId: inv.id, asOf: "2025-11-30", dueDate: "2025-10-15", currency: "EUR", totalCents: 100_000, customerType: "organization", country: "BE", hasTable: true, firstReminderAcceptedOn: null });
    expect(read.reductions).toEqual([{ date: "2025-10-20", cents: 10_000 }, { date: final.issue_date, cents: 5000 }]);
    // Belgium's second half of 2025: 10.50 %
    expect(read.rates).toEqual([{ from: "2025-07-01", to: "2025-12-31", rateBp: 1050 }]);
    expect(read.already).toEqual({ interestCents: 0, compensationCents: 0, through: null });
  });

  test("a customer without a VAT number is a consumer; the acceptance date is passed on", async () => {
    const inv = await issued(consumer.id);
    expect(await input(inv.id, "2025-11-30", "2025-10-22")).toMatchObject({ customerType: "individual", firstReminderAcceptedOn: "2025-10-22" });
  });

  test("what interest notes charged: drafts count, cancelled ones not; through the latest day charged", async () => {
    const inv = await issued(business.id);
    // 16–25 October: 10 days on 1000.00 at 10.50 %: 100000 × 1050 × 10 / 3 650 000 = 287.67 → 2.88; and 40.00
    const first = await call("POST", `/api/v1/invoices/${inv.id}/interest-note`, { as_of: "2025-10-25" }, 201);
    expect(first.total).toBe("42.88");
    expect((await input(inv.id, "2025-11-30")).already).toEqual({ interestCents: 288, compensationCents: 4000, through: "2025-10-25" });
    await call("POST", `/api/v1/invoices/${first.id}/finalize`);
    // 26 October–4 November: 10 more days: the running sum 20 days = 575.34 → 5.75, less 2.88: 2.87
    const second = await call("POST", `/api/v1/invoices/${inv.id}/interest-note`, { as_of: "2025-11-04" }, 201);
    expect(second.total).toBe("2.87");
    expect((await input(inv.id, "2025-11-30")).already).toEqual({ interestCents: 288 + 287, compensationCents: 4000, through: "2025-11-04" });
    await call("POST", `/api/v1/invoices/${first.id}/cancel`);
    expect((await input(inv.id, "2025-11-30")).already).toEqual({ interestCents: 287, compensationCents: 0, through: "2025-11-04" });
  });

  test("only an issued invoice can be late", async () => {
    const d = await draft(business.id);
    expect(() => input(d.id, "2025-11-30")).toThrow("The invoice is draft; only an issued invoice can be late.");
    const c = await issued(business.id);
    await call("POST", `/api/v1/invoices/${c.id}/cancel`);
    expect(() => input(c.id, "2025-11-30")).toThrow("The invoice is cancelled");
    const inv = await issued(business.id);
    const cn = await call("POST", `/api/v1/invoices/${inv.id}/credit-note`, {}, 201);
    expect(() => input(cn.id, "2025-11-30")).toThrow("The document is a credit note; interest is charged on invoices only.");
    const note = await call("POST", `/api/v1/invoices/${inv.id}/interest-note`, { as_of: "2025-10-25" }, 201);
    expect(() => input(note.id, "2025-11-30")).toThrow("The document is an interest note; interest is charged on invoices only.");
  });

  test("a credit note partly allocated (a refund owed too) reduces by its allocation", async () => {
    const inv = await issued(business.id);
    await call("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "900.00", payment_date: "2025-10-20" }, 201);
    const note = await call("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines: [{ description: "Credit", quantity: "1", unit_price: "300.00" }] }, 201);
    // 100.00 was due: 100.00 allocated, 200.00 owed back
    const final = await call("POST", `/api/v1/invoices/${note.id}/finalize`);
    expect([final.status, final.amount_credited]).toEqual(["partially_paid", "100.00"]);
    expect((await input(inv.id, "2025-11-30")).reductions).toEqual([{ date: "2025-10-20", cents: 90_000 }, { date: final.issue_date, cents: 10_000 }]);
  });

  test("a note charging the compensation only reaches no day: the claim is through the other note's day", async () => {
    const inv = await issued(business.id);
    await unitOfWork(env.db, (tx) => issueInterestNote(tx, { db: tx, org: env.org, actor: CLI_ACTOR }, inv.id, "2025-11-10", { firstReminderAcceptedOn: null, interest: false, compensation: true }));
    await call("POST", `/api/v1/invoices/${inv.id}/interest-note`, { as_of: "2025-11-20" }, 201);
    expect((await input(inv.id, "2025-11-30")).already.through).toBe("2025-11-20");
  });
});
