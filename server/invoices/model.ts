/** Invoices, their lines and payments (api-spec 2.3–2.5, 4.5; contract sections 3 and 4). */
import { t } from "elysia";
import { CustomerModel } from "../customers/model.ts";
import { paymentInput, paymentShown } from "../settlement/model.ts";
import { Currency, DateString, Money, moneyInput, Nullable, strictObject, Text, Timestamp, Uuid } from "../lib/schemas.ts";

import { INVOICE_STATUSES, INVOICE_TYPES } from "../../db/values.ts";
export {
  INVOICE_STATUSES, INVOICE_TYPES, PAYMENT_METHODS, type InvoiceStatus, type InvoiceType, type PaymentMethod,
} from "../../db/values.ts";
/** Not in the spec (8: "not shown"); bounds the work of one request well inside the 1 MiB body. */
export const MAX_LINES = 500;


/** A party as the issued PDF and UBL carry it: frozen at finalize (the seller is the organisation, the buyer the customer). */
const IssuedParty = (title: string) =>
  t.Object(
    {
      name: t.String(),
      address: Nullable(t.String()),
      city: Nullable(t.String()),
      postal_code: Nullable(t.String()),
      country: Nullable(t.String({ description: "ISO 3166-1 alpha-2" })),
      vat_number: Nullable(t.String()),
      company_number: Nullable(t.String()),
      email: Nullable(t.String()),
      phone: Nullable(t.String()),
      peppol_id: Nullable(t.String({ description: "Peppol participant id, <scheme>:<identifier>" })),
    },
    { title },
  );

const IssuedPayee = t.Object(
  {
    iban: t.String(),
    bic: Nullable(t.String()),
    account_name: t.String({ description: "The account holder: the organisation" }),
  },
  { title: "IssuedPayee" },
);

const FROZEN = "Null on a draft (and on a document finalized before Kontor froze its parties, whose documents show them as they are now).";

const Readiness = t.Object(
  {
    ready: t.Boolean({ description: "Whether finalize would accept the draft as it is now" }),
    einvoice_required: t.Boolean({
      description:
        "Whether it is issued as a Peppol e-invoice too (finalize then checks its UBL): the customer has a peppol_id, or the organisation's einvoice_business_customers is on and the customer has a VAT number",
    }),
    problems: t.Record(t.String(), t.Array(t.String()), {
      description: "What finalize would refuse, by the field to fix (organization.*, customer.*, the invoice's own fields): the errors of its 422",
    }),
  },
  { title: "InvoiceReadiness" },
);

/** UN/ECE Recommendation 20 (with Rec. 21) unit of measure: C62 one, HUR hour, DAY day, KGM kilogram, MTR metre, … */
const UnitCode = t.String({
  pattern: "^[A-Z0-9]{2,3}$",
  description: "Unit of the quantity, UN/ECE Recommendation 20 code (C62 one, HUR hour, DAY day, KGM kilogram); default C62",
  examples: ["C62"],
});

const Line = strictObject(
  {
    description: Text({ minLength: 1, maxLength: 2000, multiline: true }),
    quantity: moneyInput({ positive: true, description: "Decimal, minimum 0.01, at most 2 fraction digits" }),
    unit_code: t.Optional(UnitCode),
    unit_price: moneyInput({ positive: false, description: "Decimal, minimum 0, at most 2 fraction digits" }),
    vat_rate_id: t.Optional(
      Nullable(t.String({ ...Uuid, description: "A VAT rate of the organisation (GET /api/v1/vat-rates); without one the line has no VAT" })),
    ),
  },
  { title: "InvoiceLineInput" },
);
const Lines = t.Array(Line, { minItems: 1, maxItems: MAX_LINES, description: `1 to ${MAX_LINES} lines; on update they replace the lines` });

const optionalFields = {
  number: t.Optional(
    Text({
      minLength: 1,
      maxLength: 50,
      description:
        "Your own number, kept as given (its series is yours), unique in the organisation; not in the form of an automatic series (INV-2026-00001) nor DRAFT-…. Leave it out to have the next of the series at finalize: INV-2026-00001, credit notes CN-2026-00001 (per type and per year of the issue date; until then the draft carries a provisional DRAFT-… number)",
    }),
  ),
  due_date: t.Optional(t.String({ ...DateString, description: "On or after issue_date; default issue_date + 30 days" })),
  currency: t.Optional(t.String({ ...Currency, description: "ISO 4217; default the customer's currency, then the organisation's" })),
  notes: t.Optional(Nullable(Text({ maxLength: 5000, multiline: true, description: "Shown on the invoice" }))),
  payment_terms: t.Optional(Nullable(Text({ maxLength: 255, multiline: true, description: "Default: the customer's payment terms" }))),
  buyer_reference: t.Optional(Nullable(Text({ maxLength: 200, description: "The buyer's reference (EN 16931 BT-10), e.g. a cost centre; editable while draft" }))),
  order_reference: t.Optional(Nullable(Text({ maxLength: 200, description: "The buyer's purchase order number (BT-13); editable while draft" }))),
};

const LineShown = t.Object(
  {
    id: Uuid,
    description: t.String(),
    quantity: Money,
    unit_code: t.String({ description: "UN/ECE Recommendation 20 unit code", examples: ["C62"] }),
    unit_price: Money,
    amount: t.String({ ...Money, description: "quantity × unit_price, rounded half-up to cents" }),
    vat_rate_id: Nullable(Uuid),
    vat_rate: t.String({ ...Money, description: "The rate in percent when the line was written, e.g. 21.00", examples: ["21.00"] }),
    vat_amount: t.String({ ...Money, description: "amount × vat_rate, rounded half-up per line" }),
    sort_order: t.Integer(),
  },
  { title: "InvoiceLine" },
);

const PaymentShown = paymentShown("InvoicePayment");

export const InvoiceModel = {
  create: strictObject(
    {
      customer_id: t.String({ ...Uuid, description: "A customer of the organisation" }),
      issue_date: DateString,
      lines: Lines,
      ...optionalFields,
    },
    { title: "InvoiceCreate" },
  ),
  update: strictObject(
    {
      customer_id: t.Optional(t.String({ ...Uuid, description: "A customer of the organisation" })),
      issue_date: t.Optional(DateString),
      lines: t.Optional(Lines),
      ...optionalFields,
    },
    { title: "InvoiceUpdate" },
  ),
  payment: paymentInput("InvoicePaymentCreate"),
  invoice: t.Object(
    {
      id: Uuid,
      number: t.String({
        description:
          "A draft numbered by Kontor carries a provisional DRAFT-… number; at finalize it gets the next of its series (INV-2026-00001, credit notes CN-2026-00001: per organisation, type and year of the issue date, without gaps, in the order of the issue dates). A number given by the client is kept as given.",
        examples: ["INV-2026-00001"],
      }),
      status: t.UnionEnum([...INVOICE_STATUSES], { description: "draft → finalized → sent → partially_paid → paid; or cancelled" }),
      type: t.UnionEnum([...INVOICE_TYPES]),
      related_invoice_id: Nullable(t.String({ ...Uuid, description: "The invoice a credit note credits" })),
      customer: CustomerModel.customerWithContacts,
      seller: t.Union([IssuedParty("IssuedSeller"), t.Null()], { description: `The organisation as the issued PDF and UBL carry it. ${FROZEN}` }),
      buyer: t.Union([IssuedParty("IssuedBuyer"), t.Null()], {
        description: `The customer as the issued PDF and UBL carry it; \`customer\` is the customer as it is now. ${FROZEN}`,
      }),
      payee: t.Union([IssuedPayee, t.Null()], { description: `The bank account the issued documents ask payment to; null when they carry no payment instructions. ${FROZEN}` }),
      issue_date: DateString,
      due_date: DateString,
      subtotal: t.String({ ...Money, description: "Σ line amounts" }),
      vat_amount: t.String({ ...Money, description: "Σ line VAT" }),
      total: t.String({ ...Money, description: "subtotal + vat_amount" }),
      currency: t.String(),
      notes: Nullable(t.String()),
      payment_terms: Nullable(t.String()),
      buyer_reference: Nullable(t.String()),
      order_reference: Nullable(t.String()),
      payment_reference: Nullable(
        t.String({
          description:
            "Set at finalize, unique in the organisation: the Belgian structured communication (+++123/4567/89012+++) for a Belgian organisation, else an ISO 11649 creditor reference (RF…)",
          examples: ["+++090/9337/55493+++"],
        }),
      ),
      amount_paid: t.String({ ...Money, description: "Σ payments" }),
      amount_due: t.String({ ...Money, description: "total − amount_paid" }),
      lines: t.Array(LineShown),
      payments: t.Array(PaymentShown),
      finalized_at: Nullable(Timestamp),
      sent_at: Nullable(Timestamp),
      created_at: Timestamp,
      updated_at: Timestamp,
      readiness: t.Optional(
        t.Union([Readiness, t.Null()], {
          description:
            "GET /invoices/{id} only (it reads the whole document; lists, write answers and webhooks leave it out): on a draft, whether finalize would accept it and what it would refuse; null once issued",
        }),
      ),
    },
    { title: "Invoice" },
  ),
} as const;

export type InvoiceCreate = typeof InvoiceModel.create.static;
export type InvoiceUpdate = typeof InvoiceModel.update.static;
export type LineInput = InvoiceCreate["lines"][number];
export type PaymentInput = typeof InvoiceModel.payment.static;
