/**
 * What the schema's columns may hold: the enumerations its CHECK constraints and drizzle's
 * `enum` types are made of, and the shape of its JSON columns. They live here, below every
 * feature, so that the schema imports nothing from server/; each feature's model re-exports
 * the ones it owns under the name it always had.
 */

// documents
/** EN 16931 VAT category codes (UNCL5305 subset used by Peppol BIS 3.0). */
export const VAT_CATEGORIES = ["S", "Z", "E", "AE", "K", "G", "O"] as const;
export type VatCategory = (typeof VAT_CATEGORIES)[number];
export const DOCUMENT_LANGUAGES = ["en", "nl", "fr", "de"] as const;
/** The e-invoice a customer receives: Peppol BIS 3.0 UBL, XRechnung 3.0, or a Factur-X PDF; null is peppol. */
export const EINVOICE_PROFILES = ["peppol", "xrechnung", "facturx"] as const;
export type EinvoiceProfile = (typeof EINVOICE_PROFILES)[number];
export type DocumentLanguage = (typeof DOCUMENT_LANGUAGES)[number];

export type DocumentParty = {
  name: string;
  address: string | null;
  city: string | null;
  postalCode: string | null;
  /** ISO 3166-1 alpha-2 */
  country: string | null;
  vatNumber: string | null;
  /** the seller's company number (e.g. Belgian enterprise number), null for buyers without one */
  companyNumber: string | null;
  email: string | null;
  phone: string | null;
  /** `<scheme>:<id>`, scheme from the Peppol EAS code list, e.g. "0208:0123456749" */
  peppolId: string | null;
  /** the seller's contact person (BT-41, XRechnung BR-DE-5); absent in parties frozen before it existed */
  contactName?: string | null;
  /** the seller's legal mentions (docs/invoicing.md#legal-mentions), frozen with it; absent on buyers and in parties frozen before they existed */
  legal?: SellerLegal;
};

// legal mentions: what the seller's law puts on its documents (server/documents/legal-mentions.ts)
/** A company (a legal person: BV, SRL, SAS, GmbH…) or a sole trader (a natural person in business). */
export const LEGAL_KINDS = ["company", "sole_trader"] as const;
export type LegalKind = (typeof LEGAL_KINDS)[number];
/** The organisation's legal identity as an issued document keeps it. */
export type SellerLegal = {
  kind: LegalKind;
  legalForm: string | null;
  /** the share capital as the API shows it ("10000.00") in `shareCapitalCurrency`, the organisation's currency */
  shareCapital: string | null;
  shareCapitalCurrency: string;
  registerKind: string | null;
  registerNumber: string | null;
  registerPlace: string | null;
  managingDirectors: string | null;
  generalTerms: string | null;
  discountTerms: string | null;
};

/** The seller's account for credit transfers, from the organisation's default bank account. */
export type DocumentPayee = { iban: string; bic: string | null; accountName: string };

/** What an issued document says of who issues it, to whom, paid where, in which language: frozen at finalize (invoices.issued_parties). */
export type IssuedParties = { seller: DocumentParty; buyer: DocumentParty; payee: DocumentPayee | null; language: DocumentLanguage };
/**
 * The customer as an issued document embeds it (its `customer`): as `GET /customers/{id}` showed
 * it at finalize, its party fields those of the issued buyer (server/invoices/issued-customer.ts).
 * Stored in the API's field names; `id` links the live customer.
 */
export type IssuedCustomer = { id: string } & Record<string, unknown>;

// invoices and payments
export const INVOICE_STATUSES = ["draft", "finalized", "sent", "partially_paid", "paid", "cancelled"] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];
/** interest_note: interest and compensation charged on a late invoice, numbered INT-… */
export const INVOICE_TYPES = ["invoice", "credit_note", "interest_note"] as const;
export type InvoiceType = (typeof INVOICE_TYPES)[number];
export const PAYMENT_METHODS = ["bank_transfer", "card", "cash", "direct_debit", "other"] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

// expenses
export const EXPENSE_STATUSES = ["pending", "approved", "rejected", "paid"] as const;
/** What the supplier's document is: an invoice (we owe), or a credit note (the supplier owes us; its postings are reversed). */
export const EXPENSE_DOCUMENT_TYPES = ["invoice", "credit_note"] as const;

// banking
export const BANK_STATEMENT_FORMATS = ["camt.053", "coda"] as const;
export const BANK_TRANSACTION_DIRECTIONS = ["credit", "debit"] as const;
/** matched: settles a document; booked: posted to an account of the chart (a fee, interest, a transfer between own accounts); ignored: needs nothing */
/** partially_matched: allocations hold part of the line, the rest waits in suspense (docs/banking.md#suspense). */
export const BANK_TRANSACTION_STATUSES = ["unmatched", "matched", "booked", "ignored", "partially_matched"] as const;
/** How a matched line holds its payment: the match recorded it, or took over one recorded by hand. */
export const PAYMENT_LINKS = ["recorded", "linked"] as const;

// the books
export const ACCOUNT_TYPES = ["asset", "liability", "equity", "revenue", "expense"] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];
/** The roles Kontor posts to (server/ledger/rules.ts), as Xero's SystemAccount. */
export const SYSTEM_ACCOUNTS = [
  "receivables", "payables", "vat_payable", "vat_receivable", "sales", "purchases", "bank", "retained_earnings", "supplier_advances", "opening_balance",
  // what interest notes post (interest and the fixed compensation)
  "late_payment_income",
  // bank lines not yet matched or booked wait here (docs/banking.md#suspense)
  "suspense",
] as const;
export type SystemAccount = (typeof SYSTEM_ACCOUNTS)[number];
/** How often the organisation files its VAT return: each month or each quarter (docs/books.md). */
export const VAT_PERIODS = ["monthly", "quarterly"] as const;
export type VatPeriod = (typeof VAT_PERIODS)[number];
/** The chart an organisation's accounts were seeded from, fixed at creation: a small generic one, or the Belgian PCMN (docs/books.md#chart-of-accounts). */
export const CHARTS = ["generic", "be"] as const;
export type Chart = (typeof CHARTS)[number];
/** what an invoice line supplies: the Belgian return tells goods (46) from services (44) abroad */
export const SUPPLY_TYPES = ["goods", "services"] as const;
export type SupplyType = (typeof SUPPLY_TYPES)[number];
/** What posted an entry: a document or payment (automatic), a person (manual), a year-end close. */
/** bank_statement: a bank account's opening balance, from its first statement; bank_transaction: a bank line booked to an account */
export const JOURNAL_SOURCES = ["invoice", "payment", "expense", "expense_payment", "manual", "fiscal_year", "bank_statement", "bank_transaction"] as const;
export type JournalSource = (typeof JOURNAL_SOURCES)[number];
export const VAT_SIDES = ["sales", "purchases"] as const;
export type VatSide = (typeof VAT_SIDES)[number];
/**
 * base and vat: what the VAT report sums (vat_days). self_assessed_due / self_assessed_deductible:
 * the VAT a purchaser owes under the reverse charge (intra-EU acquisitions, co-contractor and
 * non-EU services) and deducts at once; the VAT return reads them (grids 55/56 and 59), the
 * running VAT totals do not (they cancel out).
 */
export const VAT_ROLES = ["base", "vat", "self_assessed_due", "self_assessed_deductible"] as const;
export type VatRole = (typeof VAT_ROLES)[number];
export const FISCAL_YEAR_STATUSES = ["open", "closed"] as const;

// who acts, and with what
export const ACTOR_TYPES = ["user", "token", "cli", "system"] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];
export const ROLES = ["owner", "admin", "accountant", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];
export const TOKEN_TYPES = ["personal", "organization"] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

// webhooks
export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** How a document travels to its customer (docs/sending.md): the channels a delivery goes over. */
export const SEND_CHANNELS = ["email", "peppol"] as const;
export type SendChannel = (typeof SEND_CHANNELS)[number];
/** A document delivery (not a webhook's): queued, accepted by its channel (SMTP 250, the access point's receipt), or failed for good. */
export const DOCUMENT_DELIVERY_STATUSES = ["pending", "accepted", "failed"] as const;
export type DocumentDeliveryStatus = (typeof DOCUMENT_DELIVERY_STATUSES)[number];
/** What a delivery carries: an invoice (any type: invoice, credit note, interest note) or a payment reminder. */
export const DELIVERY_SUBJECTS = ["invoice", "reminder"] as const;
export type DeliverySubject = (typeof DELIVERY_SUBJECTS)[number];
/** One attempt's outcome: accepted; refused for now (retried with backoff); refused for good; cut short by a shutdown. */
export const DELIVERY_ATTEMPT_OUTCOMES = ["accepted", "retry", "failed", "interrupted"] as const;
export type DeliveryAttemptOutcome = (typeof DELIVERY_ATTEMPT_OUTCOMES)[number];
/** The Peppol access points an organisation can send and receive through (server/sending/peppol/). */
export const PEPPOL_PROVIDERS = ["recommand"] as const;
export type PeppolProvider = (typeof PEPPOL_PROVIDERS)[number];
/** Where a delivery goes: e-mail addresses, or the Peppol participant (the buyer as issued). */
export type DeliveryRecipients = { to: string[]; cc: string[] } | { peppol_id: string };

// recurring invoices (docs/recurring.md)
/** A template's period: a month, a quarter (three months) or a year, times its `every`. */
export const RECURRING_INTERVALS = ["monthly", "quarterly", "yearly"] as const;
export type RecurringInterval = (typeof RECURRING_INTERVALS)[number];
export const RECURRING_STATUSES = ["active", "paused", "ended"] as const;
export type RecurringStatus = (typeof RECURRING_STATUSES)[number];
/** How a generated, finalized invoice is sent: a delivery channel, or the customer's preferred one. */
export const RECURRING_SEND_CHANNELS = [...SEND_CHANNELS, "preferred"] as const;
export type RecurringSendChannel = (typeof RECURRING_SEND_CHANNELS)[number];
/** A template's line as its API shows it: an invoice line's input, amounts as decimal strings. */
export type RecurringLine = {
  description: string;
  quantity: string;
  unit_code: string;
  unit_price: string;
  vat_rate_id: string | null;
  discount_percent: string | null;
  discount_amount: string | null;
  discount_reason: string | null;
  /** absent in templates written before it existed: the line's default */
  supply_type?: SupplyType | null;
};

// reminders (docs/reminders.md)
/** How a reminder run sends: a delivery channel, the customer's preferred one, or not at all (recorded as sent, printed from its PDF). */
export const REMINDER_CHANNELS = ["email", "peppol", "preferred", "manual"] as const;
export type ReminderChannel = (typeof REMINDER_CHANNELS)[number];
/** A reminder's subject and body in one language; `{placeholders}` are filled in at rendering (server/reminders/texts.ts). */
export type ReminderText = { subject: string; body: string };
/** One level of an organisation's reminder policy, as stored (reminder_policies.levels). */
export type ReminderLevel = {
  days_after_due: number;
  charge_interest: boolean;
  charge_compensation: boolean;
  texts?: Partial<Record<DocumentLanguage, ReminderText>>;
};
/** An interest note a reminder asks to pay with its invoice, and what it had due at the run (reminders.earlier_notes). */
export type ReminderNoteDue = { id: string; number: string; issue_date: string; amount_due_cents: number };
/** A stretch of days, first and last inclusive (YYYY-MM-DD). */
export type DatePeriod = { from: string; to: string };
