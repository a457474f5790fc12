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
/** The e-invoice a customer receives (issue 31): Peppol BIS 3.0 UBL, XRechnung 3.0, or a Factur-X PDF; null is peppol. */
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
};

/** The seller's account for credit transfers, from the organisation's default bank account. */
export type DocumentPayee = { iban: string; bic: string | null; accountName: string };

/** What an issued document says of who issues it, to whom, paid where, in which language: frozen at finalize (invoices.issued_parties). */
export type IssuedParties = { seller: DocumentParty; buyer: DocumentParty; payee: DocumentPayee | null; language: DocumentLanguage };

// invoices and payments
export const INVOICE_STATUSES = ["draft", "finalized", "sent", "partially_paid", "paid", "cancelled"] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];
export const INVOICE_TYPES = ["invoice", "credit_note"] as const;
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
export const BANK_TRANSACTION_STATUSES = ["unmatched", "matched", "booked", "ignored"] as const;
/** How a matched line holds its payment: the match recorded it, or took over one recorded by hand. */
export const PAYMENT_LINKS = ["recorded", "linked"] as const;

// the books
export const ACCOUNT_TYPES = ["asset", "liability", "equity", "revenue", "expense"] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];
/** The roles Kontor posts to (server/ledger/rules.ts), as Xero's SystemAccount. */
export const SYSTEM_ACCOUNTS = [
  "receivables", "payables", "vat_payable", "vat_receivable", "sales", "purchases", "bank", "retained_earnings", "supplier_advances", "opening_balance",
] as const;
export type SystemAccount = (typeof SYSTEM_ACCOUNTS)[number];
/** What posted an entry: a document or payment (automatic), a person (manual), a year-end close. */
/** bank_statement: a bank account's opening balance, from its first statement; bank_transaction: a bank line booked to an account */
export const JOURNAL_SOURCES = ["invoice", "payment", "expense", "expense_payment", "manual", "fiscal_year", "bank_statement", "bank_transaction"] as const;
export type JournalSource = (typeof JOURNAL_SOURCES)[number];
export const VAT_SIDES = ["sales", "purchases"] as const;
export type VatSide = (typeof VAT_SIDES)[number];
export const VAT_ROLES = ["base", "vat"] as const;
export type VatRole = (typeof VAT_ROLES)[number];
export const FISCAL_YEAR_STATUSES = ["open", "closed"] as const;

// who acts, and with what
export const ACTOR_TYPES = ["user", "token", "cli"] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];
export const ROLES = ["owner", "admin", "accountant", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];
export const TOKEN_TYPES = ["personal", "organization"] as const;
export type TokenType = (typeof TOKEN_TYPES)[number];

// webhooks
export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
