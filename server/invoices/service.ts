/**
 * Invoices and credit notes (docs/invoicing.md#invoices, #credit-notes): the commands, each in
 * one transaction through the state machine (docs/invoicing.md#states-and-payments), with its audit entry, postings
 * and webhook deliveries (recordChange). Beside it: the list (list.ts), the read side (read.ts,
 * document.ts), the input checks (checks.ts), the numbering (numbering.ts); payments are
 * server/settlement's.
 */
import { asc, eq, ne, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { customers, invoiceAllowanceCharges, invoiceLines, invoices, organizations } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { invoicePosting } from "../ledger/rules.ts";
import { allocateCreditNote, reallocateCreditNotes, releaseCreditNote } from "../settlement/credits.ts";
import { deletePayment, recordPayment } from "../settlement/payments.ts";
import { currentParties } from "./document.ts";
import { documentLinks } from "../documents/links.ts";
import { Conflict, FieldErrorBag } from "../lib/errors.ts";
import { listPage, type ListQuery } from "../lib/list.ts";
import { formatCents, MAX_CENTS } from "../lib/money.ts";
import { deleteInOrg, findInOrg, inOrg, snapshot, unitOfWork, updateInOrg, type Scope } from "../lib/scope.ts";
import { checkExternalId, normalizeExternalId } from "../lib/external-ids.ts";
import { addDays, newId, nowIso, today } from "../lib/time.ts";
import { stateMachine, type Transition } from "../lib/transitions.ts";
import { type CreditNoteInput, type InvoiceCreate, type InvoiceStatus, type InvoiceUpdate, type PaymentInput } from "./model.ts";
import {
  checkAllowancesWithinRates,
  checkDueDate,
  checkIssueDateNotFuture,
  checkServicePeriod,
  nounOf,
  priceDraft,
  readAllowanceCharges,
  readCustomer,
  readLines,
  readNumber,
  type NewAllowanceCharge,
  type NewLine,
} from "./checks.ts";
import { readinessOf, shownReadinessOf, type Readiness } from "./readiness.ts";
import { supplyDateOf } from "../documents/legal-mentions.ts";
import { invoiceList } from "./list.ts";
import { listDeliveries, sendOnFinalize } from "./deliveries.ts";
import { isProvisional, nextPaymentReference, nextSeriesNumber, provisionalNumber } from "./numbering.ts";
import { presentInvoices, showInvoice, type ShownInvoice } from "./read.ts";
import { issuedCustomer } from "./issued-customer.ts";
import { type InvoiceTotals } from "./totals.ts";

type InvoiceRow = typeof invoices.$inferSelect;

/**
 * The state machine (docs/invoicing.md#states-and-payments), as data: the states each operation starts from,
 * and what the 409 says otherwise (after "The invoice is <status>; ").
 */
const TRANSITIONS = {
  update: { from: ["draft"], refusal: "only a draft can be edited" },
  delete: { from: ["draft"], refusal: "only a draft can be deleted" },
  finalize: { from: ["draft"], refusal: "only a draft can be finalized" },
  cancel: { from: ["finalized", "sent"], refusal: "only a finalized or sent invoice without payments can be cancelled" },
  // a credit note's allocation makes it partially paid or paid without any refund: it can still be cancelled
  cancelCreditNote: {
    from: ["finalized", "sent", "partially_paid", "paid"],
    refusal: "only an issued credit note on which nothing was refunded can be cancelled",
  },
  creditNote: {
    from: ["finalized", "sent", "partially_paid", "paid"],
    refusal: "only a finalized, sent, partially paid or paid invoice can be credited",
  },
} as const satisfies Record<string, Transition<InvoiceStatus>>;
/** Loads the invoice (404) and checks that an operation may start from its state (409 naming it). */
const findFor = stateMachine(invoices, (row) => nounOf(row.type), TRANSITIONS);

const DEFAULT_PAYMENT_DAYS = 30;

function insertLines(tx: Tx, orgId: string, invoiceId: string, lines: NewLine[]): void {
  if (lines.length === 0) return;
  tx.insert(invoiceLines)
    .values(
      lines.map((line, i) => ({
        id: newId(),
        organizationId: orgId,
        invoiceId,
        description: line.description,
        quantityCents: line.quantityCents,
        unitCode: line.unitCode,
        unitPriceCents: line.unitPriceCents,
        amountCents: line.amountCents,
        vatRateId: line.vatRateId,
        vatRateBp: line.vatRateBp,
        vatCents: line.vatCents,
        discountPercentBp: line.discountPercentBp,
        discountCents: line.discountCents,
        discountReason: line.discountReason,
        supplyType: line.supplyType,
        sortOrder: i,
      })),
    )
    .run();
}

function insertAllowanceCharges(tx: Tx, orgId: string, invoiceId: string, rows: readonly NewAllowanceCharge[]): void {
  if (rows.length === 0) return;
  tx.insert(invoiceAllowanceCharges)
    .values(rows.map((ac, i) => ({ ...ac, id: newId(), organizationId: orgId, invoiceId, sortOrder: i })))
    .run();
}

/** An invoice's allowances and charges as stored, in their order: what an update without `allowances_charges` keeps. */
function storedAllowanceCharges(tx: Tx, orgId: string, invoiceId: string): NewAllowanceCharge[] {
  return tx
    .select()
    .from(invoiceAllowanceCharges)
    .where(inOrg(invoiceAllowanceCharges, orgId, eq(invoiceAllowanceCharges.invoiceId, invoiceId)))
    .orderBy(asc(invoiceAllowanceCharges.sortOrder))
    .all()
    .map(({ id: _id, organizationId: _org, invoiceId: _invoice, sortOrder: _order, ...ac }) => ac);
}

/** An invoice's lines as stored, in their order. */
function storedLines(tx: Tx, orgId: string, invoiceId: string): NewLine[] {
  return tx
    .select()
    .from(invoiceLines)
    .where(inOrg(invoiceLines, orgId, eq(invoiceLines.invoiceId, invoiceId)))
    .orderBy(asc(invoiceLines.sortOrder))
    .all()
    .map(({ id: _id, organizationId: _org, invoiceId: _invoice, sortOrder: _order, ...line }) => line);
}

/** The organisation's default of a new invoice's prices_include_vat. */
function orgPricesIncludeVat(tx: Tx, orgId: string): boolean {
  return tx.select({ gross: organizations.pricesIncludeVat }).from(organizations).where(eq(organizations.id, orgId)).get()?.gross ?? false;
}

export type NewInvoice = Omit<
  InvoiceRow,
  | "id"
  | "organizationId"
  | "number"
  | "subtotalCents"
  | "vatCents"
  | "totalCents"
  | "paidCents"
  | "creditedCents"
  | "allowanceCents"
  | "chargeCents"
  | "status"
  | "paymentReference"
  | "issuedParties"
  | "issuedCustomer"
  | "finalizedAt"
  | "sentAt"
  | "createdAt"
  | "updatedAt"
  | "externalId"
  | "metadata"
  | "servicePeriodStart"
  | "servicePeriodEnd"
  | "deliveryDate"
  | "recurringInvoiceId"
  | "interestThrough"
  | "compensationCents"
  | "remindersPaused"
  | "remindersPausedReason"
> &
  Partial<Pick<InvoiceRow, "externalId" | "metadata" | "servicePeriodStart" | "servicePeriodEnd" | "deliveryDate" | "recurringInvoiceId" | "interestThrough" | "compensationCents">>;

/**
 * Inserts a draft with its lines and totals; without a number given, it carries a provisional
 * one (DRAFT-…), replaced by the next of its series at finalize.
 */
export function insertDraft(
  tx: Tx,
  scope: Scope,
  fields: NewInvoice,
  lines: NewLine[],
  number: string | null,
  allowanceCharges: NewAllowanceCharge[] = [],
): ShownInvoice {
  const priced = priceDraft(fields.pricesIncludeVat, lines, allowanceCharges);
  const now = nowIso();
  const id = newId();
  const row: InvoiceRow = {
    externalId: null,
    metadata: {},
    servicePeriodStart: null,
    servicePeriodEnd: null,
    deliveryDate: null,
    recurringInvoiceId: null,
    interestThrough: null,
    compensationCents: null,
    remindersPaused: false,
    remindersPausedReason: null,
    ...fields,
    id,
    organizationId: scope.org.id,
    number: number ?? provisionalNumber(tx, scope.org.id, id),
    status: "draft",
    ...totalsColumns(priced.totals),
    paidCents: 0,
    creditedCents: 0,
    paymentReference: null,
    issuedParties: null,
    issuedCustomer: null,
    finalizedAt: null,
    sentAt: null,
    createdAt: now,
    updatedAt: now,
  };
  checkExternalId(tx, invoices, "invoice", scope.org.id, row.externalId);
  tx.insert(invoices).values(row).run();
  insertLines(tx, scope.org.id, row.id, priced.lines);
  insertAllowanceCharges(tx, scope.org.id, row.id, allowanceCharges);
  const shown = showInvoice(tx, scope.org.id, row.id);
  recordChange(tx, scope, { action: "invoice.created", resource: { type: "invoice", id: row.id }, event: "invoice.created", data: shown });
  return shown;
}

function totalsColumns(totals: InvoiceTotals) {
  const { subtotalCents, vatCents, totalCents, allowanceCents, chargeCents } = totals;
  return { subtotalCents, vatCents, totalCents, allowanceCents, chargeCents };
}

/** The draft priced (its lines with its allowances and charges, totals.ts); a total beyond the range is a 422 on `lines`. */
function pricedWithinRange(bag: FieldErrorBag, pricesIncludeVat: boolean, lines: NewLine[], allowanceCharges: NewAllowanceCharge[]) {
  const priced = priceDraft(pricesIncludeVat, lines, allowanceCharges);
  if (priced.totals.totalCents > MAX_CENTS) bag.add("lines", `The invoice total must not be greater than ${formatCents(MAX_CENTS)}.`);
  return priced;
}

/** Sets columns of the invoice (with a fresh updated_at) and returns it as shown. */
function change(tx: Tx, orgId: string, id: string, set: Partial<InvoiceRow>): ShownInvoice {
  updateInOrg(tx, invoices, orgId, id, { ...set, updatedAt: nowIso() });
  return showInvoice(tx, orgId, id);
}

/**
 * A customer changed (its own fields or its contact persons), in `tx`: each of its drafts, which
 * embed it live, moves its updated_at and emits invoice.updated with the customer as it now is,
 * so `filter[updated_since]` and the events feed see the change (docs/api.md#embedded-data). Its
 * issued documents embed the customer as issued and do not change. Bounded by the customer's
 * drafts, read through invoices_org_customer.
 */
export function touchCustomerDrafts(tx: Tx, scope: Scope, customerId: string): void {
  const drafts = inOrg(invoices, scope.org.id, eq(invoices.customerId, customerId), eq(invoices.status, "draft"));
  const now = nowIso();
  const rows = tx.update(invoices).set({ updatedAt: now }).where(drafts).returning().all();
  if (rows.length === 0) return;
  rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const shown of presentInvoices(tx, scope.org.id, rows)) {
    recordChange(tx, scope, { action: "invoice.customer_updated", resource: { type: "invoice", id: shown.id }, event: "invoice.updated", data: shown });
  }
}

/** The credit notes of an invoice that still count (drafts too, cancelled ones not), leaving out `exceptId`. */
const creditNotesOf = (orgId: string, invoiceId: string, exceptId: string | null) =>
  inOrg(
    invoices,
    orgId,
    eq(invoices.relatedInvoiceId, invoiceId),
    eq(invoices.type, "credit_note"),
    ne(invoices.status, "cancelled"),
    ...(exceptId ? [ne(invoices.id, exceptId)] : []),
  );

/**
 * What is left to credit on an invoice: its total less the totals of its other credit notes,
 * drafts included (cancelled ones aside), leaving out `exceptId`. Counting drafts refuses the
 * excess when a note is created or edited, not only at its finalize (a note never credits more than is left); an
 * abandoned draft gives its amount back when it is deleted.
 */
function creditLeftCents(tx: Tx, orgId: string, invoice: InvoiceRow, exceptId: string | null): number {
  const credited = tx
    .select({ cents: sql<number>`coalesce(sum(${invoices.totalCents}), 0)` })
    .from(invoices)
    .where(creditNotesOf(orgId, invoice.id, exceptId))
    .get()!.cents;
  return invoice.totalCents - credited;
}

/** The invoice a credit note credits, with what is left to credit on it besides the note itself. */
function creditedBy(tx: Tx, orgId: string, note: InvoiceRow): { invoice: InvoiceRow; leftCents: number } {
  const invoice = findInOrg(tx, invoices, orgId, note.relatedInvoiceId!);
  return { invoice, leftCents: creditLeftCents(tx, orgId, invoice, note.id) };
}

const tooMuchCredit = (invoice: InvoiceRow, leftCents: number) =>
  `A credit note must not credit more than is left to credit on invoice ${invoice.number} (${formatCents(leftCents)}).`;

export const invoiceService = {
  list(scope: Scope, query: ListQuery, url: string) {
    return listPage(scope, invoiceList, query, url, (rows, tx) => presentInvoices(tx, scope.org.id, rows));
  },

  /** With a draft's readiness (readiness.ts): it reads the document, so the list and the events leave it out. */
  async get(scope: Scope, id: string): Promise<ShownInvoice & { readiness: Readiness | null }> {
    return await snapshot(scope.db, (tx) => {
      const shown = showInvoice(tx, scope.org.id, id);
      return { ...shown, readiness: shown.status === "draft" ? shownReadinessOf(tx, scope.org.id, id) : null };
    });
  },

  /**
   * A draft; with `finalize: true` finalized in the same transaction, so a refused finalize stores
   * nothing. `recurringInvoiceId`: the template generating it (server/recurring), not an API field.
   */
  async create(scope: Scope, input: InvoiceCreate, recurringInvoiceId: string | null = null): Promise<ShownInvoice> {
    return await unitOfWork(scope.db, async (tx) => {
      const bag = new FieldErrorBag();
      const customer = readCustomer(tx, scope.org.id, bag, input.customer_id);
      const pricesIncludeVat = input.prices_include_vat ?? orgPricesIncludeVat(tx, scope.org.id);
      const lines = readLines(tx, scope.org.id, bag, input.lines, pricesIncludeVat);
      const allowanceCharges = readAllowanceCharges(tx, scope.org.id, bag, input.allowances_charges ?? [], lines);
      pricedWithinRange(bag, pricesIncludeVat, lines, allowanceCharges);
      const dueDate = input.due_date ?? addDays(input.issue_date, DEFAULT_PAYMENT_DAYS);
      checkDueDate(bag, input.issue_date, dueDate);
      checkServicePeriod(bag, input.service_period_start ?? null, input.service_period_end ?? null);
      const number = input.number === undefined ? null : readNumber(tx, scope.org.id, bag, input.number);
      bag.throwIfAny();
      const draft = insertDraft(
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
      return input.finalize === true ? await invoiceService.finalize(scope, draft.id) : draft;
    });
  },

  /** Drafts only: a finalized invoice never changes its lines, totals, customer or number. */
  async update(scope: Scope, id: string, input: InvoiceUpdate): Promise<ShownInvoice> {
    return await unitOfWork(scope.db, (tx) => {
      const row = findFor(tx, scope, id, "update");
      const bag = new FieldErrorBag();
      const set: Partial<InvoiceRow> = {};
      if (input.customer_id !== undefined) set.customerId = readCustomer(tx, scope.org.id, bag, input.customer_id)?.id;
      // its own number sent back (a provisional one too) is no change
      if (input.number !== undefined && input.number.trim() !== row.number) set.number = readNumber(tx, scope.org.id, bag, input.number, id);
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
      const lines = !repriced ? null : input.lines === undefined ? storedLines(tx, scope.org.id, id) : readLines(tx, scope.org.id, bag, input.lines, pricesIncludeVat);
      const allowanceCharges = !lines
        ? null
        : input.allowances_charges === undefined
          ? storedAllowanceCharges(tx, scope.org.id, id)
          : readAllowanceCharges(tx, scope.org.id, bag, input.allowances_charges, lines);
      if (lines && allowanceCharges && input.allowances_charges === undefined) checkAllowancesWithinRates(bag, lines, allowanceCharges);
      const priced = lines && allowanceCharges && pricedWithinRange(bag, pricesIncludeVat, lines, allowanceCharges);
      checkDueDate(bag, set.issueDate ?? row.issueDate, set.dueDate ?? row.dueDate);
      if (row.type === "credit_note" && row.relatedInvoiceId) {
        // a credit note credits its invoice: the invoice's customer and currency, at most what is left
        const { invoice, leftCents } = creditedBy(tx, scope.org.id, row);
        if (set.customerId !== undefined && set.customerId !== invoice.customerId) {
          bag.add("customer_id", "A credit note keeps the customer of the invoice it credits.");
        }
        if (set.currency !== undefined && set.currency !== invoice.currency) bag.add("currency", "A credit note keeps the currency of the invoice it credits.");
        if (priced && priced.totals.totalCents > leftCents) bag.add("lines", tooMuchCredit(invoice, leftCents));
      }
      bag.throwIfAny();
      checkExternalId(tx, invoices, "invoice", scope.org.id, set.externalId, id);
      if (priced && allowanceCharges) {
        tx.delete(invoiceLines).where(inOrg(invoiceLines, scope.org.id, eq(invoiceLines.invoiceId, id))).run();
        tx.delete(invoiceAllowanceCharges).where(inOrg(invoiceAllowanceCharges, scope.org.id, eq(invoiceAllowanceCharges.invoiceId, id))).run();
        insertLines(tx, scope.org.id, id, priced.lines);
        insertAllowanceCharges(tx, scope.org.id, id, allowanceCharges);
        Object.assign(set, totalsColumns(priced.totals));
      }
      const shown = change(tx, scope.org.id, id, set);
      recordChange(tx, scope, { action: "invoice.updated", resource: { type: "invoice", id }, event: "invoice.updated", data: shown });
      return shown;
    });
  },

  /** Drafts only; the event carries the invoice as it was. Lines go with it (ON DELETE CASCADE). */
  async remove(scope: Scope, id: string): Promise<void> {
    await unitOfWork(scope.db, (tx) => {
      findFor(tx, scope, id, "delete");
      const last = showInvoice(tx, scope.org.id, id);
      deleteInOrg(tx, invoices, scope.org.id, id);
      recordChange(tx, scope, { action: "invoice.deleted", resource: { type: "invoice", id }, event: "invoice.deleted", data: last });
    });
  },

  /**
   * Issues the draft: a provisional number becomes the next of its series (numbering.ts), drawn
   * here, in the transaction that a refusal rolls back with the number; a client's number stays.
   */
  async finalize(scope: Scope, id: string, options: { sendOnFinalize?: boolean } = {}): Promise<ShownInvoice> {
    return await unitOfWork(scope.db, (tx) => {
      const row = findFor(tx, scope, id, "finalize");
      const bag = new FieldErrorBag();
      if (row.type === "credit_note" && row.relatedInvoiceId) {
        const { invoice, leftCents } = creditedBy(tx, scope.org.id, row);
        if (invoice.status === "cancelled") throw new Conflict(`The invoice ${invoice.number} it credits is cancelled; a credit note of a cancelled invoice cannot be finalized.`);
        if (row.totalCents > leftCents) bag.add("lines", tooMuchCredit(invoice, leftCents));
      }
      checkIssueDateNotFuture(bag, row.issueDate);
      // nothing is issued that its PDF or, when it must be one, its e-invoice could not carry
      for (const [field, messages] of Object.entries(readinessOf(tx, scope.org.id, id).problems)) for (const message of messages) bag.add(field, message);
      bag.throwIfAny();
      const issued: InvoiceRow = { ...row, number: isProvisional(row.number) ? nextSeriesNumber(tx, scope.org.id, row) : row.number };
      const parties = currentParties(tx, scope.org.id, row.customerId);
      let shown = change(tx, scope.org.id, id, {
        number: issued.number,
        status: "finalized",
        finalizedAt: nowIso(),
        paymentReference: nextPaymentReference(tx, scope.org.id, scope.org.country),
        // the document says from now on what it says today, whatever is edited afterwards
        issuedParties: parties,
        // and so does the customer it embeds (docs/api.md#embedded-data)
        issuedCustomer: issuedCustomer(tx, findInOrg(tx, customers, scope.org.id, row.customerId), parties.buyer),
        // a German seller's Leistungsdatum: the issue date when neither it nor a period was given
        deliveryDate: supplyDateOf(
          { ...row, servicePeriod: row.servicePeriodStart && row.servicePeriodEnd ? { start: row.servicePeriodStart, end: row.servicePeriodEnd } : null },
          parties.seller.country,
        ),
      });
      // a credit note settles its invoice (its invoice.updated is recorded there); the note shows its allocation
      if (row.type === "credit_note") {
        allocateCreditNote(tx, scope, findInOrg(tx, invoices, scope.org.id, id), showInvoice);
        shown = showInvoice(tx, scope.org.id, id);
      }
      recordChange(tx, scope, {
        action: "invoice.finalized",
        resource: { type: "invoice", id },
        event: "invoice.finalized",
        data: shown,
        links: documentLinks(id),
        ledger: [{ post: invoicePosting(tx, issued) }],
      });
      const { sendOnFinalize: channel } = tx.select({ sendOnFinalize: organizations.sendOnFinalize }).from(organizations).where(eq(organizations.id, scope.org.id)).get()!;
      if (channel !== null && options.sendOnFinalize !== false) sendOnFinalize(tx, scope, id, channel);
      return shown;
    });
  },

  async deliveries(scope: Scope, id: string, query: ListQuery, url: string) {
    await snapshot(scope.db, (tx) => findInOrg(tx, invoices, scope.org.id, id));
    return listDeliveries(scope, id, query, url);
  },

  /** A payment of at most the amount due; the invoice becomes partially_paid or paid (server/settlement). */
  async recordPayment(scope: Scope, id: string, input: PaymentInput): Promise<ShownInvoice> {
    return await unitOfWork(scope.db, (tx) => recordPayment(tx, scope, { kind: "invoice", row: findInOrg(tx, invoices, scope.org.id, id) }, input, showInvoice).shown);
  },

  /** Removes a payment (e.g. recorded by mistake); the status follows the remaining payments, a bank line holding it is unmatched. */
  async deletePayment(scope: Scope, id: string, paymentId: string): Promise<void> {
    await unitOfWork(scope.db, (tx) => deletePayment(tx, scope, { kind: "invoice", row: findInOrg(tx, invoices, scope.org.id, id) }, paymentId, showInvoice));
  },

  /**
   * An invoice without payments and without credit notes (a credit note settles it: cancel that
   * first, or delete its draft), or a credit note on which nothing was refunded: its allocation
   * goes back to its invoice.
   */
  async cancel(scope: Scope, id: string): Promise<ShownInvoice> {
    return await unitOfWork(scope.db, (tx) => {
      const found = findInOrg(tx, invoices, scope.org.id, id);
      let row: InvoiceRow;
      if (found.type === "credit_note") {
        row = findFor(tx, scope, id, "cancelCreditNote");
        if (row.paidCents > 0) {
          throw new Conflict(`The credit note is ${row.status}; ${formatCents(row.paidCents)} was refunded on it: a credit note with refunds cannot be cancelled (delete the refunds first).`);
        }
      } else {
        const note = tx.select({ id: invoices.id, number: invoices.number, status: invoices.status }).from(invoices).where(creditNotesOf(scope.org.id, id, null)).limit(1).get();
        if (note && found.status !== "draft" && found.status !== "cancelled") {
          throw new Conflict(
            `The invoice is ${found.status}; credit note ${note.number} (${note.id}, ${note.status}) credits it: cancel that credit note (or delete its draft) before cancelling the invoice.`,
          );
        }
        // "without payments" needs no check of its own: a payment moves the status on
        row = findFor(tx, scope, id, "cancel");
      }
      releaseCreditNote(tx, scope, row, showInvoice);
      const shown = change(tx, scope.org.id, id, { status: "cancelled" });
      recordChange(tx, scope, {
        action: "invoice.cancelled",
        resource: { type: "invoice", id },
        event: "invoice.updated",
        data: shown,
        ledger: [{ reverse: { type: "invoice", id } }],
      });
      // what the cancelled note gave back is settled first by its invoice's other credit notes' unpaid refunds
      const invoiceId = row.type === "credit_note" && row.creditedCents > 0 ? row.relatedInvoiceId : null;
      if (invoiceId && reallocateCreditNotes(tx, scope, invoiceId, showInvoice)) {
        recordChange(tx, scope, { action: "invoice.credited", resource: { type: "invoice", id: invoiceId }, event: "invoice.updated", data: showInvoice(tx, scope.org.id, invoiceId) });
      }
      return shown;
    });
  },

  /**
   * A draft credit note for the invoice: its customer and currency, issued today, with the lines
   * given (positive amounts: the type says it credits) or, without lines, the invoice's lines
   * copied as they were written (every field, at the rates of then) when nothing else credits it
   * yet. Never more than is left to credit (422 on `lines`); nothing left at all is a 409.
   */
  async creditNote(scope: Scope, id: string, input: CreditNoteInput = {}): Promise<ShownInvoice> {
    return await unitOfWork(scope.db, (tx) => {
      const original = findFor(tx, scope, id, "creditNote");
      if (original.type !== "invoice") throw new Conflict(`The ${nounOf(original.type)} is ${original.status}; only an invoice can be credited.`);
      const leftCents = creditLeftCents(tx, scope.org.id, original, null);
      if (leftCents <= 0) {
        throw new Conflict(`The invoice is ${original.status} and credited in full; nothing is left to credit.`);
      }
      const bag = new FieldErrorBag();
      let lines: NewLine[];
      // the invoice's document allowances and charges go with a copy of all its lines (pricing.test.ts)
      let allowanceCharges: NewAllowanceCharge[] = [];
      if (input.lines !== undefined) {
        lines = readLines(tx, scope.org.id, bag, input.lines, original.pricesIncludeVat);
      } else if (leftCents < original.totalCents) {
        bag.add("lines", `Invoice ${original.number} has credit notes already: give the lines to credit (at most ${formatCents(leftCents)} is left to credit).`);
        lines = [];
      } else {
        lines = tx
          .select()
          .from(invoiceLines)
          .where(inOrg(invoiceLines, scope.org.id, eq(invoiceLines.invoiceId, id)))
          .orderBy(asc(invoiceLines.sortOrder))
          .all()
          // the line as written: its prices, discounts and shares are the invoice's, not priced again
          .map(({ id: _id, organizationId: _org, invoiceId: _invoice, sortOrder: _order, ...line }) => line);
        allowanceCharges = storedAllowanceCharges(tx, scope.org.id, id);
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
  },
};
