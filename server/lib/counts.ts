/**
 * How many of a kind one resource holds at most, for what a resource embeds without a limit of
 * its own request: each is added one request at a time, so only a count bounds it. With the
 * limits of every text (docs/api.md#limits), these bound the largest resource and so the largest
 * page a list or the events feed can answer (docs/api.md#the-largest-page). Adding one more than
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
  /** statutory interest rate periods of one country (`kontor rates add`): two a year, so centuries of them */
  statutory_rates: 1000,
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

/**
 * How long a text the server itself writes from what another party answered may be when stored: a
 * delivery's last_error and an attempt's detail (a remote SMTP or Peppol server's reply), a
 * provider's reference, a webhook endpoint's error. It is cut there, with "…", so no remote
 * server can make a row (and a page of rows) as large as it likes; it is never client data.
 */
export const MAX_SERVER_TEXT = 1000;

/** `text` cut to at most `max` characters (code points), the last of them "…" when it was longer. */
export function clipServerText<T extends string | null | undefined>(text: T, max: number = MAX_SERVER_TEXT): T {
  if (text == null || text.length <= max) return text;
  const points = Array.from(text);
  if (points.length <= max) return text;
  return (points.slice(0, max - 1).join("") + "…") as T;
}
