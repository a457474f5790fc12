/**
 * The fiscal calendar's rules (server/lib/fiscal-year.ts), each case worked out by hand: which
 * year holds a date, the dates of a named year, and the bounds of a first year.
 */
import { describe, expect, test } from "bun:test";
import { CALENDAR_YEARS, fiscalYearNamed, fiscalYearOf, firstYearProblem, parseFiscalYearStart } from "../../server/lib/fiscal-year.ts";

const july = { startMonth: 7, first: null };
const march = { startMonth: 3, first: null };
const eighteen = { startMonth: 7, first: { start: "2026-01-01", end: "2027-06-30" } };

describe("fiscalYearOf and fiscalYearNamed", () => {
  test("calendar years: the year of the date", () => {
    expect(fiscalYearOf(CALENDAR_YEARS, "2026-07-01")).toEqual({ year: 2026, start: "2026-01-01", end: "2026-12-31" });
    expect(fiscalYearNamed(CALENDAR_YEARS, 2025)).toEqual({ year: 2025, start: "2025-01-01", end: "2025-12-31" });
  });

  test("years from 1 July: named by the year they end in", () => {
    expect(fiscalYearOf(july, "2026-06-30")).toEqual({ year: 2026, start: "2025-07-01", end: "2026-06-30" });
    expect(fiscalYearOf(july, "2026-07-01")).toEqual({ year: 2027, start: "2026-07-01", end: "2027-06-30" });
    expect(fiscalYearNamed(july, 2027)).toEqual({ year: 2027, start: "2026-07-01", end: "2027-06-30" });
  });

  test("years from 1 March end on the last day of February, the 29th in a leap year", () => {
    expect(fiscalYearNamed(march, 2028)).toEqual({ year: 2028, start: "2027-03-01", end: "2028-02-29" });
    expect(fiscalYearOf(march, "2026-02-28")).toEqual({ year: 2026, start: "2025-03-01", end: "2026-02-28" });
  });

  test("a first year of 18 months, then twelve-month years; no year before it", () => {
    expect(fiscalYearOf(eighteen, "2026-01-01")).toEqual({ year: 2027, start: "2026-01-01", end: "2027-06-30" });
    expect(fiscalYearOf(eighteen, "2026-12-31")).toEqual({ year: 2027, start: "2026-01-01", end: "2027-06-30" });
    expect(fiscalYearOf(eighteen, "2027-07-01")).toEqual({ year: 2028, start: "2027-07-01", end: "2028-06-30" });
    expect(fiscalYearNamed(eighteen, 2027)).toEqual({ year: 2027, start: "2026-01-01", end: "2027-06-30" });
    expect(fiscalYearNamed(eighteen, 2026)).toBeNull();
    // a date before it (where nothing posts) gets the regular year around it, cut at the first year's start
    expect(fiscalYearOf(eighteen, "2025-12-31")).toEqual({ year: 2026, start: "2025-07-01", end: "2025-12-31" });
  });
});

describe("the settings' rules", () => {
  test("a fiscal year starts on the first of a month", () => {
    expect(parseFiscalYearStart("07-01")).toBe(7);
    expect(parseFiscalYearStart("01-01")).toBe(1);
    for (const bad of ["07-15", "13-01", "00-01", "7-1", "07-01x"]) expect(parseFiscalYearStart(bad)).toBeNull();
  });

  test("a first year lasts 6 to 24 months and ends the day before a fiscal year starts", () => {
    expect(firstYearProblem(7, "2026-01-01", "2026-06-30")).toBeNull(); // 6 months
    expect(firstYearProblem(7, "2025-07-01", "2027-06-30")).toBeNull(); // 24 months
    expect(firstYearProblem(7, "2026-01-15", "2027-06-30")).toBeNull(); // 17 and a half
    expect(firstYearProblem(7, "2026-02-01", "2026-06-30")?.field).toBe("first_fiscal_year_end"); // 5 months
    expect(firstYearProblem(7, "2025-06-01", "2027-06-30")?.field).toBe("first_fiscal_year_end"); // 25 months
    // from the 15th: six months end on the 14th at the earliest
    expect(firstYearProblem(1, "2026-06-15", "2026-12-31")).toBeNull();
    expect(firstYearProblem(1, "2026-07-02", "2026-12-31")?.message).toContain("ends between 2027-01-01 and 2028-07-01");
    expect(firstYearProblem(7, "2026-01-01", "2027-05-31")?.message).toContain("fiscal years start on 07-01");
    expect(firstYearProblem(7, "2026-13-01", "2027-06-30")?.field).toBe("first_fiscal_year_start");
  });
});
