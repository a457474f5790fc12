/** Invoices, credit notes and interest notes, their lines and document-level allowances and charges (server/invoices). */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { INVOICE_STATUSES, INVOICE_TYPES, type InvoiceStatus, type IssuedCustomer, type IssuedParties, SUPPLY_TYPES } from "../values.ts";
import { bool, createdAt, externalId, id, metadata, updatedAt } from "./columns.ts";
import { orgId } from "./orgs.ts";
import { customers } from "./customers.ts";
import { vatRates } from "./vat-rates.ts";

/** Invoice states that wait for payment: the ones in which an invoice can be overdue. */
export const AWAITING_PAYMENT = ["finalized", "sent", "partially_paid"] as const satisfies readonly InvoiceStatus[];
/**
 * What a document still asks of its customer: an invoice's amount due, a credit note's negative.
 * Written once for the aging index and the report that reads it (SQLite matches them by shape).
 */
export const signedAmountDue = sql.raw(
  `(CASE WHEN "type" = 'credit_note' THEN "paid_cents" + "credited_cents" - "total_cents" ELSE "total_cents" - "paid_cents" - "credited_cents" END)`,
);
/**
 * `status IN ('finalized', 'sent', 'partially_paid')` with the values written out: SQLite uses a
 * partial index only for a query whose WHERE states the index's condition itself (bound
 * parameters do not count), so the index and the overdue filter share this expression.
 */
export const awaitingPayment = sql.raw(`"status" IN (${AWAITING_PAYMENT.map((s) => `'${s}'`).join(", ")})`);

export const invoices = sqliteTable(
  "invoices",
  {
    id: id(),
    organizationId: orgId(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    number: text("number").notNull(),
    type: text("type", { enum: INVOICE_TYPES }).notNull(),
    status: text("status", { enum: INVOICE_STATUSES }).notNull(),
    relatedInvoiceId: text("related_invoice_id"),
    issueDate: text("issue_date").notNull(),
    dueDate: text("due_date").notNull(),
    currency: text("currency").notNull(),
    notes: text("notes"),
    paymentTerms: text("payment_terms"),
    /** BT-10: the buyer's reference (Peppol requires it or an order reference) */
    buyerReference: text("buyer_reference"),
    /** BT-13: the buyer's purchase order */
    orderReference: text("order_reference"),
    /** set at finalize: BE structured communication or ISO 11649 RF reference, unique per organisation */
    paymentReference: text("payment_reference"),
    /**
     * Seller, buyer, payee and language as they were at finalize (server/invoices/document.ts): an
     * issued document renders the same whatever is edited afterwards. Null on drafts.
     */
    issuedParties: text("issued_parties", { mode: "json" }).$type<IssuedParties>(),
    /**
     * The customer as the issued document embeds it, frozen at finalize with the parties: what
     * its PDF and e-invoice say of the buyer, with the customer's other fields as they were then
     * (docs/api.md#embedded-data). Null on drafts, which embed the live customer.
     */
    issuedCustomer: text("issued_customer", { mode: "json" }).$type<IssuedCustomer>(),
    subtotalCents: integer("subtotal_cents").notNull(),
    vatCents: integer("vat_cents").notNull(),
    totalCents: integer("total_cents").notNull(),
    paidCents: integer("paid_cents").notNull(),
    /**
     * Settled by credit allocation (docs/invoicing.md#credit-notes): on an invoice, the finalized credit notes
     * allocated to it; on a credit note, the part of it allocated to the invoice it credits.
     * amount_due = total − paid − credited on both.
     */
    creditedCents: integer("credited_cents").notNull().default(0),
    /** unit prices are gross (VAT included); lines' amounts and VAT are derived shares */
    pricesIncludeVat: bool("prices_include_vat").notNull().default(false),
    /** BT-107 and BT-108: the sums of the document-level allowances and charges */
    allowanceCents: integer("allowance_cents").notNull().default(0),
    chargeCents: integer("charge_cents").notNull().default(0),
    /** no reminder run reminds of it, and why; changeable after finalize (it is not part of the document) */
    remindersPaused: bool("reminders_paused").notNull().default(false),
    remindersPausedReason: text("reminders_paused_reason"),
    finalizedAt: text("finalized_at"),
    sentAt: text("sent_at"),
    /** BG-14 invoicing period (BT-73, BT-74): the service the document bills; both or neither */
    servicePeriodStart: text("service_period_start"),
    servicePeriodEnd: text("service_period_end"),
    /** BT-72, the date of supply; a German seller's document without it nor a service period gets its issue date at finalize (the Leistungsdatum) */
    deliveryDate: text("delivery_date"),
    /** the recurring invoice that generated it (no foreign key: a deleted template leaves its invoices) */
    recurringInvoiceId: text("recurring_invoice_id"),
    /** an interest note's: the last day whose interest it charges, and the part of its total that is the fixed compensation (server/interest) */
    interestThrough: text("interest_through"),
    compensationCents: integer("compensation_cents"),
    externalId: externalId(),
    metadata: metadata(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("invoices_org_number").on(t.organizationId, t.number),
    index("invoices_org_issue").on(t.organizationId, t.issueDate, t.id),
    index("invoices_org_due").on(t.organizationId, t.dueDate, t.id),
    index("invoices_org_total").on(t.organizationId, t.totalCents, t.id),
    index("invoices_org_status").on(t.organizationId, t.status, t.issueDate, t.id),
    index("invoices_org_status_id").on(t.organizationId, t.status, t.id),
    // overdue=true in list order: the invoices awaiting payment, newest first, each with its
    // due date, so that the ones not yet due are passed over without reading their rows
    index("invoices_org_awaiting_issue_due").on(t.organizationId, t.issueDate, t.id, t.dueDate).where(awaitingPayment),
    // the count of overdue=true: the range of due dates before today among those invoices
    index("invoices_org_awaiting_due").on(t.organizationId, t.dueDate).where(awaitingPayment),
    // aged receivables (server/reports): the open documents of a currency, by customer, each with
    // its signed amount due computed once, when written; read from the index alone
    index("invoices_org_awaiting_aging")
      // status too: SQLite reads a partial index alone only when it holds the columns of its condition
      .on(t.organizationId, t.currency, t.customerId, t.dueDate, signedAmountDue, t.issueDate, t.status)
      .where(awaitingPayment),
    index("invoices_org_type").on(t.organizationId, t.type, t.issueDate, t.id),
    index("invoices_org_customer").on(t.organizationId, t.customerId, t.issueDate, t.id),
    index("invoices_org_currency").on(t.organizationId, t.currency, t.issueDate, t.id),
    index("invoices_org_created").on(t.organizationId, t.createdAt, t.id),
    index("invoices_org_updated").on(t.organizationId, t.updatedAt, t.id),
    index("invoices_customer").on(t.customerId),
    index("invoices_org_recurring").on(t.organizationId, t.recurringInvoiceId).where(sql`${t.recurringInvoiceId} IS NOT NULL`),
    // what is left to credit on an invoice: its credit notes (server/invoices/credit-left.ts creditLeftCents)
    index("invoices_org_related").on(t.organizationId, t.relatedInvoiceId).where(sql`${t.relatedInvoiceId} IS NOT NULL`),
    // a transfer's reference names one document of the organisation
    uniqueIndex("invoices_org_payment_reference").on(t.organizationId, t.paymentReference).where(sql`${t.paymentReference} IS NOT NULL`),
    // an external id names one invoice or credit note of the organisation (409 naming the holder); filter[external_id]
    uniqueIndex("invoices_org_external_id").on(t.organizationId, t.externalId).where(sql`${t.externalId} IS NOT NULL`),
    // filter[order_reference] in list order (filter[number] is invoices_org_number's)
    index("invoices_org_order_reference").on(t.organizationId, t.orderReference, t.issueDate, t.id),
  ],
);

export const invoiceLines = sqliteTable(
  "invoice_lines",
  {
    id: id(),
    organizationId: orgId(),
    invoiceId: text("invoice_id")
      .notNull()
      .references(() => invoices.id, { onDelete: "cascade" }),
    description: text("description").notNull(),
    quantityCents: integer("quantity_cents").notNull(),
    /** UN/ECE Recommendation 20 unit of the quantity: C62 "one", HUR hour, DAY, KGM, … */
    unitCode: text("unit_code").notNull().default("C62"),
    unitPriceCents: integer("unit_price_cents").notNull(),
    amountCents: integer("amount_cents").notNull(),
    vatRateId: text("vat_rate_id").references(() => vatRates.id),
    /** The rate at the time the line was written, so totals never drift. */
    vatRateBp: integer("vat_rate_bp").notNull(),
    vatCents: integer("vat_cents").notNull(),
    /** BG-27, a line allowance: given as a percentage (hundredths of a percent, 10 % = 1000) or as an amount */
    discountPercentBp: integer("discount_percent_bp"),
    discountCents: integer("discount_cents").notNull().default(0),
    discountReason: text("discount_reason"),
    sortOrder: integer("sort_order").notNull(),
    /** goods or services (the Belgian return's 44 and 46); null on lines issued before it existed, reported by the default of their category */
    supplyType: text("supply_type", { enum: SUPPLY_TYPES }),
  },
  (t) => [index("invoice_lines_invoice").on(t.invoiceId, t.sortOrder)],
);

/** BG-20 and BG-21: a document-level allowance (a discount) or charge, with its VAT rate and reason. */
export const invoiceAllowanceCharges = sqliteTable(
  "invoice_allowance_charges",
  {
    id: id(),
    organizationId: orgId(),
    invoiceId: text("invoice_id")
      .notNull()
      .references(() => invoices.id, { onDelete: "cascade" }),
    isCharge: bool("is_charge").notNull(),
    amountCents: integer("amount_cents").notNull(),
    /** given as a percentage of a base amount: both kept (BT-93/BT-94, BT-100/BT-101) */
    baseCents: integer("base_cents"),
    percentBp: integer("percent_bp"),
    reason: text("reason"),
    /** UNCL5189 (allowances) or UNCL7161 (charges) */
    reasonCode: text("reason_code"),
    vatRateId: text("vat_rate_id").references(() => vatRates.id),
    vatRateBp: integer("vat_rate_bp").notNull(),
    sortOrder: integer("sort_order").notNull(),
  },
  (t) => [index("invoice_allowance_charges_invoice").on(t.invoiceId, t.sortOrder)],
);
