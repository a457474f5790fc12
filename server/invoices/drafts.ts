/**
 * What the invoice commands share to write a draft and its parts (server/invoices/commands/): a
 * draft inserted with its lines, allowances and charges and totals (`insertDraft`, also the
 * interest notes' and the recurring run's), the lines and allowances stored, a draft priced within
 * range, an invoice's columns set, and a customer's drafts touched when the customer changes.
 */
import { asc, eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { invoiceAllowanceCharges, invoiceLines, invoices, organizations } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { FieldErrorBag } from "../lib/errors.ts";
import { checkExternalId } from "../lib/external-ids.ts";
import { formatCents, MAX_CENTS } from "../lib/money.ts";
import { inOrg, updateInOrg, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { priceDraft, type NewAllowanceCharge, type NewLine } from "./checks.ts";
import { provisionalNumber } from "./numbering.ts";
import { presentInvoices, showInvoice, type ShownInvoice } from "./read.ts";
import { type InvoiceTotals } from "./totals.ts";
import { firstRow } from "../../db/client.ts";

export type InvoiceRow = typeof invoices.$inferSelect;

/** A due date not given: the issue date plus these days (a credit note's always). */
export const DEFAULT_PAYMENT_DAYS = 30;

export async function insertLines(tx: Tx, orgId: string, invoiceId: string, lines: NewLine[]): Promise<void> {
  if (lines.length === 0) return;
  await tx.insert(invoiceLines)
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
    );
}

export async function insertAllowanceCharges(tx: Tx, orgId: string, invoiceId: string, rows: readonly NewAllowanceCharge[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.insert(invoiceAllowanceCharges)
    .values(rows.map((ac, i) => ({ ...ac, id: newId(), organizationId: orgId, invoiceId, sortOrder: i })));
}

/** An invoice's allowances and charges as stored, in their order: what an update without `allowances_charges` keeps. */
export async function storedAllowanceCharges(tx: Tx, orgId: string, invoiceId: string): Promise<NewAllowanceCharge[]> {
  return (await tx
    .select()
    .from(invoiceAllowanceCharges)
    .where(inOrg(invoiceAllowanceCharges, orgId, eq(invoiceAllowanceCharges.invoiceId, invoiceId)))
    .orderBy(asc(invoiceAllowanceCharges.sortOrder)))
    .map(({ id: _id, organizationId: _org, invoiceId: _invoice, sortOrder: _order, ...ac }) => ac);
}

/** An invoice's lines as stored, in their order. */
export async function storedLines(tx: Tx, orgId: string, invoiceId: string): Promise<NewLine[]> {
  return (await tx
    .select()
    .from(invoiceLines)
    .where(inOrg(invoiceLines, orgId, eq(invoiceLines.invoiceId, invoiceId)))
    .orderBy(asc(invoiceLines.sortOrder)))
    .map(({ id: _id, organizationId: _org, invoiceId: _invoice, sortOrder: _order, ...line }) => line);
}

/** The organisation's default of a new invoice's prices_include_vat. */
export async function orgPricesIncludeVat(tx: Tx, orgId: string): Promise<boolean> {
  return (await firstRow(tx.select({ gross: organizations.pricesIncludeVat }).from(organizations).where(eq(organizations.id, orgId))))?.gross ?? false;
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
export async function insertDraft(
  tx: Tx,
  scope: Scope,
  fields: NewInvoice,
  lines: NewLine[],
  number: string | null,
  allowanceCharges: NewAllowanceCharge[] = [],
): Promise<ShownInvoice> {
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
    number: number ?? await provisionalNumber(tx, scope.org.id, id),
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
  await checkExternalId(tx, invoices, "invoice", scope.org.id, row.externalId);
  await tx.insert(invoices).values(row);
  await insertLines(tx, scope.org.id, row.id, priced.lines);
  await insertAllowanceCharges(tx, scope.org.id, row.id, allowanceCharges);
  const shown = await showInvoice(tx, scope.org.id, row.id);
  await recordChange(tx, scope, { action: "invoice.created", resource: { type: "invoice", id: row.id }, event: "invoice.created", data: shown });
  return shown;
}

export function totalsColumns(totals: InvoiceTotals) {
  const { subtotalCents, vatCents, totalCents, allowanceCents, chargeCents } = totals;
  return { subtotalCents, vatCents, totalCents, allowanceCents, chargeCents };
}

/** The draft priced (its lines with its allowances and charges, totals.ts); a total beyond the range is a 422 on `lines`. */
export function pricedWithinRange(bag: FieldErrorBag, pricesIncludeVat: boolean, lines: NewLine[], allowanceCharges: NewAllowanceCharge[]) {
  const priced = priceDraft(pricesIncludeVat, lines, allowanceCharges);
  if (priced.totals.totalCents > MAX_CENTS) bag.add("lines", `The invoice total must not be greater than ${formatCents(MAX_CENTS)}.`);
  return priced;
}

/** Sets columns of the invoice (with a fresh updated_at) and returns it as shown. */
export async function changeInvoice(tx: Tx, orgId: string, id: string, set: Partial<InvoiceRow>): Promise<ShownInvoice> {
  await updateInOrg(tx, invoices, orgId, id, { ...set, updatedAt: nowIso() });
  return showInvoice(tx, orgId, id);
}

/**
 * A customer changed (its own fields or its contact persons), in `tx`: each of its drafts, which
 * embed it live, moves its updated_at and emits invoice.updated with the customer as it now is,
 * so `filter[updated_since]` and the events feed see the change (docs/api.md#embedded-data). Its
 * issued documents embed the customer as issued and do not change. Bounded by the customer's
 * drafts, read through invoices_org_customer.
 */
export async function touchCustomerDrafts(tx: Tx, scope: Scope, customerId: string): Promise<void> {
  const drafts = inOrg(invoices, scope.org.id, eq(invoices.customerId, customerId), eq(invoices.status, "draft"));
  const now = nowIso();
  const rows = await tx.update(invoices).set({ updatedAt: now }).where(drafts).returning();
  if (rows.length === 0) return;
  rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const shown of await presentInvoices(tx, scope.org.id, rows)) {
    await recordChange(tx, scope, { action: "invoice.customer_updated", resource: { type: "invoice", id: shown.id }, event: "invoice.updated", data: shown });
  }
}
