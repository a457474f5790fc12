/**
 * Creating an invoice (`POST /invoices`, each item of `POST /invoices/batch`, the recurring run):
 * a draft of the customer's, its lines, allowances and charges priced and checked, numbered
 * DRAFT-… unless a number is given; with `finalize: true` finalized in the same unit
 * (commands/finalize.ts), so a refused finalize stores nothing.
 * Refuses: 422 naming each field (an unknown or inactive customer, a line's or allowance's
 * fields, a total beyond the range, a due date before the issue date, a service period that ends
 * before it starts, a number taken or malformed); 409 for an external_id taken; a finalize's own
 * refusals.
 * Records: invoice.created (audit and event, the draft as shown); then what finalize records.
 */
import { normalizeExternalId } from "../../lib/external-ids.ts";
import { FieldErrorBag } from "../../lib/errors.ts";
import { unitOfWork, type Scope } from "../../lib/scope.ts";
import { addDays } from "../../lib/time.ts";
import { checkDueDate, checkServicePeriod, readAllowanceCharges, readCustomer, readLines, readNumber } from "../checks.ts";
import { DEFAULT_PAYMENT_DAYS, insertDraft, orgPricesIncludeVat, pricedWithinRange } from "../drafts.ts";
import type { InvoiceCreate } from "../model.ts";
import type { ShownInvoice } from "../read.ts";
import { finalizeInvoice } from "./finalize.ts";

/**
 * A draft; with `finalize: true` finalized in the same transaction, so a refused finalize stores
 * nothing. `recurringInvoiceId`: the template generating it (server/recurring), not an API field.
 */
export async function createInvoice(scope: Scope, input: InvoiceCreate, recurringInvoiceId: string | null = null): Promise<ShownInvoice> {
  return await unitOfWork(scope.db, async (tx) => {
    const bag = new FieldErrorBag();
    const customer = await readCustomer(tx, scope.org.id, bag, input.customer_id);
    const pricesIncludeVat = input.prices_include_vat ?? await orgPricesIncludeVat(tx, scope.org.id);
    const lines = await readLines(tx, scope.org.id, bag, input.lines, pricesIncludeVat);
    const allowanceCharges = await readAllowanceCharges(tx, scope.org.id, bag, input.allowances_charges ?? [], lines);
    pricedWithinRange(bag, pricesIncludeVat, lines, allowanceCharges);
    const dueDate = input.due_date ?? addDays(input.issue_date, DEFAULT_PAYMENT_DAYS);
    checkDueDate(bag, input.issue_date, dueDate);
    checkServicePeriod(bag, input.service_period_start ?? null, input.service_period_end ?? null);
    const number = input.number === undefined ? null : await readNumber(tx, scope.org.id, bag, input.number);
    bag.throwIfAny();
    const draft = await insertDraft(
      tx,
      scope,
      {
        customerId: customer!.id,
        type: "invoice",
        relatedInvoiceId: null,
        issueDate: input.issue_date,
        dueDate,
        currency: input.currency ?? customer!.currency ?? scope.org.currency,
        notes: input.notes ?? null,
        paymentTerms: input.payment_terms === undefined ? customer!.paymentTerms : input.payment_terms,
        // none given: the customer's (a German public buyer's Leitweg-ID); null given: none
        buyerReference: input.buyer_reference === undefined ? customer!.buyerReference : input.buyer_reference,
        orderReference: input.order_reference ?? null,
        pricesIncludeVat,
        externalId: normalizeExternalId(input.external_id ?? null),
        metadata: input.metadata ?? {},
        servicePeriodStart: input.service_period_start ?? null,
        servicePeriodEnd: input.service_period_end ?? null,
        deliveryDate: input.delivery_date ?? null,
        recurringInvoiceId,
      },
      lines,
      number,
      allowanceCharges,
    );
    return input.finalize === true ? await finalizeInvoice(scope, draft.id) : draft;
  });
}
