/**
 * The late claim's rules, on the pure computation (server/interest/claim.ts `computeClaim`):
 * interest runs from the day after the due date to the claim's date and on no other day, on the
 * amount still due each day, at the rate of each day, actual/365, the running sum of exact
 * fractions rounded half-up once per period; the €40 once, only when something was still due the
 * first late day; a consumer's charges from the day after the first reminder's term.
 *
 * The rates here are given by the test (10.00 % then 12.00 %) so that a period's rate is seen in
 * its figure; every figure is worked out by hand in the comments: cents × rate (hundredths of a
 * percent) × days / 3 650 000.
 */
import { describe, expect, test } from "bun:test";
import { computeClaim, consumerChargeableFrom, consumerDamagesCapCents, type ClaimInput } from "../../server/interest/claim.ts";

/** 1000.00 due Wednesday 15 October 2025, a business customer, 10.00 % in 2025 and 12.00 % in 2026. */
const base: ClaimInput = {
  invoiceId: "inv",
  asOf: "2025-10-25",
  dueDate: "2025-10-15",
  currency: "EUR",
  totalCents: 100_000,
  customerType: "organization",
  reductions: [],
  country: "BE",
  hasTable: true,
  rates: [
    { from: "2025-01-01", to: "2025-12-31", rateBp: 1000 },
    { from: "2026-01-01", to: "2026-12-31", rateBp: 1200 },
  ],
  compensationCents: null,
  compensationByCurrency: {},
  firstReminderAcceptedOn: null,
  already: { interestCents: 0, compensationCents: 0, through: null },
};
const claim = (over: Partial<ClaimInput>) => computeClaim({ ...base, ...over });

describe("the days interest runs on", () => {
  test("from the day after the due date to the claim's date, both included, and no day outside", () => {
    // 16–25 October: 10 days on 1000.00 at 10.00 %: 100000 × 1000 × 10 / 3 650 000 = 273.97 → 2.74
    const f = claim({});
    expect(f.claim.principal_periods).toEqual([{ from: "2025-10-16", to: "2025-10-25", days: 10, rate: "10.00", base: "1000.00", interest: "2.74" }]);
    expect([f.claim.interest, f.claim.compensation, f.claim.chargeable_from, f.through]).toEqual(["2.74", "40.00", "2025-10-16", "2025-10-25"]);
    expect(f.claim.chargeable).toEqual({ interest: "2.74", compensation: "40.00" });
    expect([f.interestCents, f.compensationCents, f.chargeableInterestCents, f.chargeableCompensationCents]).toEqual([274, 4000, 274, 4000]);
    expect(f.newPeriods).toEqual([{ from: "2025-10-16", to: "2025-10-25", days: 10, rateBp: 1000, baseCents: 100_000, interestCents: 274 }]);
    expect(f.claim.missing_rates).toEqual([]);
    expect(f.claim).toMatchObject({ invoice_id: "inv", as_of: "2025-10-25", customer_type: "organization", currency: "EUR", already_charged: { interest: "0.00", compensation: "0.00" } });
    expect(f.lawNotes).toEqual([{ kind: "business", country: "BE" }]);
    expect(f.claim.law).toContain("law of 2 August 2002");
  });

  test("a rate that starts on the claim's date, and a payment on that day: the day is a period of its own", () => {
    // 16 October–31 December: 77 days at 10.00 % = 7 700 000 000 → 2109.59 → 21.10; 1 January at 12.00 %: 100000 × 1200 = 120 000 000,
    // running 7 820 000 000 → 2142.47 → 21.42: 0.32
    const f = claim({ asOf: "2026-01-01" });
    expect(f.claim.principal_periods.map((p) => [p.from, p.to, p.rate, p.interest])).toEqual([["2025-10-16", "2025-12-31", "10.00", "21.10"], ["2026-01-01", "2026-01-01", "12.00", "0.32"]]);
    // 600.00 paid on 25 October, the claim's date: 16–24 October on 1000.00 (9 days: 900 000 000 → 246.58 → 2.47), 25 October on 400.00
    // (40000 × 1000 = 40 000 000; running 940 000 000 → 257.53 → 2.58: 0.11)
    const paid = claim({ reductions: [{ date: "2025-10-25", cents: 60_000 }] });
    expect(paid.claim.principal_periods.map((p) => [p.from, p.to, p.base, p.interest])).toEqual([["2025-10-16", "2025-10-24", "1000.00", "2.47"], ["2025-10-25", "2025-10-25", "400.00", "0.11"]]);
  });

  test("a period whose interest rounds to nothing is no line of a note", () => {
    // 0.01 due for 10 days: 1 × 1000 × 10 / 3 650 000 = 0.003 cents → 0
    const f = claim({ totalCents: 1 });
    expect([f.claim.principal_periods.length, f.claim.interest, f.newPeriods]).toEqual([1, "0.00", []]);
  });

  test("on the due date nothing is late: no interest, no €40; the day after, one day and the €40", () => {
    const due = claim({ asOf: "2025-10-15" });
    expect([due.claim.principal_periods, due.claim.interest, due.claim.compensation, due.through]).toEqual([[], "0.00", "0.00", null]);
    // 1 day: 100000 × 1000 × 1 / 3 650 000 = 27.40 → 0.27
    const next = claim({ asOf: "2025-10-16" });
    expect(next.claim.principal_periods).toEqual([{ from: "2025-10-16", to: "2025-10-16", days: 1, rate: "10.00", base: "1000.00", interest: "0.27" }]);
    expect(next.claim.compensation).toBe("40.00");
  });

  test("split where the rate changes, rounded once over the periods", () => {
    // 16 October–31 December: 16 + 30 + 31 = 77 days at 10.00 %: 100000 × 1000 × 77 = 7 700 000 000 → 2109.59 → 21.10
    // 1–10 January: 10 days at 12.00 %: 100000 × 1200 × 10 = 1 200 000 000; running 8 900 000 000 / 3 650 000 = 2438.36 → 24.38
    const f = claim({ asOf: "2026-01-10" });
    expect(f.claim.principal_periods).toEqual([
      { from: "2025-10-16", to: "2025-12-31", days: 77, rate: "10.00", base: "1000.00", interest: "21.10" },
      { from: "2026-01-01", to: "2026-01-10", days: 10, rate: "12.00", base: "1000.00", interest: "3.28" },
    ]);
    expect(f.claim.interest).toBe("24.38");
  });

  test("the rounding is of the running sum: three periods each just under half a cent add up to the rounded total", () => {
    // 1 cent due?? no: 0.15 due for 1 day at 10.00 %: 15 × 1000 × 1 / 3 650 000 = 0.0041 cents a day
    // 10000.00 due, 1 day at 10.00 %: 1 000 000 × 1000 / 3 650 000 = 273.97 cents; the running sum decides each period
    const f = claim({ totalCents: 1_000_000, asOf: "2025-10-18", reductions: [{ date: "2025-10-17", cents: 1 }, { date: "2025-10-18", cents: 1 }] });
    // 16: 1 000 000 × 1000 = 1 000 000 000 → 273.97 → 274
    // 17: 999 999 × 1000 = 999 999 000 → running 1 999 999 000 → 547.94 → 548: 274
    // 18: 999 998 × 1000 = 999 998 000 → running 2 999 997 000 → 821.92 → 822: 274
    expect(f.claim.principal_periods.map((p) => [p.from, p.base, p.interest])).toEqual([
      ["2025-10-16", "10000.00", "2.74"],
      ["2025-10-17", "9999.99", "2.74"],
      ["2025-10-18", "9999.98", "2.74"],
    ]);
    expect(f.claim.interest).toBe("8.22");
  });

  test("on the amount still due each day: a payment reduces it from its date; one after the claim's date does not", () => {
    // 400.00 paid on 20 October: 16–19 October on 1000.00 (4 days: 4 000 000 00 × … = 100000 × 1000 × 4 = 400 000 000 → 109.59 → 1.10),
    // 20–25 October on 600.00 (6 days: 60000 × 1000 × 6 = 360 000 000; running 760 000 000 → 208.22 → 2.08: 0.98)
    // the payment of 1 November is after the claim's date: nothing
    const f = claim({ reductions: [{ date: "2025-10-20", cents: 40_000 }, { date: "2025-11-01", cents: 60_000 }] });
    expect(f.claim.principal_periods).toEqual([
      { from: "2025-10-16", to: "2025-10-19", days: 4, rate: "10.00", base: "1000.00", interest: "1.10" },
      { from: "2025-10-20", to: "2025-10-25", days: 6, rate: "10.00", base: "600.00", interest: "0.98" },
    ]);
    expect([f.claim.interest, f.claim.compensation]).toEqual(["2.08", "40.00"]);
  });

  test("paid in full on the due date: no interest, and no €40 (it was never late)", () => {
    const f = claim({ asOf: "2025-12-31", reductions: [{ date: "2025-10-15", cents: 100_000 }] });
    expect([f.claim.principal_periods, f.claim.interest, f.claim.compensation, f.claim.missing_rates]).toEqual([[], "0.00", "0.00", []]);
    // paid in part by then: the €40 all the same, interest on the rest (77 days on 500.00: 50000 × 1000 × 77 = 3 850 000 000 → 1054.79 → 10.55)
    const part = claim({ asOf: "2025-12-31", reductions: [{ date: "2025-10-15", cents: 50_000 }] });
    expect([part.claim.interest, part.claim.compensation]).toEqual(["10.55", "40.00"]);
  });

  test("paid in full after the due date: interest up to the day before the payment, nothing after", () => {
    // paid 21 October: 16–20 October = 5 days: 100000 × 1000 × 5 = 500 000 000 → 136.99 → 1.37
    const f = claim({ asOf: "2025-12-31", reductions: [{ date: "2025-10-21", cents: 100_000 }] });
    expect(f.claim.principal_periods.map((p) => [p.from, p.to, p.days, p.interest])).toEqual([["2025-10-16", "2025-10-20", 5, "1.37"]]);
    expect([f.claim.compensation, f.through]).toEqual(["40.00", "2025-10-20"]);
  });
});

describe("what was charged before", () => {
  test("a later claim charges the interest since the last note, and the €40 not again", () => {
    // as of 10 January: 24.38 (see the rate change); the note through 25 October charged 2.74 and 40.00
    const f = claim({ asOf: "2026-01-10", already: { interestCents: 274, compensationCents: 4000, through: "2025-10-25" } });
    // new periods: 26 October–31 December (67 days) and 1–10 January; their shares: running sums
    // 16–25 Oct 1 000 000 000 → 273.97 → 274; 26 Oct–31 Dec 100000 × 1000 × 67 = 6 700 000 000, running 7 700 000 000 → 2109.59 → 2110: 1836;
    // 1–10 Jan running 8 900 000 000 → 2438.36 → 2438: 328
    expect(f.newPeriods.map((p) => [p.from, p.to, p.days, p.interestCents])).toEqual([["2025-10-26", "2025-12-31", 67, 1836], ["2026-01-01", "2026-01-10", 10, 328]]);
    expect(f.claim.already_charged).toEqual({ interest: "2.74", compensation: "40.00" });
    expect(f.claim.chargeable).toEqual({ interest: "21.64", compensation: "0.00" });
    expect([f.chargeableInterestCents, f.chargeableCompensationCents]).toEqual([2164, 0]);
    expect(f.through).toBe("2026-01-10");
  });

  test("charged through the claim's date already: nothing chargeable, nothing new, through that day", () => {
    const f = claim({ already: { interestCents: 274, compensationCents: 4000, through: "2025-10-25" } });
    expect([f.claim.chargeable, f.newPeriods, f.through]).toEqual([{ interest: "0.00", compensation: "0.00" }, [], "2025-10-25"]);
  });

  test("no period left (paid since): the claim still covers what was charged, through its day", () => {
    const f = claim({ asOf: "2025-11-05", reductions: [{ date: "2025-10-16", cents: 100_000 }], already: { interestCents: 274, compensationCents: 4000, through: "2025-10-25" } });
    expect([f.claim.principal_periods, f.through, f.claim.chargeable]).toEqual([[], "2025-10-25", { interest: "0.00", compensation: "0.00" }]);
  });

  test("a payment recorded later with an earlier date: the new periods take the difference, never a negative charge", () => {
    // the note charged 10 days on 1000.00 (2.74) through 25 October; a payment of 1000.00 dated 21 October came after:
    // the claim is now 5 days (1.37), less 2.74 charged: nothing chargeable
    const f = claim({ asOf: "2025-11-05", reductions: [{ date: "2025-10-21", cents: 100_000 }], already: { interestCents: 274, compensationCents: 4000, through: "2025-10-25" } });
    expect([f.claim.interest, f.claim.chargeable.interest, f.newPeriods]).toEqual(["1.37", "0.00", []]);
    // 500.00 dated 21 October: 16–20 on 1000.00 (500 000 000), 21 Oct–5 Nov 16 days on 500.00 (50000 × 1000 × 16 = 800 000 000):
    // running 1 300 000 000 → 356.16 → 3.56; less 2.74 = 0.82, all on the one new period 26 October–5 November
    const g = claim({ asOf: "2025-11-05", reductions: [{ date: "2025-10-21", cents: 50_000 }], already: { interestCents: 274, compensationCents: 4000, through: "2025-10-25" } });
    expect(g.claim.chargeable.interest).toBe("0.82");
    expect(g.newPeriods.map((p) => [p.from, p.to, p.interestCents])).toEqual([["2025-10-26", "2025-11-05", 82]]);
  });
});

describe("the compensation", () => {
  test("the organisation's higher amount; never less than the statutory €40", () => {
    expect(claim({ compensationCents: 7500 }).claim.compensation).toBe("75.00");
    expect(claim({ compensationCents: 1000 }).claim.compensation).toBe("40.00");
  });

  test("a non-euro invoice: the organisation's amount for its currency, or none and said why", () => {
    expect(claim({ currency: "USD", compensationByCurrency: { USD: 5000 } }).claim.compensation).toBe("50.00");
    const none = claim({ currency: "USD", compensationByCurrency: { GBP: 5000 } });
    expect(none.claim.compensation).toBe("0.00");
    expect(none.lawNotes).toContainEqual({ kind: "no_compensation", currency: "USD" });
  });
});

describe("a consumer (Book XIX)", () => {
  const consumer = (over: Partial<ClaimInput>) => claim({ customerType: "individual", asOf: "2025-12-31", ...over });

  test("nothing without a first reminder accepted, nor outside Belgium", () => {
    for (const f of [consumer({}), consumer({ country: "NL", firstReminderAcceptedOn: "2025-10-22" })]) {
      expect([f.claim.principal_periods, f.claim.interest, f.claim.compensation, f.claim.chargeable_from, f.claim.missing_rates, f.through]).toEqual([[], "0.00", "0.00", null, [], null]);
    }
    expect(consumer({}).lawNotes).toEqual([{ kind: "consumer_no_reminder" }]);
    expect(consumer({ country: "NL" }).lawNotes).toEqual([{ kind: "consumer_elsewhere", country: "NL" }]);
    // no table and no right to charge: no missing rate either
    expect(consumer({ country: "NL", hasTable: false }).claim.missing_rates).toEqual([]);
  });

  test("from the day after the term: interest from then, the damages on what is due then, no €40", () => {
    // accepted Friday 24 October: the term runs from Monday 27 October for 14 days (to 9 November); charges from the 10th
    expect(consumerChargeableFrom("2025-10-24")).toBe("2025-11-10");
    // accepted on a Saturday or a Sunday: the term runs from the Monday too
    expect(consumerChargeableFrom("2025-10-25")).toBe("2025-11-10");
    expect(consumerChargeableFrom("2025-10-26")).toBe("2025-11-10");
    expect(consumerChargeableFrom("2025-10-27")).toBe("2025-11-11");
    // 10 November–31 December: 21 + 31 = 52 days: 100000 × 1000 × 52 = 5 200 000 000 → 1424.66 → 14.25
    // 300.00 paid on 1 November, before the term ended: the damages on 700.00: 65.00 + 5 % × 200.00 = 75.00; interest on 700.00: 70000 × 1000 × 52 = 3 640 000 000 → 997.26 → 9.97
    const f = consumer({ firstReminderAcceptedOn: "2025-10-24" });
    expect(f.claim.principal_periods).toEqual([{ from: "2025-11-10", to: "2025-12-31", days: 52, rate: "10.00", base: "1000.00", interest: "14.25" }]);
    expect([f.claim.compensation, f.claim.chargeable_from]).toEqual(["90.00", "2025-11-10"]);
    expect(f.lawNotes).toEqual([{ kind: "consumer", acceptedOn: "2025-10-24", termEnds: "2025-11-09", from: "2025-11-10" }]);
    const paid = consumer({ firstReminderAcceptedOn: "2025-10-24", reductions: [{ date: "2025-11-01", cents: 30_000 }] });
    expect([paid.claim.interest, paid.claim.compensation]).toEqual(["9.97", "75.00"]);
  });

  test("on the last day of the term nothing; a reminder accepted before the due date does not start interest before it", () => {
    expect(consumer({ firstReminderAcceptedOn: "2025-10-24", asOf: "2025-11-09" }).claim).toMatchObject({ interest: "0.00", compensation: "0.00", principal_periods: [] });
    // accepted 1 September (Monday): chargeable from 16 September, before the due date: interest from 16 October all the same
    const early = consumer({ firstReminderAcceptedOn: "2025-09-01", asOf: "2025-10-25" });
    expect(early.claim.chargeable_from).toBe("2025-09-16");
    expect(early.claim.principal_periods.map((p) => [p.from, p.to])).toEqual([["2025-10-16", "2025-10-25"]]);
  });

  test("paid in full before the term ended: no damages", () => {
    expect(consumer({ firstReminderAcceptedOn: "2025-10-24", reductions: [{ date: "2025-11-10", cents: 100_000 }] }).claim.compensation).toBe("0.00");
  });

  test("the caps of art. XIX.4 at their edges", () => {
    // 500.01: 65.00 + 5 % × 0.01 = 65.0005 → 65.00; 500.00 is still the middle band: 30.00 + 10 % × 350.00 = 65.00
    expect(consumerDamagesCapCents(50_001)).toBe(6500);
    expect(consumerDamagesCapCents(-100)).toBe(0);
    // 150.05: 30.00 + 10 % × 0.05 = 30.005 → 30.01 (half-up)
    expect(consumerDamagesCapCents(15_005)).toBe(3001);
    // 39 200.20: 65.00 + 5 % × 38 700.20 = 65.00 + 1935.01 = 2000.01 → at most 2000.00; 39 199.80: 1999.99
    expect(consumerDamagesCapCents(3_920_020)).toBe(200_000);
    expect(consumerDamagesCapCents(3_919_980)).toBe(199_999);
  });
});

describe("days without a rate", () => {
  test("a country without a table: no interest, the days from the first late day to the claim's date missing, the €40 all the same", () => {
    const f = claim({ hasTable: false, rates: [] });
    expect([f.claim.principal_periods, f.claim.interest, f.claim.compensation, f.claim.missing_rates]).toEqual([[], "0.00", "40.00", [{ from: "2025-10-16", to: "2025-10-25" }]]);
    expect(f.lawNotes.map((n) => n.kind)).toEqual(["business", "no_table"]);
    // nothing due on the first late day, or not late yet: nothing missing
    expect(claim({ hasTable: false, rates: [], reductions: [{ date: "2025-10-16", cents: 100_000 }] }).claim.missing_rates).toEqual([]);
    expect(claim({ hasTable: false, rates: [], asOf: "2025-10-15" }).claim.missing_rates).toEqual([]);
  });

  test("the days before a table starts are missing, as one stretch across a payment; the rest earns interest", () => {
    // no rate before 1 November; 200.00 paid 20 October cuts the stretch, which is still reported as one
    // 1–5 November: 5 days on 800.00 at 12.00 %: 80000 × 1200 × 5 = 480 000 000 → 131.51 → 1.32
    const f = claim({ asOf: "2025-11-05", rates: [{ from: "2025-11-01", to: "2025-12-31", rateBp: 1200 }], reductions: [{ date: "2025-10-20", cents: 20_000 }] });
    expect(f.claim.missing_rates).toEqual([{ from: "2025-10-16", to: "2025-10-31" }]);
    expect(f.claim.principal_periods).toEqual([{ from: "2025-11-01", to: "2025-11-05", days: 5, rate: "12.00", base: "800.00", interest: "1.32" }]);
    expect(f.lawNotes).toContainEqual({ kind: "missing_rates", periods: [{ from: "2025-10-16", to: "2025-10-31" }] });
    expect(f.through).toBe("2025-11-05");
  });

  test("a gap between two rates, and the days after the last, are two stretches; nothing due, nothing missing", () => {
    const rates = [{ from: "2025-01-01", to: "2025-10-20", rateBp: 1000 }, { from: "2025-10-24", to: "2025-10-31", rateBp: 1000 }];
    const f = claim({ asOf: "2025-11-03", rates });
    expect(f.claim.missing_rates).toEqual([{ from: "2025-10-21", to: "2025-10-23" }, { from: "2025-11-01", to: "2025-11-03" }]);
    // 16–20 and 24–31 October: 5 + 8 days on 1000.00 at 10.00 %: 100000 × 1000 × 13 = 1 300 000 000 → 356.16 → 3.56
    expect(f.claim.interest).toBe("3.56");
    expect(f.through).toBe("2025-10-31");
    // paid in full on 21 October: the gap and what follows have nothing due
    expect(claim({ asOf: "2025-11-03", rates, reductions: [{ date: "2025-10-21", cents: 100_000 }] }).claim.missing_rates).toEqual([]);
  });
});

describe("edges", () => {
  test("never a day after the claim's date, even when an earlier note reached further", () => {
    const f = claim({ already: { interestCents: 400, compensationCents: 4000, through: "2025-10-30" } });
    expect(f.claim.principal_periods.map((p) => [p.from, p.to])).toEqual([["2025-10-16", "2025-10-25"]]);
    expect(f.claim.interest).toBe("2.74");
  });

  test("a consumer's claim dated well before the term ends: nothing, not even the days between", () => {
    const f = claim({ customerType: "individual", firstReminderAcceptedOn: "2025-10-24", asOf: "2025-11-01" });
    expect([f.claim.principal_periods, f.claim.interest, f.claim.compensation]).toEqual([[], "0.00", "0.00"]);
  });

  test("no table, one late day: that day is missing", () => {
    expect(claim({ hasTable: false, rates: [], asOf: "2025-10-16" }).claim.missing_rates).toEqual([{ from: "2025-10-16", to: "2025-10-16" }]);
  });

  test("a non-euro invoice with its compensation set says nothing of a missing one", () => {
    expect(claim({ currency: "USD", compensationByCurrency: { USD: 5000 } }).lawNotes.map((n) => n.kind)).toEqual(["business"]);
  });

  test("a payment dated on the last day charged splits that day off: it is not charged again", () => {
    // charged through 20 October; 500.00 paid on the 20th recorded afterwards: the periods 16–19, 20, 21–25; only 21–25 is new
    const f = claim({ reductions: [{ date: "2025-10-20", cents: 50_000 }], already: { interestCents: 137, compensationCents: 4000, through: "2025-10-20" } });
    expect(f.claim.principal_periods.map((p) => [p.from, p.to])).toEqual([["2025-10-16", "2025-10-19"], ["2025-10-20", "2025-10-20"], ["2025-10-21", "2025-10-25"]]);
    expect(f.newPeriods.map((p) => [p.from, p.to])).toEqual([["2025-10-21", "2025-10-25"]]);
  });

  test("charged less than the periods up to the claim's date earned, and no new period: nothing to put the difference on", () => {
    // a note charged 1.00 through 25 October, the days earned 2.74: 1.74 chargeable, but no period after the 25th
    const f = claim({ already: { interestCents: 100, compensationCents: 4000, through: "2025-10-25" } });
    expect([f.chargeableInterestCents, f.newPeriods]).toEqual([174, []]);
  });
});
