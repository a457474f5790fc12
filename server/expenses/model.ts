/** Expenses and received documents: the API's shapes (docs/payables.md#expenses). */
import { t } from "elysia";
import { Currency, DateString, ExternalId, Metadata, Money, moneyInput, Nullable, strictObject, Text, Timestamp, Uuid } from "../lib/schemas.ts";
import { paymentInput, paymentShown } from "../settlement/model.ts";

import { EXPENSE_DOCUMENT_TYPES, EXPENSE_STATUSES } from "../../db/values.ts";
export { EXPENSE_DOCUMENT_TYPES, EXPENSE_STATUSES } from "../../db/values.ts";

const Category = Text({ minLength: 1, maxLength: 100 });
const Amount = moneyInput({ positive: true, description: "Decimal, minimum 0.01, at most 2 fraction digits" });

/**
 * Fields accepted on create and update. `status` and `supplier_id` are not among them: the
 * workflow sets the one and the vendor derives the other (a 422 names them when sent).
 */
const optionalFields = {
  description: t.Optional(Nullable(Text({ maxLength: 5000, multiline: true }))),
  vat_amount: t.Optional(moneyInput({ positive: false, description: "Decimal, minimum 0, at most 2 fraction digits; default 0" })),
  vat_rate_id: t.Optional(Nullable(t.String({ ...Uuid, description: "A VAT rate of the organisation (GET /api/v1/vat-rates)" }))),
  self_assessed_vat_rate_id: t.Optional(
    Nullable(
      t.String({
        ...Uuid,
        description:
          "A reverse-charged purchase (VAT rate of category K or AE): the standard-rate (S) VAT rate its VAT is self-assessed at, due and deductible (docs/books.md#the-vat-return); null: the organisation's standard rate",
      }),
    ),
  ),
  vendor: t.Optional(
    Nullable(Text({ maxLength: 255, description: "Matched to a supplier by name (case-insensitive, trimmed); created when missing" })),
  ),
  currency: t.Optional(t.String({ ...Currency, description: "ISO 4217; default: the organisation's currency" })),
  due_date: t.Optional(Nullable(t.String({ ...DateString, description: "When the supplier wants to be paid; not before date" }))),
  payee_iban: t.Optional(
    Nullable(Text({ maxLength: 42, description: "The supplier's IBAN to pay to (ISO 13616, check digits verified); stored without spaces, upper case" })),
  ),
  payment_reference: t.Optional(
    Nullable(
      Text({
        maxLength: 140,
        description:
          "The reference to quote when paying: a Belgian structured communication (+++ddd/dddd/ddddd+++) or an ISO 11649 creditor reference (RF…), " +
          "check digits verified and stored in their canonical form; else free text",
      }),
    ),
  ),
  external_id: t.Optional(Nullable(ExternalId)),
  metadata: t.Optional(Metadata),
};

export const ExpenseModel = {
  create: strictObject({ category: Category, amount: Amount, date: DateString, ...optionalFields }, { title: "ExpenseCreate" }),
  update: strictObject(
    { category: t.Optional(Category), amount: t.Optional(Amount), date: t.Optional(DateString), ...optionalFields },
    { title: "ExpenseUpdate" },
  ),
  /** the body may be omitted */
  reject: strictObject(
    { reason: t.Optional(Nullable(Text({ maxLength: 1000, multiline: true, description: "Why it is rejected; shown as rejection_reason" }))) },
    { title: "ExpenseReject" },
  ),
  payment: paymentInput("ExpensePaymentCreate"),
  expense: t.Object(
    {
      id: Uuid,
      category: t.String(),
      description: Nullable(t.String()),
      amount: Money,
      vat_amount: Money,
      vat_rate_id: Nullable(Uuid),
      self_assessed_vat_rate_id: Nullable(Uuid),
      date: DateString,
      vendor: Nullable(t.String()),
      status: t.UnionEnum([...EXPENSE_STATUSES], {
        description:
          "pending → approved | rejected; a rejected expense returns to pending when updated; an approved expense is paid while its payments cover total − prepaid_amount + rounding_amount (at once when that is 0.00), " +
          "or its refunds the excess of an invoice prepaid beyond its total",
      }),
      rejection_reason: Nullable(t.String({ description: "The reason given when the expense was rejected; null otherwise" })),
      currency: t.String(),
      supplier_id: Nullable(t.String({ ...Uuid, description: "Derived from vendor; null without a vendor" })),
      total: t.String({ ...Money, description: "amount + vat_amount: the document's total with VAT (an imported e-invoice's BT-112)" }),
      prepaid_amount: t.String({
        ...Money,
        description: "What the supplier's document says was paid before it (BT-113): not owed any more; 0.00 for an expense entered by hand",
      }),
      rounding_amount: t.String({ ...Money, description: "The rounding the document adds to what is payable (BT-114); 0.00 for an expense entered by hand" }),
      amount_paid: t.String({ ...Money, description: "Σ payments (on a credit note, or an invoice with a refund due: the refunds received)" }),
      amount_due: t.String({
        ...Money,
        description:
          "total − prepaid_amount + rounding_amount (an imported e-invoice's BT-115) − amount_paid once approved, never below 0.00; 0.00 before. " +
          "On a supplier's credit note (document_type credit_note): what the supplier still owes back",
      }),
      refund_due: t.String({
        ...Money,
        description:
          "What the supplier owes back on an approved invoice prepaid beyond its total (its BT-115 negative): prepaid_amount − total − rounding_amount − amount_paid, " +
          "settled by an incoming bank line or POST /expenses/{id}/record-payment (the refund received); 0.00 on every other expense and before approval",
      }),
      payments: t.Array(paymentShown("ExpensePayment"), { description: "Oldest first; only an approved or paid expense has payments" }),
      due_date: Nullable(t.String({ ...DateString, description: "When the supplier wants to be paid (an imported e-invoice's BT-9); null when not given" })),
      payee_iban: Nullable(t.String({ description: "The supplier's IBAN to pay to (an imported e-invoice's BT-84), electronic form" })),
      payment_reference: Nullable(t.String({ description: "The reference to quote when paying (an imported e-invoice's BT-83)" })),
      document_type: t.UnionEnum([...EXPENSE_DOCUMENT_TYPES], {
        description: "invoice; credit_note for a supplier's credit note (imported): the supplier owes the total, and its approval posts the reverse",
      }),
      supplier_invoice_number: Nullable(t.String({ description: "The supplier's number of an imported e-invoice; null for expenses entered by hand" })),
      document_url: Nullable(t.String({ description: "Where the imported original document is served, byte for byte; null when none" })),
      external_id: Nullable(t.String({ description: "Your own id of this expense, unique per organisation among expenses" })),
      metadata: t.Record(t.String(), t.String(), { description: "Your own string pairs ({} when none)" }),
      created_at: Timestamp,
      updated_at: Timestamp,
    },
    { title: "Expense" },
  ),
} as const;

/** A valid supplier document with all totals 0.00, kept with its supplier though it cannot be an expense. */
export const ReceivedDocumentModel = t.Object(
  {
    id: Uuid,
    document_type: t.UnionEnum([...EXPENSE_DOCUMENT_TYPES], { description: "The document as received: a UBL Invoice or CreditNote" }),
    supplier_invoice_number: t.String({ description: "The supplier's number of the document (cbc:ID)" }),
    date: t.String({ ...DateString, description: "Its issue date (BT-2)" }),
    vendor: t.String({ description: "The seller as the document names it" }),
    supplier_id: t.String({ ...Uuid, description: "The supplier matched or created, as an imported expense's" }),
    currency: t.String(),
    total: t.String({ ...Money, description: "Always 0.00: a document with anything to pay becomes an expense" }),
    document_url: t.String({ description: "Where the original is served, byte for byte" }),
    sha256: t.String({ description: "SHA-256 of the original, hex" }),
    created_at: Timestamp,
  },
  { title: "ReceivedDocument" },
);

export type ExpenseCreate = typeof ExpenseModel.create.static;
export type ExpenseUpdate = typeof ExpenseModel.update.static;
export type ExpenseReject = typeof ExpenseModel.reject.static;
