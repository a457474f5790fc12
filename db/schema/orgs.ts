/** The organisations (server/orgs) and their users; `orgId` is the column every organisation-owned table starts with. */
import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { CHARTS, DOCUMENT_LANGUAGES, LEGAL_KINDS, PEPPOL_PROVIDERS, ROLES, SEND_CHANNELS, VAT_PERIODS } from "../values.ts";
import { bool, createdAt, id, updatedAt } from "./columns.ts";

/** The organisation a row belongs to; deleting the organisation deletes its rows. */
export const orgId = () =>
  text("organization_id")
    .notNull()
    .references(() => organizations.id, { onDelete: "cascade" });

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
