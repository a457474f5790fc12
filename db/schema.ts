/**
 * The whole Kontor schema. Every organisation-owned table carries `organization_id`;
 * queries go through `inOrg`, `findInOrg`, `updateInOrg` and `deleteInOrg` in `server/lib/scope.ts`,
 * which add that condition in one place.
 * Money and quantities are integer hundredths (`*_cents`), VAT rates basis points.
 */
import { sql } from "drizzle-orm";
import {
  ACCOUNT_TYPES, ACTOR_TYPES, DELIVERY_ATTEMPT_OUTCOMES, DELIVERY_SUBJECTS, DOCUMENT_DELIVERY_STATUSES, SEND_CHANNELS, BANK_STATEMENT_FORMATS, BANK_TRANSACTION_DIRECTIONS, BANK_TRANSACTION_STATUSES, DELIVERY_STATUSES,
  DOCUMENT_LANGUAGES, EINVOICE_PROFILES, EXPENSE_DOCUMENT_TYPES, EXPENSE_STATUSES, FISCAL_YEAR_STATUSES, INVOICE_STATUSES, INVOICE_TYPES, JOURNAL_SOURCES,
  PAYMENT_LINKS, PAYMENT_METHODS, REMINDER_CHANNELS, ROLES, SYSTEM_ACCOUNTS, TOKEN_TYPES, VAT_CATEGORIES, VAT_ROLES, VAT_SIDES,
  PEPPOL_PROVIDERS, RECURRING_INTERVALS, RECURRING_SEND_CHANNELS, RECURRING_STATUSES,
  type DeliveryRecipients, type InvoiceStatus, type IssuedCustomer, type IssuedParties, type RecurringLine, type ReminderLevel, type ReminderNoteDue, type DatePeriod, VAT_PERIODS, CHARTS, SUPPLY_TYPES,
  LEGAL_KINDS,
} from "./values.ts";
import { type AnySQLiteColumn, blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
// Each enum is declared once, beside the API schema that shows it; `enum` on a SQLite text
// column only types it (no CHECK constraint, no migration when a list changes).

const id = () => text("id").primaryKey();
const orgId = () =>
  text("organization_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" });
const createdAt = () => text("created_at").notNull();
const updatedAt = () => text("updated_at").notNull();
const bool = (name: string) => integer(name, { mode: "boolean" });
/** A client's own id of a row (docs/api.md#external-ids-and-metadata): unique per organisation and table where set. */
const externalId = () => text("external_id");
/** A client's string pairs on a row (at most 50 keys of 40 characters, values of 500), a JSON object; `{}` when none. */
const metadata = () => text("metadata", { mode: "json" }).$type<Record<string, string>>().notNull().default({});
/** Names sort case-insensitively ("alpha" between "Aaron" and "Bravo"); lists order by the same expression. */
export const nocase = (column: AnySQLiteColumn) => sql`${column} collate nocase`;
/** Invoice states that wait for payment: the ones in which an invoice can be overdue. */
export const AWAITING_PAYMENT = ["finalized", "sent", "partially_paid"] as const satisfies readonly InvoiceStatus[];
/**
 * `status IN ('finalized', 'sent', 'partially_paid')` with the values written out: SQLite uses a
 * partial index only for a query whose WHERE states the index's condition itself (bound
 * parameters do not count), so the index and the overdue filter share this expression.
 */
/**
 * What a document still asks of its customer: an invoice's amount due, a credit note's negative.
 * Written once for the aging index and the report that reads it (SQLite matches them by shape).
 */
export const signedAmountDue = sql.raw(
  `(CASE WHEN "type" = 'credit_note' THEN "paid_cents" + "credited_cents" - "total_cents" ELSE "total_cents" - "paid_cents" - "credited_cents" END)`,
);
export const awaitingPayment = sql.raw(`"status" IN (${AWAITING_PAYMENT.map((s) => `'${s}'`).join(", ")})`);

export const organizations = sqliteTable("organizations", {
  id: id(),
  name: text("name").notNull(),
  currency: text("currency").notNull(),
  country: text("country").notNull(),
  apiAccess: bool("api_access").notNull(),
  // the seller's identity on issued documents (docs/invoicing.md#the-organisation); all optional but the language
  address: text("address"),
  city: text("city"),
  postalCode: text("postal_code"),
  vatNumber: text("vat_number"),
  /** e.g. the Belgian enterprise number */
  companyNumber: text("company_number"),
  email: text("email"),
  phone: text("phone"),
  website: text("website"),
  /** `<EAS scheme>:<id>`, e.g. "0208:0123456749" */
  peppolId: text("peppol_id"),
  /** the seller's contact person on e-invoices (BT-41; XRechnung requires it) */
  contactName: text("contact_name"),
  /**
   * The bank account whose IBAN goes on documents. Checked by the service (one of the
   * organisation's accounts), not a foreign key: bank_accounts already references
   * organizations, and SQLite cannot add a constraint to an existing table without rebuilding
   * it (which would cascade through every organisation-owned row).
   */
  defaultBankAccountId: text("default_bank_account_id"),
  language: text("language", { enum: DOCUMENT_LANGUAGES }).notNull().default("en"),
  /** the default of a new invoice's `prices_include_vat` (shops price VAT-inclusive) */
  pricesIncludeVat: bool("prices_include_vat").notNull().default(false),
  /** issue every invoice to a business customer (one with a VAT number) as an e-invoice: finalize checks its UBL */
  einvoiceBusinessCustomers: bool("einvoice_business_customers").notNull().default(false),
  /** sending (docs/sending.md#e-mail): the sender name and reply-to of its e-mails (the address is the server's KONTOR_MAIL_FROM) */
  mailSenderName: text("mail_sender_name"),
  mailReplyTo: text("mail_reply_to"),
  /** its own SMTP server, sealed with the secret box (set by an administrator through the CLI only) */
  smtpUrl: text("smtp_url"),
  /** send every document at finalize over this channel (`preferred`: the customer's); null: finalize sends nothing */
  sendOnFinalize: text("send_on_finalize", { enum: [...SEND_CHANNELS, "preferred"] }),
  /** its Peppol access point (docs/sending.md#peppol-through-an-access-point); null: none. Set through the CLI only */
  peppolProvider: text("peppol_provider", { enum: PEPPOL_PROVIDERS }),
  /** the access point's credentials, a JSON object sealed with the secret box (context: "peppol:" + the organisation's id) */
  peppolCredentials: text("peppol_credentials"),
  /** interest notes: the fixed compensation for recovery costs of a late EUR invoice; null = the statutory €40 */
  lateCompensationCents: integer("late_compensation_cents"),
  /** …and of a late invoice in another currency, per ISO 4217 code (no exchange rates: none when a currency is not set) */
  lateCompensationByCurrency: text("late_compensation_by_currency", { mode: "json" }).$type<Record<string, number>>().notNull().default({}),
  /** reminders: the IANA time zone its dates are local to (a run's date, a reminder's acceptance) */
  timezone: text("timezone").notNull().default("Europe/Brussels"),
  /** how often it files its VAT return; its periods are named YYYY-MM or YYYY-Qn after it */
  vatPeriod: text("vat_period", { enum: VAT_PERIODS }).notNull().default("quarterly"),
  /** the chart its accounts were seeded from at creation (read-only): generic, or be (the PCMN) */
  chart: text("chart", { enum: CHARTS }).notNull().default("generic"),
  /** its fiscal years (docs/books.md#fiscal-years): the day they start, `MM-01`; "01-01" for calendar years */
  fiscalYearStart: text("fiscal_year_start").notNull().default("01-01"),
  /** its first fiscal year (6 to 24 months), when it declares one: nothing posts before its start; null: regular years all along */
  firstFiscalYearStart: text("first_fiscal_year_start"),
  firstFiscalYearEnd: text("first_fiscal_year_end"),
  // legal mentions (docs/invoicing.md#legal-mentions): what the seller's law puts on its documents,
  // required at finalize per country and kind (server/documents/legal-mentions.ts) when it checks them
  /** company (a legal person) or sole_trader */
  legalKind: text("legal_kind", { enum: LEGAL_KINDS }).notNull().default("company"),
  legalForm: text("legal_form"),
  /** in the organisation's currency */
  shareCapitalCents: integer("share_capital_cents"),
  /** RPR/RPM, RCS, HRB, KvK… */
  registerKind: text("register_kind"),
  registerNumber: text("register_number"),
  /** the register's court or city */
  registerPlace: text("register_place"),
  managingDirectors: text("managing_directors"),
  generalTerms: text("general_terms"),
  discountTerms: text("discount_terms"),
  /** finalize refuses a document whose mentions the organisation lacks; on for organisations created by `kontor org create`, off for earlier ones */
  checkLegalMentions: bool("check_legal_mentions").notNull().default(false),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const users = sqliteTable(
  "users",
  {
    id: id(),
    organizationId: orgId(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("users_org_email").on(t.organizationId, t.email)],
);

export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: id(),
    organizationId: orgId(),
    type: text("type", { enum: TOKEN_TYPES }).notNull(),
    /** Set for personal tokens; deleting the user deletes them (they stop working). */
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    /**
     * The user on whose behalf the token was made: directly, or through the token that minted
     * it (inherited from that token). Kept loose so the token survives the user.
     */
    createdByUserId: text("created_by_user_id"),
    /**
     * The token that minted this one (null when made by the CLI). Kept loose: a removed user's
     * personal tokens are deleted, while what they minted stays and still names them.
     */
    createdByTokenId: text("created_by_token_id"),
    name: text("name").notNull(),
    secretHash: text("secret_hash").notNull(),
    abilities: text("abilities", { mode: "json" }).$type<string[]>().notNull(),
    lastUsedAt: text("last_used_at"),
    expiresAt: text("expires_at"),
    revokedAt: text("revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("api_tokens_org_type_created").on(t.organizationId, t.type, t.createdAt, t.id),
    // a revocation's cascade walks from a token to what it minted
    index("api_tokens_created_by_token").on(t.createdByTokenId),
  ],
);

/**
 * A VAT number without spaces, dots or dashes, upper case ("BE 0123.456.789" → "BE0123456789"):
 * the expression the suppliers_org_vat index holds and the import's lookup writes.
 */
export const compactVat = (column: AnySQLiteColumn) =>
  sql`upper(replace(replace(replace(${column}, ' ', ''), '.', ''), '-', ''))`;

/** Customers and suppliers share their columns and rules. */
const partyColumns = () => ({
  id: id(),
  organizationId: orgId(),
  name: text("name").notNull(),
  email: text("email"),
  phone: text("phone"),
  address: text("address"),
  city: text("city"),
  postalCode: text("postal_code"),
  country: text("country"),
  vatNumber: text("vat_number"),
  currency: text("currency"),
  paymentTerms: text("payment_terms"),
  /** the legal registration (EN 16931 BT-30 seller, BT-47 buyer), e.g. a Belgian enterprise number */
  companyNumber: text("company_number"),
  /** `<EAS scheme>:<id>`: where e-invoices reach the party over Peppol */
  peppolId: text("peppol_id"),
  /** the language of the documents it receives; null: the organisation's */
  language: text("language", { enum: DOCUMENT_LANGUAGES }),
  // customers only (suppliers carry the columns unused; their API never shows them):
  /** how its documents are sent when a send asks for `preferred`; null: peppol when it has a peppol_id, else email */
  preferredChannel: text("preferred_channel", { enum: SEND_CHANNELS }),
  /** the default buyer reference (BT-10) of its new invoices, e.g. a German public buyer's Leitweg-ID */
  buyerReference: text("buyer_reference"),
  /** the e-invoice it receives; null: peppol */
  einvoiceProfile: text("einvoice_profile", { enum: EINVOICE_PROFILES }),
  /** no reminder run reminds it of any invoice, and why */
  remindersPaused: bool("reminders_paused").notNull().default(false),
  remindersPausedReason: text("reminders_paused_reason"),
  externalId: externalId(),
  metadata: metadata(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const customers = sqliteTable(
  "customers",
  partyColumns(),
  (t) => [
  index("customers_org_name").on(t.organizationId, nocase(t.name), t.id),
  index("customers_org_created").on(t.organizationId, t.createdAt, t.id),
  index("customers_org_updated").on(t.organizationId, t.updatedAt, t.id),
  index("customers_org_country").on(t.organizationId, t.country, nocase(t.name), t.id),
  index("customers_org_currency").on(t.organizationId, t.currency, nocase(t.name), t.id),
  // filter[email] with the list order: no sort step
  index("customers_org_email").on(t.organizationId, t.email, nocase(t.name), t.id),
  // filter[vat_number] (stored compact) with the list order
  index("customers_org_vat_number").on(t.organizationId, t.vatNumber, nocase(t.name), t.id),
  // an external id names one customer of the organisation (409 naming the holder); filter[external_id]
  uniqueIndex("customers_org_external_id").on(t.organizationId, t.externalId).where(sql`${t.externalId} IS NOT NULL`),
],
);

export const suppliers = sqliteTable("suppliers", partyColumns(), (t) => [
  index("suppliers_org_name").on(t.organizationId, nocase(t.name), t.id),
  index("suppliers_org_created").on(t.organizationId, t.createdAt, t.id),
  index("suppliers_org_updated").on(t.organizationId, t.updatedAt, t.id),
  index("suppliers_org_country").on(t.organizationId, t.country, nocase(t.name), t.id),
  index("suppliers_org_currency").on(t.organizationId, t.currency, nocase(t.name), t.id),
  // filter[email] with the list order: no sort step
  index("suppliers_org_email").on(t.organizationId, t.email, nocase(t.name), t.id),
  // filter[vat_number] (stored compact) with the list order
  index("suppliers_org_vat_number").on(t.organizationId, t.vatNumber, nocase(t.name), t.id),
  // an external id names one supplier of the organisation (409 naming the holder); filter[external_id]
  uniqueIndex("suppliers_org_external_id").on(t.organizationId, t.externalId).where(sql`${t.externalId} IS NOT NULL`),
  // vendor → supplier matching is case-insensitive and trimmed; created_at, id make the
  // oldest match the index's first row, so the planner prefers this index (no sort)
  index("suppliers_org_lower_name").on(t.organizationId, sql`lower(trim(${t.name}))`, t.createdAt, t.id),
  // an imported e-invoice's supplier is found by VAT number (compact form, see compactVatNumber), then legal registration, then Peppol id
  index("suppliers_org_vat").on(t.organizationId, compactVat(t.vatNumber), t.createdAt, t.id),
  // compared in compact form too ("0123.456.749" = "0123456749")
  index("suppliers_org_company_number").on(t.organizationId, compactVat(t.companyNumber), t.createdAt, t.id),
  index("suppliers_org_peppol").on(t.organizationId, t.peppolId, t.createdAt, t.id),
]);

/**
 * What identifies a supplier when an e-invoice's seller is matched to it (server/suppliers/identity.ts,
 * docs/payables.md#importing-supplier-e-invoices): the supplier's own fields (source `supplier`,
 * rewritten whenever it is created or updated) and what each document filed under it said of its
 * seller (source `document`), kept even when the API would not store the value (a VAT number with
 * wrong check digits still tells two sellers apart). Values in the compared form: VAT numbers and
 * registrations compact, names as `nameKey` makes them.
 */
export const supplierIdentifiers = sqliteTable(
  "supplier_identifiers",
  {
    id: id(),
    organizationId: orgId(),
    supplierId: text("supplier_id")
      .notNull()
      .references(() => suppliers.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["vat", "registration", "peppol", "name"] }).notNull(),
    value: text("value").notNull(),
    /** a registration's scheme (ISO 6523 ICD, e.g. 0088, 0208) when the document gave one; "" when none */
    scheme: text("scheme").notNull().default(""),
    source: text("source", { enum: ["supplier", "document"] }).notNull(),
  },
  (t) => [
    // the candidates of a document: one probe per identifier it carries
    index("supplier_identifiers_org_value").on(t.organizationId, t.kind, t.value, t.supplierId),
    uniqueIndex("supplier_identifiers_supplier").on(t.supplierId, t.kind, t.value, t.scheme, t.source),
  ],
);

export const contactPersons = sqliteTable(
  "contact_persons",
  {
    id: id(),
    organizationId: orgId(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull(),
    email: text("email"),
    phone: text("phone"),
    position: text("position"),
    isPrimary: bool("is_primary").notNull(),
    notes: text("notes"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  // a customer's persons in list order, id as the tiebreak: no sort step
  (t) => [index("contact_persons_customer").on(t.customerId, t.createdAt, t.id)],
);

export const vatRates = sqliteTable(
  "vat_rates",
  {
    id: id(),
    organizationId: orgId(),
    name: text("name").notNull(),
    /** Percentage in hundredths: 21.00 % → 2100. */
    rateBp: integer("rate_bp").notNull(),
    isDefault: bool("is_default").notNull(),
    /** EN 16931 VAT category (UNCL5305): S standard/reduced, Z zero, E exempt, AE reverse charge, K intra-EU, G export, O outside scope */
    category: text("category", { enum: VAT_CATEGORIES }).notNull().default("S"),
    /** VATEX code where the category needs an exemption reason (E, AE, K, G, O) */
    exemptionReasonCode: text("exemption_reason_code"),
    createdAt: createdAt(),
  },
  (t) => [index("vat_rates_org").on(t.organizationId, t.rateBp)],
);

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
    // what is left to credit on an invoice: its credit notes (server/invoices/service.ts creditLeftCents)
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

export const payments = sqliteTable(
  "payments",
  {
    id: id(),
    organizationId: orgId(),
    invoiceId: text("invoice_id")
      .notNull()
      .references(() => invoices.id, { onDelete: "cascade" }),
    amountCents: integer("amount_cents").notNull(),
    paymentDate: text("payment_date").notNull(),
    paymentMethod: text("payment_method", { enum: PAYMENT_METHODS }).notNull(),
    reference: text("reference"),
    /** the bank account the money came in on (or went out of, for a credit note's refund) */
    bankAccountId: text("bank_account_id").references(() => bankAccounts.id),
    createdAt: createdAt(),
  },
  // an invoice's payments in list order, id as the tiebreak: no sort step
  (t) => [index("payments_invoice").on(t.invoiceId, t.createdAt, t.id)],
);

export const numberSequences = sqliteTable(
  "number_sequences",
  {
    organizationId: orgId(),
    kind: text("kind").notNull(),
    year: integer("year").notNull(),
    lastValue: integer("last_value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.kind, t.year] })],
);

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

export const accounts = sqliteTable(
  "accounts",
  {
    id: id(),
    organizationId: orgId(),
    code: text("code").notNull(),
    name: text("name").notNull(),
    type: text("type", { enum: ACCOUNT_TYPES }).notNull(),
    parentId: text("parent_id"),
    isActive: bool("is_active").notNull(),
    description: text("description").notNull(),
    /** the role Kontor posts to the account in (as Xero's SystemAccount); null for the others */
    systemAccount: text("system_account", { enum: SYSTEM_ACCOUNTS }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // one account per role, but every bank account has a ledger account of its own
    uniqueIndex("accounts_org_system").on(t.organizationId, t.systemAccount).where(sql`${t.systemAccount} IS NOT NULL AND ${t.systemAccount} <> 'bank'`),
    uniqueIndex("accounts_org_code").on(t.organizationId, t.code),
    index("accounts_org_name").on(t.organizationId, nocase(t.name), t.id),
    index("accounts_org_type").on(t.organizationId, t.type, t.code),
    index("accounts_org_parent").on(t.organizationId, t.parentId, t.code),
    index("accounts_org_updated").on(t.organizationId, t.updatedAt, t.id),
  ],
);

export const bankAccounts = sqliteTable(
  "bank_accounts",
  {
    id: id(),
    organizationId: orgId(),
    name: text("name").notNull(),
    iban: text("iban").notNull(),
    /** BT-86 and the EPC QR code's BIC; optional within SEPA */
    bic: text("bic"),
    bankName: text("bank_name"),
    currency: text("currency").notNull(),
    isActive: bool("is_active").notNull(),
    /**
     * The placeholder IBAN (BE71096123456769) the earlier Kontor seeded for every organisation:
     * flagged by migration 0023, deactivated, never printed again.
     */
    isPlaceholder: bool("is_placeholder").notNull().default(false),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("bank_accounts_org_name").on(t.organizationId, nocase(t.name), t.id),
    index("bank_accounts_org_updated").on(t.organizationId, t.updatedAt, t.id),
  ],
);

/**
 * The statutory late-payment interest rates for commercial transactions as published, per
 * country and period (the reference rate with its 8 points included: 10.5 %, not 2.5 %).
 * Belgium is seeded (server/interest/rates-be.ts); an administrator adds the next half years
 * with `kontor rates add`. Not an organisation's: the law is the same for all of a country.
 */
export const statutoryInterestRates = sqliteTable(
  "statutory_interest_rates",
  {
    id: id(),
    /** ISO 3166-1 alpha-2 */
    country: text("country").notNull(),
    /** the first and last day the rate applies (inclusive) */
    validFrom: text("valid_from").notNull(),
    validTo: text("valid_to").notNull(),
    /** hundredths of a percent: 10.50 % is 1050 */
    rateBp: integer("rate_bp").notNull(),
    /** the publication the figure comes from */
    source: text("source").notNull(),
    createdAt: createdAt(),
    /** "seed" for the shipped rows, "cli" for `kontor rates add` */
    createdBy: text("created_by").notNull(),
  },
  (t) => [uniqueIndex("statutory_interest_rates_country_from").on(t.country, t.validFrom)],
);

export const auditLog = sqliteTable(
  "audit_log",
  {
    id: id(),
    organizationId: orgId(),
    action: text("action").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    actorType: text("actor_type", { enum: ACTOR_TYPES }).notNull(),
    actorId: text("actor_id"),
    ip: text("ip"),
    /** the X-Request-Id of the API request that made the change (null for the CLI and older entries) */
    requestId: text("request_id"),
    createdAt: createdAt(),
  },
  (t) => [
    index("audit_org_created").on(t.organizationId, t.createdAt, t.id),
    // each filter followed by the list order (newest first, id tiebreak): no sort step
    index("audit_org_resource").on(t.organizationId, t.resourceId, t.createdAt, t.id),
    index("audit_org_type").on(t.organizationId, t.resourceType, t.createdAt, t.id),
    index("audit_org_action").on(t.organizationId, t.action, t.createdAt, t.id),
  ],
);

export const webhooks = sqliteTable(
  "webhooks",
  {
    id: id(),
    organizationId: orgId(),
    url: text("url").notNull(),
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    isActive: bool("is_active").notNull(),
    secret: text("secret").notNull(),
    lastTriggeredAt: text("last_triggered_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("webhooks_org_created").on(t.organizationId, t.createdAt, t.id)],
);

export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: id(),
    organizationId: orgId(),
    webhookId: text("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    event: text("event").notNull(),
    /** The frozen `{event, timestamp, data}` body, byte for byte what is sent. */
    payload: text("payload").notNull(),
    /**
     * The event's id in its organisation (events.seq): the Standard Webhooks `webhook-id` of
     * every attempt. Null for deliveries queued before events had per-organisation ids, which
     * keep sending their own id.
     */
    eventId: integer("event_id"),
    status: text("status", { enum: DELIVERY_STATUSES }).notNull(),
    attempts: integer("attempts").notNull(),
    /** Epoch milliseconds; the worker's claim query reads these two columns. */
    nextAttemptAt: integer("next_attempt_at"),
    leaseUntil: integer("lease_until"),
    leasedBy: text("leased_by"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    deliveredAt: text("delivered_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // the workers' claim: pending rows in next_attempt_at order
    index("deliveries_due").on(t.status, t.nextAttemptAt),
    // a webhook's deliveries list, newest first, alone and per filter: no sort step
    index("deliveries_webhook_created").on(t.organizationId, t.webhookId, t.createdAt, t.id),
    index("deliveries_webhook_status").on(t.organizationId, t.webhookId, t.status, t.createdAt, t.id),
    index("deliveries_webhook_event").on(t.organizationId, t.webhookId, t.event, t.createdAt, t.id),
    index("deliveries_org_status").on(t.organizationId, t.status, t.createdAt),
  ],
);

/**
 * The events feed (GET /api/v1/events): one row per change that has an event, written by
 * recordChange in the change's own transaction. `seq` is the event's id as the API shows it,
 * drawn from the organisation's counter (number_sequences, kind "event"): writes take turns, so
 * an organisation's ids grow in commit order, with no gaps that tell of other organisations, and
 * the counter outlives a prune so that an id is never reused, which is what lets `?after=<id>`
 * resume a feed without missing or repeating an event. `id` (the rowid) is internal.
 */
export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: orgId(),
    /** the event name, e.g. "invoice.created" */
    type: text("type").notNull(),
    /** the resource `data` holds: its type ("invoice", the event name's first part) and id */
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    /** the resource as its GET shows it after the change (a deletion: its last state), JSON */
    data: text("data").notNull(),
    links: text("links", { mode: "json" }).$type<Record<string, string>>(),
    /** invoice.payment_recorded: the payment the change recorded */
    paymentId: text("payment_id"),
    /** the event's id in its organisation: 1, 2, 3, … in commit order */
    seq: integer("seq").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("events_org_seq").on(t.organizationId, t.seq),
    index("events_org_type").on(t.organizationId, t.type, t.seq),
    index("events_org_resource").on(t.organizationId, t.resourceId, t.seq),
    index("events_created").on(t.createdAt),
  ],
);

export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    id: id(),
    organizationId: orgId(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attemptedAt: text("attempted_at").notNull(),
    statusCode: integer("status_code"),
    durationMs: integer("duration_ms").notNull(),
    error: text("error"),
    responseBody: text("response_body"),
  },
  (t) => [index("attempts_delivery").on(t.deliveryId, t.attemptedAt)],
);

/**
 * Documents on their way to a customer (docs/sending.md): an outbox row per send, written in the
 * request's transaction and sent by the delivery worker (server/sending/worker.ts) under a lease,
 * as webhook deliveries are. `recipients` is frozen at queueing.
 */
export const documentDeliveries = sqliteTable(
  "document_deliveries",
  {
    id: id(),
    organizationId: orgId(),
    subject: text("subject", { enum: DELIVERY_SUBJECTS }).notNull(),
    /** the invoice, credit note or interest note sent; a reminder's delivery names the invoice it reminds of first */
    invoiceId: text("invoice_id").references(() => invoices.id, { onDelete: "cascade" }),
    /** subject `reminder`: the reminder sent (no foreign key: the reminders feature owns that table) */
    reminderId: text("reminder_id"),
    channel: text("channel", { enum: SEND_CHANNELS }).notNull(),
    recipients: text("recipients", { mode: "json" }).$type<DeliveryRecipients>().notNull(),
    /** the sender's own words, above the generated text of an e-mail */
    message: text("message"),
    status: text("status", { enum: DOCUMENT_DELIVERY_STATUSES }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** epoch ms; null once accepted or failed */
    nextAttemptAt: integer("next_attempt_at"),
    leaseUntil: integer("lease_until"),
    leasedBy: text("leased_by"),
    lastError: text("last_error"),
    /** the channel's receipt: SMTP's Message-ID, the access point's document id */
    providerReference: text("provider_reference"),
    acceptedAt: text("accepted_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("document_deliveries_due").on(t.status, t.nextAttemptAt),
    index("document_deliveries_invoice").on(t.organizationId, t.invoiceId, t.createdAt, t.id),
    index("document_deliveries_reminder").on(t.organizationId, t.reminderId),
  ],
);

/** An organisation's reminder policy (docs/reminders.md#reminder-policy); none stored: the defaults, disabled (server/reminders/policy.ts). */
export const reminderPolicies = sqliteTable("reminder_policies", {
  organizationId: text("organization_id")
    .primaryKey()
    .references(() => organizations.id, { onDelete: "cascade" }),
  enabled: bool("enabled").notNull(),
  channel: text("channel", { enum: REMINDER_CHANNELS }).notNull(),
  levels: text("levels", { mode: "json" }).$type<ReminderLevel[]>().notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * A level of the reminder policy, recorded for one invoice: sent (through its delivery,
 * or `manual`), or `skipped` because a later level was due at the same run. At most one row per
 * invoice and level: the unique key is what makes two runs at once, or a run killed midway and
 * run again, record each level once.
 */
export const reminders = sqliteTable(
  "reminders",
  {
    id: id(),
    organizationId: orgId(),
    invoiceId: text("invoice_id")
      .notNull()
      .references(() => invoices.id, { onDelete: "cascade" }),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    /** the level's index in the policy when recorded, and its days after the due date */
    level: integer("level").notNull(),
    daysAfterDue: integer("days_after_due").notNull(),
    /** the run's local date (the organisation's time zone) */
    runDate: text("run_date").notNull(),
    /** the channel it went over (`preferred` resolved), or `manual` */
    channel: text("channel", { enum: REMINDER_CHANNELS }).notNull(),
    skipped: bool("skipped").notNull(),
    language: text("language", { enum: DOCUMENT_LANGUAGES }).notNull(),
    /** the invoice's amount due, and what this reminder charged through its interest note, at the run */
    amountDueCents: integer("amount_due_cents").notNull(),
    interestCents: integer("interest_cents").notNull(),
    compensationCents: integer("compensation_cents").notNull(),
    interestNoteId: text("interest_note_id").references(() => invoices.id),
    /** the document delivery that carries it (null: manual or skipped) */
    deliveryId: text("delivery_id"),
    createdAt: createdAt(),
    /**
     * The invoice's earlier interest notes still open at the run, with what each had due: the
     * letter asks for them with the invoice and the note it issued, one total to pay
     */
    earlierNotes: text("earlier_notes", { mode: "json" }).$type<ReminderNoteDue[]>().notNull().default([]),
    /** the days the claim would charge interest for and no statutory rate covers, at the run */
    missingRates: text("missing_rates", { mode: "json" }).$type<DatePeriod[]>().notNull().default([]),
  },
  (t) => [
    uniqueIndex("reminders_invoice_level").on(t.invoiceId, t.level),
    index("reminders_org_created").on(t.organizationId, t.createdAt, t.id),
    index("reminders_org_invoice").on(t.organizationId, t.invoiceId, t.level),
  ],
);

export const documentDeliveryAttempts = sqliteTable(
  "document_delivery_attempts",
  {
    id: id(),
    organizationId: orgId(),
    deliveryId: text("delivery_id")
      .notNull()
      .references(() => documentDeliveries.id, { onDelete: "cascade" }),
    attemptedAt: text("attempted_at").notNull(),
    outcome: text("outcome", { enum: DELIVERY_ATTEMPT_OUTCOMES }).notNull(),
    /** the channel's answer, e.g. "550 5.1.1 <x@example.com>: Recipient address rejected" */
    detail: text("detail"),
    durationMs: integer("duration_ms").notNull(),
  },
  (t) => [index("document_delivery_attempts_delivery").on(t.deliveryId, t.attemptedAt)],
);

/**
 * Recurring invoices (docs/recurring.md): a template that generates an invoice per period
 * (server/recurring/). `next_issue_date` is the start of the next period to generate; null once ended.
 */
export const recurringInvoices = sqliteTable(
  "recurring_invoices",
  {
    id: id(),
    organizationId: orgId(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id),
    /** the lines as the template's API shows them (quantities and prices as decimal strings), read again at each generation */
    lines: text("lines", { mode: "json" }).$type<RecurringLine[]>().notNull(),
    currency: text("currency"),
    pricesIncludeVat: bool("prices_include_vat"),
    notes: text("notes"),
    paymentTerms: text("payment_terms"),
    paymentDays: integer("payment_days").notNull(),
    buyerReference: text("buyer_reference"),
    orderReference: text("order_reference"),
    interval: text("interval", { enum: RECURRING_INTERVALS }).notNull(),
    every: integer("every").notNull(),
    dayOfPeriod: integer("day_of_period").notNull(),
    startDate: text("start_date").notNull(),
    endDate: text("end_date"),
    count: integer("count"),
    autoFinalize: bool("auto_finalize").notNull(),
    autoSend: text("auto_send", { enum: RECURRING_SEND_CHANNELS }),
    status: text("status", { enum: RECURRING_STATUSES }).notNull(),
    nextIssueDate: text("next_issue_date"),
    generatedCount: integer("generated_count").notNull().default(0),
    lastRunAt: text("last_run_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("recurring_invoices_org_created").on(t.organizationId, t.createdAt, t.id),
    index("recurring_invoices_org_updated").on(t.organizationId, t.updatedAt, t.id),
    index("recurring_invoices_org_status").on(t.organizationId, t.status, t.createdAt, t.id),
    index("recurring_invoices_org_customer").on(t.organizationId, t.customerId, t.createdAt, t.id),
    // what a run reads: the active templates due, of every organisation
    index("recurring_invoices_due").on(t.nextIssueDate).where(sql`"status" = 'active'`),
  ],
);

/**
 * One row per generated period, inserted in the transaction that creates its invoice: the
 * UNIQUE (template, period start) makes generation exactly-once whatever runs, restarts or dies.
 */
export const recurringInvoicePeriods = sqliteTable(
  "recurring_invoice_periods",
  {
    organizationId: orgId(),
    templateId: text("template_id")
      .notNull()
      .references(() => recurringInvoices.id, { onDelete: "cascade" }),
    periodStart: text("period_start").notNull(),
    periodEnd: text("period_end").notNull(),
    /** null when the invoice was deleted since (a draft may be) */
    invoiceId: text("invoice_id").references(() => invoices.id, { onDelete: "set null" }),
    issueDate: text("issue_date").notNull(),
    caughtUp: bool("caught_up").notNull(),
    /** null: finalized as asked, or not asked; else why finalize refused (the invoice stays a draft) */
    finalizeError: text("finalize_error"),
    generatedAt: text("generated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.templateId, t.periodStart] })],
);

export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    tokenId: text("token_id").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    /** null while the first request is still being handled */
    statusCode: integer("status_code"),
    responseBody: text("response_body"),
    responseHeaders: text("response_headers", { mode: "json" }).$type<Record<string, string>>(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tokenId, t.key] }), index("idempotency_created").on(t.createdAt)],
);

export const expensePayments = sqliteTable(
  "expense_payments",
  {
    id: id(),
    organizationId: orgId(),
    expenseId: text("expense_id")
      .notNull()
      .references(() => expenses.id, { onDelete: "cascade" }),
    amountCents: integer("amount_cents").notNull(),
    paymentDate: text("payment_date").notNull(),
    paymentMethod: text("payment_method", { enum: PAYMENT_METHODS }).notNull(),
    reference: text("reference"),
    bankAccountId: text("bank_account_id").references(() => bankAccounts.id),
    createdAt: createdAt(),
  },
  (t) => [index("expense_payments_expense").on(t.expenseId, t.createdAt, t.id)],
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

/** One imported statement of a bank account (server/banking): its balances chain from one to the next. */
export const bankStatements = sqliteTable(
  "bank_statements",
  {
    id: id(),
    organizationId: orgId(),
    bankAccountId: text("bank_account_id")
      .notNull()
      .references(() => bankAccounts.id),
    /** the bank's id of the statement (CAMT Stmt/Id; CODA "<year>-<sequence>") */
    statementId: text("statement_id").notNull(),
    format: text("format", { enum: BANK_STATEMENT_FORMATS }).notNull(),
    currency: text("currency").notNull(),
    openingCents: integer("opening_cents").notNull(),
    openingDate: text("opening_date").notNull(),
    closingCents: integer("closing_cents").notNull(),
    closingDate: text("closing_date").notNull(),
    /** of the file as received: the same statement id with other content is a 409 */
    sha256: text("sha256").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("bank_statements_account_statement").on(t.bankAccountId, t.statementId),
    // the last imported statement of an account, whose closing balance the next must open with
    index("bank_statements_account_closing").on(t.bankAccountId, t.closingDate, t.createdAt),
  ],
);

/** A line of an imported statement and what it was reconciled with. */
export const bankTransactions = sqliteTable(
  "bank_transactions",
  {
    id: id(),
    organizationId: orgId(),
    bankAccountId: text("bank_account_id")
      .notNull()
      .references(() => bankAccounts.id),
    statementId: text("statement_id")
      .notNull()
      .references(() => bankStatements.id),
    /** unique per bank account: a line in two overlapping statements is imported once */
    entryRef: text("entry_ref").notNull(),
    bookingDate: text("booking_date").notNull(),
    valueDate: text("value_date").notNull(),
    /** always positive; `direction` gives the sign */
    amountCents: integer("amount_cents").notNull(),
    direction: text("direction", { enum: BANK_TRANSACTION_DIRECTIONS }).notNull(),
    counterpartyName: text("counterparty_name"),
    counterpartyIban: text("counterparty_iban"),
    communication: text("communication"),
    structuredReference: text("structured_reference"),
    status: text("status", { enum: BANK_TRANSACTION_STATUSES }).notNull(),
    /** matched: the invoice (or credit note) or the expense, and the payment that records the money */
    invoiceId: text("invoice_id").references(() => invoices.id),
    expenseId: text("expense_id").references(() => expenses.id),
    /** payments.id or expense_payments.id; cleared by a trigger when that payment is deleted (migration 0018) */
    paymentId: text("payment_id"),
    /** recorded: the match recorded the payment (unmatch deletes it); linked: it took over a payment recorded by hand (unmatch keeps it) */
    paymentLink: text("payment_link", { enum: PAYMENT_LINKS }),
    matchedCents: integer("matched_cents"),
    /** a debit line's likely expense (same amount due, and the supplier's IBAN or reference): suggested, never applied */
    suggestedExpenseId: text("suggested_expense_id").references(() => expenses.id, { onDelete: "set null" }),
    /** booked: the account of the chart the line was booked to, its VAT rate, and the entry that posts it */
    bookedAccountId: text("booked_account_id").references(() => accounts.id),
    bookedVatRateId: text("booked_vat_rate_id").references(() => vatRates.id),
    journalEntryId: text("journal_entry_id"),
    /** a transfer between own accounts: the other account's line of the same money (both hold the one entry) */
    transferLineId: text("transfer_line_id"),
    /**
     * booked: the entry that took the line's money out of suspense (its booking's own entry, or, for
     * the second line of a transfer, a separate one); null when it was booked on import, before it
     * ever sat in suspense (docs/banking.md#suspense)
     */
    suspenseExitEntryId: text("suspense_exit_entry_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // a transfer's second line finds the first: booked to its account's ledger account, unpaired, of its amount
    index("bank_transactions_org_booked").on(t.organizationId, t.bookedAccountId, t.amountCents).where(sql`${t.bookedAccountId} IS NOT NULL`),
    uniqueIndex("bank_transactions_account_entry").on(t.bankAccountId, t.entryRef),
    index("bank_transactions_org_booking").on(t.organizationId, t.bookingDate, t.id),
    index("bank_transactions_org_account").on(t.organizationId, t.bankAccountId, t.bookingDate, t.id),
    index("bank_transactions_org_status").on(t.organizationId, t.status, t.bookingDate, t.id),
    index("bank_transactions_org_amount").on(t.organizationId, t.amountCents, t.id),
    index("bank_transactions_org_created").on(t.organizationId, t.createdAt, t.id),
    index("bank_transactions_org_updated").on(t.organizationId, t.updatedAt, t.id),
    index("bank_transactions_statement").on(t.statementId, t.bookingDate, t.id),
    index("bank_transactions_payment").on(t.paymentId).where(sql`${t.paymentId} IS NOT NULL`),
  ],
);

/**
 * What a bank line pays (docs/banking.md#suspense): an invoice, credit note, interest note or
 * expense (with the payment that records the money) or an account of the chart (with the entry
 * that posts it), for part of the line or all of it. The line's first allocation (by position)
 * also shows in its invoice_id / expense_id / payment_id / matched_cents.
 */
export const bankTransactionAllocations = sqliteTable(
  "bank_transaction_allocations",
  {
    id: id(),
    organizationId: orgId(),
    bankTransactionId: text("bank_transaction_id")
      .notNull()
      .references(() => bankTransactions.id),
    position: integer("position").notNull(),
    invoiceId: text("invoice_id").references(() => invoices.id),
    expenseId: text("expense_id").references(() => expenses.id),
    accountId: text("account_id").references(() => accounts.id),
    vatRateId: text("vat_rate_id").references(() => vatRates.id),
    amountCents: integer("amount_cents").notNull(),
    /** payments.id or expense_payments.id */
    paymentId: text("payment_id"),
    paymentLink: text("payment_link", { enum: PAYMENT_LINKS }),
    /** an account's allocation: its entry; a payment recorded by hand taken over later: the entry that moved it out of suspense */
    journalEntryId: text("journal_entry_id"),
    /** false: posted against the bank account directly (matched on import, or before suspense existed); undoing it puts its amount into suspense */
    viaSuspense: integer("via_suspense", { mode: "boolean" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("bank_transaction_allocations_line_position").on(t.bankTransactionId, t.position),
    index("bank_transaction_allocations_payment").on(t.paymentId).where(sql`${t.paymentId} IS NOT NULL`),
  ],
);

/** Which expense account an expense category posts to (server/ledger/accounts.ts); the rest go to 6800. */
export const expenseCategoryAccounts = sqliteTable(
  "expense_category_accounts",
  {
    organizationId: orgId(),
    /** lower-cased and trimmed, as categories are matched */
    category: text("category").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.category] })],
);

/**
 * The ledger (server/ledger). An entry's lines are written first and its header last: the
 * header's INSERT trigger refuses an entry whose lines do not balance, and a line whose entry
 * already exists (migration 0017). The foreign key from a line to its entry is deferred, so a
 * line without a header cannot be committed either. Nothing here is updated or deleted.
 */
export const journalEntries = sqliteTable(
  "journal_entries",
  {
    id: id(),
    organizationId: orgId(),
    /** JE-2026-00001: per organisation and year */
    number: text("number").notNull(),
    date: text("date").notNull(),
    description: text("description").notNull(),
    currency: text("currency").notNull(),
    sourceType: text("source_type", { enum: JOURNAL_SOURCES }).notNull(),
    /** the invoice, payment, expense, expense payment or fiscal year (the year) it posts; null for manual entries */
    sourceId: text("source_id"),
    /** set on a reversing entry: the entry it cancels out */
    reversesEntryId: text("reverses_entry_id"),
    /** a year-end closing entry: left out of the profit and loss of its year */
    isClosing: bool("is_closing").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("journal_entries_org_number").on(t.organizationId, t.number),
    index("journal_entries_org_date").on(t.organizationId, t.date, t.id),
    index("journal_entries_org_source").on(t.organizationId, t.sourceType, t.sourceId, t.date, t.id),
    // an entry is reversed at most once
    uniqueIndex("journal_entries_reverses").on(t.reversesEntryId).where(sql`${t.reversesEntryId} IS NOT NULL`),
  ],
);

/**
 * How many journal entries each day holds (kept by a trigger, migration 0026): an entry's number
 * is its position in its year in date order (server/ledger/entries.ts), counted from these days
 * and the entries of its own day, so a page of the journal is numbered without a walk of its year.
 */
export const journalDayCounts = sqliteTable(
  "journal_day_counts",
  {
    organizationId: orgId(),
    date: text("date").notNull(),
    entries: integer("entries").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.date] })],
);

export const journalLines = sqliteTable(
  "journal_lines",
  {
    id: id(),
    organizationId: orgId(),
    // deferred in the migration's SQL (drizzle cannot say DEFERRABLE): the lines come first
    entryId: text("entry_id").notNull(),
    lineNo: integer("line_no").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** the entry's date and currency, copied so that an account's lines are read by one index */
    date: text("date").notNull(),
    currency: text("currency").notNull(),
    debitCents: integer("debit_cents").notNull(),
    creditCents: integer("credit_cents").notNull(),
    description: text("description"),
    /** what the VAT report counts the line as: sales or purchases, the base or the VAT of a (category, rate) */
    vatSide: text("vat_side", { enum: VAT_SIDES }),
    vatRole: text("vat_role", { enum: VAT_ROLES }),
    vatCategory: text("vat_category", { enum: VAT_CATEGORIES }),
    vatRateBp: integer("vat_rate_bp"),
    /** the line belongs to a credit note's posting (the Belgian return reports those apart) */
    vatNote: bool("vat_note").notNull().default(false),
  },
  (t) => [
    index("journal_lines_entry").on(t.entryId, t.lineNo),
    index("journal_lines_org_account").on(t.organizationId, t.accountId, t.date, t.entryId),
  ],
);

/**
 * Running balances, kept by the journal's triggers: debits and credits per account, currency and
 * day (closing entries apart), so that a report sums days, not postings.
 */
export const accountDays = sqliteTable(
  "account_days",
  {
    organizationId: orgId(),
    accountId: text("account_id").notNull(),
    currency: text("currency").notNull(),
    date: text("date").notNull(),
    isClosing: bool("is_closing").notNull(),
    debitCents: integer("debit_cents").notNull(),
    creditCents: integer("credit_cents").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.currency, t.date, t.isClosing] }),
    index("account_days_org_date").on(t.organizationId, t.currency, t.date, t.accountId, t.isClosing, t.debitCents, t.creditCents),
  ],
);

/** Each account's balance to date per currency (the `balance` of accounts and bank accounts). */
export const accountTotals = sqliteTable(
  "account_totals",
  {
    organizationId: orgId(),
    accountId: text("account_id").notNull(),
    currency: text("currency").notNull(),
    debitCents: integer("debit_cents").notNull(),
    creditCents: integer("credit_cents").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.currency] })],
);

/** The VAT report's running totals: base and VAT per day, side, category and rate. */
export const vatDays = sqliteTable(
  "vat_days",
  {
    organizationId: orgId(),
    currency: text("currency").notNull(),
    date: text("date").notNull(),
    side: text("side", { enum: VAT_SIDES }).notNull(),
    category: text("category", { enum: VAT_CATEGORIES }).notNull(),
    rateBp: integer("rate_bp").notNull(),
    /** base and VAT, positive for sales and purchases, negative for credit notes */
    baseCents: integer("base_cents").notNull(),
    vatCents: integer("vat_cents").notNull(),
    /** the part of the above that comes from credit notes (the Belgian return reports them apart) */
    creditBaseCents: integer("credit_base_cents").notNull(),
    creditVatCents: integer("credit_vat_cents").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.currency, t.date, t.side, t.category, t.rateBp] })],
);

/** Calendar years that have been closed (an open year has no row, or status open after a reopen). */
export const fiscalYears = sqliteTable(
  "fiscal_years",
  {
    organizationId: orgId(),
    year: integer("year").notNull(),
    status: text("status", { enum: FISCAL_YEAR_STATUSES }).notNull(),
    /** its first and last day as it was closed (the journal's trigger locks these dates); set on every row */
    startDate: text("start_date"),
    endDate: text("end_date"),
    closedAt: text("closed_at"),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.year] })],
);

/** Data migrations still to run after the SQL ones (db/connection.ts `migrate`), by name. */
export const pendingBackfills = sqliteTable("pending_backfills", { name: text("name").primaryKey() });

/** Secrets of the database itself, made by a migration and never shown: `cursor` seals list cursors (server/lib/cursor-seal.ts). */
export const serverKeys = sqliteTable("server_keys", { name: text("name").primaryKey(), key: blob("key", { mode: "buffer" }).notNull() });

/**
 * Running totals of what customers owe (aged receivables, server/reports), kept by triggers on
 * invoices (migration 0020) from the open documents' signed amounts due: per customer, and per
 * due date. A report reads a page of customers and a few thousand days, not every open document.
 */
export const customerReceivables = sqliteTable(
  "customer_receivables",
  {
    organizationId: orgId(),
    currency: text("currency").notNull(),
    customerId: text("customer_id").notNull(),
    openCents: integer("open_cents").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.customerId, t.currency] }),
    // the customers owing most first, ties by id: a page without a sort step
    index("customer_receivables_org_open").on(t.organizationId, t.currency, sql`${t.openCents} DESC`, t.customerId),
  ],
);

export const receivableDueDays = sqliteTable(
  "receivable_due_days",
  {
    organizationId: orgId(),
    currency: text("currency").notNull(),
    dueDate: text("due_date").notNull(),
    openCents: integer("open_cents").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.currency, t.dueDate] })],
);

/**
 * A payment run (docs/banking.md#paying-suppliers): the approved expenses due by a date, paid from one bank account by a
 * SEPA credit transfer file (pain.001.001.09) stored as produced. While a run is open its
 * expenses are selected by no other run.
 */
export const paymentRuns = sqliteTable(
  "payment_runs",
  {
    id: id(),
    organizationId: orgId(),
    bankAccountId: text("bank_account_id")
      .notNull()
      .references(() => bankAccounts.id),
    /** the file's MsgId and PmtInfId */
    messageId: text("message_id").notNull(),
    dueBy: text("due_by").notNull(),
    executionDate: text("execution_date").notNull(),
    currency: text("currency").notNull(),
    totalCents: integer("total_cents").notNull(),
    itemCount: integer("item_count").notNull(),
    /** the pain.001.001.09 document as produced (UTF-8 XML) */
    file: text("file").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("payment_runs_org_created").on(t.organizationId, t.createdAt, t.id),
    index("payment_runs_org_execution").on(t.organizationId, t.executionDate, t.id),
    index("payment_runs_org_updated").on(t.organizationId, t.updatedAt, t.id),
  ],
);

/** One credit transfer of a payment run: the expense it pays, how much, and the EndToEndId a statement line brings back. */
export const paymentRunItems = sqliteTable(
  "payment_run_items",
  {
    id: id(),
    organizationId: orgId(),
    paymentRunId: text("payment_run_id")
      .notNull()
      .references(() => paymentRuns.id, { onDelete: "cascade" }),
    expenseId: text("expense_id")
      .notNull()
      .references(() => expenses.id),
    amountCents: integer("amount_cents").notNull(),
    endToEndId: text("end_to_end_id").notNull(),
    /** structured (`+++…+++` or `RF…`) or free text as sent in RmtInf; null when the expense had none */
    reference: text("reference"),
    creditorName: text("creditor_name").notNull(),
    creditorIban: text("creditor_iban").notNull(),
  },
  (t) => [
    index("payment_run_items_run").on(t.paymentRunId, t.id),
    index("payment_run_items_expense").on(t.expenseId),
    uniqueIndex("payment_run_items_org_end_to_end").on(t.organizationId, t.endToEndId),
  ],
);

/**
 * A VAT return as filed (server/vat-returns): its grids and its Intervat XML byte for byte, never
 * changed. A filed period is closed for VAT: documents dated in it that post later are reported in
 * the next open period.
 */
export const vatReturns = sqliteTable(
  "vat_returns",
  {
    id: id(),
    organizationId: orgId(),
    /** `2026-Q4` or `2026-11` */
    period: text("period").notNull(),
    periodFrom: text("period_from").notNull(),
    periodTo: text("period_to").notNull(),
    /** grid → amount in cents, as filed */
    grids: text("grids", { mode: "json" }).$type<Record<string, number>>().notNull(),
    xml: text("xml").notNull(),
    askRestitution: bool("ask_restitution").notNull(),
    filedAt: text("filed_at").notNull(),
  },
  (t) => [uniqueIndex("vat_returns_org_period").on(t.organizationId, t.period)],
);
