/**
 * Finalizing a draft (`POST /invoices/{id}/finalize`, create with `finalize: true`, the
 * recurring run, an interest note): its number drawn (a provisional one becomes the next of its
 * series), its payment reference, its parties and customer as issued, its supply date; a credit
 * note is allocated to the invoice it credits (server/settlement/credits.ts). With the
 * organisation's send_on_finalize, a delivery is queued in the same unit.
 * Refuses: 404 for no such invoice; 409 once it is not a draft, or for a credit note of a
 * cancelled invoice; 422 naming each field its PDF or e-invoice lacks (readiness.ts), an issue
 * date in the future, a credit note crediting more than is left (`lines`).
 * Records: invoice.finalized (audit and event, with the document links) and the invoice's
 * postings (ledger/rules.ts invoicePosting); a credit note's allocation records invoice.updated
 * on its invoice (settlement).
 */
import { eq } from "drizzle-orm";
import { customers, invoices, organizations } from "../../../db/schema.ts";
import { recordChange } from "../../changes/record.ts";
import { supplyDateOf } from "../../documents/legal-mentions.ts";
import { documentLinks } from "../../documents/links.ts";
import { invoicePosting } from "../../ledger/rules.ts";
import { Conflict, FieldErrorBag } from "../../lib/errors.ts";
import { findInOrg, unitOfWork, type Scope } from "../../lib/scope.ts";
import { nowIso } from "../../lib/time.ts";
import { allocateCreditNote } from "../../settlement/credits.ts";
import { checkIssueDateNotFuture } from "../checks.ts";
import { creditedBy, tooMuchCredit } from "../credit-left.ts";
import { sendOnFinalize } from "../deliveries.ts";
import { currentParties } from "../document.ts";
import { changeInvoice, type InvoiceRow } from "../drafts.ts";
import { issuedCustomer } from "../issued-customer.ts";
import { isProvisional, nextPaymentReference, nextSeriesNumber } from "../numbering.ts";
import { showInvoice, type ShownInvoice } from "../read.ts";
import { readinessOf } from "../readiness.ts";
import { findFor } from "../transitions.ts";
import { firstRow } from "../../../db/client.ts";

/**
 * Issues the draft: a provisional number becomes the next of its series (numbering.ts), drawn
 * here, in the transaction that a refusal rolls back with the number; a client's number stays.
 */
export async function finalizeInvoice(scope: Scope, id: string, options: { sendOnFinalize?: boolean } = {}): Promise<ShownInvoice> {
  return await unitOfWork(scope.db, async (tx) => {
    const row = await findFor(tx, scope, id, "finalize");
    const bag = new FieldErrorBag();
    if (row.type === "credit_note" && row.relatedInvoiceId) {
      const { invoice, leftCents } = await creditedBy(tx, scope.org.id, row);
      if (invoice.status === "cancelled") throw new Conflict(`The invoice ${invoice.number} it credits is cancelled; a credit note of a cancelled invoice cannot be finalized.`);
      if (row.totalCents > leftCents) bag.add("lines", tooMuchCredit(invoice, leftCents));
    }
    checkIssueDateNotFuture(bag, row.issueDate);
    // nothing is issued that its PDF or, when it must be one, its e-invoice could not carry
    for (const [field, messages] of Object.entries((await readinessOf(tx, scope.org.id, id)).problems)) for (const message of messages) bag.add(field, message);
    bag.throwIfAny();
    const issued: InvoiceRow = { ...row, number: isProvisional(row.number) ? await nextSeriesNumber(tx, scope.org.id, row) : row.number };
    const parties = await currentParties(tx, scope.org.id, row.customerId);
    let shown = await changeInvoice(tx, scope.org.id, id, {
      number: issued.number,
      status: "finalized",
      finalizedAt: nowIso(),
      paymentReference: await nextPaymentReference(tx, scope.org.id, scope.org.country),
      // the document says from now on what it says today, whatever is edited afterwards
      issuedParties: parties,
      // and so does the customer it embeds (docs/api.md#embedded-data)
      issuedCustomer: await issuedCustomer(tx, await findInOrg(tx, customers, scope.org.id, row.customerId), parties.buyer),
      // a German seller's Leistungsdatum: the issue date when neither it nor a period was given
      deliveryDate: supplyDateOf(
        { ...row, servicePeriod: row.servicePeriodStart && row.servicePeriodEnd ? { start: row.servicePeriodStart, end: row.servicePeriodEnd } : null },
        parties.seller.country,
      ),
    });
    // a credit note settles its invoice (its invoice.updated is recorded there); the note shows its allocation
    if (row.type === "credit_note") {
      await allocateCreditNote(tx, scope, await findInOrg(tx, invoices, scope.org.id, id), showInvoice);
      shown = await showInvoice(tx, scope.org.id, id);
    }
    await recordChange(tx, scope, {
      action: "invoice.finalized",
      resource: { type: "invoice", id },
      event: "invoice.finalized",
      data: shown,
      links: documentLinks(id),
      ledger: [{ post: await invoicePosting(tx, issued) }],
    });
    const { sendOnFinalize: channel } = (await firstRow(tx.select({ sendOnFinalize: organizations.sendOnFinalize }).from(organizations).where(eq(organizations.id, scope.org.id))))!;
    if (channel !== null && options.sendOnFinalize !== false) await sendOnFinalize(tx, scope, id, channel);
    return shown;
  });
}
