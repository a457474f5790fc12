/** The dates a report or an export covers, as query parameters give them. */
import { ValidationFailed } from "./errors.ts";
import { isValidDate, today } from "./time.ts";

/** A date query parameter (422 on `field` when it is not a date), or `fallback` when absent. */
export function dayOf(field: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  if (!isValidDate(value)) throw ValidationFailed.field(field, `The ${field} field must be a date (YYYY-MM-DD).`);
  return value;
}

/** `from` and `to` as dates, `to` today by default and `from` after `fromDefault(to)`; 422 on from when it comes after to. */
export function periodOf<F extends string | null>(query: { from?: string; to?: string }, fromDefault: (to: string) => F): { from: F | string; to: string } {
  const to = dayOf("to", query.to, today());
  const from = query.from === undefined ? fromDefault(to) : dayOf("from", query.from, query.from);
  if (from !== null && from > to) throw ValidationFailed.field("from", `The from date (${from}) must not be after the to date (${to}).`);
  return { from, to };
}

/** The last day (28–31) of a month, `month` 1–12. */
export function lastDayOfMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * The date `months` months after `date`'s month, on `day` (1–31) of that month or, in a shorter
 * month, on its last day: the 31st of a 30-day month falls on the 30th, 29 February on the 28th
 * of a common year. Computed from the month, not from the previous date, so a series on the 31st
 * returns to the 31st after a short month.
 */
export function addMonthsOnDay(date: string, months: number, day: number): string {
  const index = Number(date.slice(0, 4)) * 12 + Number(date.slice(5, 7)) - 1 + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  const onDay = Math.min(day, lastDayOfMonth(year, month));
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(onDay).padStart(2, "0")}`;
}
