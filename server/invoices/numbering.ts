/** The numbers issued to a customer: the invoice number per type and year, and the payment reference. */
import { eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { invoices } from "../../db/schema.ts";
import { drawSequence } from "../lib/sequences.ts";
import { inOrg } from "../lib/scope.ts";
import { paymentReference } from "../documents/payment-reference.ts";
import type { InvoiceType } from "./model.ts";
import { numberTaken } from "./checks.ts";

const NUMBER_PREFIX: Record<InvoiceType, string> = { invoice: "INV", credit_note: "CN" };
/** number_sequences.kind of the payment references (year 0: one sequence for all years) */
const PAYMENT_REFERENCE_SEQUENCE = "payment_reference";


/**
 * The next number of the organisation's sequence for this type and year (INV-2026-00001).
 * Numbers already given by hand are skipped.
 */
export function nextNumber(tx: Tx, orgId: string, type: InvoiceType, issueDate: string): string {
  const year = Number(issueDate.slice(0, 4));
  for (;;) {
    const lastValue = drawSequence(tx, orgId, type, year);
    const number = `${NUMBER_PREFIX[type]}-${year}-${String(lastValue).padStart(5, "0")}`;
    if (!numberTaken(tx, orgId, number)) return number;
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
export function nextPaymentReference(tx: Tx, orgId: string, country: string): string {
  for (;;) {
    const lastValue = drawSequence(tx, orgId, PAYMENT_REFERENCE_SEQUENCE, 0);
    const reference = paymentReference(country, lastValue);
    const taken = tx
      .select({ id: invoices.id })
      .from(invoices)
      .where(inOrg(invoices, orgId, eq(invoices.paymentReference, reference)))
      .get();
    if (!taken) return reference;
  }
}
