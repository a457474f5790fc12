/**
 * Invoices and credit notes (api-spec 2.3–2.5, 4.5; contract sections 3–5): exact totals, the
 * per-year numbering, the state machine of contract section 4 and payments. Every change
 * writes its audit entry and its webhook deliveries in the transaction of the change.
 */
import { asc, eq, gte, ne, notInArray, or, sql, type SQL } from "drizzle-orm";
import { t } from "elysia";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { prepared, preparedRows, type Tx } from "../../db/client.ts";
import { AWAITING_PAYMENT, awaitingPayment, contactPersons, customers, invoiceLines, invoices, payments } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { drawSequence } from "../lib/sequences.ts";
import { invoicePosting } from "../ledger/rules.ts";
import { invoiceDueCents } from "../settlement/due.ts";
import { deletePayment, presentPayment, recordPayment } from "../settlement/payments.ts";
import { currentParties } from "./document.ts";
import { UNIT_CODES } from "../documents/unit-codes.ts";
import { documentLinks } from "../documents/links.ts";
import { presentParty, type PartyRow } from "../contacts/party-service.ts";
import { presentContactPerson } from "../customers/service.ts";
import { Conflict, FieldErrorBag, ValidationFailed } from "../lib/errors.ts";
import { ftsPhrasePrefix, ftsPrefixes, listPage, LookUp, searchParam, type ListQuery, type ListSpec } from "../lib/list.ts";
import { formatCents, MAX_CENTS, readMoney } from "../lib/money.ts";
import { Currency, DateString, Uuid } from "../lib/schemas.ts";
import { deleteInOrg, findInOrg, inOrg, snapshot, transaction, updateInOrg, type Scope } from "../lib/scope.ts";
import { addDays, newId, nowIso, today } from "../lib/time.ts";
import { stateMachine, type Transition } from "../lib/transitions.ts";
import { paymentReference } from "../documents/payment-reference.ts";
import { readVatRate } from "../vat-rates/service.ts";
import {
  INVOICE_STATUSES,
  INVOICE_TYPES,
  type InvoiceCreate,
  type InvoiceStatus,
  type InvoiceType,
  type InvoiceUpdate,
  type LineInput,
  type PaymentInput,
} from "./model.ts";
import { priceLine, totalsOf, type PricedLine } from "./totals.ts";

type InvoiceRow = typeof invoices.$inferSelect;
type LineRow = typeof invoiceLines.$inferSelect;
export type ShownInvoice = ReturnType<typeof presentInvoices>[number];

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

const NUMBER_PREFIX: Record<InvoiceType, string> = { invoice: "INV", credit_note: "CN" };
/** number_sequences.kind of the payment references (year 0: one sequence for all years) */
const PAYMENT_REFERENCE_SEQUENCE = "payment_reference";
const DEFAULT_PAYMENT_DAYS = 30;

export const invoiceList: ListSpec<typeof invoices> = {
  table: invoices,
  sorts: {
    issue_date: invoices.issueDate,
    due_date: invoices.dueDate,
    total: invoices.totalCents,
    number: invoices.number,
    status: invoices.status,
    created_at: invoices.createdAt,
    updated_at: invoices.updatedAt,
  },
  defaultSort: "-issue_date",
  filters: {
    status: { column: invoices.status, schema: t.UnionEnum([...INVOICE_STATUSES]) },
    type: { column: invoices.type, schema: t.UnionEnum([...INVOICE_TYPES]) },
    customer_id: { column: invoices.customerId, schema: Uuid },
    currency: { column: invoices.currency, schema: Currency },
    issue_date_from: { column: invoices.issueDate, op: "gte", schema: t.String({ ...DateString, description: "Issued on or after this date" }) },
    issue_date_to: { column: invoices.issueDate, op: "lte", schema: t.String({ ...DateString, description: "Issued on or before this date" }) },
    overdue: {
      schema: t.UnionEnum(["true", "false"], { description: "true: finalized, sent or partially paid, and due before today" }),
      where: (value, bind) => {
        const dueBefore = (dueDate: SQL) => sql`${awaitingPayment} AND ${dueDate} < ${bind("today", today())}`;
        if (value === "false") return or(notInArray(invoices.status, [...AWAITING_PAYMENT]), gte(invoices.dueDate, bind("today", today())));
        // The page reads the invoices awaiting payment in list order (the unary + keeps the
        // planner from seeking on due_date and sorting all of them); the count is the range of
        // due dates before today in the index of the invoices awaiting payment by due date.
        return { rows: dueBefore(sql`+${invoices.dueDate}`), count: dueBefore(sql`${invoices.dueDate}`) };
      },
    },
  },
  // the number (its parts in order, the last as a prefix: "INV-2026-004", "00042") or the
  // customer's name (every word as a prefix: "acme gm"). A name is matched among the
  // organisation's customers, not once per invoice (migration 0011), before the list query
  // (customersNamed)
  search: (words) => ({
    where: sql`(${invoices.customerId} IN (SELECT value FROM json_each(${searchParam("customers")}))
      OR ${invoices}.rowid IN (SELECT rowid FROM invoices_fts WHERE invoices_fts MATCH ${searchParam("number")}))`,
    params: { customers: customersNamed(words), number: ftsPhrasePrefix(words) },
  }),
  updatedAt: invoices.updatedAt,
};

/**
 * The ids of the organisation's customers whose name has every word as a prefix, as a JSON
 * array, read when the list runs. They are remembered in the connection's memory until
 * anything commits: a search paged through, and its count, match the name once, where the
 * match is a large part of a search's work.
 */
function customersNamed(words: string[]): LookUp {
  const name = `name : (${ftsPrefixes(words)})`;
  return new LookUp(name, (tx, orgId) =>
    tx.connection.memory.remember(`invoice search: customers named\u0000${orgId}\u0000${name}`, () => customerIdsNamed(tx, orgId, name)),
  );
}

function customerIdsNamed(tx: Tx, orgId: string, name: string): string {
  const query = prepared(tx, "invoice search: customers named", (tx) =>
    tx
      .select({ ids: sql<string>`json_group_array(${customers.id})` })
      .from(customers)
      .where(inOrg(customers, sql.placeholder("orgId"), sql`${customers}.rowid IN (SELECT rowid FROM customers_fts WHERE customers_fts MATCH ${sql.placeholder("name")})`))
      .prepare(),
  );
  return query.get({ orgId, name })!.ids;
}

// ---------------------------------------------------------------------------------------------
// Presentation

function presentLine(row: LineRow) {
  return {
    id: row.id,
    description: row.description,
    quantity: formatCents(row.quantityCents),
    unit_code: row.unitCode,
    unit_price: formatCents(row.unitPriceCents),
    amount: formatCents(row.amountCents),
    vat_rate_id: row.vatRateId,
    vat_rate: formatCents(row.vatRateBp),
    vat_amount: formatCents(row.vatCents),
    sort_order: row.sortOrder,
  };
}

/** Rows grouped by key, each group put in `order`. */
function groupBy<T>(rows: T[], keyOf: (row: T) => string, order: (a: T, b: T) => number): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  for (const group of groups.values()) if (group.length > 1) group.sort(order);
  return groups;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Lines in their sort_order; payments and contact persons as they were made (ids break ties). */
const lineOrder = (a: LineRow, b: LineRow) => a.sortOrder - b.sortOrder || byText(a.id, b.id);
const creationOrder = (a: { createdAt: string; id: string }, b: { createdAt: string; id: string }) =>
  byText(a.createdAt, b.createdAt) || byText(a.id, b.id);

/**
 * `column IN (ids)` for a page, the ids bound as one JSON array: one prepared statement for any
 * page size. A single invoice (show, and every write's answer) binds `column = id` instead:
 * json_each has a cost of its own per query, large beside the few rows of one invoice.
 */
const matching = (column: SQLiteColumn, name: string, one: boolean) =>
  one ? eq(column, sql.placeholder(name)) : sql`${column} IN (SELECT value FROM json_each(${sql.placeholder(name)}))`;

/**
 * The related rows of one invoice or a page of them, one prepared query per table (see
 * presentInvoices). They come back unordered and are put in order in groupBy: an ORDER BY,
 * even one an index satisfies, costs a small query more than reading its few rows does.
 */
function presentQueries(tx: Tx, one: boolean) {
  const orgId = sql.placeholder("orgId");
  const of = one ? "one invoice" : "a page";
  return {
    lines: preparedRows(tx, `invoice lines of ${of}`, invoiceLines, (tx) =>
      tx
        .select()
        .from(invoiceLines)
        .where(inOrg(invoiceLines, orgId, matching(invoiceLines.invoiceId, "invoiceIds", one))),
    ),
    payments: preparedRows(tx, `payments of ${of}`, payments, (tx) =>
      tx
        .select()
        .from(payments)
        .where(inOrg(payments, orgId, matching(payments.invoiceId, "invoiceIds", one))),
    ),
    customers: preparedRows(tx, `customers of ${of}`, customers, (tx) =>
      tx.select().from(customers).where(inOrg(customers, orgId, matching(customers.id, "customerIds", one))),
    ),
    contactPersons: preparedRows(tx, `contact persons of ${of}`, contactPersons, (tx) =>
      tx
        .select()
        .from(contactPersons)
        .where(inOrg(contactPersons, orgId, matching(contactPersons.customerId, "customerIds", one))),
    ),
  };
}

/**
 * Invoices as the API and their webhooks show them (api-spec 2.3): each with its customer in
 * the full shape of 2.1, its lines and its payments. One query per related table for the
 * whole page, whatever its size. Payments are read only for invoices with something paid:
 * paid_cents is the sum of an invoice's payments, each at least 0.01, kept in the same
 * transaction as they are (recordPayment, deletePayment).
 */
export function presentInvoices(tx: Tx, orgId: string, rows: InvoiceRow[]) {
  if (rows.length === 0) return [];
  const one = rows.length === 1;
  const withPayments = rows.filter((r) => r.paidCents > 0).map((r) => r.id);
  const params = one
    ? { orgId, invoiceIds: rows[0]!.id, customerIds: rows[0]!.customerId }
    : { orgId, invoiceIds: JSON.stringify(rows.map((r) => r.id)), customerIds: JSON.stringify([...new Set(rows.map((r) => r.customerId))]) };
  const q = presentQueries(tx, one);
  const lines = groupBy(q.lines.all(params), (l) => l.invoiceId, lineOrder);
  const paymentRows = withPayments.length === 0 ? [] : q.payments.all(one ? params : { ...params, invoiceIds: JSON.stringify(withPayments) });
  const paid = groupBy(paymentRows, (p) => p.invoiceId, creationOrder);
  const customerRows = q.customers.all(params);
  const persons = groupBy(q.contactPersons.all(params), (p) => p.customerId, creationOrder);
  // the shape of showCustomer (GET /customers/{id}), built from the rows loaded above
  const shownCustomers = new Map(
    customerRows.map((c: PartyRow) => [c.id, { ...presentParty(c), contact_persons: (persons.get(c.id) ?? []).map(presentContactPerson) }]),
  );
  return rows.map((row) => ({
    id: row.id,
    number: row.number,
    status: row.status,
    type: row.type,
    related_invoice_id: row.relatedInvoiceId,
    customer: shownCustomers.get(row.customerId)!,
    issue_date: row.issueDate,
    due_date: row.dueDate,
    subtotal: formatCents(row.subtotalCents),
    vat_amount: formatCents(row.vatCents),
    total: formatCents(row.totalCents),
    currency: row.currency,
    notes: row.notes,
    payment_terms: row.paymentTerms,
    buyer_reference: row.buyerReference,
    order_reference: row.orderReference,
    payment_reference: row.paymentReference,
    amount_paid: formatCents(row.paidCents),
    amount_due: formatCents(invoiceDueCents(row)),
    lines: (lines.get(row.id) ?? []).map(presentLine),
    payments: (paid.get(row.id) ?? []).map(presentPayment),
    finalized_at: row.finalizedAt,
    sent_at: row.sentAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  }));
}

export function showInvoice(tx: Tx, orgId: string, id: string): ShownInvoice {
  return presentInvoices(tx, orgId, [findInOrg(tx, invoices, orgId, id)])[0]!;
}

// ---------------------------------------------------------------------------------------------
// Input checks the schema cannot make (all collected, then thrown together as one 422)

function readCustomer(tx: Tx, orgId: string, bag: FieldErrorBag, id: string): PartyRow | null {
  const row = tx.select().from(customers).where(inOrg(customers, orgId, eq(customers.id, id))).get();
  if (!row) bag.add("customer_id", "The selected customer id is invalid.");
  return row ?? null;
}

/** A number given by hand: trimmed, not blank, unique in the organisation. */
function readNumber(tx: Tx, orgId: string, bag: FieldErrorBag, input: string, exceptId?: string): string {
  const number = input.trim();
  if (number === "") bag.add("number", "The number field must not be empty.");
  else if (numberTaken(tx, orgId, number, exceptId)) bag.add("number", "The number has already been taken.");
  return number;
}

function numberTaken(tx: Tx, orgId: string, number: string, exceptId?: string): boolean {
  const other = tx
    .select({ id: invoices.id })
    .from(invoices)
    .where(inOrg(invoices, orgId, eq(invoices.number, number), exceptId ? ne(invoices.id, exceptId) : undefined))
    .get();
  return other !== undefined;
}

type NewLine = PricedLine & { description: string; unitCode: string; vatRateId: string | null };

/** The unit of a line without one: C62, "one" (UN/ECE Recommendation 20). */
export const DEFAULT_UNIT_CODE = "C62";

/** Reads and prices the lines; errors are keyed `lines.N.field`. */
function readLines(tx: Tx, orgId: string, bag: FieldErrorBag, input: LineInput[]): NewLine[] {
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

function checkDueDate(bag: FieldErrorBag, issueDate: string, dueDate: string): void {
  if (dueDate < issueDate) bag.add("due_date", "The due date must be a date after or equal to the issue date.");
}

// ---------------------------------------------------------------------------------------------
// Writing

/**
 * The next number of the organisation's sequence for this type and year (INV-2026-00001).
 * Numbers already given by hand are skipped.
 */
function nextNumber(tx: Tx, orgId: string, type: InvoiceType, issueDate: string): string {
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
function nextPaymentReference(tx: Tx, orgId: string, country: string): string {
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
  | "status"
  | "paymentReference"
  | "issuedParties"
  | "finalizedAt"
  | "sentAt"
  | "createdAt"
  | "updatedAt"
>;

/** Inserts a draft with its lines and totals; numbers it unless a number is given. */
function insertDraft(tx: Tx, scope: Scope, fields: NewInvoice, lines: NewLine[], number: string | null): ShownInvoice {
  const now = nowIso();
  const row: InvoiceRow = {
    ...fields,
    id: newId(),
    organizationId: scope.org.id,
    number: number ?? nextNumber(tx, scope.org.id, fields.type, fields.issueDate),
    status: "draft",
    ...totalsColumns(lines),
    paidCents: 0,
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

  get(scope: Scope, id: string): ShownInvoice {
    return snapshot(scope.db, (tx) => showInvoice(tx, scope.org.id, id));
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
      if (input.number !== undefined) set.number = readNumber(tx, scope.org.id, bag, input.number, id);
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

  finalize(scope: Scope, id: string): ShownInvoice {
    return transaction(scope.db, (tx) => {
      const row = findFor(tx, scope, id, "finalize");
      if (row.type === "credit_note" && row.relatedInvoiceId) {
        const { invoice, leftCents } = creditedBy(tx, scope.org.id, row);
        if (row.totalCents > leftCents) throw ValidationFailed.field("total", tooMuchCredit(invoice, leftCents));
      }
      const shown = change(tx, scope.org.id, id, {
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
        ledger: [{ post: invoicePosting(tx, row) }],
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
        },
        lines,
        null,
      );
    });
  },
};
