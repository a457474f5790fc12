/**
 * Credit allocation (docs/invoicing.md#credit-notes), its rules one by one: a credit note settles
 * what is still due on its invoice and at most its own amount; nothing on a draft or cancelled
 * invoice; the rest is owed back. After a payment is deleted, the credit notes owing refunds settle
 * what is due again, the oldest first. An interest note, which also names its invoice, settles
 * nothing. The upgrade's allocation follows the same rule in the order of the notes' issue dates.
 *
 * Invoices here have no VAT (lines without a VAT rate), so every amount is the price.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLog, events, invoices } from "../../db/schema.ts";
import { showInvoice } from "../../server/invoices/read.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { unitOfWork } from "../../server/lib/scope.ts";
import { allocateIssuedCreditNotes, allocationCents, reallocateCreditNotes } from "../../server/settlement/credits.ts";
import { createTestEnv } from "../helpers.ts";
import { firstRow } from "../../db/client.ts";

const env = await createTestEnv();
afterAll(() => env.close());

type Row = typeof invoices.$inferSelect;
const doc = (over: Partial<Row>) => ({ totalCents: 10_000, paidCents: 0, creditedCents: 0, status: "finalized", ...over }) as Row;

describe("what a credit note settles (allocationCents)", () => {
  test("what is due on the invoice, at most what the note has neither settled nor had refunded", () => {
    // a note of 100.00 on an invoice with 60.00 due: 60.00; with 150.00 due: 100.00
    expect(allocationCents(doc({}), doc({ totalCents: 6000 }))).toBe(6000);
    expect(allocationCents(doc({}), doc({ totalCents: 15_000 }))).toBe(10_000);
    // the note already refunded 30.00 and settled 20.00: 50.00 left
    expect(allocationCents(doc({ paidCents: 3000, creditedCents: 2000 }), doc({ totalCents: 15_000 }))).toBe(5000);
    // the invoice paid 100.00 of 150.00 and credited 20.00: 30.00
    expect(allocationCents(doc({}), doc({ totalCents: 15_000, paidCents: 10_000, creditedCents: 2000 }))).toBe(3000);
  });

  test("nothing on an invoice paid in full, overpaid, a draft or cancelled", () => {
    expect(allocationCents(doc({}), doc({ paidCents: 10_000 }))).toBe(0);
    expect(allocationCents(doc({}), doc({ paidCents: 12_000 }))).toBe(0);
    expect(allocationCents(doc({}), doc({ status: "draft" }))).toBe(0);
    expect(allocationCents(doc({}), doc({ status: "cancelled" }))).toBe(0);
    // a note refunded in full settles nothing more
    expect(allocationCents(doc({ paidCents: 10_000 }), doc({}))).toBe(0);
  });
});

describe("through the API", () => {
  let customer: any;
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const r = await env.api(method, path, body);
    expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBe(status);
    return r.body?.data ?? r.body;
  };
  const figures = (d: any) => [d.status, d.amount_paid, d.amount_credited, d.amount_due];
  const show = (id: string) => call("GET", `/api/v1/invoices/${id}`);
  beforeAll(async () => {
    customer = await call("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", vat_number: "BE0404795549" }, 201);
  });
  const issued = async (price: string) => {
    const d = await call("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2025-10-01", due_date: "2025-10-15", lines: [{ description: "Work", quantity: "1", unit_price: price }] }, 201);
    return call("POST", `/api/v1/invoices/${d.id}/finalize`);
  };
  const credited = async (invoiceId: string, price: string) => {
    const d = await call("POST", `/api/v1/invoices/${invoiceId}/credit-note`, { lines: [{ description: "Credit", quantity: "1", unit_price: price }] }, 201);
    return call("POST", `/api/v1/invoices/${d.id}/finalize`);
  };
  const audited = async (id: string) => (await env.db.select().from(auditLog).where(eq(auditLog.resourceId, id)).orderBy(auditLog.createdAt, auditLog.id)).map((a) => [a.action, a.resourceType]);
  const updates = async (id: string) => (await env.db.select().from(events).where(and(eq(events.type, "invoice.updated"), eq(events.resourceId, id))).orderBy(events.id)).map((e) => JSON.parse(e.data));
  const pay = (id: string, amount: string) => call("POST", `/api/v1/invoices/${id}/record-payment`, { amount, payment_date: "2025-10-10" }, 201);

  test("a payment deleted: the credit notes owing refunds settle the invoice again, the oldest first", async () => {
    const inv = await issued("100.00");
    const payment = await pay(inv.id, "100.00");
    // paid in full: both notes owe their whole amount back
    const older = await credited(inv.id, "70.00");
    const newer = await credited(inv.id, "30.00");
    expect(figures(older)).toEqual(["finalized", "0.00", "0.00", "70.00"]);
    // a refund of 10.00 paid on the newer one: 20.00 left of it
    await pay(newer.id, "10.00");
    const paymentId = payment.payments?.[0]?.id ?? (await show(inv.id)).payments[0].id;
    expect((await env.api("DELETE", `/api/v1/invoices/${inv.id}/payments/${paymentId}`)).status).toBe(204);
    // 100.00 due again: the older note settles 70.00 of it, the newer the 20.00 it still owes; 10.00 left to pay
    expect(figures(await show(older.id))).toEqual(["paid", "0.00", "70.00", "0.00"]);
    expect(figures(await show(newer.id))).toEqual(["paid", "10.00", "20.00", "0.00"]);
    expect(figures(await show(inv.id))).toEqual(["partially_paid", "0.00", "90.00", "10.00"]);
    // each note's change is an event carrying its new figures
    const noteEvents = await env.db.select().from(events).where(and(eq(events.type, "invoice.updated"), eq(events.resourceId, older.id)));
    expect(JSON.parse(noteEvents.at(-1)!.data)).toMatchObject({ id: older.id, amount_due: "0.00", amount_credited: "70.00" });
    expect((await audited(older.id)).at(-1)).toEqual(["invoice.credited", "invoice"]);
  });

  test("more owed back than is due again: the oldest note takes what is due, the next nothing", async () => {
    const inv = await issued("100.00");
    await pay(inv.id, "40.00");
    const second = await pay(inv.id, "60.00");
    const older = await credited(inv.id, "50.00");
    const newer = await credited(inv.id, "50.00");
    const payments = (await show(inv.id)).payments;
    const sixty = payments.find((p: any) => p.amount === "60.00")?.id ?? second.id;
    expect((await env.api("DELETE", `/api/v1/invoices/${inv.id}/payments/${sixty}`)).status).toBe(204);
    // 60.00 due again: the older note settles 50.00, the newer 10.00 and still owes 40.00
    expect(figures(await show(older.id))).toEqual(["paid", "0.00", "50.00", "0.00"]);
    expect(figures(await show(newer.id))).toEqual(["partially_paid", "0.00", "10.00", "40.00"]);
    expect(figures(await show(inv.id))).toEqual(["paid", "40.00", "60.00", "0.00"]);
  });

  test("a note refunded in full settles nothing when a payment is deleted, and has no change to tell", async () => {
    const inv = await issued("100.00");
    const payment = await pay(inv.id, "100.00");
    const refunded = await credited(inv.id, "20.00");
    await pay(refunded.id, "20.00");
    const owing = await credited(inv.id, "30.00");
    const before = (await updates(refunded.id)).length;
    const paymentId = (await show(inv.id)).payments[0]?.id ?? payment.id;
    expect((await env.api("DELETE", `/api/v1/invoices/${inv.id}/payments/${paymentId}`)).status).toBe(204);
    expect((await updates(refunded.id)).length).toBe(before);
    expect(figures(await show(refunded.id))).toEqual(["paid", "20.00", "0.00", "0.00"]);
    expect(figures(await show(owing.id))).toEqual(["paid", "0.00", "30.00", "0.00"]);
    expect(figures(await show(inv.id))).toEqual(["partially_paid", "0.00", "30.00", "70.00"]);
  });

  test("a credit note on a paid invoice: nothing allocated, no change of the invoice to tell", async () => {
    const inv = await issued("100.00");
    await pay(inv.id, "100.00");
    const before = (await updates(inv.id)).length;
    const note = await credited(inv.id, "25.00");
    expect(figures(note)).toEqual(["finalized", "0.00", "0.00", "25.00"]);
    expect((await updates(inv.id)).length).toBe(before);
    // cancelled with nothing refunded: nothing to give back, still no change of the invoice
    await call("POST", `/api/v1/invoices/${note.id}/cancel`);
    expect((await updates(inv.id)).length).toBe(before);
  });

  test("cancelling a note whose allocation another note's unpaid refund takes over: the invoice's last change says so", async () => {
    const inv = await issued("100.00");
    const first = await credited(inv.id, "60.00");
    await pay(inv.id, "40.00");
    // paid in full now (60.00 credited, 40.00 paid): the second note owes its 30.00 back
    const second = await credited(inv.id, "30.00");
    expect(figures(second)).toEqual(["finalized", "0.00", "0.00", "30.00"]);
    await call("POST", `/api/v1/invoices/${first.id}/cancel`);
    // 60.00 due again: the second note settles 30.00 of it
    expect(figures(await show(inv.id))).toEqual(["partially_paid", "40.00", "30.00", "30.00"]);
    expect((await updates(inv.id)).at(-1)).toMatchObject({ amount_credited: "30.00", amount_due: "30.00" });
    expect(figures(await show(second.id))).toEqual(["paid", "0.00", "30.00", "0.00"]);
  });

  test("an interest note names its invoice and settles nothing of it", async () => {
    const inv = await issued("1000.00");
    const note = await call("POST", `/api/v1/invoices/${inv.id}/interest-note`, { as_of: "2025-10-25" }, 201);
    const issuedNote = await call("POST", `/api/v1/invoices/${note.id}/finalize`);
    // 16–25 October: 10 days on 1000.00 at 10.50 %: 100000 × 1050 × 10 / 3 650 000 = 287.67 → 2.88, and 40.00
    expect(figures(issuedNote)).toEqual(["finalized", "0.00", "0.00", "42.88"]);
    expect(figures(await show(inv.id))).toEqual(["finalized", "0.00", "0.00", "1000.00"]);
  });

  test("cancelling a note that settled part of a sent invoice: the invoice is sent again, owed it all", async () => {
    const inv = await issued("100.00");
    // sent (by whatever channel): what the invoice is again once nothing settles it
    await env.db.update(invoices).set({ status: "sent", sentAt: "2025-10-02T08:00:00.000000Z" }).where(eq(invoices.id, inv.id));
    const note = await credited(inv.id, "40.00");
    expect(figures(await show(inv.id))).toEqual(["partially_paid", "0.00", "40.00", "60.00"]);
    expect((await audited(inv.id)).at(-1)).toEqual(["invoice.credited", "invoice"]);
    const eventsBefore = (await updates(inv.id)).length;
    await call("POST", `/api/v1/invoices/${note.id}/cancel`);
    expect(figures(await show(inv.id))).toEqual(["sent", "0.00", "0.00", "100.00"]);
    // the invoice's change: the credit released, told as an invoice.updated with its new figures; nothing credited again
    expect((await audited(inv.id)).slice(-1)).toEqual([["invoice.credit_released", "invoice"]]);
    expect((await updates(inv.id)).length).toBe(eventsBefore + 1);
    expect((await updates(inv.id)).at(-1)).toMatchObject({ status: "sent", amount_credited: "0.00", amount_due: "100.00" });
    expect((await show(note.id)).amount_credited).toBe("0.00");
  });

  test("the upgrade's allocation: in the order of the notes' issue dates, each to what was due then; drafts, cancelled and allocated notes left", async () => {
    const inv = await issued("100.00");
    const first = await credited(inv.id, "70.00");
    const second = await credited(inv.id, "30.00");
    const untouched = await issued("100.00");
    // a draft credit note settles nothing; a note allocated already is left as it is
    await call("POST", `/api/v1/invoices/${untouched.id}/credit-note`, { lines: [{ description: "Credit", quantity: "1", unit_price: "40.00" }] }, 201);
    const allocatedInvoice = await issued("100.00");
    const allocated = await credited(allocatedInvoice.id, "30.00");
    // as an old database had them: nothing allocated, statuses as issued; the second note dated earlier
    const reset = async (id: string, set: Partial<Row>) => await env.db.update(invoices).set({ creditedCents: 0, ...set }).where(eq(invoices.id, id));
    await reset(inv.id, { status: "finalized" });
    await reset(first.id, { status: "finalized", issueDate: "2025-10-20" });
    await reset(second.id, { status: "finalized", issueDate: "2025-10-05" });
    // another invoice paid 100.00 by hand in the old days, with a note already allocated
    const paid = await issued("100.00");
    await env.db.update(invoices).set({ paidCents: 10_000, status: "paid" }).where(eq(invoices.id, paid.id));
    await unitOfWork(env.db, (tx) => allocateIssuedCreditNotes(tx));
    const row = async (id: string) => (await firstRow(env.db.select().from(invoices).where(eq(invoices.id, id))))!;
    // 100.00 due: the second note (5 October) settles its 30.00 first, the first 70.00 of the 70.00 left
    expect([(await row(second.id)).creditedCents, (await row(second.id)).status]).toEqual([3000, "paid"]);
    expect([(await row(first.id)).creditedCents, (await row(first.id)).status]).toEqual([7000, "paid"]);
    expect([(await row(inv.id)).creditedCents, (await row(inv.id)).status]).toEqual([10_000, "paid"]);
    expect([(await row(untouched.id)).creditedCents, (await row(untouched.id)).status]).toEqual([0, "finalized"]);
    expect([(await row(allocated.id)).creditedCents, (await row(allocated.id)).status]).toEqual([3000, "paid"]);
    expect([(await row(allocatedInvoice.id)).creditedCents, (await row(allocatedInvoice.id)).status]).toEqual([3000, "partially_paid"]);
  });

  test("the upgrade's allocation: a note on a paid invoice settles nothing and keeps owing its refund", async () => {
    const inv = await issued("100.00");
    await pay(inv.id, "100.00");
    const note = await credited(inv.id, "25.00");
    await unitOfWork(env.db, (tx) => allocateIssuedCreditNotes(tx));
    const row = (await firstRow(env.db.select().from(invoices).where(eq(invoices.id, note.id))))!;
    expect([row.creditedCents, row.status]).toEqual([0, "finalized"]);
    expect(figures(await show(inv.id))).toEqual(["paid", "100.00", "0.00", "0.00"]);
  });

  test("reallocation takes no credit onto a cancelled or draft invoice, nor onto a credit note", async () => {
    const inv = await issued("100.00");
    await pay(inv.id, "100.00");
    const note = await credited(inv.id, "30.00");
    // as if the payment were gone: 100.00 due again
    await env.db.update(invoices).set({ paidCents: 0 }).where(eq(invoices.id, inv.id));
    const scope = { db: env.db, org: env.org, actor: CLI_ACTOR };
    const reallocate = async (id: string) => await unitOfWork(env.db, (tx) => reallocateCreditNotes(tx, { ...scope, db: tx }, id, showInvoice));
    const allocated = async () => (await firstRow(env.db.select().from(invoices).where(eq(invoices.id, note.id))))!.creditedCents;
    for (const status of ["cancelled", "draft"] as const) {
      await env.db.update(invoices).set({ status }).where(eq(invoices.id, inv.id));
      expect(await reallocate(inv.id)).toBe(false);
      expect(await allocated()).toBe(0);
    }
    expect(await reallocate(note.id)).toBe(false);
    await env.db.update(invoices).set({ status: "finalized" }).where(eq(invoices.id, inv.id));
    expect(await reallocate(inv.id)).toBe(true);
    expect(await allocated()).toBe(3000);
    // nothing left to allocate: nothing changed
    expect(await reallocate(inv.id)).toBe(false);
  });

  test("the upgrade's allocation skips a note whose invoice is not its organisation's", async () => {
    const inv = await issued("100.00");
    const note = await credited(inv.id, "30.00");
    const other = await env.newOrg("Elsewhere BV");
    const c = (await env.api("POST", "/api/v1/customers", { name: "C", country: "BE" }, other.token)).body.data;
    const foreign = (await env.api("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2025-10-01", lines: [{ description: "W", quantity: "1", unit_price: "10.00" }] }, other.token)).body.data;
    await env.db.update(invoices).set({ relatedInvoiceId: foreign.id, creditedCents: 0 }).where(eq(invoices.id, note.id));
    await unitOfWork(env.db, (tx) => allocateIssuedCreditNotes(tx));
    expect((await firstRow(env.db.select().from(invoices).where(eq(invoices.id, note.id))))!.creditedCents).toBe(0);
  });
});
