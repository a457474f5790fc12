/**
 * How many of a kind one resource holds at most, for what a resource embeds without a limit of
 * its own request: each is added one request at a time, so only a count bounds it. With the
 * limits of every text (docs/api.md#limits), these bound the largest resource and so the largest
 * page a list or the events feed can answer (docs/api.md#largest-pages). Adding one more than
 * the limit is a 422 naming the field that is full, never a row dropped.
 */
import { ValidationFailed } from "./errors.ts";

export const MAX_HELD = {
  /** payments of one invoice or one expense (record-payment and bank lines alike): instalments, never thousands */
  payments: 100,
  /** contact persons of one customer (embedded in each of its invoices) */
  contact_persons: 25,
  /** allocations of one bank line, however many matches made them */
  allocations: 100,
} as const;

/** Expenses one payment run pays at most: the earliest due first; the rest wait for the next run. */
export const MAX_PAYMENT_RUN_ITEMS = 500;

/** Refuses adding `adding` to `held` of `kind` when the holder would then hold more than it may (422 on `field`). */
export function checkRoom(kind: keyof typeof MAX_HELD, held: number, adding: number, holder: string, field: string = kind): void {
  const max = MAX_HELD[kind];
  if (held + adding <= max) return;
  const what = kind.replace("_", " ");
  throw ValidationFailed.field(field, `${holder} holds ${held} ${what}; it holds at most ${max} (docs/api.md#limits).`);
}
