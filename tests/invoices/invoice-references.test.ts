/**
 * What a document needs from an invoice (issue 18): buyer and order references (editable while
 * draft), units on lines, and the payment reference given at finalize.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isBelgianStructuredCommunication, isCreditorReference } from "../../server/documents/payment-reference.ts";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

let customerId: string;
beforeAll(async () => {
  customerId = (await env.api("POST", "/api/v1/customers", { name: "Reference Customer NV" })).body.data.id;
});

const line = (over: Record<string, unknown> = {}) => ({ description: "Consulting", quantity: "2", unit_price: "100.00", ...over });
const draft = async (over: Record<string, unknown> = {}, token?: string, customer = customerId) => {
  const r = await env.api("POST", "/api/v1/invoices", { customer_id: customer, issue_date: "2026-03-01", lines: [line()], ...over }, token);
  expect(r.status, r.text).toBe(201);
  return r.body.data;
};
const finalize = async (id: string, token?: string) => {
  const r = await env.api("POST", `/api/v1/invoices/${id}/finalize`, undefined, token);
  expect(r.status, r.text).toBe(200);
  return r.body.data;
};

describe("buyer_reference and order_reference", () => {
  test("null by default; set on create and update while draft; at most 200 characters; 409 once finalized", async () => {
    const plain = await draft();
    expect(plain).toMatchObject({ buyer_reference: null, order_reference: null, payment_reference: null, finalized_at: null });
    const inv = await draft({ buyer_reference: "Dept. 42", order_reference: "PO-2026-0007" });
    expect(inv).toMatchObject({ buyer_reference: "Dept. 42", order_reference: "PO-2026-0007" });
    const updated = await env.api("PUT", `/api/v1/invoices/${inv.id}`, { order_reference: null, buyer_reference: "é".repeat(200) });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.data).toMatchObject({ order_reference: null, buyer_reference: "é".repeat(200) });
    for (const field of ["buyer_reference", "order_reference"]) {
      const tooLong = await env.api("PUT", `/api/v1/invoices/${inv.id}`, { [field]: "x".repeat(201) });
      expect(tooLong.status).toBe(422);
      expect(Object.keys(tooLong.body.errors)).toEqual([field]);
    }
    for (const field of ["payment_reference", "finalized_at"]) {
      const readOnly = await env.api("PUT", `/api/v1/invoices/${inv.id}`, { [field]: "x" });
      expect(readOnly.status, field).toBe(422);
      expect(Object.keys(readOnly.body.errors)).toEqual([field]);
    }
    await finalize(inv.id);
    expect((await env.api("PUT", `/api/v1/invoices/${inv.id}`, { buyer_reference: "late" })).status).toBe(409);
  });
});

describe("unit_code on lines", () => {
  test("default C62; a UN/ECE code is kept; bad codes are a 422 on the line", async () => {
    const inv = await draft({ lines: [line(), line({ unit_code: "HUR" }), line({ unit_code: "KGM" })] });
    expect(inv.lines.map((l: any) => l.unit_code)).toEqual(["C62", "HUR", "KGM"]);
    // "ABC" has the shape of a code but is none (EN 16931 BR-CL-23 would refuse the e-invoice)
    for (const unit_code of ["hur", "H", "HOUR", "H-R", "", "ABC", "ZZ9"]) {
      const r = await env.api("POST", "/api/v1/invoices", { customer_id: customerId, issue_date: "2026-03-01", lines: [line(), line({ unit_code })] });
      expect(r.status, unit_code).toBe(422);
      expect(Object.keys(r.body.errors), unit_code).toEqual(["lines.1.unit_code"]);
    }
  });

  test("a credit note copies the units and the buyer's references", async () => {
    const inv = await draft({ buyer_reference: "REF-1", order_reference: "PO-1", lines: [line({ unit_code: "DAY" })] });
    await finalize(inv.id);
    const note = await env.api("POST", `/api/v1/invoices/${inv.id}/credit-note`);
    expect(note.status, note.text).toBe(201);
    expect(note.body.data.lines.map((l: any) => l.unit_code)).toEqual(["DAY"]);
    expect(note.body.data).toMatchObject({ buyer_reference: "REF-1", order_reference: "PO-1", payment_reference: null });
  });
});

describe("payment_reference at finalize", () => {
  test("a Belgian organisation: structured communications, one per finalized document (credit notes too), never reused", async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) {
      const inv = await finalize((await draft()).id);
      expect(inv.finalized_at).not.toBeNull();
      expect(inv.payment_reference).toMatch(/^\+\+\+\d{3}\/\d{4}\/\d{5}\+\+\+$/);
      expect(isBelgianStructuredCommunication(inv.payment_reference)).toBe(true);
      seen.add(inv.payment_reference);
      // shown the same by GET, and never changed by what follows
      expect((await env.api("GET", `/api/v1/invoices/${inv.id}`)).body.data.payment_reference).toBe(inv.payment_reference);
      const sent = await env.api("POST", `/api/v1/invoices/${inv.id}/send`);
      expect(sent.body.data.payment_reference).toBe(inv.payment_reference);
    }
    expect(seen.size).toBe(5);
    const inv = await finalize((await draft()).id);
    const note = (await env.api("POST", `/api/v1/invoices/${inv.id}/credit-note`)).body.data;
    const finalNote = await finalize(note.id);
    expect(isBelgianStructuredCommunication(finalNote.payment_reference)).toBe(true);
    expect(finalNote.payment_reference).not.toBe(inv.payment_reference);
  });

  test("another country: ISO 11649 RF references; each organisation has its own sequence", async () => {
    const nl = await env.newOrg("Reference NL", { country: "NL" });
    const customer = (await env.api("POST", "/api/v1/customers", { name: "NL Customer" }, nl.token)).body.data.id;
    const first = await finalize((await draft({}, nl.token, customer)).id, nl.token);
    const second = await finalize((await draft({}, nl.token, customer)).id, nl.token);
    expect(isCreditorReference(first.payment_reference)).toBe(true);
    expect(first.payment_reference).toMatch(/^RF\d{2}0000000001$/);
    expect(second.payment_reference).toMatch(/^RF\d{2}0000000002$/);
    // a second Belgian organisation starts its own sequence
    const be = await env.newOrg("Reference BE 2", { country: "BE" });
    const beCustomer = (await env.api("POST", "/api/v1/customers", { name: "BE Customer" }, be.token)).body.data.id;
    expect((await finalize((await draft({}, be.token, beCustomer)).id, be.token)).payment_reference).toBe("+++000/0000/00101+++");
  });

  test("the organisation's country at finalize decides the format", async () => {
    const org = await env.newOrg("Moving Org", { country: "BE" });
    const customer = (await env.api("POST", "/api/v1/customers", { name: "Mover's Customer" }, org.token)).body.data.id;
    expect((await finalize((await draft({}, org.token, customer)).id, org.token)).payment_reference).toBe("+++000/0000/00101+++");
    expect((await env.api("PUT", "/api/v1/organization", { country: "FR" }, org.token)).status).toBe(200);
    const moved = await finalize((await draft({}, org.token, customer)).id, org.token);
    expect(moved.payment_reference).toMatch(/^RF\d{2}0000000002$/);
  });
});
