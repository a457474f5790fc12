/**
 * Editing a draft (`PUT /invoices/{id}`): the fields given change, lines or allowances sent
 * replace the stored ones, and all are priced again when lines, allowances or prices_include_vat
 * change; a due date left at its default follows a new issue date.
 * Refuses: 404 for no such invoice; 409 once it is not a draft; 422 naming each field (as at
 * create; a credit note keeps its invoice's customer and currency and credits at most what is
 * left, `lines`); 409 for an external_id taken.
 * Records: invoice.updated (audit and event, the draft as now shown).
 */
import { eq } from "drizzle-orm";
import { invoiceAllowanceCharges, invoiceLines, invoices } from "../../../db/schema.ts";
import { recordChange } from "../../changes/record.ts";
import { FieldErrorBag } from "../../lib/errors.ts";
import { checkExternalId, normalizeExternalId } from "../../lib/external-ids.ts";
import { inOrg, unitOfWork, type Scope } from "../../lib/scope.ts";
import { addDays } from "../../lib/time.ts";
import { checkAllowancesWithinRates, checkDueDate, checkServicePeriod, readAllowanceCharges, readCustomer, readLines, readNumber } from "../checks.ts";
import { creditedBy, tooMuchCredit } from "../credit-left.ts";
import {
  changeInvoice,
  DEFAULT_PAYMENT_DAYS,
  insertAllowanceCharges,
  insertLines,
  pricedWithinRange,
  storedAllowanceCharges,
  storedLines,
  totalsColumns,
  type InvoiceRow,
} from "../drafts.ts";
import type { InvoiceUpdate } from "../model.ts";
import type { ShownInvoice } from "../read.ts";
import { findFor } from "../transitions.ts";

/** Drafts only: a finalized invoice never changes its lines, totals, customer or number. */
export async function updateInvoice(scope: Scope, id: string, input: InvoiceUpdate): Promise<ShownInvoice> {
  return await unitOfWork(scope.db, async (tx) => {
    const row = await findFor(tx, scope, id, "update");
    const bag = new FieldErrorBag();
    const set: Partial<InvoiceRow> = {};
    if (input.customer_id !== undefined) set.customerId = (await readCustomer(tx, scope.org.id, bag, input.customer_id))?.id;
    // its own number sent back (a provisional one too) is no change
    if (input.number !== undefined && input.number.trim() !== row.number) set.number = await readNumber(tx, scope.org.id, bag, input.number, id);
    if (input.issue_date !== undefined) set.issueDate = input.issue_date;
    if (input.due_date !== undefined) set.dueDate = input.due_date;
    // a due date left at its default (issue date + 30 days: a credit note's always starts so) follows a new issue date
    else if (set.issueDate !== undefined && row.dueDate === addDays(row.issueDate, DEFAULT_PAYMENT_DAYS)) {
      set.dueDate = addDays(set.issueDate, DEFAULT_PAYMENT_DAYS);
    }
    if (input.currency !== undefined) set.currency = input.currency;
    if (input.notes !== undefined) set.notes = input.notes;
    if (input.payment_terms !== undefined) set.paymentTerms = input.payment_terms;
    if (input.buyer_reference !== undefined) set.buyerReference = input.buyer_reference;
    if (input.order_reference !== undefined) set.orderReference = input.order_reference;
    if (input.prices_include_vat !== undefined) set.pricesIncludeVat = input.prices_include_vat;
    if (input.external_id !== undefined) set.externalId = normalizeExternalId(input.external_id);
    // replaced as a whole: {} clears it
    if (input.metadata !== undefined) set.metadata = input.metadata;
    if (input.service_period_start !== undefined) set.servicePeriodStart = input.service_period_start;
    if (input.service_period_end !== undefined) set.servicePeriodEnd = input.service_period_end;
    if (input.delivery_date !== undefined) set.deliveryDate = input.delivery_date;
    checkServicePeriod(bag, set.servicePeriodStart === undefined ? row.servicePeriodStart : set.servicePeriodStart, set.servicePeriodEnd === undefined ? row.servicePeriodEnd : set.servicePeriodEnd);
    const pricesIncludeVat = set.pricesIncludeVat ?? row.pricesIncludeVat;
    const repriced = input.lines !== undefined || input.allowances_charges !== undefined || pricesIncludeVat !== row.pricesIncludeVat;
    // lines or allowances not sent are kept as stored (an allowance's percentage keeps its base), and all are priced again
    const lines = !repriced ? null : input.lines === undefined ? await storedLines(tx, scope.org.id, id) : await readLines(tx, scope.org.id, bag, input.lines, pricesIncludeVat);
    const allowanceCharges = !lines
      ? null
      : input.allowances_charges === undefined
        ? await storedAllowanceCharges(tx, scope.org.id, id)
        : await readAllowanceCharges(tx, scope.org.id, bag, input.allowances_charges, lines);
    if (lines && allowanceCharges && input.allowances_charges === undefined) checkAllowancesWithinRates(bag, lines, allowanceCharges);
    const priced = lines && allowanceCharges && pricedWithinRange(bag, pricesIncludeVat, lines, allowanceCharges);
    checkDueDate(bag, set.issueDate ?? row.issueDate, set.dueDate ?? row.dueDate);
    if (row.type === "credit_note" && row.relatedInvoiceId) {
      // a credit note credits its invoice: the invoice's customer and currency, at most what is left
      const { invoice, leftCents } = await creditedBy(tx, scope.org.id, row);
      if (set.customerId !== undefined && set.customerId !== invoice.customerId) {
        bag.add("customer_id", "A credit note keeps the customer of the invoice it credits.");
      }
      if (set.currency !== undefined && set.currency !== invoice.currency) bag.add("currency", "A credit note keeps the currency of the invoice it credits.");
      if (priced && priced.totals.totalCents > leftCents) bag.add("lines", tooMuchCredit(invoice, leftCents));
    }
    bag.throwIfAny();
    await checkExternalId(tx, invoices, "invoice", scope.org.id, set.externalId, id);
    if (priced && allowanceCharges) {
      await tx.delete(invoiceLines).where(inOrg(invoiceLines, scope.org.id, eq(invoiceLines.invoiceId, id)));
      await tx.delete(invoiceAllowanceCharges).where(inOrg(invoiceAllowanceCharges, scope.org.id, eq(invoiceAllowanceCharges.invoiceId, id)));
      await insertLines(tx, scope.org.id, id, priced.lines);
      await insertAllowanceCharges(tx, scope.org.id, id, allowanceCharges);
      Object.assign(set, totalsColumns(priced.totals));
    }
    const shown = await changeInvoice(tx, scope.org.id, id, set);
    await recordChange(tx, scope, { action: "invoice.updated", resource: { type: "invoice", id }, event: "invoice.updated", data: shown });
    return shown;
  });
}
