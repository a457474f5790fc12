/** The invoices' read side: an invoice as its GET, its list and its webhook payloads show it. */
import { eq, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { prepared, preparedRows, type Tx } from "../../db/client.ts";
import { contactPersons, customers, invoiceAllowanceCharges, invoiceLines, invoices, payments } from "../../db/schema.ts";
import type { DocumentParty, DocumentPayee } from "../../db/values.ts";
import { invoiceDueCents } from "../settlement/due.ts";
import { presentPayment } from "../settlement/payments.ts";
import type { PartyRow } from "../contacts/party-service.ts";
import { presentContactPerson, presentCustomer } from "../customers/service.ts";
import { formatCents } from "../lib/money.ts";
import { findInOrg, inOrg } from "../lib/scope.ts";
import { linePrice } from "./checks.ts";
import { priceInvoice } from "./totals.ts";
import { inJsonArray } from "../../db/dialect.ts";

type InvoiceRow = typeof invoices.$inferSelect;
type LineRow = typeof invoiceLines.$inferSelect;
type AllowanceChargeRow = typeof invoiceAllowanceCharges.$inferSelect;

export type ShownInvoice = Awaited<ReturnType<typeof presentInvoices>>[number];
type ShownCustomer = ReturnType<typeof presentCustomer> & { contact_persons: ReturnType<typeof presentContactPerson>[] };


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
    discount_percent: row.discountPercentBp === null ? null : formatCents(row.discountPercentBp),
    discount_amount: formatCents(row.discountCents),
    discount_reason: row.discountReason,
    supply_type: row.supplyType,
    sort_order: row.sortOrder,
  };
}

/**
 * An invoice's document allowances and charges with their net amount and VAT: not stored, but
 * priced again from the lines and allowances as stored (totals.ts), which gives the shares the
 * invoice's totals were computed from.
 */
function presentAllowanceCharges(invoice: InvoiceRow, lines: LineRow[], rows: AllowanceChargeRow[]) {
  if (rows.length === 0) return [];
  const priced = priceInvoice(invoice.pricesIncludeVat, lines.map(linePrice), rows).allowanceCharges;
  return priced.map((ac) => ({
    id: ac.id,
    type: ac.isCharge ? ("charge" as const) : ("allowance" as const),
    amount: formatCents(ac.amountCents),
    percent: ac.percentBp === null ? null : formatCents(ac.percentBp),
    base_amount: ac.baseCents === null ? null : formatCents(ac.baseCents),
    net_amount: formatCents(ac.netCents),
    vat_amount: formatCents(ac.vatCents),
    reason: ac.reason,
    reason_code: ac.reasonCode,
    vat_rate_id: ac.vatRateId,
    vat_rate: formatCents(ac.vatRateBp),
  }));
}

/** A party as the issued documents carry it (invoices.issued_parties), in the API's field names. */
function presentIssuedParty(party: DocumentParty) {
  return {
    name: party.name,
    address: party.address,
    city: party.city,
    postal_code: party.postalCode,
    country: party.country,
    vat_number: party.vatNumber,
    company_number: party.companyNumber,
    email: party.email,
    phone: party.phone,
    peppol_id: party.peppolId,
  };
}

const presentPayee = (payee: DocumentPayee | null) => (payee ? { iban: payee.iban, bic: payee.bic, account_name: payee.accountName } : null);

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
const lineOrder = (a: { sortOrder: number; id: string }, b: { sortOrder: number; id: string }) => a.sortOrder - b.sortOrder || byText(a.id, b.id);
const creationOrder = (a: { createdAt: string; id: string }, b: { createdAt: string; id: string }) =>
  byText(a.createdAt, b.createdAt) || byText(a.id, b.id);

/**
 * `column IN (ids)` for a page, the ids bound as one JSON array: one prepared statement for any
 * page size. A single invoice (show, and every write's answer) binds `column = id` instead:
 * json_each has a cost of its own per query, large beside the few rows of one invoice.
 */
const matching = (column: SQLiteColumn, name: string, one: boolean) =>
  one ? eq(column, sql.placeholder(name)) : sql`${inJsonArray(column, sql.placeholder(name))}`;

/**
 * The related rows of one invoice or a page of them, one prepared query per table (see
 * presentInvoices). They come back unordered and are put in order in groupBy: an ORDER BY,
 * even one an index satisfies, costs a small query more than reading its few rows does.
 */
function presentQueries(tx: Tx, one: boolean) {
  // the five looked up as one: a lookup of the connection's cache and its key cost as much as a small query's own JavaScript
  return prepared(tx, one ? "present one invoice" : "present a page of invoices", (tx) => buildPresentQueries(tx, one));
}

function buildPresentQueries(tx: Tx, one: boolean) {
  const orgId = sql.placeholder("orgId");
  const of = one ? "one invoice" : "a page";
  return {
    lines: preparedRows(tx, `invoice lines of ${of}`, invoiceLines, (tx) =>
      tx
        .select()
        .from(invoiceLines)
        .where(inOrg(invoiceLines, orgId, matching(invoiceLines.invoiceId, "invoiceIds", one))),
    ),
    allowanceCharges: preparedRows(tx, `allowances and charges of ${of}`, invoiceAllowanceCharges, (tx) =>
      tx
        .select()
        .from(invoiceAllowanceCharges)
        .where(inOrg(invoiceAllowanceCharges, orgId, matching(invoiceAllowanceCharges.invoiceId, "invoiceIds", one))),
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
 * Invoices as the API and their webhooks show them: each with its customer in the shape
 * GET /customers/{id} gives, its lines and its payments. One query per related table for the
 * whole page, whatever its size. Payments are read only for invoices with something paid:
 * paid_cents is the sum of an invoice's payments, each at least 0.01, kept in the same
 * transaction as they are (recordPayment, deletePayment).
 */
export async function presentInvoices(tx: Tx, orgId: string, rows: InvoiceRow[]) {
  if (rows.length === 0) return [];
  const one = rows.length === 1;
  const withPayments = rows.filter((r) => r.paidCents > 0).map((r) => r.id);
  const params = one
    ? { orgId, invoiceIds: rows[0]!.id, customerIds: rows[0]!.customerId }
    : { orgId, invoiceIds: JSON.stringify(rows.map((r) => r.id)), customerIds: JSON.stringify([...new Set(rows.map((r) => r.customerId))]) };
  const q = presentQueries(tx, one);
  const lines = groupBy(await q.lines.all(params), (l) => l.invoiceId, lineOrder);
  // only invoices that may have any: a net-priced one's allowances and charges each show in its columns
  const withAllowances = rows.filter((r) => r.allowanceCents !== 0 || r.chargeCents !== 0 || r.pricesIncludeVat).map((r) => r.id);
  const acRows =
    withAllowances.length === 0 ? [] : await q.allowanceCharges.all(one ? params : { ...params, invoiceIds: JSON.stringify(withAllowances) });
  const allowanceCharges = groupBy(acRows, (a) => a.invoiceId, lineOrder);
  const paymentRows = withPayments.length === 0 ? [] : await q.payments.all(one ? params : { ...params, invoiceIds: JSON.stringify(withPayments) });
  const paid = groupBy(paymentRows, (p) => p.invoiceId, creationOrder);
  const customerRows = await q.customers.all(params);
  const persons = groupBy(await q.contactPersons.all(params), (p) => p.customerId, creationOrder);
  // the shape of showCustomer (GET /customers/{id}), built from the rows loaded above
  const shownCustomers = new Map(
    customerRows.map((c: PartyRow) => [c.id, { ...presentCustomer(c), contact_persons: (persons.get(c.id) ?? []).map(presentContactPerson) }]),
  );
  return rows.map((row) => ({
    id: row.id,
    number: row.number,
    status: row.status,
    type: row.type,
    related_invoice_id: row.relatedInvoiceId,
    // an issued document's is the customer as issued (frozen at finalize, its party fields the
    // buyer's; a field added to customers since comes live), a draft's the live one:
    // docs/api.md#embedded-data
    customer: row.issuedCustomer ? ({ ...shownCustomers.get(row.customerId)!, ...row.issuedCustomer } as ShownCustomer) : shownCustomers.get(row.customerId)!,
    // what its PDF and UBL carry, frozen at finalize
    seller: row.issuedParties ? presentIssuedParty(row.issuedParties.seller) : null,
    buyer: row.issuedParties ? presentIssuedParty(row.issuedParties.buyer) : null,
    payee: row.issuedParties ? presentPayee(row.issuedParties.payee) : null,
    issue_date: row.issueDate,
    due_date: row.dueDate,
    prices_include_vat: row.pricesIncludeVat,
    line_total: formatCents(row.subtotalCents + row.allowanceCents - row.chargeCents),
    allowance_total: formatCents(row.allowanceCents),
    charge_total: formatCents(row.chargeCents),
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
    amount_credited: formatCents(row.creditedCents),
    amount_due: formatCents(invoiceDueCents(row)),
    lines: (lines.get(row.id) ?? []).map(presentLine),
    allowances_charges: presentAllowanceCharges(row, lines.get(row.id) ?? [], allowanceCharges.get(row.id) ?? []),
    payments: (paid.get(row.id) ?? []).map(presentPayment),
    service_period_start: row.servicePeriodStart,
    service_period_end: row.servicePeriodEnd,
    delivery_date: row.deliveryDate,
    recurring_invoice_id: row.recurringInvoiceId,
    finalized_at: row.finalizedAt,
    sent_at: row.sentAt,
    reminders_paused: row.remindersPaused,
    reminders_paused_reason: row.remindersPausedReason,
    external_id: row.externalId,
    metadata: row.metadata,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  }));
}

export async function showInvoice(tx: Tx, orgId: string, id: string): Promise<ShownInvoice> {
  return (await presentInvoices(tx, orgId, [await findInOrg(tx, invoices, orgId, id)]))[0]!;
}
