import { describe, expect, test } from "bun:test";
import { isLastOfYear, nextVatPeriod, parseVatPeriod, vatPeriodOf } from "../../server/lib/vat-period.ts";

describe("VAT periods", () => {
  test("a quarter and a month, with their first and last days", () => {
    expect(parseVatPeriod("2026-Q4")).toMatchObject({ kind: "quarterly", year: 2026, index: 4, from: "2026-10-01", to: "2026-12-31" });
    expect(parseVatPeriod("2024-02")).toMatchObject({ kind: "monthly", year: 2024, index: 2, from: "2024-02-01", to: "2024-02-29" });
    expect(parseVatPeriod("2026-Q1")!.to).toBe("2026-03-31");
    expect(parseVatPeriod("2026-Q2")!.to).toBe("2026-06-30");
  });
  test("names that are no period", () => {
    for (const text of ["2026-Q0", "2026-Q5", "2026-13", "2026-00", "2026-1", "26-Q1", "2026-q1", "1899-01", "3000-Q1", "", "2026-11-01"]) expect(parseVatPeriod(text)).toBeNull();
  });
  test("the period of a date, the next one and the year's last", () => {
    expect(vatPeriodOf("quarterly", "2026-09-30").name).toBe("2026-Q3");
    expect(vatPeriodOf("monthly", "2026-09-30").name).toBe("2026-09");
    expect(nextVatPeriod(parseVatPeriod("2026-Q4")!).name).toBe("2027-Q1");
    expect(nextVatPeriod(parseVatPeriod("2026-11")!).name).toBe("2026-12");
    expect(nextVatPeriod(parseVatPeriod("2026-12")!).name).toBe("2027-01");
    expect(isLastOfYear(parseVatPeriod("2026-Q4")!)).toBe(true);
    expect(isLastOfYear(parseVatPeriod("2026-12")!)).toBe(true);
    expect(isLastOfYear(parseVatPeriod("2026-Q3")!)).toBe(false);
    expect(isLastOfYear(parseVatPeriod("2026-11")!)).toBe(false);
  });
});
