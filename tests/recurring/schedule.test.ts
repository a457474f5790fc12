/**
 * A recurring template's periods (server/recurring/schedule.ts), from the calendar: each starts on
 * its day of the month (a short month's last day for the 29th–31st), lasts until the day before
 * the next starts, the first on or after the start date; `count` and `end_date` end the series.
 */
import { describe, expect, test } from "bun:test";
import { firstPeriodAfter, nextPeriodStart, periodEnd, type Schedule } from "../../server/recurring/schedule.ts";

const monthly: Schedule = { interval: "monthly", every: 1, dayOfPeriod: 31, startDate: "2026-01-31", endDate: null, count: null };

describe("periods", () => {
  test("on the 31st: the last day of a short month, and back to the 31st after it", () => {
    expect(nextPeriodStart(monthly, "2026-01-31")).toBe("2026-02-28");
    expect(nextPeriodStart(monthly, "2026-02-28")).toBe("2026-03-31");
    expect(nextPeriodStart(monthly, "2026-03-31")).toBe("2026-04-30");
    // a period lasts until the day before the next starts
    expect(periodEnd(monthly, "2026-01-31")).toBe("2026-02-27");
    expect(periodEnd(monthly, "2026-02-28")).toBe("2026-03-30");
  });

  test("every 2 months, quarterly, every 2 quarters, yearly", () => {
    expect(nextPeriodStart({ ...monthly, every: 2, dayOfPeriod: 1 }, "2026-01-01")).toBe("2026-03-01");
    expect(nextPeriodStart({ ...monthly, interval: "quarterly", dayOfPeriod: 1 }, "2026-01-01")).toBe("2026-04-01");
    expect(nextPeriodStart({ ...monthly, interval: "quarterly", every: 2, dayOfPeriod: 15 }, "2026-01-15")).toBe("2026-07-15");
    expect(nextPeriodStart({ ...monthly, interval: "yearly", dayOfPeriod: 29 }, "2028-02-29")).toBe("2029-02-28");
    expect(periodEnd({ ...monthly, interval: "yearly", dayOfPeriod: 1 }, "2026-01-01")).toBe("2026-12-31");
  });
});

describe("the first period after", () => {
  const on10 = (over: Partial<Schedule> = {}): Schedule => ({ ...monthly, dayOfPeriod: 10, startDate: "2026-01-10", ...over });

  test("the first of all: on the start date when it is the day, else the next such day", () => {
    expect(firstPeriodAfter(on10(), null, 0)).toBe("2026-01-10");
    expect(firstPeriodAfter(on10({ startDate: "2026-01-09" }), null, 0)).toBe("2026-01-10");
    expect(firstPeriodAfter(on10({ startDate: "2026-01-11" }), null, 0)).toBe("2026-02-10");
  });

  test("after a date: the first start later than it", () => {
    expect(firstPeriodAfter(on10(), "2026-01-09", 0)).toBe("2026-01-10");
    expect(firstPeriodAfter(on10(), "2026-01-10", 1)).toBe("2026-02-10");
    expect(firstPeriodAfter(on10(), "2026-03-15", 2)).toBe("2026-04-10");
  });

  test("count: none once that many were generated", () => {
    expect(firstPeriodAfter(on10({ count: 3 }), "2026-02-10", 2)).toBe("2026-03-10");
    expect(firstPeriodAfter(on10({ count: 3 }), "2026-03-10", 3)).toBeNull();
    expect(firstPeriodAfter(on10({ count: 3 }), "2026-03-10", 4)).toBeNull();
  });

  test("end date: a period starting on it is the last; none after it", () => {
    expect(firstPeriodAfter(on10({ endDate: "2026-03-10" }), "2026-02-10", 2)).toBe("2026-03-10");
    expect(firstPeriodAfter(on10({ endDate: "2026-03-09" }), "2026-02-10", 2)).toBeNull();
    expect(firstPeriodAfter(on10({ endDate: "2026-01-09", startDate: "2026-01-05" }), null, 0)).toBeNull();
  });
});
