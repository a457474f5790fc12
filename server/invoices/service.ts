/**
 * Invoices and credit notes (api-spec 2.3–2.5, 4.5; contract sections 3–5): the commands, each in
 * one transaction through the state machine of contract section 4, with its audit entry, postings
 * and webhook deliveries (recordChange). Beside it: the list (list.ts), the read side (read.ts,
 * document.ts), the input checks (checks.ts), the numbering (numbering.ts); payments are
 * server/settlement's.
 */
import { asc, eq, ne, notInArray, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { invoiceLines, invoices } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { invoicePosting } from "../ledger/rules.ts";
import { deletePayment, recordPayment } from "../settlement/payments.ts";
import { currentParties } from "./document.ts";
import { documentLinks } from "../documents/links.ts";
import { Conflict, FieldErrorBag } from "../lib/errors.ts";
import { listPage, type ListQuery } from "../lib/list.ts";
import { formatCents } from "../lib/money.ts";
import { deleteInOrg, findInOrg, inOrg, snapshot, transaction, updateInOrg, type Scope } from "../lib/scope.ts";
import { addDays, newId, nowIso, today } from "../lib/time.ts";
import { stateMachine, type Transition } from "../lib/transitions.ts";
import { type InvoiceCreate, type InvoiceStatus, type InvoiceUpdate, type PaymentInput } from "./model.ts";
import { checkDueDate, checkIssueDateNotFuture, readCustomer, readLines, readNumber, type NewLine } from "./checks.ts";
import { readinessOf, type Readiness } from "./readiness.ts";
import { invoiceList } from "./list.ts";
import { isProvisional, nextPaymentReference, nextSeriesNumber, provisionalNumber } from "./numbering.ts";
import { presentInvoices, showInvoice, type ShownInvoice } from "./read.ts";
import { priceLine, totalsOf } from "./totals.ts";

type InvoiceRow = typeof invoices.$inferSelect;

/**
 * The state machine of contract section 4, as data: the states each operation starts from,
 * and what the 409 says otherwise (after "The invoice is <status>; ").
 */
const TRANSITIONS = {
  update: { from: ["draft"], refusal: "only a draft can be edited" },
  delete: { from: ["draft"], refusal: "only a draft can be deleted" },
  finalize: { from: ["draft"], refusal: "only a draft can be finalized" },
  send: { from: ["finalized"], refusal: "only a finalized invoice can be sent" },
  cancel: { from: ["finalized", "sent"], refusal: "only a finalized or sent invoice without payments can be cancelled" },
  creditNote: {
    from: ["finalized", "sent", "partially_paid", "paid"],
    refusal: "only a finalized, sent, partially paid or paid invoice can be credited",
  },
} as const satisfies Record<string, Transition<InvoiceStatus>>;
/** Loads the invoice (404) and checks that an operation may start from its state (409 naming it). */
const findFor = stateMachine(invoices, (row) => (row.type === "credit_note" ? "credit note" : "invoice"), TRANSITIONS);

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
        sortOrder: i,
      })),
    )
    .run();
}

type NewInvoice = Omit<
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
  | "finalizedAt"
  | "sentAt"
  | "createdAt"
  | "updatedAt"
>;

/**
 * Inserts a draft with its lines and totals; without a number given, it carries a provisional
 * one (DRAFT-…), replaced by the next of its series at finalize.
 */
function insertDraft(tx: Tx, scope: Scope, fields: NewInvoice, lines: NewLine[], number: string | null): ShownInvoice {
  const now = nowIso();
  const id = newId();
  const row: InvoiceRow = {
    ...fields,
    id,
    organizationId: scope.org.id,
    number: number ?? provisionalNumber(tx, scope.org.id, id),
    status: "draft",
    ...totalsColumns(lines),
    paidCents: 0,
    creditedCents: 0,
    allowanceCents: 0,
    chargeCents: 0,
    paymentReference: null,
    issuedParties: null,
    finalizedAt: null,
    sentAt: null,
    createdAt: now,
    updatedAt: now,
  };
  tx.insert(invoices).values(row).run();
  insertLines(tx, scope.org.id, row.id, lines);
  const shown = showInvoice(tx, scope.org.id, row.id);
  recordChange(tx, scope, { action: "invoice.created", resource: { type: "invoice", id: row.id }, event: "invoice.created", data: shown });
  return shown;
}

function totalsColumns(lines: NewLine[]) {
  const totals = totalsOf(lines);
  return { subtotalCents: totals.subtotalCents, vatCents: totals.vatCents, totalCents: totals.totalCents };
}

/** Sets columns of the invoice (with a fresh updated_at) and returns it as shown. */
function change(tx: Tx, orgId: string, id: string, set: Partial<InvoiceRow>): ShownInvoice {
  updateInOrg(tx, invoices, orgId, id, { ...set, updatedAt: nowIso() });
  return showInvoice(tx, orgId, id);
}

/**
 * What is left to credit on an invoice: its total less the totals of its credit notes past
 * draft (cancelled ones aside), leaving out `exceptId`. Drafts do not count until they are
 * finalized, where each is checked against what is left then.
 */
function creditLeftCents(tx: Tx, orgId: string, invoice: InvoiceRow, exceptId: string | null): number {
  const credited = tx
    .select({ cents: sql<number>`coalesce(sum(${invoices.totalCents}), 0)` })
    .from(invoices)
    .where(
      inOrg(
        invoices,
        orgId,
        eq(invoices.relatedInvoiceId, invoice.id),
        eq(invoices.type, "credit_note"),
        notInArray(invoices.status, ["draft", "cancelled"]),
        ...(exceptId ? [ne(invoices.id, exceptId)] : []),
      ),
    )
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
  get(scope: Scope, id: string): ShownInvoice & { readiness: Readiness | null } {
    return snapshot(scope.db, (tx) => {
      const shown = showInvoice(tx, scope.org.id, id);
      return { ...shown, readiness: shown.status === "draft" ? readinessOf(tx, scope.org.id, id) : null };
    });
  },

  create(scope: Scope, input: InvoiceCreate): ShownInvoice {
    return transaction(scope.db, (tx) => {
      const bag = new FieldErrorBag();
      const customer = readCustomer(tx, scope.org.id, bag, input.customer_id);
      const lines = readLines(tx, scope.org.id, bag, input.lines);
      const dueDate = input.due_date ?? addDays(input.issue_date, DEFAULT_PAYMENT_DAYS);
      checkDueDate(bag, input.issue_date, dueDate);
      const number = input.number === undefined ? null : readNumber(tx, scope.org.id, bag, input.number);
      bag.throwIfAny();
      return insertDraft(
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
          buyerReference: input.buyer_reference ?? null,
          orderReference: input.order_reference ?? null,
          pricesIncludeVat: false,
        },
        lines,
        number,
      );
    });
  },

  /** Drafts only: a finalized invoice never changes its lines, totals, customer or number. */
  update(scope: Scope, id: string, input: InvoiceUpdate): ShownInvoice {
    return transaction(scope.db, (tx) => {
      const row = findFor(tx, scope, id, "update");
      const bag = new FieldErrorBag();
      const set: Partial<InvoiceRow> = {};
      if (input.customer_id !== undefined) set.customerId = readCustomer(tx, scope.org.id, bag, input.customer_id)?.id;
      // its own number sent back (a provisional one too) is no change
      if (input.number !== undefined && input.number.trim() !== row.number) set.number = readNumber(tx, scope.org.id, bag, input.number, id);
      if (input.issue_date !== undefined) set.issueDate = input.issue_date;
      if (input.due_date !== undefined) set.dueDate = input.due_date;
      if (input.currency !== undefined) set.currency = input.currency;
      if (input.notes !== undefined) set.notes = input.notes;
      if (input.payment_terms !== undefined) set.paymentTerms = input.payment_terms;
      if (input.buyer_reference !== undefined) set.buyerReference = input.buyer_reference;
      if (input.order_reference !== undefined) set.orderReference = input.order_reference;
      const lines = input.lines === undefined ? null : readLines(tx, scope.org.id, bag, input.lines);
      checkDueDate(bag, set.issueDate ?? row.issueDate, set.dueDate ?? row.dueDate);
      if (row.type === "credit_note" && row.relatedInvoiceId) {
        // a credit note credits its invoice: the invoice's customer and currency, at most what is left
        const { invoice, leftCents } = creditedBy(tx, scope.org.id, row);
        if (set.customerId !== undefined && set.customerId !== invoice.customerId) {
          bag.add("customer_id", "A credit note keeps the customer of the invoice it credits.");
        }
        if (set.currency !== undefined && set.currency !== invoice.currency) bag.add("currency", "A credit note keeps the currency of the invoice it credits.");
        if (lines && totalsOf(lines).totalCents > leftCents) bag.add("lines", tooMuchCredit(invoice, leftCents));
      }
      bag.throwIfAny();
      if (lines) {
        tx.delete(invoiceLines).where(inOrg(invoiceLines, scope.org.id, eq(invoiceLines.invoiceId, id))).run();
        insertLines(tx, scope.org.id, id, lines);
        Object.assign(set, totalsColumns(lines));
      }
      const shown = change(tx, scope.org.id, id, set);
      recordChange(tx, scope, { action: "invoice.updated", resource: { type: "invoice", id }, event: "invoice.updated", data: shown });
      return shown;
    });
  },

  /** Drafts only; the event carries the invoice as it was. Lines go with it (ON DELETE CASCADE). */
  remove(scope: Scope, id: string): void {
    transaction(scope.db, (tx) => {
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
  finalize(scope: Scope, id: string): ShownInvoice {
    return transaction(scope.db, (tx) => {
      const row = findFor(tx, scope, id, "finalize");
      const bag = new FieldErrorBag();
      if (row.type === "credit_note" && row.relatedInvoiceId) {
        const { invoice, leftCents } = creditedBy(tx, scope.org.id, row);
        if (row.totalCents > leftCents) bag.add("total", tooMuchCredit(invoice, leftCents));
      }
      checkIssueDateNotFuture(bag, row.issueDate);
      // nothing is issued that its PDF or, when it must be one, its e-invoice could not carry
      for (const [field, messages] of Object.entries(readinessOf(tx, scope.org.id, id).problems)) for (const message of messages) bag.add(field, message);
      bag.throwIfAny();
      const issued: InvoiceRow = { ...row, number: isProvisional(row.number) ? nextSeriesNumber(tx, scope.org.id, row) : row.number };
      const shown = change(tx, scope.org.id, id, {
        number: issued.number,
        status: "finalized",
        finalizedAt: nowIso(),
        paymentReference: nextPaymentReference(tx, scope.org.id, scope.org.country),
        // the document says from now on what it says today, whatever is edited afterwards
        issuedParties: currentParties(tx, scope.org.id, row.customerId),
      });
      recordChange(tx, scope, {
        action: "invoice.finalized",
        resource: { type: "invoice", id },
        event: "invoice.finalized",
        data: shown,
        links: documentLinks(id),
        ledger: [{ post: invoicePosting(tx, issued) }],
      });
      return shown;
    });
  },

  send(scope: Scope, id: string): ShownInvoice {
    return transaction(scope.db, (tx) => {
      findFor(tx, scope, id, "send");
      const shown = change(tx, scope.org.id, id, { status: "sent", sentAt: nowIso() });
      recordChange(tx, scope, { action: "invoice.sent", resource: { type: "invoice", id }, event: "invoice.updated", data: shown });
      return shown;
    });
  },

  /** A payment of at most the amount due; the invoice becomes partially_paid or paid (server/settlement). */
  recordPayment(scope: Scope, id: string, input: PaymentInput): ShownInvoice {
    return transaction(scope.db, (tx) => recordPayment(tx, scope, { kind: "invoice", row: findInOrg(tx, invoices, scope.org.id, id) }, input, showInvoice).shown);
  },

  /** Removes a payment (e.g. recorded by mistake); the status follows the remaining payments, a bank line holding it is unmatched. */
  deletePayment(scope: Scope, id: string, paymentId: string): void {
    transaction(scope.db, (tx) => deletePayment(tx, scope, { kind: "invoice", row: findInOrg(tx, invoices, scope.org.id, id) }, paymentId, showInvoice));
  },

  cancel(scope: Scope, id: string): ShownInvoice {
    return transaction(scope.db, (tx) => {
      // "without payments" needs no check of its own: a payment moves the status on
      findFor(tx, scope, id, "cancel");
      const shown = change(tx, scope.org.id, id, { status: "cancelled" });
      recordChange(tx, scope, {
        action: "invoice.cancelled",
        resource: { type: "invoice", id },
        event: "invoice.updated",
        data: shown,
        ledger: [{ reverse: { type: "invoice", id } }],
      });
      return shown;
    });
  },

  /**
   * A draft credit note for the invoice: its customer, currency and lines (positive amounts,
   * at the rates the invoice was written with: the type says it credits), issued today.
   */
  creditNote(scope: Scope, id: string): ShownInvoice {
    return transaction(scope.db, (tx) => {
      const original = findFor(tx, scope, id, "creditNote");
      if (original.type !== "invoice") throw new Conflict(`The credit note is ${original.status}; only an invoice can be credited.`);
      if (creditLeftCents(tx, scope.org.id, original, null) <= 0) {
        throw new Conflict(`The invoice is ${original.status} and credited in full; nothing is left to credit.`);
      }
      const lines: NewLine[] = tx
        .select()
        .from(invoiceLines)
        .where(inOrg(invoiceLines, scope.org.id, eq(invoiceLines.invoiceId, id)))
        .orderBy(asc(invoiceLines.sortOrder))
        .all()
        .map((l) => ({
          ...priceLine({ quantityCents: l.quantityCents, unitPriceCents: l.unitPriceCents, vatRateBp: l.vatRateBp }),
          description: l.description,
          unitCode: l.unitCode,
          vatRateId: l.vatRateId,
        }));
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
        },
        lines,
        null,
      );
    });
  },
};
