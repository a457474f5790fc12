/**
 * POST /invoices/{id}/interest-note over HTTP: every 4xx the served document lists, provoked and
 * checked (status, code, the field named), and what an interest note's own state does to the
 * next claim: a draft counts as charged, a deleted draft or a cancelled note does not.
 * Figures by hand: 1000.00 due 2025-11-15 at the Belgian statutory rate of 10.50 % (second half
 * of 2025), actual/365.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createTestEnv } from "../helpers.ts";
import { refusalsOf, UNKNOWN_ID } from "../refusals.ts";

const env = await createTestEnv();
const NOTE = { method: "POST", path: "/api/v1/invoices/{id}/interest-note" };
const refusals = refusalsOf(env, [NOTE]);
afterAll(() => {
  refusals.close();
  env.close();
});

async function books(name: string) {
  const { token } = await env.newOrg(name, { country: "BE", currency: "EUR" });
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const r = await api(method, path, body);
    expect(r.status, `${method} ${path}: ${r.text}`).toBe(status);
    return r.body?.data;
  };
  const customer = await call("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", vat_number: "BE0404795549", address: "Rue 5", city: "Liège", postal_code: "4000" }, 201);
  const draft = (amount = "1000.00", due_date = "2025-11-15") =>
    call("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2025-10-16", due_date, lines: [{ description: "Work", quantity: "1", unit_price: amount }] }, 201);
  const invoice = async (amount?: string, due?: string) => call("POST", `/api/v1/invoices/${(await draft(amount, due)).id}/finalize`);
  const note = (id: string, body: unknown) => api("POST", `/api/v1/invoices/${id}/interest-note`, body);
  return { token, api, call, draft, invoice, note };
}

describe("refusals", () => {
  test("404: an unknown invoice, another organisation's", async () => {
    const b = await books("Notes BV");
    const inv = await b.invoice();
    refusals.refused(NOTE, await b.note(UNKNOWN_ID, { as_of: "2025-11-25" }), 404);
    refusals.refused(NOTE, await env.api("POST", `/api/v1/invoices/${inv.id}/interest-note`, { as_of: "2025-11-25" }), 404);
    await refusals.shared(NOTE, `/api/v1/invoices/${inv.id}/interest-note`, { as_of: "2025-11-25" });
  });

  test("409: a draft, a cancelled invoice, a credit note, an interest note; the message names what it is", async () => {
    const b = await books("Conflicts BV");
    const draft = await b.draft();
    refusals.refused(NOTE, await b.note(draft.id, { as_of: "2025-11-25" }), 409, "draft");
    const cancelled = await b.invoice();
    await b.call("POST", `/api/v1/invoices/${cancelled.id}/cancel`);
    refusals.refused(NOTE, await b.note(cancelled.id, { as_of: "2025-11-25" }), 409, "cancelled");
    const credited = await b.invoice();
    const credit = await b.call("POST", `/api/v1/invoices/${credited.id}/credit-note`, {}, 201);
    await b.call("POST", `/api/v1/invoices/${credit.id}/finalize`);
    refusals.refused(NOTE, await b.note(credit.id, { as_of: "2025-11-25" }), 409, "credit note");
    const late = await b.invoice();
    const interest = await b.call("POST", `/api/v1/invoices/${late.id}/interest-note`, { as_of: "2025-11-25" }, 201);
    await b.call("POST", `/api/v1/invoices/${interest.id}/finalize`);
    refusals.refused(NOTE, await b.note(interest.id, { as_of: "2025-12-25" }), 409, "interest note");
  });

  test("422 naming as_of: not late yet, a date after today, a date that does not exist, never late; an unknown field", async () => {
    const b = await books("Early BV");
    const inv = await b.invoice();
    const early = await b.note(inv.id, { as_of: "2025-11-15" });
    refusals.refused(NOTE, early, 422, "as_of");
    expect(early.body.errors.as_of[0]).toContain("due on 2025-11-15");
    refusals.refused(NOTE, await b.note(inv.id, { as_of: "2999-01-01" }), 422, "as_of");
    refusals.refused(NOTE, await b.note(inv.id, { as_of: "2025-11-31" }), 422, "as_of");
    refusals.refused(NOTE, await b.note(inv.id, { as_of: "2025-11-25", interest: false }), 422, "interest");
    // paid in full on its due date: it was never late, no interest and no €40
    const paid = await b.invoice("200.00");
    await b.call("POST", `/api/v1/invoices/${paid.id}/record-payment`, { amount: "200.00", payment_date: "2025-11-15" }, 201);
    refusals.refused(NOTE, await b.note(paid.id, { as_of: "2026-01-15" }), 422, "as_of");
    expect((await b.api("GET", `/api/v1/invoices?filter[type]=interest_note`)).body.data).toEqual([]);
  });

  test("every 4xx the document lists for interest notes was provoked", async () => {
    await refusals.expectEveryRefusalProvoked();
  });
});

describe("a note's state and the next claim", () => {
  test("a draft counts as charged; deleted, it does not; a cancelled note does not either; a finalized one does", async () => {
    const b = await books("States BV");
    const inv = await b.invoice();
    // 1000.00 × 10.50 % × 10/365 = 2.876… → 2.88, and the €40: 42.88
    const first = await b.call("POST", `/api/v1/invoices/${inv.id}/interest-note`, { as_of: "2025-11-25" }, 201);
    expect([first.status, first.total, first.related_invoice_id]).toEqual(["draft", "42.88", inv.id]);
    const again = await b.note(inv.id, { as_of: "2025-11-25" });
    refusals.refused(NOTE, again, 422, "as_of");
    expect(again.body.errors.as_of[0]).toContain("earlier interest notes charged everything");
    // the draft deleted: the same note can be made again
    expect((await b.api("DELETE", `/api/v1/invoices/${first.id}`)).status).toBe(204);
    const second = await b.call("POST", `/api/v1/invoices/${inv.id}/interest-note`, { as_of: "2025-11-25" }, 201);
    expect(second.total).toBe("42.88");
    // finalized (numbered INT-…) and cancelled: it charged nothing, the claim is whole again
    const issued = await b.call("POST", `/api/v1/invoices/${second.id}/finalize`);
    expect(issued.number).toMatch(/^INT-/);
    expect((await b.note(inv.id, { as_of: "2025-11-25" })).status).toBe(422);
    await b.call("POST", `/api/v1/invoices/${second.id}/cancel`);
    const third = await b.call("POST", `/api/v1/invoices/${inv.id}/interest-note`, { as_of: "2025-11-25" }, 201);
    expect(third.total).toBe("42.88");
    await b.call("POST", `/api/v1/invoices/${third.id}/finalize`);
    // 20 days later (26 November to 15 December): 1000.00 × 10.50 % × 20/365 = 5.753… → 5.75, no €40 again
    const later = await b.call("POST", `/api/v1/invoices/${inv.id}/interest-note`, { as_of: "2025-12-15" }, 201);
    expect(later.total).toBe("5.75");
  });
});
