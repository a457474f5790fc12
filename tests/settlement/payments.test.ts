/**
 * Payments (server/settlement/payments.ts), their rules one by one: which way a document's money
 * moves and what is still owed on it; a payment of at least 0.01 and at most the amount due,
 * through an active bank account of the document's currency (the one named, else the default);
 * its defaults; the states payments are recorded and deleted in, each refusal naming the document
 * as what it is; the status that follows a payment and its deletion.
 *
 * Invoices here have no VAT (lines without a VAT rate), so every amount is the price.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, asc, eq } from "drizzle-orm";
import { auditLog, events, journalEntries, type expenses, type invoices } from "../../db/schema.ts";
import { bankAccountService } from "../../server/bank-accounts/service.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { unitOfWork } from "../../server/lib/scope.ts";
import { deletePayment, directionOf, dueOf, PAYMENT_TRANSITIONS, recordPayment } from "../../server/settlement/payments.ts";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

type InvoiceRow = typeof invoices.$inferSelect;
type ExpenseRow = typeof expenses.$inferSelect;
const invoice = (over: Partial<InvoiceRow>) => ({ kind: "invoice", row: { type: "invoice", status: "sent", totalCents: 10_000, paidCents: 0, creditedCents: 0, ...over } as InvoiceRow }) as const;
const expense = (over: Partial<ExpenseRow>) =>
  ({ kind: "expense", row: { documentType: "invoice", status: "approved", amountCents: 10_000, vatCents: 2100, prepaidCents: 0, roundingCents: 0, paidCents: 0, ...over } as ExpenseRow }) as const;

describe("which way, and how much", () => {
  test("money comes in for an invoice, an interest note, a supplier's credit note and an invoice prepaid beyond its total; goes out for a credit note and an expense", () => {
    expect(directionOf(invoice({}))).toBe("credit");
    expect(directionOf(invoice({ type: "interest_note" }))).toBe("credit");
    expect(directionOf(invoice({ type: "credit_note" }))).toBe("debit");
    expect(directionOf(expense({}))).toBe("debit");
    expect(directionOf(expense({ documentType: "credit_note" }))).toBe("credit");
    // 121.00 prepaid 150.00: the supplier owes 29.00 back
    expect(directionOf(expense({ prepaidCents: 15_000 }))).toBe("credit");
  });

  test("what is owed: an invoice's total less paid and credited; an expense's amount due, or its refund due", () => {
    expect(dueOf(invoice({ paidCents: 2500, creditedCents: 1000 }))).toBe(6500);
    expect(dueOf(invoice({ status: "cancelled" }))).toBe(0);
    expect(dueOf(expense({ paidCents: 100 }))).toBe(12_000);
    expect(dueOf(expense({ prepaidCents: 15_000 }))).toBe(2900);
  });

  test("the states: an invoice's payments recorded while awaiting payment and deleted unless it is cancelled; an expense's paid when approved", () => {
    expect([...PAYMENT_TRANSITIONS.invoice.recordPayment.from]).toEqual(["finalized", "sent", "partially_paid"]);
    expect([...PAYMENT_TRANSITIONS.invoice.deletePayment.from]).toEqual(["draft", "finalized", "sent", "partially_paid", "paid"]);
    expect([...PAYMENT_TRANSITIONS.expense.recordPayment.from]).toEqual(["approved"]);
    expect([...PAYMENT_TRANSITIONS.expense.deletePayment.from]).toEqual(["approved", "paid"]);
  });
});

describe("refusals before anything is read", () => {
  // an interest note is named as such (no payment on a draft one, none deleted on a cancelled one); the state is checked first
  const scope = { db: env.db, org: env.org, actor: CLI_ACTOR };
  const show = () => null;
  test("an interest note: 409 naming it", async () => {
    const draft = invoice({ type: "interest_note", status: "draft" });
    await expect(Promise.resolve().then(async () => await unitOfWork(env.db, (tx) => recordPayment(tx, scope, draft, { amount: "1.00", payment_date: "2025-10-10" }, show)))).rejects.toThrow(
      "The interest note is draft; payments are recorded on finalized, sent or partially paid invoices only.",
    );
    const cancelled = invoice({ type: "interest_note", status: "cancelled" });
    await expect(Promise.resolve().then(async () => await unitOfWork(env.db, (tx) => deletePayment(tx, scope, cancelled, "0190abcd-1234-7abc-8def-0123456789ab", show)))).rejects.toThrow(
      "The interest note is cancelled; the payments of a cancelled invoice cannot be deleted.",
    );
  });
});

describe("through the API", () => {
  const scope = { db: env.db, org: env.org, actor: CLI_ACTOR };
  let customer: any;
  let defaultBank: any;
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const r = await env.api(method, path, body);
    expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBe(status);
    return r.body?.data ?? r.body;
  };
  const refused = async (path: string, body: unknown, status: number, field: string | null, says: string) => {
    const r = await env.api("POST", path, body);
    expect(r.status, r.text).toBe(status);
    if (field) {
      expect(Object.keys(r.body.errors)).toEqual([field]);
      expect(r.body.errors[field][0]).toContain(says);
    } else expect(r.body.message).toBe(says);
  };
  beforeAll(async () => {
    customer = await call("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", vat_number: "BE0404795549" }, 201);
    defaultBank = (await call("GET", "/api/v1/bank-accounts"))[0];
  });
  const issued = async (price: string) => {
    const d = await call("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2025-10-01", due_date: "2025-10-15", lines: [{ description: "Work", quantity: "1", unit_price: price }] }, 201);
    return call("POST", `/api/v1/invoices/${d.id}/finalize`);
  };
  const payPath = (id: string) => `/api/v1/invoices/${id}/record-payment`;

  test("at least 0.01, at most the amount due (named); the default bank account, method bank_transfer and no reference when none is given", async () => {
    const inv = await issued("100.00");
    await refused(payPath(inv.id), { amount: "100.01", payment_date: "2025-10-10" }, 422, "amount", "must not be greater than the amount due (100.00)");
    await refused(payPath(inv.id), { amount: "0.00", payment_date: "2025-10-10" }, 422, "amount", "");
    const paid = await call("POST", payPath(inv.id), { amount: "40.00", payment_date: "2025-10-10" }, 201);
    expect(paid.payments).toEqual([
      { id: expect.any(String), amount: "40.00", payment_date: "2025-10-10", payment_method: "bank_transfer", reference: null, bank_account_id: defaultBank.id, created_at: expect.any(String) },
    ]);
    expect([paid.status, paid.amount_paid, paid.amount_due]).toEqual(["partially_paid", "40.00", "60.00"]);
    await refused(payPath(inv.id), { amount: "60.01", payment_date: "2025-10-10" }, 422, "amount", "(60.00)");
    const rest = await call("POST", payPath(inv.id), { amount: "60.00", payment_date: "2025-10-11", payment_method: "cash", reference: "till 3" }, 201);
    expect(rest.payments[1]).toMatchObject({ amount: "60.00", payment_method: "cash", reference: "till 3" });
    expect([rest.status, rest.amount_due]).toEqual(["paid", "0.00"]);
    // deleting one: partially paid again, then finalized (nothing settled, never sent)
    const afterDelete = await env.api("DELETE", `/api/v1/invoices/${inv.id}/payments/${rest.payments[1].id}`);
    expect(afterDelete.status, afterDelete.text).toBe(204);
    expect((await call("GET", `/api/v1/invoices/${inv.id}`)).status).toBe("partially_paid");
    await env.api("DELETE", `/api/v1/invoices/${inv.id}/payments/${rest.payments[0].id}`);
    expect((await call("GET", `/api/v1/invoices/${inv.id}`)).status).toBe("finalized");
  });

  test("the bank account named: the organisation's, active, in the document's currency; else 422 on bank_account_id", async () => {
    const inv = await issued("50.00");
    const body = (bank_account_id: string) => ({ amount: "10.00", payment_date: "2025-10-10", bank_account_id });
    await refused(payPath(inv.id), body("0190abcd-1234-7abc-8def-0123456789ab"), 422, "bank_account_id", "The selected bank_account_id is invalid.");
    const dollars = await bankAccountService.add(scope, { name: "Dollars", iban: "NL91ABNA0417164300", currency: "USD" });
    await refused(payPath(inv.id), body(dollars.id), 422, "bank_account_id", "The bank account Dollars holds USD, not EUR.");
    const closed = await bankAccountService.add(scope, { name: "Closed", iban: "NL02ABNA0123456789", currency: "EUR" });
    await bankAccountService.deactivate(scope, await bankAccountService.find(scope, closed.id));
    await refused(payPath(inv.id), body(closed.id), 422, "bank_account_id", "The bank account Closed is not active.");
    const savings = await bankAccountService.add(scope, { name: "Savings", iban: "NL39RABO0300065264", currency: "EUR" });
    const paid = await call("POST", payPath(inv.id), body(savings.id), 201);
    expect(paid.payments[0].bank_account_id).toBe(savings.id);
  });

  test("refusals name the document as what it is (an invoice, a credit note) and the state it is in", async () => {
    const inv = await issued("30.00");
    const note = await call("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines: [{ description: "Credit", quantity: "1", unit_price: "30.00" }] }, 201);
    await refused(payPath(note.id), { amount: "1.00", payment_date: "2025-10-10" }, 409, null, "The credit note is draft; payments are recorded on finalized, sent or partially paid invoices only.");
    const draft = await call("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2025-10-01", lines: [{ description: "Work", quantity: "1", unit_price: "5.00" }] }, 201);
    await refused(payPath(draft.id), { amount: "1.00", payment_date: "2025-10-10" }, 409, null, "The invoice is draft; payments are recorded on finalized, sent or partially paid invoices only.");
    // a cancelled invoice's payments stay
    const cancelled = await call("POST", `/api/v1/invoices/${(await issued("20.00")).id}/cancel`);
    const gone = await env.api("DELETE", `/api/v1/invoices/${cancelled.id}/payments/0190abcd-1234-7abc-8def-0123456789ab`);
    expect(gone.status).toBe(409);
    expect(gone.body.message).toBe("The invoice is cancelled; the payments of a cancelled invoice cannot be deleted.");
  });

  // what a change leaves: its audit entry, its event (invoice.payment_recorded naming the payment), its posting and the posting's reversal
  const audited = async (id: string) => (await env.db.select({ action: auditLog.action }).from(auditLog).where(eq(auditLog.resourceId, id)).orderBy(asc(auditLog.id))).map((a) => a.action);
  const emitted = async (id: string) =>
    await env.db.select({ type: events.type, paymentId: events.paymentId }).from(events).where(eq(events.resourceId, id)).orderBy(asc(events.id));
  const posted = async (sourceId: string) =>
    (await env.db
      .select({ sourceType: journalEntries.sourceType, reverses: journalEntries.reversesEntryId })
      .from(journalEntries)
      .where(and(eq(journalEntries.organizationId, env.org.id), eq(journalEntries.sourceId, sourceId)))
      .orderBy(asc(journalEntries.createdAt)))
      .map((e) => [e.sourceType, e.reverses === null ? "posted" : "reversal"]);

  test("an invoice's payment recorded and deleted: audited, told (the payment named), posted and reversed", async () => {
    const inv = await issued("70.00");
    const paid = await call("POST", payPath(inv.id), { amount: "70.00", payment_date: "2025-10-10" }, 201);
    const paymentId = paid.payments[0].id;
    expect((await env.api("DELETE", `/api/v1/invoices/${inv.id}/payments/${paymentId}`)).status).toBe(204);
    expect((await audited(inv.id)).slice(-2)).toEqual(["invoice.payment_recorded", "invoice.payment_deleted"]);
    expect((await emitted(inv.id)).slice(-2)).toEqual([
      { type: "invoice.payment_recorded", paymentId },
      { type: "invoice.updated", paymentId: null },
    ]);
    expect(await posted(paymentId)).toEqual([
      ["payment", "posted"],
      ["payment", "reversal"],
    ]);
  });

  test("an expense's payment: paid in full, deleted; audited, told as expense.updated, posted and reversed; none on one not approved", async () => {
    const pending = await call("POST", "/api/v1/expenses", { category: "Travel", amount: "42.50", date: "2025-10-02" }, 201);
    await refused(`/api/v1/expenses/${pending.id}/record-payment`, { amount: "1.00", payment_date: "2025-10-10" }, 409, null, "The expense is pending; only an approved expense can be paid.");
    await call("POST", `/api/v1/expenses/${pending.id}/approve`);
    await refused(`/api/v1/expenses/${pending.id}/record-payment`, { amount: "42.51", payment_date: "2025-10-10" }, 422, "amount", "(42.50)");
    const paid = await call("POST", `/api/v1/expenses/${pending.id}/record-payment`, { amount: "42.50", payment_date: "2025-10-10" }, 201);
    expect([paid.status, paid.amount_due, paid.payments[0].payment_method, paid.payments[0].bank_account_id]).toEqual(["paid", "0.00", "bank_transfer", defaultBank.id]);
    const paymentId = paid.payments[0].id;
    expect((await env.api("DELETE", `/api/v1/expenses/${pending.id}/payments/${paymentId}`)).status).toBe(204);
    expect((await call("GET", `/api/v1/expenses/${pending.id}`)).status).toBe("approved");
    expect((await audited(pending.id)).slice(-2)).toEqual(["expense.payment_recorded", "expense.payment_deleted"]);
    expect((await emitted(pending.id)).slice(-2)).toEqual([
      { type: "expense.updated", paymentId: null },
      { type: "expense.updated", paymentId: null },
    ]);
    expect(await posted(paymentId)).toEqual([
      ["expense_payment", "posted"],
      ["expense_payment", "reversal"],
    ]);
  });
});
