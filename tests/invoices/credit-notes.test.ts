/**
 * Credit notes settle (issue 26 item 5; contract sections 3 and 4), through the API: a finalized
 * credit note is allocated to the invoice it credits (amount_credited), the invoice's amount_due
 * drops by it and a fully credited invoice is paid, off the open and overdue lists and aged
 * receivables; a credit note beyond what is still due owes a refund, recorded as its payment; a
 * credit note cannot exceed what is left to credit, on create, on edit and at finalize; cancels
 * give the allocation back. Every figure is computed by hand in the comments.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditLog, invoices, webhookDeliveries, webhooks } from "../../db/schema.ts";
import { addDays, newId, nowIso, today } from "../../server/lib/time.ts";
import { rebuildReceivables } from "../../server/reports/receivables.ts";
import { describe as describeValidation, validateUbl } from "../einvoicing/validate.ts";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv, type ApiResponse, asTx } from "../helpers.ts";
import { sqliteOnly } from "../raw-sql.ts";
import { databaseBefore, upgradedApp } from "../upgrade-copy.ts";

const env = await createTestEnv();
const dir = mkdtempSync(join(tmpdir(), "kontor-credit-notes-"));
afterAll(() => {
  env.close();
  rmSync(dir, { recursive: true, force: true });
});

let rates: any[];
const rate = (percent: string) => rates.find((r) => r.rate === percent && r.category === "S")!.id as string;
const line = (quantity: string, unit_price: string, percent = "21.00"): Record<string, unknown> => ({ description: "Consulting", quantity, unit_price, vat_rate_id: rate(percent) });

async function call(method: string, path: string, body?: unknown, status = 200, token?: string) {
  const r = await env.api(method, path, body, token);
  expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
  return r.body?.data;
}
const show = (id: string) => call("GET", `/api/v1/invoices/${id}`);
const act = (id: string, action: string, body?: unknown, status = 200) => call("POST", `/api/v1/invoices/${id}/${action}`, body, status);
const pay = (id: string, amount: string, payment_date = "2026-04-10") => act(id, "record-payment", { amount, payment_date }, 201);
const credit = (id: string, body?: unknown, status = 201) => act(id, "credit-note", body, status);

function expectField(r: ApiResponse, field: string, text?: string) {
  expect(r.status, r.text).toBe(422);
  expect(Object.keys(r.body.errors)).toEqual([field]);
  if (text) expect(r.body.errors[field][0]).toContain(text);
}

let customerSeq = 0;
const newCustomer = async () => call("POST", "/api/v1/customers", { name: `Klant ${++customerSeq} BV`, country: "BE", currency: "EUR" }, 201);

/** 2 × 100.00 at 21 %: 200.00 + 42.00 = 242.00, issued 2026-03-01, due 2026-03-31 (overdue today) */
async function issued(customer?: any, lines = [line("2", "100.00")]) {
  const c = customer ?? (await newCustomer());
  const d = await call("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2026-03-01", lines }, 201);
  return act(d.id, "finalize");
}
const figures = (doc: any) => ({ status: doc.status, amount_paid: doc.amount_paid, amount_credited: doc.amount_credited, amount_due: doc.amount_due });
const ids = (docs: any[]) => docs.map((d) => d.id);

beforeAll(async () => {
  rates = await call("GET", "/api/v1/vat-rates");
});

describe("allocation at finalize", () => {
  test("a credit note of the whole of an unpaid invoice settles it: both paid, nothing due, off the open lists", async () => {
    const customer = await newCustomer();
    const inv = await issued(customer);
    expect(figures(inv)).toEqual({ status: "finalized", amount_paid: "0.00", amount_credited: "0.00", amount_due: "242.00" });
    const draft = await credit(inv.id);
    expect(figures(draft)).toEqual({ status: "draft", amount_paid: "0.00", amount_credited: "0.00", amount_due: "242.00" });
    expect(figures(await show(inv.id))).toEqual(figures(inv)); // a draft settles nothing

    const note = await act(draft.id, "finalize");
    expect(figures(note)).toEqual({ status: "paid", amount_paid: "0.00", amount_credited: "242.00", amount_due: "0.00" });
    const settled = await show(inv.id);
    expect(figures(settled)).toEqual({ status: "paid", amount_paid: "0.00", amount_credited: "242.00", amount_due: "0.00" });

    // no longer open, overdue, finalized or in the aged receivables
    const list = async (q: string) => ids(await call("GET", `/api/v1/invoices?filter[customer_id]=${customer.id}&${q}`));
    expect(await list("filter[overdue]=true")).toEqual([]);
    expect(await list("filter[status]=finalized")).toEqual([]);
    expect((await list("filter[status]=paid")).sort()).toEqual([inv.id, note.id].sort());
    const aging = await call("GET", "/api/v1/reports/aged-receivables?per_page=1000");
    expect(aging.customers.map((c: any) => c.customer_id)).not.toContain(customer.id);
    // nothing more to pay or to credit
    expect((await env.api("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "0.01", payment_date: "2026-04-01" })).status).toBe(409);
    expect((await env.api("POST", `/api/v1/invoices/${inv.id}/credit-note`)).status).toBe(409);
  });

  test("a partial credit note of an open invoice: the invoice partially paid, a payment above the rest refused", async () => {
    const inv = await issued();
    // 1 × 50.00 at 21 % = 60.50; 242.00 − 60.50 = 181.50 left to pay
    const note = await act((await credit(inv.id, { lines: [line("1", "50.00")] })).id, "finalize");
    expect(figures(note)).toEqual({ status: "paid", amount_paid: "0.00", amount_credited: "60.50", amount_due: "0.00" });
    expect(figures(await show(inv.id))).toEqual({ status: "partially_paid", amount_paid: "0.00", amount_credited: "60.50", amount_due: "181.50" });
    const tooMuch = await env.api("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "181.51", payment_date: "2026-04-01" });
    expectField(tooMuch, "amount", "(181.50)");
    expect(figures(await pay(inv.id, "181.50"))).toEqual({ status: "paid", amount_paid: "181.50", amount_credited: "60.50", amount_due: "0.00" });
  });

  test("a credit note of a paid invoice owes a refund: finalized with the refund due, paid by a refund payment", async () => {
    const inv = await issued();
    await pay(inv.id, "242.00");
    // without lines: a second credit note is possible only with lines; this is the first
    const note = await act((await credit(inv.id)).id, "finalize");
    expect(figures(note)).toEqual({ status: "finalized", amount_paid: "0.00", amount_credited: "0.00", amount_due: "242.00" });
    expect(figures(await show(inv.id))).toEqual({ status: "paid", amount_paid: "242.00", amount_credited: "0.00", amount_due: "0.00" });
    expectField(await env.api("POST", `/api/v1/invoices/${note.id}/record-payment`, { amount: "242.01", payment_date: "2026-04-12" }), "amount", "(242.00)");
    expect(figures(await pay(note.id, "100.00", "2026-04-12"))).toEqual({ status: "partially_paid", amount_paid: "100.00", amount_credited: "0.00", amount_due: "142.00" });
    expect(figures(await pay(note.id, "142.00", "2026-04-13"))).toEqual({ status: "paid", amount_paid: "242.00", amount_credited: "0.00", amount_due: "0.00" });
  });

  test("a credit note of a partly paid invoice: allocated up to what is due, the rest refunded", async () => {
    const inv = await issued();
    await pay(inv.id, "100.00");
    // 242.00 credited, 142.00 still due: 142.00 allocated, 100.00 owed back
    const note = await act((await credit(inv.id)).id, "finalize");
    expect(figures(note)).toEqual({ status: "partially_paid", amount_paid: "0.00", amount_credited: "142.00", amount_due: "100.00" });
    expect(figures(await show(inv.id))).toEqual({ status: "paid", amount_paid: "100.00", amount_credited: "142.00", amount_due: "0.00" });
    expect(figures(await pay(note.id, "100.00", "2026-04-15"))).toEqual({ status: "paid", amount_paid: "100.00", amount_credited: "142.00", amount_due: "0.00" });
  });

  test("deleting a payment recomputes with the credits", async () => {
    const inv = await issued();
    const paid = await pay(inv.id, "100.00");
    // 60.50 credited of the 142.00 due
    await act((await credit(inv.id, { lines: [line("1", "50.00")] })).id, "finalize");
    expect(figures(await show(inv.id))).toEqual({ status: "partially_paid", amount_paid: "100.00", amount_credited: "60.50", amount_due: "81.50" });
    await call("DELETE", `/api/v1/invoices/${inv.id}/payments/${paid.payments[0].id}`, undefined, 204);
    expect(figures(await show(inv.id))).toEqual({ status: "partially_paid", amount_paid: "0.00", amount_credited: "60.50", amount_due: "181.50" });
  });

  test("deleting the payment a refund was owed for: the credit note settles the invoice again instead of owing the refund", async () => {
    const inv = await issued();
    const paid = await pay(inv.id, "100.00");
    // 242.00 credited, 142.00 due: 142.00 allocated, 100.00 owed back
    const note = await act((await credit(inv.id)).id, "finalize");
    expect(figures(note)).toEqual({ status: "partially_paid", amount_paid: "0.00", amount_credited: "142.00", amount_due: "100.00" });
    // the payment was a mistake: nothing was paid, all of it is credited; nothing due, nothing to refund
    await call("DELETE", `/api/v1/invoices/${inv.id}/payments/${paid.payments[0].id}`, undefined, 204);
    expect(figures(await show(inv.id))).toEqual({ status: "paid", amount_paid: "0.00", amount_credited: "242.00", amount_due: "0.00" });
    expect(figures(await show(note.id))).toEqual({ status: "paid", amount_paid: "0.00", amount_credited: "242.00", amount_due: "0.00" });
    expect(ids(await call("GET", "/api/v1/invoices?filter[overdue]=true&per_page=100"))).not.toContain(inv.id);
    // a refund already paid stays paid: the invoice is owed what the customer got back
    const inv2 = await issued();
    const paid2 = await pay(inv2.id, "100.00");
    const note2 = await act((await credit(inv2.id)).id, "finalize");
    await pay(note2.id, "40.00", "2026-04-11");
    await call("DELETE", `/api/v1/invoices/${inv2.id}/payments/${paid2.payments[0].id}`, undefined, 204);
    // 60.00 of the refund still owed goes to the invoice (142.00 + 60.00 = 202.00 credited); the 40.00 refunded is due
    expect(figures(await show(inv2.id))).toEqual({ status: "partially_paid", amount_paid: "0.00", amount_credited: "202.00", amount_due: "40.00" });
    expect(figures(await show(note2.id))).toEqual({ status: "paid", amount_paid: "40.00", amount_credited: "202.00", amount_due: "0.00" });
  });

  test("the credited invoice's change is an invoice.updated event carrying its new amount due, and an audit entry", async () => {
    const org = await env.newOrg("Hooked Credits");
    const now = nowIso();
    const hookId = newId();
    await env.db.insert(webhooks).values({ id: hookId, organizationId: org.org.id, url: "https://hooks.example.com/x", events: ["invoice.updated", "invoice.finalized"], isActive: true, secret: "s".repeat(64), createdAt: now, updatedAt: now });
    const api = async (method: string, path: string, body?: unknown) => (await env.api(method, path, body, org.token)).body.data;
    const c = await api("POST", "/api/v1/customers", { name: "Hooked Customer" });
    const inv = await api("POST", `/api/v1/invoices/${(await api("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2026-03-01", lines: [{ description: "Work", quantity: "1", unit_price: "100.00" }] })).id}/finalize`);
    const note = await api("POST", `/api/v1/invoices/${(await api("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines: [{ description: "Work", quantity: "1", unit_price: "40.00" }] })).id}/finalize`);
    const rows = (await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hookId))).map((d) => JSON.parse(d.payload));
    const updated = rows.filter((p) => p.event === "invoice.updated" && p.data.id === inv.id);
    expect(updated.map((p) => [p.data.status, p.data.amount_credited, p.data.amount_due])).toEqual([["partially_paid", "40.00", "60.00"]]);
    expect(rows.filter((p) => p.event === "invoice.finalized").map((p) => p.data.id)).toEqual([inv.id, note.id]);
    expect(rows.find((p) => p.event === "invoice.finalized" && p.data.id === note.id).data.amount_credited).toBe("40.00");
    const audit = await env.db.select().from(auditLog).where(and(eq(auditLog.resourceId, inv.id), eq(auditLog.action, "invoice.credited")));
    expect(audit).toHaveLength(1);
  });
});

describe("what is left to credit", () => {
  test("drafts count: a second credit note needs lines, at most what is left, on create, on edit and at finalize", async () => {
    const inv = await issued();
    // 1 × 100.00 at 21 % = 121.00: 121.00 left
    const first = await credit(inv.id, { lines: [line("1", "100.00")] });
    expect(first.total).toBe("121.00");
    expectField(await env.api("POST", `/api/v1/invoices/${inv.id}/credit-note`), "lines", "give the lines to credit (at most 121.00 is left to credit)");
    expectField(await env.api("POST", `/api/v1/invoices/${inv.id}/credit-note`, {}), "lines", "at most 121.00");
    // 2 × 100.00 = 242.00 > 121.00
    expectField(await env.api("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines: [line("2", "100.00")] }), "lines", `${inv.number} (121.00)`);
    const second = await credit(inv.id, { lines: [line("1", "100.00")] });
    // nothing left at all: a 409
    const none = await env.api("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines: [line("0.01", "1.00")] });
    expect(none.status).toBe(409);
    // 1.01 × 100.00 = 101.00 + 21.21 = 122.21 > 121.00
    expectField(await env.api("PUT", `/api/v1/invoices/${first.id}`, { lines: [line("1.01", "100.00")] }), "lines", "(121.00)");
    // the second one deleted gives its 121.00 back
    await call("DELETE", `/api/v1/invoices/${second.id}`, undefined, 204);
    expect((await call("PUT", `/api/v1/invoices/${first.id}`, { lines: [line("2", "100.00")] })).total).toBe("242.00");
    // at finalize too: a draft made too large behind the API's back is refused, nothing changed
    const third = await credit((await issued()).id, { lines: [line("1", "10.00")] });
    await env.db.update(invoices).set({ totalCents: 99_999_00 }).where(eq(invoices.id, third.id));
    expectField(await env.api("POST", `/api/v1/invoices/${third.id}/finalize`), "lines", "(242.00)");
    expect((await show(third.id)).status).toBe("draft");
  });

  test("lines are read as an invoice's: a bad line is a 422 naming it; unknown fields are refused", async () => {
    const inv = await issued();
    expectField(await env.api("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines: [{ description: "x", quantity: "1.001", unit_price: "1" }] }), "lines.0.quantity");
    const r = await env.api("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines: [line("1", "1.00")], status: "sent" });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toContain("status");
    expect((await env.api("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines: [] })).status).toBe(422);
  });

  test("the copy carries every field of the invoice's lines", async () => {
    const inv = await issued(undefined, [line("3", "12.99", "6.00"), { ...line("1.5", "80.00"), unit_code: "HUR" }]);
    const note = await credit(inv.id);
    const strip = ({ id: _id, ...rest }: any) => rest;
    expect(note.lines.map(strip)).toEqual(inv.lines.map(strip));
    expect([note.subtotal, note.vat_amount, note.total]).toEqual([inv.subtotal, inv.vat_amount, inv.total]);
  });
});

describe("cancel", () => {
  test("a credit note with refunds cannot be cancelled; without them its allocation goes back to the invoice", async () => {
    const inv = await issued();
    await pay(inv.id, "100.00");
    const note = await act((await credit(inv.id)).id, "finalize"); // 142.00 allocated, 100.00 owed back
    const refund = await pay(note.id, "100.00", "2026-04-15");
    const refused = await env.api("POST", `/api/v1/invoices/${note.id}/cancel`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain("refunded");
    await call("DELETE", `/api/v1/invoices/${note.id}/payments/${refund.payments[0].id}`, undefined, 204);
    const cancelled = await act(note.id, "cancel");
    // a cancelled credit note owes no refund: its amount due is 0.00
    expect(figures(cancelled)).toEqual({ status: "cancelled", amount_paid: "0.00", amount_credited: "0.00", amount_due: "0.00" });
    expect(figures(await show(inv.id))).toEqual({ status: "partially_paid", amount_paid: "100.00", amount_credited: "0.00", amount_due: "142.00" });
    // a fully allocated credit note (paid by its allocation alone) can be cancelled too
    const inv2 = await issued();
    const full = await act((await credit(inv2.id)).id, "finalize");
    expect(full.status).toBe("paid");
    await act(full.id, "cancel");
    expect(figures(await show(inv2.id))).toEqual({ status: "finalized", amount_paid: "0.00", amount_credited: "0.00", amount_due: "242.00" });
  });

  test("cancelling a credit note: another credit note's unpaid refund settles what is due again", async () => {
    const inv = await issued();
    // A: 60.50 allocated, 181.50 due, then paid; B: 60.50 owed back (nothing was due)
    const a = await act((await credit(inv.id, { lines: [line("1", "50.00")] })).id, "finalize");
    await pay(inv.id, "181.50");
    const b = await act((await credit(inv.id, { lines: [line("1", "50.00")] })).id, "finalize");
    expect(figures(b)).toEqual({ status: "finalized", amount_paid: "0.00", amount_credited: "0.00", amount_due: "60.50" });
    await act(a.id, "cancel");
    // 242.00 − 181.50 paid = 60.50 due again, which B credits: nothing due, nothing owed back
    expect(figures(await show(inv.id))).toEqual({ status: "paid", amount_paid: "181.50", amount_credited: "60.50", amount_due: "0.00" });
    expect(figures(await show(b.id))).toEqual({ status: "paid", amount_paid: "0.00", amount_credited: "60.50", amount_due: "0.00" });
    expect(figures(await show(a.id))).toEqual({ status: "cancelled", amount_paid: "0.00", amount_credited: "0.00", amount_due: "0.00" });
  });

  test("an invoice with a credit note (a draft too) cannot be cancelled: a 409 naming it", async () => {
    const inv = await issued();
    const draft = await credit(inv.id, { lines: [line("1", "10.00")] });
    const refused = await env.api("POST", `/api/v1/invoices/${inv.id}/cancel`);
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain(draft.number);
    const note = await act(draft.id, "finalize");
    const again = await env.api("POST", `/api/v1/invoices/${inv.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(note.number);
    await act(note.id, "cancel");
    expect((await act(inv.id, "cancel")).status).toBe("cancelled");
  });

  test("a credit note of an invoice cancelled meanwhile cannot be finalized", async () => {
    const inv = await issued();
    const draft = await credit(inv.id, { lines: [line("1", "10.00")] });
    await env.db.update(invoices).set({ status: "cancelled" }).where(eq(invoices.id, inv.id));
    expect((await env.api("POST", `/api/v1/invoices/${draft.id}/finalize`)).status).toBe(409);
  });
});

describe("the due date follows the issue date", () => {
  test("a credit-note draft's due date moves with its issue date; an invoice's too while it is the default", async () => {
    const note = await credit((await issued()).id, { lines: [line("1", "10.00")] });
    expect(note.due_date).toBe(addDays(today(), 30));
    expect((await call("PUT", `/api/v1/invoices/${note.id}`, { issue_date: "2026-04-01" })).due_date).toBe("2026-05-01");
    // given with it: as given
    expect((await call("PUT", `/api/v1/invoices/${note.id}`, { issue_date: "2026-04-02", due_date: "2026-04-20" })).due_date).toBe("2026-04-20");
    // no longer the default: it stays
    expect((await call("PUT", `/api/v1/invoices/${note.id}`, { issue_date: "2026-04-05" })).due_date).toBe("2026-04-20");

    const c = await newCustomer();
    const byDefault = await call("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2026-03-01", lines: [line("1", "1.00")] }, 201);
    expect(byDefault.due_date).toBe("2026-03-31");
    expect((await call("PUT", `/api/v1/invoices/${byDefault.id}`, { issue_date: "2026-03-10" })).due_date).toBe("2026-04-09");
    const own = await call("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2026-03-01", due_date: "2026-03-15", lines: [line("1", "1.00")] }, 201);
    expect((await call("PUT", `/api/v1/invoices/${own.id}`, { issue_date: "2026-03-05" })).due_date).toBe("2026-03-15");
    // a new issue date after the kept due date is refused as ever
    expectField(await env.api("PUT", `/api/v1/invoices/${own.id}`, { issue_date: "2026-03-20" }), "due_date");
  });
});

describe("e-invoices", () => {
  test("a partly credited invoice, its credit note, and one with a refund owed pass the UBL schema, EN 16931 and Peppol BIS 3.0", async () => {
    const org = await env.newOrg("Credit UBL", { country: "BE", currency: "EUR" });
    const api = async (method: string, path: string, body?: unknown, status = 200) => {
      const r = await env.api(method, path, body, org.token);
      expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
      return r.body.data;
    };
    await api("PUT", "/api/v1/organization", SELLER_IDENTITY);
    const c = await api("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", address: "Rue de l'Église 5", city: "Liège", postal_code: "4000", country: "BE", vat_number: "BE0404795549", peppol_id: "0208:0404795549" }, 201);
    const vat = (await api("GET", "/api/v1/vat-rates")).find((r: any) => r.rate === "21.00" && r.category === "S").id;
    const work = (unit_price: string) => [{ description: "Conseil", quantity: "1", unit_price, vat_rate_id: vat }];
    const d = await api("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2026-03-01", buyer_reference: "Dept. 42", lines: work("200.00") }, 201);
    const inv = await api("POST", `/api/v1/invoices/${d.id}/finalize`);
    await api("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "100.00", payment_date: "2026-03-05" }, 201);
    // 242.00: 100.00 paid, a credit note of 121.00 takes 121.00, 21.00 due
    const first = await api("POST", `/api/v1/invoices/${(await api("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines: work("100.00") }, 201)).id}/finalize`);
    // a second of 121.00 takes the 21.00 left and owes 100.00 back
    const second = await api("POST", `/api/v1/invoices/${(await api("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines: work("100.00") }, 201)).id}/finalize`);
    expect(figures(second)).toEqual({ status: "partially_paid", amount_paid: "0.00", amount_credited: "21.00", amount_due: "100.00" });
    const ubl = async (id: string) => {
      const r = await env.request("GET", `/api/v1/invoices/${id}/ubl`, { token: org.token });
      expect(r.status, r.text).toBe(200);
      return r.text;
    };
    for (const [id, payable] of [[inv.id, "0.00"], [first.id, "0.00"], [second.id, "100.00"]] as const) {
      const xml = await ubl(id);
      expect(xml).toContain(`<cbc:PayableAmount currencyID="EUR">${payable}</cbc:PayableAmount>`);
      const validation = await validateUbl(xml);
      expect(validation.fatal, describeValidation(validation)).toEqual([]);
      expect(validation.xsdErrors).toEqual([]);
    }
    expect(await ubl(inv.id)).toContain('<cbc:PrepaidAmount currencyID="EUR">242.00</cbc:PrepaidAmount>');
  }, 120_000);
});

describe("refunds through the bank", () => {
  test("an outgoing bank line matched to a credit note pays its refund; unmatched, the refund is owed again", async () => {
    const org = await env.newOrg("Refund Bank", { country: "BE", currency: "EUR" });
    const api = async (method: string, path: string, body?: unknown, status = 200) => {
      const r = await env.api(method, path, body, org.token);
      expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
      return r.body.data;
    };
    const c = await api("POST", "/api/v1/customers", { name: "Refunded NV" }, 201);
    const d = await api("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2026-03-01", lines: [{ description: "Work", quantity: "1", unit_price: "80.00" }] }, 201);
    const inv = await api("POST", `/api/v1/invoices/${d.id}/finalize`);
    await api("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "80.00", payment_date: "2026-03-05" }, 201);
    // paid in full: a credit note of 30.00 owes all of it back
    const note = await api("POST", `/api/v1/invoices/${(await api("POST", `/api/v1/invoices/${inv.id}/credit-note`, { lines: [{ description: "Work", quantity: "1", unit_price: "30.00" }] }, 201)).id}/finalize`);
    expect(figures(note)).toEqual({ status: "finalized", amount_paid: "0.00", amount_credited: "0.00", amount_due: "30.00" });
    const bank = (await api("GET", "/api/v1/bank-accounts"))[0];
    const xml = `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>R-1</MsgId><CreDtTm>2026-04-02T18:00:00</CreDtTm></GrpHdr><Stmt><Id>R-1</Id><CreDtTm>2026-04-02T18:00:00</CreDtTm><Acct><Id><IBAN>${bank.iban}</IBAN></Id><Ccy>EUR</Ccy></Acct>` +
      `<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">100.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-04-02</Dt></Dt></Bal>` +
      `<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">70.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-04-02</Dt></Dt></Bal>` +
      `<Ntry><Amt Ccy="EUR">30.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>2026-04-02</Dt></BookgDt><ValDt><Dt>2026-04-02</Dt></ValDt><AcctSvcrRef>R-1-0</AcctSvcrRef><NtryDtls><TxDtls><RmtInf><Ustrd>Refund ${note.number}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>` +
      `</Stmt></BkToCstmrStmt></Document>`;
    const imported = await env.request("POST", `/api/v1/bank-accounts/${bank.id}/statements`, { rawBody: xml, token: org.token, headers: { "content-type": "application/xml" } });
    expect(imported.status, imported.text).toBe(201);
    const line = imported.body.data.transactions[0];
    expect(line).toMatchObject({ direction: "debit", status: "unmatched" });
    // an invoice's money comes in: the outgoing line cannot pay it
    expect((await env.api("POST", `/api/v1/bank-transactions/${line.id}/match`, { invoice_id: inv.id }, org.token)).status).toBe(422);
    expect(await api("POST", `/api/v1/bank-transactions/${line.id}/match`, { invoice_id: note.id })).toMatchObject({ status: "matched", matched_amount: "30.00" });
    expect(figures(await api("GET", `/api/v1/invoices/${note.id}`))).toEqual({ status: "paid", amount_paid: "30.00", amount_credited: "0.00", amount_due: "0.00" });
    expect((await api("GET", "/api/v1/reports/aged-receivables")).totals.total).toBe("0.00");
    await api("POST", `/api/v1/bank-transactions/${line.id}/unmatch`);
    expect(figures(await api("GET", `/api/v1/invoices/${note.id}`))).toEqual({ status: "finalized", amount_paid: "0.00", amount_credited: "0.00", amount_due: "30.00" });
    expect((await api("GET", "/api/v1/reports/aged-receivables")).totals.total).toBe("-30.00");
  });
});

describe("ledger", () => {
  test("the allocation posts nothing: the customer's receivables net the invoice and its credit note; a refund leaves the bank", async () => {
    const org = await env.newOrg("Credit Ledger");
    const api = async (method: string, path: string, body?: unknown, status = 200) => {
      const r = await env.api(method, path, body, org.token);
      expect(r.status, r.text).toBe(status);
      return r.body.data;
    };
    const c = await api("POST", "/api/v1/customers", { name: "Ledger Customer" }, 201);
    const d = await api("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2026-03-01", lines: [{ description: "Work", quantity: "1", unit_price: "200.00" }] }, 201);
    const inv = await api("POST", `/api/v1/invoices/${d.id}/finalize`);
    await api("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "50.00", payment_date: "2026-03-05" }, 201);
    // 200.00 credited, 150.00 due: 150.00 allocated, 50.00 refunded
    const note = await api("POST", `/api/v1/invoices/${(await api("POST", `/api/v1/invoices/${inv.id}/credit-note`, undefined, 201)).id}/finalize`);
    expect(note.amount_due).toBe("50.00");
    await api("POST", `/api/v1/invoices/${note.id}/record-payment`, { amount: "50.00", payment_date: "2026-03-20" }, 201);
    const tb = await api("GET", "/api/v1/reports/trial-balance");
    const balance = (code: string) => {
      const a = tb.accounts.find((x: any) => x.code === code);
      return a ? Number(a.debit) - Number(a.credit) : 0;
    };
    expect(balance("1200")).toBe(0); // 200 − 50 − 200 + 50
    expect(balance("1110")).toBe(0); // +50 − 50
    expect((await api("GET", "/api/v1/reports/aged-receivables")).totals.total).toBe("0.00");
  });
});

describe("aged receivables at ?date=", () => {
  /**
   * Another organisation, EUR, one customer:
   *   X issued 2026-01-10 due 02-09: 2 × 100.00 @21 % = 242.00; paid 100.00 on 03-15
   *   Y issued 2026-04-01 due 05-01: 1 × 100.00 @21 % = 121.00; credit note issued 06-01 of 1 × 50.00 @21 % = 60.50, all allocated
   *   Z issued 2026-02-01, cancelled: never counts
   *   W of a second customer issued 2026-05-20 due 06-19: 1 × 10.00 @21 % = 12.10; credit note issued 06-10 (12.10) after a 12.10 payment on 06-05: refund owed, paid 07-01
   */
  let org: { org: any; token: string };
  let first: any;
  let second: any;
  const aging = async (q = "") => {
    const r = await env.api("GET", `/api/v1/reports/aged-receivables${q}`, undefined, org.token);
    expect(r.status, r.text).toBe(200);
    return r.body.data;
  };
  const row = (report: any, customer: any) => {
    const c = report.customers.find((x: any) => x.customer_id === customer.id);
    return c ? [c.current, c.days_1_30, c.days_31_60, c.days_61_90, c.over_90, c.total] : null;
  };

  beforeAll(async () => {
    org = await env.newOrg("Aging As Of");
    const orgRates = (await env.api("GET", "/api/v1/vat-rates", undefined, org.token)).body.data;
    const vat = orgRates.find((r: any) => r.rate === "21.00" && r.category === "S").id;
    const api = async (method: string, path: string, body?: unknown, status = 200) => {
      const r = await env.api(method, path, body, org.token);
      expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
      return r.body.data;
    };
    const l = (quantity: string, unit_price: string) => ({ description: "Work", quantity, unit_price, vat_rate_id: vat });
    const issue = async (customer: any, issue_date: string, lines: unknown[]) =>
      api("POST", `/api/v1/invoices/${(await api("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date, lines }, 201)).id}/finalize`);
    first = await api("POST", "/api/v1/customers", { name: "First NV" }, 201);
    second = await api("POST", "/api/v1/customers", { name: "Second NV" }, 201);
    const x = await issue(first, "2026-01-10", [l("2", "100.00")]);
    const z = await issue(first, "2026-02-01", [l("5", "100.00")]);
    await api("POST", `/api/v1/invoices/${z.id}/cancel`);
    await api("POST", `/api/v1/invoices/${x.id}/record-payment`, { amount: "100.00", payment_date: "2026-03-15" }, 201);
    const y = await issue(first, "2026-04-01", [l("1", "100.00")]);
    const w = await issue(second, "2026-05-20", [l("1", "10.00")]);
    await api("POST", `/api/v1/invoices/${w.id}/record-payment`, { amount: "12.10", payment_date: "2026-06-05" }, 201);
    const cnY = await api("POST", `/api/v1/invoices/${y.id}/credit-note`, { lines: [l("1", "50.00")] }, 201);
    await api("PUT", `/api/v1/invoices/${cnY.id}`, { issue_date: "2026-06-01" }); // due 07-01 follows
    await api("POST", `/api/v1/invoices/${cnY.id}/finalize`);
    const cnW = await api("POST", `/api/v1/invoices/${w.id}/credit-note`, undefined, 201);
    await api("PUT", `/api/v1/invoices/${cnW.id}`, { issue_date: "2026-06-10" }); // due 07-10
    expect((await api("POST", `/api/v1/invoices/${cnW.id}/finalize`)).amount_due).toBe("12.10");
    await api("POST", `/api/v1/invoices/${cnW.id}/record-payment`, { amount: "12.10", payment_date: "2026-07-01" }, 201);
  });

  test("before anything was issued: empty", async () => {
    expect(await aging("?date=2026-01-09")).toMatchObject({ date: "2026-01-09", customers: [], totals: { total: "0.00" }, meta: { total: 0 } });
  });

  test("on 2026-03-10: X whole, 29 days past due", async () => {
    const r = await aging("?date=2026-03-10");
    expect(row(r, first)).toEqual(["0.00", "242.00", "0.00", "0.00", "0.00", "242.00"]);
    expect(r.totals.total).toBe("242.00");
  });

  test("on 2026-03-31: X less its payment of 03-15, 50 days past due", async () => {
    expect(row(await aging("?date=2026-03-31"), first)).toEqual(["0.00", "0.00", "142.00", "0.00", "0.00", "142.00"]);
  });

  test("on 2026-05-15: X over 90 days (95), Y 14 days past due", async () => {
    const r = await aging("?date=2026-05-15");
    expect(row(r, first)).toEqual(["0.00", "121.00", "0.00", "0.00", "142.00", "263.00"]);
    expect(row(r, second)).toBeNull();
  });

  test("on 2026-06-07: W paid on 06-05, its credit note not issued yet: Second owes nothing", async () => {
    const r = await aging("?date=2026-06-07");
    // Y 121.00 − 60.50 credited on 06-01: 60.50, 37 days past due
    expect(row(r, first)).toEqual(["0.00", "0.00", "60.50", "0.00", "142.00", "202.50"]);
    expect(row(r, second)).toBeNull();
  });

  test("on 2026-06-15: W's credit note owes 12.10 back (not due until 07-10): negative and current", async () => {
    const r = await aging("?date=2026-06-15");
    expect(row(r, second)).toEqual(["-12.10", "0.00", "0.00", "0.00", "0.00", "-12.10"]);
    expect(r.totals).toEqual({ current: "-12.10", days_1_30: "0.00", days_31_60: "60.50", days_61_90: "0.00", over_90: "142.00", total: "190.40" });
    expect(r.meta.total).toBe(2);
  });

  test("on 2026-07-01 the refund is paid; today's list (the running totals) agrees with ?date=today", async () => {
    expect(row(await aging("?date=2026-07-01"), second)).toBeNull();
    const now = await aging();
    // today (2026-11-26 or later): X 142.00 and Y 60.50 both over 90 days
    expect(row(now, first)).toEqual(["0.00", "0.00", "0.00", "0.00", "202.50", "202.50"]);
    const dated = await aging(`?date=${today()}`);
    expect(dated).toEqual(now);
  });
});

// an upgrade of an earlier Kontor's SQLite file
sqliteOnly.test("upgrade (migrations 0024, 0025): the credit notes issued before allocation settle their invoices, in the order of their issue dates", async () => {
  const org = await env.newOrg("Upgrade Credits");
  const api = async (method: string, path: string, body?: unknown, status = 200) => {
    const r = await env.api(method, path, body, org.token);
    expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
    return r.body.data;
  };
  const c = await api("POST", "/api/v1/customers", { name: "Upgraded Customer" }, 201);
  const work = (unit_price: string) => [{ description: "Work", quantity: "1", unit_price }];
  const issue = async (issue_date: string, unit_price: string) =>
    api("POST", `/api/v1/invoices/${(await api("POST", "/api/v1/invoices", { customer_id: c.id, issue_date, lines: work(unit_price) }, 201)).id}/finalize`);
  const note = async (invoiceId: string, issue_date: string, unit_price?: string) => {
    const d = await api("POST", `/api/v1/invoices/${invoiceId}/credit-note`, unit_price ? { lines: work(unit_price) } : undefined, 201);
    await api("PUT", `/api/v1/invoices/${d.id}`, { issue_date });
    return d;
  };
  // P: 200.00, 50.00 paid; credited in full by N1: 150.00 allocated, 50.00 owed back
  const p = await issue("2026-03-01", "200.00");
  await api("POST", `/api/v1/invoices/${p.id}/record-payment`, { amount: "50.00", payment_date: "2026-03-02" }, 201);
  // Q: 200.00, 80.00 paid: 120.00 due; N2 (100.00, issued 03-05, made first) and N3 (100.00, issued 03-03):
  // by issue date N3 takes 100.00, N2 the 20.00 left and owes 80.00 back
  const q = await issue("2026-03-01", "200.00");
  await api("POST", `/api/v1/invoices/${q.id}/record-payment`, { amount: "80.00", payment_date: "2026-03-02" }, 201);
  const n1 = await note(p.id, "2026-03-04");
  const n2 = await note(q.id, "2026-03-05", "100.00");
  const n3 = await note(q.id, "2026-03-03", "100.00");
  for (const n of [n3, n1, n2]) await api("POST", `/api/v1/invoices/${n.id}/finalize`);
  // R: 100.00 unpaid, credited in full by NR, on which the earlier Kontor had already refunded 40.00
  // (set below): NR can settle only the 60.00 it has not paid back, R still owes 40.00
  const c2 = await api("POST", "/api/v1/customers", { name: "Refunded Early" }, 201);
  const r = await api("POST", `/api/v1/invoices/${(await api("POST", "/api/v1/invoices", { customer_id: c2.id, issue_date: "2026-03-01", lines: work("100.00") }, 201)).id}/finalize`);
  const nr = await note(r.id, "2026-03-06");
  await api("POST", `/api/v1/invoices/${nr.id}/finalize`);

  // the database of migration 0023, holding these documents as the earlier Kontor left them
  const oldPath = join(dir, "kontor.db");
  const { sqlite, pending } = databaseBefore(env, "0024_", oldPath);
  sqlite.run(
    "INSERT INTO payments (id, organization_id, invoice_id, amount_cents, payment_date, payment_method, created_at) VALUES (?, ?, ?, 4000, '2026-03-07', 'bank_transfer', ?)",
    [newId(), org.org.id, nr.id, nowIso()],
  );
  sqlite.run("UPDATE invoices SET paid_cents = 4000 WHERE id = ?", [nr.id]);
  // the earlier Kontor's statuses (payments only) and running totals (without credits)
  sqlite.run("UPDATE invoices SET status = CASE WHEN paid_cents = 0 THEN 'finalized' WHEN paid_cents >= total_cents THEN 'paid' ELSE 'partially_paid' END WHERE organization_id = ? AND status <> 'draft'", [org.org.id]);
  sqlite.exec("DELETE FROM customer_receivables; DELETE FROM receivable_due_days");
  const oldDue = `CASE WHEN "type" = 'credit_note' THEN "paid_cents" - "total_cents" ELSE "total_cents" - "paid_cents" END`;
  const open = `"status" IN ('finalized', 'sent', 'partially_paid')`;
  sqlite.exec(`INSERT INTO customer_receivables (organization_id, currency, customer_id, open_cents) SELECT organization_id, currency, customer_id, sum(${oldDue}) FROM invoices WHERE ${open} GROUP BY customer_id, currency`);
  sqlite.exec(`INSERT INTO receivable_due_days (organization_id, currency, due_date, open_cents) SELECT organization_id, currency, due_date, sum(${oldDue}) FROM invoices WHERE ${open} GROUP BY organization_id, currency, due_date`);
  sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite.close();

  const { db: upgraded, get } = await upgradedApp(env, oldPath, pending, org.token);
  const after = async (id: string) => figures(await get(`/api/v1/invoices/${id}`));
  expect(await after(p.id)).toEqual({ status: "paid", amount_paid: "50.00", amount_credited: "150.00", amount_due: "0.00" });
  expect(await after(n1.id)).toEqual({ status: "partially_paid", amount_paid: "0.00", amount_credited: "150.00", amount_due: "50.00" });
  expect(await after(q.id)).toEqual({ status: "paid", amount_paid: "80.00", amount_credited: "120.00", amount_due: "0.00" });
  expect(await after(n3.id)).toEqual({ status: "paid", amount_paid: "0.00", amount_credited: "100.00", amount_due: "0.00" });
  expect(await after(n2.id)).toEqual({ status: "partially_paid", amount_paid: "0.00", amount_credited: "20.00", amount_due: "80.00" });
  expect(await after(r.id)).toEqual({ status: "partially_paid", amount_paid: "0.00", amount_credited: "60.00", amount_due: "40.00" });
  expect(await after(nr.id)).toEqual({ status: "paid", amount_paid: "40.00", amount_credited: "60.00", amount_due: "0.00" });
  // the running totals the triggers kept through the allocation are what the documents say: 50.00 + 80.00 owed back, 40.00 owed
  expect((await get("/api/v1/reports/aged-receivables")).totals.total).toBe("-90.00");
  const totals = () => upgraded.$client.query("SELECT customer_id, currency, open_cents FROM customer_receivables WHERE organization_id = ? ORDER BY customer_id").all(org.org.id);
  const kept = totals();
  await upgraded.connection.transactions.run("immediate", () => rebuildReceivables(asTx(upgraded)));
  expect(totals()).toEqual(kept);
  expect(kept).toEqual([
    { customer_id: c.id, currency: "EUR", open_cents: -13000 },
    { customer_id: c2.id, currency: "EUR", open_cents: 4000 },
  ]);
  upgraded.$client.close();
}, 60_000);
