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
