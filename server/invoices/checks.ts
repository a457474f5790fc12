/** What an invoice's input must satisfy before anything is written: its customer, number, lines and dates (422s). */
import { eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { customers } from "../../db/schema.ts";
import { UNIT_CODES } from "../documents/unit-codes.ts";
import type { PartyRow } from "../contacts/party-service.ts";
import { FieldErrorBag } from "../lib/errors.ts";
import { formatCents, MAX_CENTS, readMoney } from "../lib/money.ts";
import { inOrg } from "../lib/scope.ts";
import { readVatRate } from "../vat-rates/service.ts";
import type { LineInput } from "./model.ts";
import { priceLine, totalsOf, type PricedLine } from "./totals.ts";
import { numberHolder, reservedNumberForm } from "./numbering.ts";

// all collected, then thrown together as one 422 (FieldErrorBag)

export function readCustomer(tx: Tx, orgId: string, bag: FieldErrorBag, id: string): PartyRow | null {
  const row = tx.select().from(customers).where(inOrg(customers, orgId, eq(customers.id, id))).get();
  if (!row) bag.add("customer_id", "The selected customer id is invalid.");
  return row ?? null;
}

/**
 * A number given by the client: trimmed, not blank, not in the form of an automatic series or of
 * a provisional number (numbering.ts), unique in the organisation (the refusal names the document
 * holding it).
 */
export function readNumber(tx: Tx, orgId: string, bag: FieldErrorBag, input: string, exceptId?: string): string {
  const number = input.trim();
  if (number === "") {
    bag.add("number", "The number field must not be empty.");
    return number;
  }
  const reserved = reservedNumberForm(number);
  if (reserved) {
    bag.add("number", reserved);
    return number;
  }
  const holder = numberHolder(tx, orgId, number, exceptId);
  if (holder) bag.add("number", `The number has already been taken, by ${holder.type === "credit_note" ? "credit note" : "invoice"} ${holder.id}.`);
  return number;
}

export type NewLine = PricedLine & { description: string; unitCode: string; vatRateId: string | null };

/** The unit of a line without one: C62, "one" (UN/ECE Recommendation 20). */
export const DEFAULT_UNIT_CODE = "C62";

/** Reads and prices the lines; errors are keyed `lines.N.field`. */
export function readLines(tx: Tx, orgId: string, bag: FieldErrorBag, input: LineInput[]): NewLine[] {
  const lines: NewLine[] = [];
  input.forEach((line, i) => {
    const field = `lines.${i}`;
    const description = line.description.trim();
    if (description === "") bag.add(`${field}.description`, `The ${field}.description field must not be empty.`);
    const quantityCents = readMoney(bag, `${field}.quantity`, line.quantity, { min: 1 });
    const unitPriceCents = readMoney(bag, `${field}.unit_price`, line.unit_price, { min: 0 });
    const rate = line.vat_rate_id ? readVatRate(tx, orgId, bag, `${field}.vat_rate_id`, line.vat_rate_id) : null;
    if (line.unit_code !== undefined && !UNIT_CODES.has(line.unit_code)) {
      bag.add(`${field}.unit_code`, `The ${field}.unit_code field must be a UN/ECE Recommendation 20 or 21 unit code (e.g. C62, HUR, DAY, KGM).`);
    }
    if (quantityCents === null || unitPriceCents === null) return;
    const priced = priceLine({ quantityCents, unitPriceCents, vatRateBp: rate?.rateBp ?? 0 });
    if (priced.amountCents + priced.vatCents > MAX_CENTS) {
      bag.add(field, `The amount of line ${i + 1} (quantity × unit price, with VAT) must not be greater than ${formatCents(MAX_CENTS)}.`);
      return;
    }
    lines.push({ ...priced, description, unitCode: line.unit_code ?? DEFAULT_UNIT_CODE, vatRateId: rate?.id ?? null });
  });
  if (lines.length === input.length && totalsOf(lines).totalCents > MAX_CENTS) {
    bag.add("lines", `The invoice total must not be greater than ${formatCents(MAX_CENTS)}.`);
  }
  return lines;
}

export function checkDueDate(bag: FieldErrorBag, issueDate: string, dueDate: string): void {
  if (dueDate < issueDate) bag.add("due_date", "The due date must be a date after or equal to the issue date.");
}

/** The latest date it is somewhere on Earth now (UTC+14): the server's clock knows no organisation's time zone. */
function latestToday(): string {
  return new Date(Date.now() + 14 * 3_600_000).toISOString().slice(0, 10);
}

/**
 * A document is finalized on or after its issue date (contract section 3): an issue date later
 * than today is refused. Today is taken in the latest time zone, so that no one's today is
 * refused whatever the server's clock says.
 */
export function checkIssueDateNotFuture(bag: FieldErrorBag, issueDate: string): void {
  if (issueDate > latestToday()) {
    bag.add("issue_date", `The issue date must not be in the future: ${issueDate} has not begun yet; a document is finalized on or after its issue date.`);
  }
}
