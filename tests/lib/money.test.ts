/**
 * Exact money (contract section 3): integer cents, line amount and line VAT rounded half-up
 * per line, ≤ 2 fraction digits in (more is a 422, never a silent rounding), the range up to
 * 999 999 999 999.99, numbers and numeric strings alike. Awkward values go through the API
 * and through server/lib/money.ts + server/invoices/totals.ts; a property test recomputes
 * random invoices with BigInt, independently of the code under test.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { priceLine, totalsOf } from "../../server/invoices/totals.ts";
import { formatCents, MAX_CENTS, toCents } from "../../server/lib/money.ts";
import { createTestEnv, type ApiResponse } from "../helpers.ts";
import { rawSql } from "../raw-sql.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const raw = rawSql(env.db);
const count = async (table: string) => (await raw.get<{ n: number }>(`SELECT count(*) AS n FROM "${table}"`))!.n;

/** A French organisation: rates 20, 10, 5.5, 2.1 and 0 %, the awkward ones included. */
const fr = await env.newOrg("Money FR", { country: "FR", currency: "EUR" });
let customerId: string;
const rateId: Record<string, string | null> = { none: null };

beforeAll(async () => {
  customerId = (await env.api("POST", "/api/v1/customers", { name: "Money Customer SARL" }, fr.token)).body.data.id;
  // the first 0 % rate is the zero rate (Z); the others are the exempt and reverse-charge rates
  for (const r of (await env.api("GET", "/api/v1/vat-rates", undefined, fr.token)).body.data) rateId[r.rate] ??= r.id;
  expect(Object.keys(rateId).sort()).toEqual(["0.00", "10.00", "2.10", "20.00", "5.50", "none"]);
});

type Line = { quantity: unknown; unit_price: unknown; rate?: string };
const lineBody = (l: Line, i = 0) => ({ description: `Line ${i + 1}`, quantity: l.quantity, unit_price: l.unit_price, vat_rate_id: rateId[l.rate ?? "none"] });
const post = (lines: Line[]) => env.api("POST", "/api/v1/invoices", { customer_id: customerId, issue_date: "2026-05-01", lines: lines.map(lineBody) }, fr.token);
/** The body as raw JSON text, for number literals JSON.stringify cannot write (1e3, 1.50, -0). */
const postRaw = (quantity: string, unitPrice: string) =>
  env.request("POST", "/api/v1/invoices", {
    token: fr.token,
    headers: { "content-type": "application/json" },
    rawBody: `{"customer_id":"${customerId}","issue_date":"2026-05-01","lines":[{"description":"Raw","quantity":${quantity},"unit_price":${unitPrice}}]}`,
  });

async function priced(lines: Line[]) {
  const r = await post(lines);
  expect(r.status, r.text).toBe(201);
  return r.body.data;
}

function expectRefused(r: ApiResponse, key: string, label: string) {
  expect(r.status, `${label}: ${r.text}`).toBe(422);
  expect(Object.keys(r.body.errors), label).toEqual([key]);
}

/** Independent reference: BigInt, half-up written out from the remainder. */
const halfUp = (numerator: bigint, denominator: bigint) => numerator / denominator + ((numerator % denominator) * 2n >= denominator ? 1n : 0n);
const fmt = (cents: bigint) => `${cents / 100n}.${String(cents % 100n).padStart(2, "0")}`;

describe("toCents / formatCents (server/lib/money.ts)", () => {
  test("accepted inputs, each read exactly", () => {
    const cases: [unknown, number][] = [
      [0, 0], ["0", 0], ["0.00", 0], [12.5, 1250], ["12.5", 1250], ["12.50", 1250], [12, 1200], ["12", 1200],
      [0.01, 1], ["0.01", 1], [0.1, 10], [0.07, 7], [1.1, 110],
      [" 1", 100], ["1 ", 100], ["007.10", 710], [1e3, 100000], [999999999999.99, 99999999999999], ["999999999999.99", 99999999999999],
      ["-12.34", -1234], [-0.5, -50], // signed: the minimum of each field is checked by readMoney
    ];
    for (const [input, cents] of cases) expect(toCents(input), JSON.stringify(input)).toBe(cents);
    // "-0" and -0 are zero (and never shown as "-0.00")
    expect(toCents("-0") === 0).toBe(true);
    expect(formatCents(toCents("-0")!)).toBe("0.00");
    expect(formatCents(toCents(-0)!)).toBe("0.00");
  });

  test("refused inputs: null, never a guess", () => {
    const cases: unknown[] = [
      "1e3", "1E3", "1e-2", "1.", ".5", "+1", "1,5", "1 000", "1_000", "", "   ", "abc", "0x10", "Infinity", "-Infinity", "NaN", "-", "1.2.3",
      "\u0661\u0662", "\u22121", "12.345", 12.345, 0.1 + 0.2, 1.005, 1e21, 1e-7, Infinity, NaN, "1234567890123456", null, undefined, true, [], {}, [1],
    ];
    for (const input of cases) expect(toCents(input), String(input)).toBeNull();
  });

  test("formatCents: exactly two fraction digits", () => {
    expect([0, 1, 10, 99, 100, 1250, -1, -1250, MAX_CENTS].map(formatCents)).toEqual(["0.00", "0.01", "0.10", "0.99", "1.00", "12.50", "-0.01", "-12.50", "999999999999.99"]);
  });

  test("property: toCents reads back what formatCents writes, and the number form too", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_CENTS }), (cents) => {
        expect(toCents(formatCents(cents))).toBe(cents);
        expect(toCents(cents / 100)).toBe(cents);
        expect(toCents(`${formatCents(cents)}1`)).toBeNull(); // a third fraction digit
      }),
      { numRuns: 2000 },
    );
  });
});

describe("rounding: half-up per line (contract section 3)", () => {
  // [quantity, unit_price, rate, amount, line VAT]
  const cases: [unknown, unknown, string, string, string][] = [
    ["0.01", "0.01", "20.00", "0.00", "0.00"], // 0.0001
    ["1.5", "0.03", "20.00", "0.05", "0.01"], // 0.045 → 0.05; 0.01 × 0.20 = 0.01
    ["1", "0.50", "20.00", "0.50", "0.10"],
    ["0.5", "0.01", "none", "0.01", "0.00"], // 0.005 → 0.01
    ["0.49", "0.01", "none", "0.00", "0.00"], // 0.0049 → 0.00
    ["0.5", "0.05", "none", "0.03", "0.00"], // 0.025: half-up, not to even
    ["0.33", "0.15", "none", "0.05", "0.00"], // 0.0495
    ["12.5", "0.99", "20.00", "12.38", "2.48"], // 12.375 → 12.38; 2.476 → 2.48
    ["1", "0.10", "5.50", "0.10", "0.01"], // VAT 0.0055 → 0.01
    ["1", "0.09", "5.50", "0.09", "0.00"], // VAT 0.00495 → 0.00
    ["1", "0.24", "2.10", "0.24", "0.01"], // VAT 0.00504
    ["1", "0.23", "2.10", "0.23", "0.00"], // VAT 0.00483
    ["1", "2.25", "10.00", "2.25", "0.23"], // VAT 0.225: half-up
    ["1", "0.05", "10.00", "0.05", "0.01"], // VAT 0.005: the exact boundary
    ["1", "0.04", "10.00", "0.04", "0.00"],
    [0.1, 0.3, "none", "0.03", "0.00"], // 0.1 × 0.3 is 0.030000000000000002 in floats
    [3, 0.1, "20.00", "0.30", "0.06"],
    [1.1, 1.1, "20.00", "1.21", "0.24"], // 0.242
    ["3", "33.33", "20.00", "99.99", "20.00"], // 19.998
    ["0.01", "999999999999.99", "none", "10000000000.00", "0.00"], // 9 999 999 999.9999
  ];
  for (const [quantity, unitPrice, rate, amount, vat] of cases) {
    test(`${JSON.stringify(quantity)} × ${JSON.stringify(unitPrice)} at ${rate}: ${amount}, VAT ${vat}`, async () => {
      const inv = await priced([{ quantity, unit_price: unitPrice, rate }]);
      expect(inv.lines[0]).toMatchObject({ amount, vat_amount: vat });
      expect(inv).toMatchObject({ subtotal: amount, vat_amount: vat });
      expect(inv.total).toBe(fmt(BigInt(Math.round(Number(amount) * 100)) + BigInt(Math.round(Number(vat) * 100))));
    });
  }

  test("100 lines: totals are sums of the rounded lines, not roundings of the sums", async () => {
    const inv = await priced(Array.from({ length: 100 }, () => ({ quantity: "1.5", unit_price: "0.03", rate: "20.00" })));
    expect(inv.lines).toHaveLength(100);
    expect(inv.lines.map((l: any) => l.sort_order)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    // per line 0.045 → 0.05 and VAT 0.01; rounding the sums would give 4.50 and 0.90
    expect(inv).toMatchObject({ subtotal: "5.00", vat_amount: "1.00", total: "6.00", amount_due: "6.00" });
    const tiny = await priced(Array.from({ length: 100 }, () => ({ quantity: "0.01", unit_price: "0.01", rate: "20.00" })));
    expect(tiny).toMatchObject({ subtotal: "0.00", vat_amount: "0.00", total: "0.00" });
  });
});

describe("range: up to 999 999 999 999.99", () => {
  test("the maximum is accepted, stored and paid exactly", async () => {
    const inv = await priced([{ quantity: "1", unit_price: "999999999999.99" }]);
    expect(inv).toMatchObject({ subtotal: "999999999999.99", total: "999999999999.99", amount_due: "999999999999.99" });
    expect((await priced([{ quantity: 999999999999.99, unit_price: 1 }])).total).toBe("999999999999.99");
    // two lines that add up to exactly the maximum
    expect((await priced([{ quantity: "1", unit_price: "499999999999.99" }, { quantity: "1", unit_price: "500000000000.00" }])).total).toBe("999999999999.99");
    expect((await env.api("POST", `/api/v1/invoices/${inv.id}/finalize`, undefined, fr.token)).status).toBe(200);
    const tooMuch = await env.api("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "1000000000000.00", payment_date: "2026-05-02" }, fr.token);
    expectRefused(tooMuch, "amount", "payment above the maximum");
    const paid = await env.api("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "999999999999.99", payment_date: "2026-05-02" }, fr.token);
    expect(paid.status, paid.text).toBe(201);
    expect(paid.body.data).toMatchObject({ status: "paid", amount_paid: "999999999999.99", amount_due: "0.00" });
  });

  test("one cent more is a 422, never a 500 or a wrapped number", async () => {
    const before = await count("invoices");
    const cases: [Line[], string][] = [
      [[{ quantity: "1", unit_price: "1000000000000.00" }], "lines.0.unit_price"],
      [[{ quantity: "1", unit_price: 1000000000000 }], "lines.0.unit_price"],
      [[{ quantity: "1000000000000", unit_price: "1" }], "lines.0.quantity"],
      [[{ quantity: "100", unit_price: "10000000000.00" }], "lines.0"], // the product is one cent too many
      [[{ quantity: "1", unit_price: "999999999999.99", rate: "20.00" }], "lines.0"], // with its VAT
      [[{ quantity: "999999999999.99", unit_price: "999999999999.99" }], "lines.0"], // 10^24: no overflow
      [[{ quantity: "1", unit_price: "500000000000.00" }, { quantity: "1", unit_price: "500000000000.00" }], "lines"], // the total
      [Array.from({ length: 500 }, () => ({ quantity: "1", unit_price: "2000000000.00" })), "lines"],
    ];
    for (const [lines, key] of cases) expectRefused(await post(lines), key, JSON.stringify(lines[0]));
    expect(await count("invoices")).toBe(before);
  });
});

describe("input forms: JSON numbers and numeric strings", () => {
  test("accepted forms are read exactly", async () => {
    const cases: [unknown, string][] = [
      [12.5, "12.50"], ["12.5", "12.50"], ["12.50", "12.50"], [12, "12.00"], ["12", "12.00"], [0, "0.00"], ["0", "0.00"], ["-0", "0.00"],
      [" 1", "1.00"], ["1 ", "1.00"], ["007.10", "7.10"], [0.1, "0.10"], [0.07, "0.07"], [1e3, "1000.00"],
    ];
    for (const [input, shown] of cases) {
      const inv = await priced([{ quantity: "1", unit_price: input }]);
      expect(inv.lines[0].unit_price, JSON.stringify(input)).toBe(shown);
      expect(inv.total, JSON.stringify(input)).toBe(shown);
    }
  });

  test("refused forms are a 422 keyed by the field", async () => {
    const before = await count("invoices");
    const cases: unknown[] = [
      "1e3", "1E3", "1e-2", "1.", ".5", "+1", "1,5", "1 000", "1_000", "", "  ", "abc", "0x10", "Infinity", "NaN", "-", "1.2.3",
      "\u0661\u0662", "\u22121", "12.345", 12.345, 0.1 + 0.2, 1.005, "-0.01", -1, true, null, [], {}, "9".repeat(33),
    ];
    for (const input of cases) {
      expectRefused(await post([{ quantity: "1", unit_price: input }]), "lines.0.unit_price", `unit_price ${JSON.stringify(input)}`);
      expectRefused(await post([{ quantity: input, unit_price: "1" }]), "lines.0.quantity", `quantity ${JSON.stringify(input)}`);
    }
    expect(await count("invoices")).toBe(before);
  });

  test("number literals JSON.stringify would not write: exact ones accepted, inexact ones refused", async () => {
    const accepted: [string, string][] = [
      ["1e3", "1000.00"], ["1E2", "100.00"], ["1.50", "1.50"], ["2.500", "2.50"], ["-0", "0.00"], ["0.0", "0.00"], ["1e-2", "0.01"], ["12.3e1", "123.00"],
      ["999999999999.990000", "999999999999.99"],
    ];
    for (const [literal, shown] of accepted) {
      const r = await postRaw("1", literal);
      expect(r.status, `${literal}: ${r.text}`).toBe(201);
      expect(r.body.data.lines[0].unit_price, literal).toBe(shown);
    }
    // doubles cannot hold these: reading them as 2, 0.10 or 0.00 would be a silent rounding
    const refused = ["1.999999999999999999", "0.1000000000000000000001", "1e400", "-1e-400", "1e-400", "123456789.123456789", "12.345", "1e-3"];
    const before = await count("invoices");
    for (const literal of refused) {
      expectRefused(await postRaw("1", literal), "lines.0.unit_price", `unit_price ${literal}`);
      expectRefused(await postRaw(literal, "1"), "lines.0.quantity", `quantity ${literal}`);
    }
    expect(await count("invoices")).toBe(before);
  });

  test("payments read money the same way", async () => {
    const inv = await priced([{ quantity: "1", unit_price: "10.00" }]);
    await env.api("POST", `/api/v1/invoices/${inv.id}/finalize`, undefined, fr.token);
    const pay = (raw: string) =>
      env.request("POST", `/api/v1/invoices/${inv.id}/record-payment`, {
        token: fr.token,
        headers: { "content-type": "application/json" },
        rawBody: `{"amount":${raw},"payment_date":"2026-05-02"}`,
      });
    for (const raw of ['"1.234"', "1.234", '"1e0"', "0.1000000000000000000001", '"0"', "0", '"-1"']) expectRefused(await pay(raw), "amount", raw);
    expect((await pay("2.50")).body.data.amount_paid).toBe("2.50");
    expect((await pay('" 2.5"')).body.data.amount_paid).toBe("5.00");
    expect((await pay("5")).body.data).toMatchObject({ amount_paid: "10.00", amount_due: "0.00", status: "paid" });
  });
});

/** A line as cents plus the form it is sent in: a JSON number or a string with 0–2 fraction digits. */
const cents = (max: number) => fc.integer({ min: 0, max });
const form = fc.constantFrom("number", "string", "string2");
const send = (c: number, how: string): unknown =>
  how === "number" ? c / 100 : how === "string2" ? fmt(BigInt(c)) : fmt(BigInt(c)).replace(/\.?0+$/, "") || "0";
const lineArb = fc.record({
  // at most 10 lines of 10 000.01 × 1 000 000.00 with VAT: within the range of an invoice
  quantity: cents(10_000_00).map((c) => c + 1), // 0.01 … 10 000.01
  unitPrice: cents(1_000_000_00), // 0 … 1 000 000.00
  rate: fc.constantFrom("none", "0.00", "2.10", "5.50", "10.00", "20.00"),
  qForm: form,
  pForm: form,
});

describe("property: totals recomputed with BigInt", () => {
  test("through the API: lines, subtotal, VAT, total, payments, amount due", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(lineArb, { minLength: 1, maxLength: 10 }), fc.array(fc.integer({ min: 1, max: 10_000 }), { maxLength: 3 }), async (lines, shares) => {
        const r = await post(lines.map((l) => ({ quantity: send(l.quantity, l.qForm), unit_price: send(l.unitPrice, l.pForm), rate: l.rate })));
        expect(r.status, r.text).toBe(201);
        let subtotal = 0n;
        let vat = 0n;
        lines.forEach((l, i) => {
          const amount = halfUp(BigInt(l.quantity) * BigInt(l.unitPrice), 100n);
          const bp = l.rate === "none" ? 0n : BigInt(Math.round(Number(l.rate) * 100));
          const lineVat = halfUp(amount * bp, 10_000n);
          subtotal += amount;
          vat += lineVat;
          expect(r.body.data.lines[i]).toMatchObject({ quantity: fmt(BigInt(l.quantity)), unit_price: fmt(BigInt(l.unitPrice)), amount: fmt(amount), vat_amount: fmt(lineVat) });
        });
        const total = subtotal + vat;
        expect(r.body.data).toMatchObject({ subtotal: fmt(subtotal), vat_amount: fmt(vat), total: fmt(total), amount_paid: "0.00", amount_due: fmt(total) });
        if (total === 0n) return;
        const id = r.body.data.id;
        expect((await env.api("POST", `/api/v1/invoices/${id}/finalize`, undefined, fr.token)).status).toBe(200);
        let paid = 0n;
        for (const share of shares) {
          const due = total - paid;
          if (due === 0n) break;
          const amount = due * BigInt(share) / 10_000n || 1n;
          const p = await env.api("POST", `/api/v1/invoices/${id}/record-payment`, { amount: fmt(amount), payment_date: "2026-05-02" }, fr.token);
          expect(p.status, p.text).toBe(201);
          paid += amount;
          expect(p.body.data).toMatchObject({ amount_paid: fmt(paid), amount_due: fmt(total - paid), status: paid === total ? "paid" : "partially_paid" });
        }
      }),
      { numRuns: 60 },
    );
  }, 30_000);

  test("server/invoices/totals.ts over the whole range", () => {
    const big = fc.record({ quantityCents: fc.integer({ min: 1, max: MAX_CENTS }), unitPriceCents: fc.integer({ min: 0, max: MAX_CENTS }), vatRateBp: fc.constantFrom(0, 210, 550, 600, 1000, 1200, 2000, 2100, 2550) });
    fc.assert(
      fc.property(fc.array(big, { minLength: 1, maxLength: 20 }), (lines) => {
        const priced = lines.map(priceLine);
        let subtotal = 0n;
        let vat = 0n;
        priced.forEach((p, i) => {
          const amount = halfUp(BigInt(lines[i]!.quantityCents) * BigInt(lines[i]!.unitPriceCents), 100n);
          const lineVat = halfUp(amount * BigInt(lines[i]!.vatRateBp), 10_000n);
          // exact whenever the service accepts the line (amount + VAT within the range)
          if (amount + lineVat <= BigInt(MAX_CENTS)) expect([BigInt(p.amountCents), BigInt(p.vatCents)]).toEqual([amount, lineVat]);
          else expect(p.amountCents + p.vatCents).toBeGreaterThan(MAX_CENTS);
          subtotal += amount;
          vat += lineVat;
        });
        const totals = totalsOf(priced);
        if (subtotal + vat <= BigInt(MAX_CENTS)) {
          expect([BigInt(totals.subtotalCents), BigInt(totals.vatCents), BigInt(totals.totalCents)]).toEqual([subtotal, vat, subtotal + vat]);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
