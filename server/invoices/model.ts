/** Invoices, their lines and payments: requests, answers and list queries (docs/invoicing.md#invoices). */
import { t } from "elysia";
import { CustomerModel } from "../customers/model.ts";
import { paymentInput, paymentShown } from "../settlement/model.ts";
import { Currency, DateString, documented, ExternalId, Metadata, Money, moneyInput, Nullable, strictObject, Text, Timestamp, Uuid, withoutDefault } from "../lib/schemas.ts";

import { INVOICE_STATUSES, INVOICE_TYPES, SUPPLY_TYPES } from "../../db/values.ts";
export {
  INVOICE_STATUSES, INVOICE_TYPES, PAYMENT_METHODS, type InvoiceStatus, type InvoiceType, type PaymentMethod,
} from "../../db/values.ts";
/** At most 500 lines per invoice (docs/api.md#limits): bounds the work of one request well inside the 1 MiB body. */
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

/** A percentage: a JSON number or numeric string, above 0 and at most 100, at most 2 fraction digits (read like money). */
const percentInput = (description: string) =>
  t.Union(
    [
      t.Number(documented({ minimum: 0.01, maximum: 100 })),
      t.String({ maxLength: 32, ...documented({ pattern: "^(?:100(?:\\.0{1,2})?|\\d{1,2}(?:\\.\\d{1,2})?)$" }) }),
    ],
    { description, examples: ["10.00"] },
  );

/** BG-20 and BG-21: a document-level allowance (a discount on the whole invoice) or charge (freight, packing, …). */
const AllowanceCharge = strictObject(
  {
    type: t.UnionEnum(["allowance", "charge"], { description: "allowance: a discount on the invoice (BG-20); charge: a surcharge (BG-21)" }),
    amount: t.Optional(moneyInput({ positive: true, description: "The amount (net, or gross when prices_include_vat); give amount or percent, not both" })),
    percent: t.Optional(percentInput("A percentage of base_amount (BT-94, BT-101); the amount is base_amount × percent, rounded half-up")),
    base_amount: t.Optional(
      moneyInput({
        positive: true,
        description: "With percent only (BT-93, BT-100): what the percentage is of; default the sum of the line amounts (after their discounts) at the same VAT rate",
      }),
    ),
    reason: t.Optional(Nullable(Text({ maxLength: 255, description: "Why, in words (BT-97, BT-104); reason or reason_code is required (BR-33, BR-38)" }))),
    reason_code: t.Optional(
      Nullable(
        t.String({
          maxLength: 3,
          description: "UNCL5189 for an allowance (95 discount, 100 special rebate, …; BR-CL-19), UNCL7161 for a charge (FC freight, ABL packaging, …; BR-CL-20)",
          examples: ["95"],
        }),
      ),
    ),
    vat_rate_id: t.Optional(Nullable(t.String({ ...Uuid, description: "Its VAT rate, as a line's; without one it has no VAT" }))),
  },
  { title: "InvoiceAllowanceChargeInput" },
);
export const MAX_ALLOWANCE_CHARGES = 100;

const Line = strictObject(
  {
    description: Text({ minLength: 1, maxLength: 2000, multiline: true }),
    quantity: moneyInput({ positive: true, description: "Decimal, minimum 0.01, at most 2 fraction digits" }),
    unit_code: t.Optional(UnitCode),
    unit_price: moneyInput({ positive: false, description: "Decimal, minimum 0, at most 2 fraction digits" }),
    vat_rate_id: t.Optional(
      Nullable(t.String({ ...Uuid, description: "A VAT rate of the organisation (GET /api/v1/vat-rates); without one the line has no VAT" })),
    ),
    discount_percent: t.Optional(
      percentInput("A line discount (EN 16931 BG-27) as a percentage of quantity × unit_price, above 0 and at most 100, at most 2 fraction digits; not with discount_amount"),
    ),
    discount_amount: t.Optional(
      moneyInput({ positive: true, description: "A line discount (BG-27) as an amount (gross when prices_include_vat), at most quantity × unit_price; not with discount_percent" }),
    ),
    discount_reason: t.Optional(Nullable(Text({ maxLength: 255, description: "Why the discount is given (BT-139), shown on the PDF and the e-invoice" }))),
    supply_type: t.Optional(
      withoutDefault(
        t.UnionEnum([...SUPPLY_TYPES], {
          description:
            "What the line supplies; the Belgian VAT return tells intra-EU goods (46) from services (44) by it (docs/books.md#the-vat-return). Default: goods on a line at an intra-Community (K) VAT rate, else services",
        }),
      ),
    ),
  },
  { title: "InvoiceLineInput" },
);
/** An invoice's lines as its create and update take them; recurring invoices take the same (server/recurring). */
export const Lines = t.Array(Line, { minItems: 1, maxItems: MAX_LINES, description: `1 to ${MAX_LINES} lines; on update they replace the lines` });

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
  external_id: t.Optional(Nullable(ExternalId)),
  metadata: t.Optional(Metadata),
  prices_include_vat: t.Optional(
    t.Boolean({
      description:
        "Unit prices (and allowance and charge amounts) include VAT: the total is the sum of the gross lines to the cent, and net and VAT are derived per rate (docs/invoicing.md). Default: the organisation's prices_include_vat",
    }),
  ),
  allowances_charges: t.Optional(
    t.Array(AllowanceCharge, {
      maxItems: MAX_ALLOWANCE_CHARGES,
      description: "Document-level allowances and charges (EN 16931 BG-20, BG-21); on update they replace the invoice's",
    }),
  ),
  service_period_start: t.Optional(
    Nullable(t.String({ ...DateString, description: "The first day of the service billed (EN 16931 BG-14, BT-73), on the PDF and the e-invoice; with service_period_end" })),
  ),
  service_period_end: t.Optional(
    Nullable(t.String({ ...DateString, description: "The last day of the service billed (BT-74), on or after service_period_start; with service_period_start" })),
  ),  delivery_date: t.Optional(
    Nullable(
      t.String({
        ...DateString,
        description:
          "The date of supply (EN 16931 BT-72), on the PDF and the e-invoice. A German seller's document with neither it nor a service period gets its issue date at finalize (the Leistungsdatum, §14 (4) Nr. 6 UStG; docs/invoicing.md#germany)",
      }),
    ),
  ),
};

const LineShown = t.Object(
  {
    id: Uuid,
    description: t.String(),
    quantity: Money,
    unit_code: t.String({ description: "UN/ECE Recommendation 20 unit code", examples: ["C62"] }),
    unit_price: Money,
    amount: t.String({
      ...Money,
      description:
        "The line's net amount (BT-131): quantity × unit_price rounded half-up, less its discount; with prices_include_vat its net share (docs/invoicing.md)",
    }),
    vat_rate_id: Nullable(Uuid),
    vat_rate: t.String({ ...Money, description: "The rate in percent when the line was written, e.g. 21.00", examples: ["21.00"] }),
    vat_amount: t.String({ ...Money, description: "amount × vat_rate, rounded half-up per line; with prices_include_vat its VAT share" }),
    discount_percent: Nullable(t.String({ ...Money, description: "The discount given as a percentage, e.g. 10.00; null when given as an amount or none" })),
    discount_amount: t.String({
      ...Money,
      description: "The discount in the unit price's terms (gross when prices_include_vat): the amount given, or the percentage's, rounded half-up; 0.00 for none",
    }),
    discount_reason: Nullable(t.String()),
    supply_type: Nullable(t.UnionEnum([...SUPPLY_TYPES], { description: "goods or services; null on a line issued before Kontor recorded it (reported as services, goods at a K rate)" })),
    sort_order: t.Integer(),
  },
  { title: "InvoiceLine" },
);

const AllowanceChargeShown = t.Object(
  {
    id: Uuid,
    type: t.UnionEnum(["allowance", "charge"]),
    amount: t.String({ ...Money, description: "As given, or percent × base_amount rounded half-up (gross when prices_include_vat)" }),
    percent: Nullable(t.String({ ...Money, description: "When given as a percentage, e.g. 5.00" })),
    base_amount: Nullable(t.String({ ...Money, description: "What the percentage is of" })),
    net_amount: t.String({ ...Money, description: "Its net amount (BT-92, BT-99): amount, or with prices_include_vat its net share" }),
    vat_amount: t.String({ ...Money, description: "Its VAT: net_amount × vat_rate rounded half-up, or with prices_include_vat its VAT share" }),
    reason: Nullable(t.String()),
    reason_code: Nullable(t.String()),
    vat_rate_id: Nullable(Uuid),
    vat_rate: t.String({ ...Money, description: "The rate in percent when it was written" }),
  },
  { title: "InvoiceAllowanceCharge" },
);

const PaymentShown = paymentShown("InvoicePayment");

export const InvoiceModel = {
  create: strictObject(
    {
      customer_id: t.String({ ...Uuid, description: "A customer of the organisation" }),
      issue_date: DateString,
      lines: Lines,
      ...optionalFields,
      finalize: t.Optional(
        t.Boolean({
          description:
            "true: create and finalize in one step, as POST /invoices/{id}/finalize would (it needs the invoicing.finalize ability too); " +
            "when finalize refuses (422 naming what the invoice lacks, 409), nothing is stored. Without it (or false): a draft",
        }),
      ),
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
  /** POST /invoices/{id}/credit-note (docs/invoicing.md#credit-notes): the lines to credit, else the invoice's copied */
  creditNote: t.Optional(
    strictObject(
      {
        lines: t.Optional(
          t.Array(Line, {
            minItems: 1,
            maxItems: MAX_LINES,
            description:
            "The lines to credit, priced as an invoice's (positive amounts: the type says it credits); at most what is left to credit on the invoice (its total less its other credit notes, drafts included, cancelled ones aside). Without lines the invoice's lines are copied, when it has no other credit note",
          }),
        ),
        external_id: t.Optional(Nullable(ExternalId)),
        metadata: t.Optional(Metadata),
      },
      { title: "CreditNoteCreate", description: "Optional; an empty body or none copies the invoice's lines" },
    ),
  ),
  invoice: t.Object(
    {
      id: Uuid,
      number: t.String({
        description:
          "A draft numbered by Kontor carries a provisional DRAFT-… number; at finalize it gets the next of its series (INV-2026-00001, credit notes CN-2026-00001: per organisation, type and year of the issue date, without gaps, in the order of the issue dates). A number given by the client is kept as given.",
        examples: ["INV-2026-00001"],
      }),
      status: t.UnionEnum([...INVOICE_STATUSES], {
        description:
          "draft → finalized → sent → partially_paid → paid; or cancelled. paid: settled by payments and credit notes (an invoice credited in full is paid; so is a credit note allocated in full or refunded)",
      }),
      type: t.UnionEnum([...INVOICE_TYPES]),
      related_invoice_id: Nullable(t.String({ ...Uuid, description: "The invoice a credit note credits" })),
      customer: CustomerModel.customerWithContacts,
      seller: t.Union([IssuedParty("IssuedSeller"), t.Null()], { description: `The organisation as the issued PDF and UBL carry it. ${FROZEN}` }),
      buyer: t.Union([IssuedParty("IssuedBuyer"), t.Null()], {
        description: `The customer as the issued PDF and UBL carry it, as are the party fields of \`customer\` (the customer as issued, frozen with it; a draft's \`customer\` is the live one: docs/api.md#embedded-data). ${FROZEN}`,
      }),
      payee: t.Union([IssuedPayee, t.Null()], { description: `The bank account the issued documents ask payment to; null when they carry no payment instructions. ${FROZEN}` }),
      issue_date: DateString,
      due_date: DateString,
      prices_include_vat: t.Boolean({ description: "Unit prices and allowance and charge amounts include VAT" }),
      line_total: t.String({ ...Money, description: "Σ line amounts (net; BT-106)" }),
      allowance_total: t.String({ ...Money, description: "Σ document allowances, net (BT-107)" }),
      charge_total: t.String({ ...Money, description: "Σ document charges, net (BT-108)" }),
      subtotal: t.String({ ...Money, description: "Without VAT (BT-109): line_total − allowance_total + charge_total" }),
      vat_amount: t.String({ ...Money, description: "Σ the VAT of the lines, charges and allowances (less)" }),
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
      amount_credited: t.String({
        ...Money,
        description:
          "Settled by credit notes: on an invoice, what its finalized credit notes settled of it; on a credit note, the part of it allocated to the invoice it credits",
      }),
      amount_due: t.String({
        ...Money,
        description:
          "total − amount_paid − amount_credited: on an invoice what the customer still owes, on a credit note the refund still owed to the customer; 0.00 on a cancelled one, which owes nothing (its PDF says so)",
      }),
      lines: t.Array(LineShown),
      allowances_charges: t.Array(AllowanceChargeShown),
      payments: t.Array(PaymentShown),
      service_period_start: Nullable(t.String({ ...DateString, description: "The service billed, first day (EN 16931 BG-14, BT-73); null when not given" })),
      service_period_end: Nullable(t.String({ ...DateString, description: "The service billed, last day (BT-74)" })),
      delivery_date: Nullable(t.String({ ...DateString, description: "The date of supply (EN 16931 BT-72); null when not given (a German seller's is set at finalize when it has no service period)" })),
      recurring_invoice_id: Nullable(t.String({ ...Uuid, description: "The recurring invoice that generated it (GET /recurring-invoices/{id}); null when created otherwise" })),
      finalized_at: Nullable(Timestamp),
      sent_at: Nullable(Timestamp),
      reminders_paused: t.Boolean({ description: "No reminder run reminds of it (PUT /invoices/{id}/reminders-pause)" }),
      reminders_paused_reason: Nullable(t.String()),
      external_id: Nullable(t.String({ description: "Your own id of this invoice or credit note, unique per organisation among them" })),
      metadata: t.Record(t.String(), t.String(), { description: "Your own string pairs ({} when none)" }),
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
export type CreditNoteInput = typeof InvoiceModel.creditNote.static;
export type AllowanceChargeInput = NonNullable<InvoiceCreate["allowances_charges"]>[number];
