/**
 * The numbers issued to a customer: the definitive number of an invoice or
 * credit note, drawn at finalize from its series, the provisional number of a draft, and the
 * payment reference.
 *
 * A series is per organisation, per type and per year (the issue date's): INV-2026-00001, credit
 * notes CN-2026-00001. Its counter (number_sequences, kind = the type) is drawn in the finalize's
 * transaction, so a refused or failed finalize gives its number back and parallel finalizes are
 * serialised by SQLite's write lock: the issued numbers of a series run 1, 2, 3… without a gap,
 * and their issue dates never go back. A draft carries `DRAFT-` and a short suffix of its id,
 * which is visibly no number of a series; a number the client gives is kept as given (its series
 * is the client's) and may not look like either.
 */
import { and, eq, ne } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { invoices, numberSequences } from "../../db/schema.ts";
import { ValidationFailed } from "../lib/errors.ts";
import { drawSequence } from "../lib/sequences.ts";
import { inOrg } from "../lib/scope.ts";
import { paymentReference } from "../documents/payment-reference.ts";
import type { InvoiceType } from "./model.ts";
import { firstRow } from "../../db/client.ts";

const SERIES_PREFIX: Record<InvoiceType, string> = { invoice: "INV", credit_note: "CN", interest_note: "INT" };
/** number_sequences.kind of the payment references (year 0: one sequence for all years) */
const PAYMENT_REFERENCE_SEQUENCE = "payment_reference";

/** The prefix of a draft's provisional number: a draft without a number of its own is DRAFT-1c8e4f2a. */
export const PROVISIONAL_PREFIX = "DRAFT-";

/** Whether a draft's number is provisional (finalize replaces it by the next of its series) rather than the client's. */
export const isProvisional = (number: string): boolean => number.startsWith(PROVISIONAL_PREFIX);

/**
 * The form of the automatic series, refused as a client's number: INV-, CN- and INT- (interest
 * notes), a year and at least five digits, in any case.
 */
const SERIES_FORM = /^(INV|CN|INT)-\d{4}-\d{5,}$/i;

/** Why a number given by the client cannot be kept, or null when it can (uniqueness aside). */
export function reservedNumberForm(number: string): string | null {
  if (SERIES_FORM.test(number)) {
    return "The number must not have the form of an automatic series (INV-2026-00001, CN-2026-00001): those numbers are given at finalize. Leave it out to have the next of the series.";
  }
  if (number.toUpperCase().startsWith(PROVISIONAL_PREFIX)) {
    return "The number must not start with DRAFT-: that is the form of a draft's provisional number. Leave it out to have one.";
  }
  return null;
}

/**
 * The provisional number of a new draft: DRAFT- and the last 8 hex digits of its id (random in a
 * UUID v7), longer in the rare case another document of the organisation holds that already.
 * Migration 0022 gave the drafts it found the same form.
 */
export async function provisionalNumber(tx: Tx, orgId: string, id: string): Promise<string> {
  const hex = id.replaceAll("-", "").toLowerCase();
  for (const length of [8, 12, hex.length]) {
    const number = PROVISIONAL_PREFIX + hex.slice(-length);
    if (!await numberHolder(tx, orgId, number)) return number;
  }
  throw new Error(`no provisional number is free for draft ${id}`);
}

/** The document of the organisation holding the number (any status), if any: numbers are unique per organisation. */
export async function numberHolder(tx: Tx, orgId: string, number: string, exceptId?: string): Promise<{ id: string; type: InvoiceType } | undefined> {
  return await firstRow(tx
    .select({ id: invoices.id, type: invoices.type })
    .from(invoices)
    .where(inOrg(invoices, orgId, eq(invoices.number, number), exceptId ? ne(invoices.id, exceptId) : undefined)));
}

const format = (type: InvoiceType, year: number, value: number) => `${SERIES_PREFIX[type]}-${year}-${String(value).padStart(5, "0")}`;

/** The issued document holding the number, if any. */
async function issuedWith(tx: Tx, orgId: string, number: string): Promise<{ number: string; issueDate: string } | undefined> {
  return await firstRow(tx
    .select({ number: invoices.number, issueDate: invoices.issueDate })
    .from(invoices)
    .where(inOrg(invoices, orgId, eq(invoices.number, number), ne(invoices.status, "draft"))));
}

/**
 * The last issued number of a series: the one its counter holds. Only finalize draws a series'
 * counter (migration 0022 set each to its highest issued number), and a draw rolls back with a
 * finalize that fails, so the counter's value is always a number an issued document holds.
 */
async function lastOfSeries(tx: Tx, orgId: string, type: InvoiceType, year: number): Promise<{ number: string; issueDate: string } | undefined> {
  const counter = await firstRow(tx
    .select({ lastValue: numberSequences.lastValue })
    .from(numberSequences)
    .where(and(eq(numberSequences.organizationId, orgId), eq(numberSequences.kind, type), eq(numberSequences.year, year))));
  return counter ? await issuedWith(tx, orgId, format(type, year, counter.lastValue)) : undefined;
}

/**
 * The definitive number of a document being finalized: the next of its series (its type, the
 * year of its issue date), drawn in the finalize's transaction. A document dated before the last
 * number of its series is refused (422 on issue_date, naming that number): the numbers of a
 * series follow their issue dates. A number of the series held already (by a document issued
 * before migration 0022, numbered by hand) is passed over: it is issued, so the series keeps no
 * gap.
 */
export async function nextSeriesNumber(tx: Tx, orgId: string, document: { type: InvoiceType; issueDate: string }): Promise<string> {
  const year = Number(document.issueDate.slice(0, 4));
  const last = await lastOfSeries(tx, orgId, document.type, year);
  if (last && document.issueDate < last.issueDate) {
    throw ValidationFailed.field(
      "issue_date",
      `The issue date must not be before ${last.issueDate}, the issue date of ${last.number}, the last number of its series: the numbers of a series follow their issue dates.`,
    );
  }
  for (;;) {
    const number = format(document.type, year, await drawSequence(tx, orgId, document.type, year));
    if (!await numberHolder(tx, orgId, number)) return number;
  }
}

/**
 * The payment reference of a document being finalized (invoices and credit notes alike): the
 * next value of the organisation's payment-reference sequence (one sequence, not per year: the
 * ten digits last long), as a Belgian structured communication or an ISO 11649 reference
 * (server/documents/payment-reference.ts). Drawn in the finalize's transaction, as numbers are;
 * a value already used (the country changed between formats, or a hand-made row) is skipped, so
 * the partial unique index invoices_org_payment_reference never refuses a finalize.
 */
export async function nextPaymentReference(tx: Tx, orgId: string, country: string): Promise<string> {
  for (;;) {
    const lastValue = await drawSequence(tx, orgId, PAYMENT_REFERENCE_SEQUENCE, 0);
    const reference = paymentReference(country, lastValue);
    const taken = await firstRow(tx
      .select({ id: invoices.id })
      .from(invoices)
      .where(inOrg(invoices, orgId, eq(invoices.paymentReference, reference))));
    if (!taken) return reference;
  }
}
