/** Expenses, the documents they were imported from, and supplier documents kept without an expense (server/expenses). */
import { sql } from "drizzle-orm";
import { blob, index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { EXPENSE_DOCUMENT_TYPES, EXPENSE_STATUSES, VAT_CATEGORIES } from "../values.ts";
import { createdAt, externalId, id, metadata, updatedAt } from "./columns.ts";
import { orgId } from "./orgs.ts";
import { suppliers } from "./suppliers.ts";
import { vatRates } from "./vat-rates.ts";

export const expenses = sqliteTable(
  "expenses",
  {
    id: id(),
    organizationId: orgId(),
    category: text("category").notNull(),
    description: text("description"),
    amountCents: integer("amount_cents").notNull(),
    vatCents: integer("vat_cents").notNull(),
    vatRateId: text("vat_rate_id").references(() => vatRates.id),
    date: text("date").notNull(),
    vendor: text("vendor"),
    supplierId: text("supplier_id").references(() => suppliers.id),
    status: text("status", { enum: EXPENSE_STATUSES }).notNull(),
    currency: text("currency").notNull(),
    rejectionReason: text("rejection_reason"),
    /** Σ of its payments (expense_payments): what has been paid of amount + VAT */
    paidCents: integer("paid_cents").notNull().default(0),
    /** credit_note: money the supplier owes back; its approval and payments post the reverse of an invoice's */
    documentType: text("document_type", { enum: EXPENSE_DOCUMENT_TYPES }).notNull().default("invoice"),
    /** the supplier's own number of an imported e-invoice (cbc:ID) */
    supplierInvoiceNumber: text("supplier_invoice_number"),
    /** from an imported e-invoice: the account it asks to be paid to and the reference to quote (bank matching) */
    payeeIban: text("payee_iban"),
    paymentReference: text("payment_reference"),
    /** when the supplier wants its money (BT-9 of an imported e-invoice) */
    dueDate: text("due_date"),
    /**
     * an imported e-invoice's prepaid amount (BT-113) and rounding (BT-114), signed as amount_cents:
     * what is due is amount + VAT − prepaid + rounding (BT-115; server/settlement/due.ts)
     */
    prepaidCents: integer("prepaid_cents").notNull().default(0),
    roundingCents: integer("rounding_cents").notNull().default(0),
    /** the rate of the VAT self-assessed on a reverse-charge purchase (K, AE); null: the organisation's standard rate */
    selfAssessedVatRateId: text("self_assessed_vat_rate_id").references(() => vatRates.id),
    externalId: externalId(),
    metadata: metadata(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // a supplier's document is imported once (409 naming the expense)
    uniqueIndex("expenses_org_supplier_document")
      .on(t.organizationId, t.supplierId, t.documentType, t.supplierInvoiceNumber)
      .where(sql`${t.supplierInvoiceNumber} IS NOT NULL`),
    index("expenses_org_date").on(t.organizationId, t.date, t.id),
    index("expenses_org_amount").on(t.organizationId, t.amountCents, t.id),
    index("expenses_org_category").on(t.organizationId, t.category, t.date, t.id),
    index("expenses_org_status").on(t.organizationId, t.status, t.date, t.id),
    // sort=category / sort=status with the id tiebreak, without a sort step
    index("expenses_org_category_id").on(t.organizationId, t.category, t.id),
    index("expenses_org_status_id").on(t.organizationId, t.status, t.id),
    index("expenses_org_supplier").on(t.organizationId, t.supplierId, t.date, t.id),
    index("expenses_org_currency").on(t.organizationId, t.currency, t.date, t.id),
    index("expenses_org_created").on(t.organizationId, t.createdAt, t.id),
    index("expenses_org_updated").on(t.organizationId, t.updatedAt, t.id),
    index("expenses_supplier").on(t.supplierId),
    // an external id names one expense of the organisation (409 naming the holder); filter[external_id]
    uniqueIndex("expenses_org_external_id").on(t.organizationId, t.externalId).where(sql`${t.externalId} IS NOT NULL`),
  ],
);

/** The original document of an imported expense, byte for byte (legal archiving); kept apart so expense rows stay small. */
export const expenseDocuments = sqliteTable("expense_documents", {
  expenseId: text("expense_id")
    .primaryKey()
    .references(() => expenses.id, { onDelete: "cascade" }),
  organizationId: orgId(),
  contentType: text("content_type").notNull(),
  body: blob("body", { mode: "buffer" }).notNull(),
  sha256: text("sha256").notNull(),
  createdAt: createdAt(),
});

/** An imported expense's VAT breakdown, one row per category and rate (EN 16931 BG-23); its approval posts one base and VAT pair per row. */
export const expenseVatLines = sqliteTable(
  "expense_vat_lines",
  {
    id: id(),
    organizationId: orgId(),
    expenseId: text("expense_id")
      .notNull()
      .references(() => expenses.id, { onDelete: "cascade" }),
    category: text("category", { enum: VAT_CATEGORIES }).notNull(),
    rateBp: integer("rate_bp").notNull(),
    /** signed as on the document, after the expense's own sign (a credit note's lines are positive) */
    baseCents: integer("base_cents").notNull(),
    vatCents: integer("vat_cents").notNull(),
  },
  (t) => [index("expense_vat_lines_expense").on(t.expenseId, t.category, t.rateBp)],
);

/**
 * A valid supplier document Kontor cannot book as an expense (all its totals 0.00: the
 * specification's minimum is 0.01), kept byte for byte with its supplier.
 */
export const receivedDocuments = sqliteTable(
  "received_documents",
  {
    id: id(),
    organizationId: orgId(),
    supplierId: text("supplier_id")
      .notNull()
      .references(() => suppliers.id),
    documentType: text("document_type", { enum: EXPENSE_DOCUMENT_TYPES }).notNull(),
    supplierInvoiceNumber: text("supplier_invoice_number").notNull(),
    date: text("date").notNull(),
    vendor: text("vendor").notNull(),
    currency: text("currency").notNull(),
    contentType: text("content_type").notNull(),
    body: blob("body", { mode: "buffer" }).notNull(),
    sha256: text("sha256").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    // a supplier's document is kept once (409 naming it), as an expense's is
    uniqueIndex("received_documents_org_supplier_document").on(t.organizationId, t.supplierId, t.documentType, t.supplierInvoiceNumber),
    index("received_documents_org_date").on(t.organizationId, t.date, t.id),
    index("received_documents_org_supplier").on(t.organizationId, t.supplierId, t.date, t.id),
    index("received_documents_org_created").on(t.organizationId, t.createdAt, t.id),
    index("received_documents_supplier").on(t.supplierId),
  ],
);
