/**
 * A template's periods. Each starts on `day_of_period` of its first month (a shorter month's last
 * day for the 29th–31st) and lasts until the day before the next one starts; the first is the
 * first such date on or after `start_date`, the next ones `every` intervals apart, counted from
 * the month so that a series on the 31st comes back to the 31st after a short month.
 */
import { addMonthsOnDay } from "../lib/period.ts";
import { addDays } from "../lib/time.ts";
import type { RecurringInterval } from "./model.ts";

export type Schedule = {
  interval: RecurringInterval;
  every: number;
  dayOfPeriod: number;
  startDate: string;
  endDate: string | null;
  count: number | null;
};

const MONTHS: Record<RecurringInterval, number> = { monthly: 1, quarterly: 3, yearly: 12 };

const stepOf = (s: Schedule) => MONTHS[s.interval] * s.every;

/** The start of the period after the one starting on `start`. */
export function nextPeriodStart(s: Schedule, start: string): string {
  return addMonthsOnDay(start, stepOf(s), s.dayOfPeriod);
}

/** The last day of the period starting on `start`: the day before the next starts. */
export function periodEnd(s: Schedule, start: string): string {
  return addDays(nextPeriodStart(s, start), -1);
}

/**
 * The first period start of the series after `after` (null: the first of all), or null when
 * `end_date` or `count` (with `generated` invoices so far) leaves none.
 */
export function firstPeriodAfter(s: Schedule, after: string | null, generated: number): string | null {
  if (s.count !== null && generated >= s.count) return null;
  const inMonth = addMonthsOnDay(s.startDate, 0, s.dayOfPeriod);
  let start = inMonth >= s.startDate ? inMonth : nextPeriodStart(s, inMonth);
  // at most one step per period since the start: dates end in 2999 (isValidDate)
  while (after !== null && start <= after) start = nextPeriodStart(s, start);
  return s.endDate !== null && start > s.endDate ? null : start;
}
