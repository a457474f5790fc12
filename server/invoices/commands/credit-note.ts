/**
 * Crediting an invoice (`POST /invoices/{id}/credit-note`): a draft credit note, related to the
 * invoice, with its customer, currency and references, issued today; the lines given, or the
 * invoice's lines (and allowances and charges) copied as written when nothing else credits it.
 * Refuses: 404 for no such invoice; 409 for a draft or cancelled one, a credit note, or an
 * invoice credited in full; 422 on `lines` (more than is left to credit, no lines given when
 * part is credited already, a line's fields); 409 for an external_id taken.
 * Records: invoice.created (audit and event, the credit note as shown).
 */
import { asc, eq } from "drizzle-orm";
import { invoiceLines } from "../../../db/schema.ts";
import { Conflict, FieldErrorBag } from "../../lib/errors.ts";
import { normalizeExternalId } from "../../lib/external-ids.ts";
import { formatCents } from "../../lib/money.ts";
import { inOrg, unitOfWork, type Scope } from "../../lib/scope.ts";
import { addDays, today } from "../../lib/time.ts";
import { nounOf, priceDraft, readLines, type NewAllowanceCharge, type NewLine } from "../checks.ts";
import { creditLeftCents, tooMuchCredit } from "../credit-left.ts";
import { DEFAULT_PAYMENT_DAYS, insertDraft, storedAllowanceCharges } from "../drafts.ts";
import type { CreditNoteInput } from "../model.ts";
import type { ShownInvoice } from "../read.ts";
import { findFor } from "../transitions.ts";

/**
 * A draft credit note for the invoice: its customer and currency, issued today, with the lines
 * given (positive amounts: the type says it credits) or, without lines, the invoice's lines
 * copied as they were written (every field, at the rates of then) when nothing else credits it
 * yet. Never more than is left to credit (422 on `lines`); nothing left at all is a 409.
 */
export async function creditInvoice(scope: Scope, id: string, input: CreditNoteInput = {}): Promise<ShownInvoice> {
  return await unitOfWork(scope.db, async (tx) => {
    const original = await findFor(tx, scope, id, "creditNote");
    if (original.type !== "invoice") throw new Conflict(`The ${nounOf(original.type)} is ${original.status}; only an invoice can be credited.`);
    const leftCents = await creditLeftCents(tx, scope.org.id, original, null);
    if (leftCents <= 0) {
      throw new Conflict(`The invoice is ${original.status} and credited in full; nothing is left to credit.`);
    }
    const bag = new FieldErrorBag();
    let lines: NewLine[];
    // the invoice's document allowances and charges go with a copy of all its lines (pricing.test.ts)
    let allowanceCharges: NewAllowanceCharge[] = [];
    if (input.lines !== undefined) {
      lines = await readLines(tx, scope.org.id, bag, input.lines, original.pricesIncludeVat);
    } else if (leftCents < original.totalCents) {
      bag.add("lines", `Invoice ${original.number} has credit notes already: give the lines to credit (at most ${formatCents(leftCents)} is left to credit).`);
      lines = [];
    } else {
      lines = (await tx
        .select()
        .from(invoiceLines)
        .where(inOrg(invoiceLines, scope.org.id, eq(invoiceLines.invoiceId, id)))
        .orderBy(asc(invoiceLines.sortOrder)))
        // the line as written: its prices, discounts and shares are the invoice's, not priced again
        .map(({ id: _id, organizationId: _org, invoiceId: _invoice, sortOrder: _order, ...line }) => line);
      allowanceCharges = await storedAllowanceCharges(tx, scope.org.id, id);
    }
    if (lines.length > 0 && priceDraft(original.pricesIncludeVat, lines, allowanceCharges).totals.totalCents > leftCents) {
      bag.add("lines", tooMuchCredit(original, leftCents));
    }
    bag.throwIfAny();
    const issueDate = today();
    return insertDraft(
      tx,
      scope,
      {
        customerId: original.customerId,
        type: "credit_note",
        relatedInvoiceId: original.id,
        issueDate,
        dueDate: addDays(issueDate, DEFAULT_PAYMENT_DAYS),
        currency: original.currency,
        notes: null,
        paymentTerms: original.paymentTerms,
        // the buyer's references still name what is credited
        buyerReference: original.buyerReference,
        orderReference: original.orderReference,
        pricesIncludeVat: original.pricesIncludeVat,
        externalId: normalizeExternalId(input?.external_id ?? null),
        metadata: input?.metadata ?? {},
      },
      lines,
      null,
      allowanceCharges,
    );
  });
}
