/**
 * An invoice's or credit note's payments by hand (`POST /invoices/{id}/record-payment`,
 * `DELETE /invoices/{id}/payments/{pid}`); the rules are settlement's (server/settlement/payments.ts).
 * Recording refuses: 404 for no such invoice; 409 unless it is finalized, sent or partially paid,
 * or when it holds as many payments as a document may; 422 on `amount` (beyond the amount due)
 * or `bank_account_id` (unknown, inactive, another currency). Deleting refuses: 404 for no such
 * invoice or payment; 409 when the invoice is cancelled.
 * Records: invoice.payment_recorded (audit and event) with the payment's postings; or
 * invoice.payment_deleted (audit; event invoice.updated) with their reversal, the bank line
 * holding the payment released and the invoice's credit notes allocated again to what is due.
 */
import { invoices } from "../../../db/schema.ts";
import { findInOrg, unitOfWork, type Scope } from "../../lib/scope.ts";
import { deletePayment, recordPayment } from "../../settlement/payments.ts";
import type { PaymentInput } from "../model.ts";
import { showInvoice, type ShownInvoice } from "../read.ts";

/** A payment of at most the amount due; the invoice becomes partially_paid or paid (server/settlement). */
export async function recordInvoicePayment(scope: Scope, id: string, input: PaymentInput): Promise<ShownInvoice> {
  return await unitOfWork(scope.db, async (tx) => (await recordPayment(tx, scope, { kind: "invoice", row: await findInOrg(tx, invoices, scope.org.id, id) }, input, showInvoice)).shown);
}

/** Removes a payment (e.g. recorded by mistake); the status follows the remaining payments, a bank line holding it is unmatched. */
export async function deleteInvoicePayment(scope: Scope, id: string, paymentId: string): Promise<void> {
  await unitOfWork(scope.db, async (tx) => deletePayment(tx, scope, { kind: "invoice", row: await findInOrg(tx, invoices, scope.org.id, id) }, paymentId, showInvoice));
}
