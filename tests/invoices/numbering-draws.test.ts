/**
 * The draws of server/invoices/numbering.ts one by one, fast (tests/invoices/numbering.test.ts runs
 * the series through the API, under load and across processes): the form a client's number may not
 * take; a draft's provisional number, longer when another document holds the short one; a series
 * number held already (a document numbered by hand before the series existed) passed over; interest
 * notes' own series; the payment reference drawn at finalize, a Belgian structured communication
 * (10 digits, then the number mod 97), a reference held already passed over.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { invoices } from "../../db/schema.ts";
import { nextSeriesNumber, provisionalNumber, reservedNumberForm } from "../../server/invoices/numbering.ts";
import { unitOfWork } from "../../server/lib/scope.ts";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

describe("a client's number", () => {
  test("refused in the form of a series (any case, five digits or more) or of a provisional number; kept otherwise", () => {
    for (const number of ["INV-2026-00001", "cn-2026-00001", "INT-2026-00001", "INV-2026-1234567"]) expect(reservedNumberForm(number), number).toContain("automatic series");
    for (const number of ["DRAFT-1a2b3c4d", "draft-x"]) expect(reservedNumberForm(number), number).toContain("DRAFT-");
    // the whole number must have the form: a suffix, a prefix or a short number make it the client's
    for (const number of ["INV-2026-00001-A", "INV-2026-00001/2", "A-INV-2026-00001", "INV-2026-0001", "INV-26-00001", "MY-DRAFT-1"]) expect(reservedNumberForm(number), number).toBeNull();
  });
});

describe("through the database", () => {
  // each test its own Belgian organisation: its own series and payment references
  let co: Awaited<ReturnType<typeof env.newOrg>>;
  let customerId: string;
  beforeEach(async () => {
    co = await env.newOrg(undefined, { country: "BE" });
    const r = await env.api("POST", "/api/v1/customers", { name: "Draws Customer" }, co.token);
    customerId = r.body.data.id;
  });
  const draft = async (issueDate = "2025-05-01") => {
    const r = await env.api("POST", "/api/v1/invoices", { customer_id: customerId, issue_date: issueDate, lines: [{ description: "Work", quantity: "1", unit_price: "10.00" }] }, co.token);
    expect(r.status, r.text).toBe(201);
    return r.body.data as { id: string; number: string };
  };
  const finalize = async (id: string) => {
    const r = await env.api("POST", `/api/v1/invoices/${id}/finalize`, undefined, co.token);
    expect(r.status, r.text).toBe(200);
    return r.body.data as { number: string; payment_reference: string };
  };
  const setColumns = async (id: string, columns: Partial<typeof invoices.$inferInsert>) => await env.db.update(invoices).set(columns).where(eq(invoices.id, id));

  test("a provisional number: DRAFT- and the id's last 8 hex digits, else 12, else all 32; none free is an error naming the draft", async () => {
    const id = "0190ABCD-1234-7ABC-8DEF-0123456789AB"; // upper case: the number is lower case
    const draw = async () => await unitOfWork(env.db, (tx) => provisionalNumber(tx, co.org.id, id));
    expect(await draw()).toBe("DRAFT-456789ab");
    const [a, b, c] = [await draft(), await draft(), await draft()];
    await setColumns(a.id, { number: "DRAFT-456789ab" });
    expect(await draw()).toBe("DRAFT-0123456789ab");
    await setColumns(b.id, { number: "DRAFT-0123456789ab" });
    expect(await draw()).toBe("DRAFT-0190abcd12347abc8def0123456789ab");
    await setColumns(c.id, { number: "DRAFT-0190abcd12347abc8def0123456789ab" });
    await expect(Promise.resolve().then(draw)).rejects.toThrow(`no provisional number is free for draft ${id}`);
  });

  test("a series number another document holds already is passed over, and counted", async () => {
    // numbered by hand before the series existed: INV-2024-00001 is taken, the series goes on at 2
    const held = await draft("2024-03-01");
    await setColumns(held.id, { number: "INV-2024-00001" });
    expect((await finalize((await draft("2024-03-02")).id)).number).toBe("INV-2024-00002");
    expect((await finalize((await draft("2024-03-03")).id)).number).toBe("INV-2024-00003");
  });

  test("interest notes have their own series, INT-", async () => {
    const numbers = await unitOfWork(env.db, async (tx) => [
      await nextSeriesNumber(tx, co.org.id, { type: "interest_note", issueDate: "2023-06-01" }),
      await nextSeriesNumber(tx, co.org.id, { type: "interest_note", issueDate: "2023-06-02" }),
      await nextSeriesNumber(tx, co.org.id, { type: "credit_note", issueDate: "2023-06-02" }),
    ]);
    expect(numbers).toEqual(["INT-2023-00001", "INT-2023-00002", "CN-2023-00001"]);
  });

  test("the payment reference: the organisation's next value as a Belgian structured communication; one held already is passed over", async () => {
    const second = await draft("2025-06-02");
    // the first: 0000000001, 1 mod 97 = 1 → check digits 01
    expect((await finalize((await draft("2025-06-01")).id)).payment_reference).toBe("+++000/0000/00101+++");
    // 0000000002 (check 02) is held by a hand-made row: the next is 0000000003, check 03
    await setColumns(second.id, { paymentReference: "+++000/0000/00202+++" });
    expect((await finalize((await draft("2025-06-03")).id)).payment_reference).toBe("+++000/0000/00303+++");
  });
});
