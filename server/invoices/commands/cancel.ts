/**
 * Cancelling an issued document (`POST /invoices/{id}/cancel`): an invoice without payments and
 * without credit notes, or a credit note on which nothing was refunded, whose allocation goes
 * back to its invoice (and is settled first by the invoice's other credit notes' unpaid refunds).
 * Refuses: 404 for no such invoice; 409 for a draft (delete it), a paid or partially paid
 * invoice, an invoice a credit note credits (cancel that first), a credit note with refunds.
 * Records: invoice.cancelled (audit; event invoice.updated) with the reversal of the document's
 * postings; invoice.credited on the invoice when its credit notes were allocated again.
 */
import { invoices } from "../../../db/schema.ts";
import { recordChange } from "../../changes/record.ts";
import { Conflict } from "../../lib/errors.ts";
import { formatCents } from "../../lib/money.ts";
import { findInOrg, unitOfWork, type Scope } from "../../lib/scope.ts";
import { reallocateCreditNotes, releaseCreditNote } from "../../settlement/credits.ts";
import { creditNotesOf } from "../credit-left.ts";
import { changeInvoice, type InvoiceRow } from "../drafts.ts";
import { showInvoice, type ShownInvoice } from "../read.ts";
import { findFor } from "../transitions.ts";
import { firstRow } from "../../../db/client.ts";

/**
 * An invoice without payments and without credit notes (a credit note settles it: cancel that
 * first, or delete its draft), or a credit note on which nothing was refunded: its allocation
 * goes back to its invoice.
 */
export async function cancelInvoice(scope: Scope, id: string): Promise<ShownInvoice> {
  return await unitOfWork(scope.db, async (tx) => {
    const found = await findInOrg(tx, invoices, scope.org.id, id);
    let row: InvoiceRow;
    if (found.type === "credit_note") {
      row = await findFor(tx, scope, id, "cancelCreditNote");
      if (row.paidCents > 0) {
        throw new Conflict(`The credit note is ${row.status}; ${formatCents(row.paidCents)} was refunded on it: a credit note with refunds cannot be cancelled (delete the refunds first).`);
      }
    } else {
      const note = await firstRow(tx.select({ id: invoices.id, number: invoices.number, status: invoices.status }).from(invoices).where(creditNotesOf(scope.org.id, id, null)).limit(1));
      if (note && found.status !== "draft" && found.status !== "cancelled") {
        throw new Conflict(
          `The invoice is ${found.status}; credit note ${note.number} (${note.id}, ${note.status}) credits it: cancel that credit note (or delete its draft) before cancelling the invoice.`,
        );
      }
      // "without payments" needs no check of its own: a payment moves the status on
      row = await findFor(tx, scope, id, "cancel");
    }
    await releaseCreditNote(tx, scope, row, showInvoice);
    const shown = await changeInvoice(tx, scope.org.id, id, { status: "cancelled" });
    await recordChange(tx, scope, {
      action: "invoice.cancelled",
      resource: { type: "invoice", id },
      event: "invoice.updated",
      data: shown,
      ledger: [{ reverse: { type: "invoice", id } }],
    });
    // what the cancelled note gave back is settled first by its invoice's other credit notes' unpaid refunds
    const invoiceId = row.type === "credit_note" && row.creditedCents > 0 ? row.relatedInvoiceId : null;
    if (invoiceId && await reallocateCreditNotes(tx, scope, invoiceId, showInvoice)) {
      await recordChange(tx, scope, { action: "invoice.credited", resource: { type: "invoice", id: invoiceId }, event: "invoice.updated", data: await showInvoice(tx, scope.org.id, invoiceId) });
    }
    return shown;
  });
}
