/**
 * The organisation's own identity (docs/invoicing.md#the-organisation): what goes on its documents as the seller.
 * `GET /api/v1/organization` shows it, `PUT` changes it; `currency`, `api_access` and `chart` are
 * read-only (the currency prices every stored amount; API access is the CLI's to switch; the
 * chart is chosen at creation).
 */
import { t } from "elysia";
import { CHARTS, LEGAL_KINDS, PEPPOL_PROVIDERS, VAT_PERIODS } from "../../db/values.ts";
import { Language } from "../contacts/party-model.ts";
import { PeppolId } from "../documents/peppol.ts";
import { Country, Currency, DateString, Email, Money, moneyInput, Nullable, strictObject, Text, Timestamp, Uuid, VatNumber, withoutDefault } from "../lib/schemas.ts";

const Name = Text({ minLength: 1, maxLength: 255 });

const PRICES_INCLUDE_VAT = "The default of a new invoice's prices_include_vat (unit prices VAT-inclusive, as shops price); default false";
const CONTACT_NAME = "The seller's contact person on e-invoices (EN 16931 BT-41), with phone and email; XRechnung requires all three";
const EINVOICE_BUSINESS_CUSTOMERS =
  "Issue every invoice and credit note to a business customer (one with a VAT number) as a Peppol e-invoice: finalize then refuses one whose UBL " +
  "could not be produced, as it does for a customer with a peppol_id. Default false; recommended in Belgium (B2B e-invoicing mandatory since 1 January 2026)";
const LATE_COMPENSATION =
  "Interest notes: the fixed compensation for recovery costs charged once per late EUR invoice of a business customer; null: the statutory 40.00 (Directive 2011/7/EU art. 6). A lower amount is not charged: the statutory 40.00 is";
const LATE_COMPENSATION_BY_CURRENCY =
  "Interest notes: the fixed compensation of a late invoice in another currency, per ISO 4217 code (Kontor keeps no exchange rates: a currency not listed gets none). Replaced as a whole";

const MAIL_SENDER_NAME = "The sender name of the e-mails that carry its documents (the address is the server's KONTOR_MAIL_FROM); default: the organisation's name";
const MAIL_REPLY_TO = "Where replies to those e-mails go; default: the organisation's email";
const SEND_ON_FINALIZE =
  "Send every document when it is finalized, over this channel (`preferred`: each customer's preferred_channel); null: finalize sends nothing. " +
  "A document that channel cannot take (no e-mail address, no peppol_id) is still finalized; its delivery is recorded as failed (invoice.delivery_failed)";
// no `default` (t.UnionEnum carries its first value as one, which Elysia would write into a body that leaves the field out)
const SendOnFinalize = withoutDefault(t.UnionEnum(["email", "peppol", "preferred"]));

const FISCAL_YEAR_START =
  "The day its fiscal years start, MM-01 (07-01: from 1 July to 30 June, each named by the calendar year it ends in); default 01-01, calendar years. Changes only while no fiscal year is closed (else a 422)";
const FIRST_FISCAL_YEAR_START =
  "The first day of its first fiscal year, when it declares one (nothing posts before it); default: the first of the month it was created in";
const FIRST_FISCAL_YEAR_END =
  "The last day of its first fiscal year, which lasts 6 to 24 months and ends the day before a fiscal year starts (e.g. 2027-06-30); null: no first year, regular years all along";

const VAT_PERIOD =
  "How often it files its VAT return: monthly or quarterly (default); its VAT return periods are named YYYY-MM or YYYY-Qn after it (docs/books.md#the-vat-return)";
const TIMEZONE = "The IANA time zone its dates are local to (a reminder run's date, the day a reminder was accepted), e.g. Europe/Brussels (the default)";

// legal mentions (docs/invoicing.md#legal-mentions): what the seller's law puts on its documents
const LEGAL = {
  legal_kind: "company (a legal person: BV, SRL, SAS, GmbH…) or sole_trader (a natural person in business): which row of the legal mentions table applies with its country. Default company",
  legal_form: "Its legal form as its documents state it, e.g. SRL, BV, SAS, GmbH; a French sole trader: EI",
  share_capital: "Its share capital, in its currency, as a decimal string (printed on the documents of a French company); null: none stated",
  register_kind: "The register it is entered in: RPR/RPM (Belgium, the default there), RCS (France, the default there), HRB or HRA (Germany), KvK (the Netherlands, the default there)",
  register_number: "Its number in that register: the SIREN after RCS, the HRB number, the KvK number (Belgium's RPR/RPM number is company_number)",
  register_place: "The register's court or city: the court of its seat after RPR/RPM (e.g. Gent), the greffe's city after RCS (e.g. Paris), the Amtsgericht of an HRB entry",
  managing_directors: "Its managing directors, as its documents name them (a GmbH's Geschäftsführer, an AG's Vorstand)",
  general_terms: "Its general terms of sale, or where to read them, printed with the legal mentions",
  discount_terms: "Its early-payment discount (French Commercial Code L441-9); null: documents of a French seller say there is none",
  check_legal_mentions:
    "Finalize refuses a document whose legal mentions (for its country and legal_kind) the organisation lacks, naming organization.<field>. On for organisations created with `kontor org create`; off for the first start's Default organisation and for those created before it existed",
} as const;
const LegalText = (maxLength: number, description: string, multiline = false) => Nullable(Text({ maxLength, description, multiline }));
const LegalKind = withoutDefault(t.UnionEnum([...LEGAL_KINDS], { description: LEGAL.legal_kind }));

export const OrganizationModel = {
  update: strictObject(
    {
      name: t.Optional(Name),
      address: t.Optional(Nullable(Text({ maxLength: 500, multiline: true }))),
      city: t.Optional(Nullable(Text({ maxLength: 100 }))),
      postal_code: t.Optional(Nullable(Text({ maxLength: 10 }))),
      country: t.Optional(t.String({ ...Country, description: "ISO 3166-1 alpha-2; BE gives Belgian structured communications as payment references" })),
      vat_number: t.Optional(Nullable(VatNumber)),
      company_number: t.Optional(Nullable(Text({ maxLength: 50, description: "The company registration number, e.g. the Belgian enterprise number 0123.456.749 (for a Belgian organisation checked: 10 digits, mod 97)" }))),
      email: t.Optional(Nullable(Email)),
      phone: t.Optional(Nullable(Text({ maxLength: 50 }))),
      website: t.Optional(Nullable(Text({ maxLength: 255 }))),
      peppol_id: t.Optional(Nullable(PeppolId)),
      contact_name: t.Optional(Nullable(Text({ minLength: 1, maxLength: 100, description: CONTACT_NAME }))),
      default_bank_account_id: t.Optional(
        Nullable(t.String({ ...Uuid, description: "An active bank account of the organisation: its IBAN goes on documents" })),
      ),
      language: t.Optional(Language("Default document language: en, nl, fr or de")),
      prices_include_vat: t.Optional(t.Boolean({ description: PRICES_INCLUDE_VAT })),
      einvoice_business_customers: t.Optional(t.Boolean({ description: EINVOICE_BUSINESS_CUSTOMERS })),
      mail_sender_name: t.Optional(Nullable(Text({ maxLength: 100, description: MAIL_SENDER_NAME }))),
      mail_reply_to: t.Optional(Nullable(t.String({ ...Email, description: MAIL_REPLY_TO }))),
      send_on_finalize: t.Optional(t.Union([SendOnFinalize, t.Null()], { description: SEND_ON_FINALIZE })),
      late_compensation: t.Optional(moneyInput({ positive: false, description: `${LATE_COMPENSATION}. 0 sets it back to the statutory amount (shown as null)` })),
      late_compensation_by_currency: t.Optional(t.Record(Currency, moneyInput({ positive: true, description: "The amount in that currency" }), { description: LATE_COMPENSATION_BY_CURRENCY, maxProperties: 200 })),
      timezone: t.Optional(t.String({ minLength: 1, maxLength: 64, description: TIMEZONE })),
      fiscal_year_start: t.Optional(t.String({ pattern: "^[0-9]{2}-[0-9]{2}$", description: FISCAL_YEAR_START, examples: ["07-01"] })),
      first_fiscal_year_start: t.Optional(Nullable(t.String({ ...DateString, description: FIRST_FISCAL_YEAR_START }))),
      first_fiscal_year_end: t.Optional(Nullable(t.String({ ...DateString, description: FIRST_FISCAL_YEAR_END }))),
      // without Elysia's default (the first value): a PUT that does not name vat_period must not make the organisation monthly
      vat_period: t.Optional(withoutDefault(t.UnionEnum([...VAT_PERIODS], { description: VAT_PERIOD }))),
      legal_kind: t.Optional(LegalKind),
      legal_form: t.Optional(LegalText(50, LEGAL.legal_form)),
      share_capital: t.Optional(moneyInput({ positive: false, description: `${LEGAL.share_capital}. 0 clears it (shown as null)` })),
      register_kind: t.Optional(LegalText(30, LEGAL.register_kind)),
      register_number: t.Optional(LegalText(50, LEGAL.register_number)),
      register_place: t.Optional(LegalText(100, LEGAL.register_place)),
      managing_directors: t.Optional(LegalText(500, LEGAL.managing_directors)),
      general_terms: t.Optional(LegalText(2000, LEGAL.general_terms, true)),
      discount_terms: t.Optional(LegalText(500, LEGAL.discount_terms)),
      check_legal_mentions: t.Optional(t.Boolean({ description: LEGAL.check_legal_mentions })),
    },
    { title: "OrganizationUpdate" },
  ),
  organization: t.Object(
    {
      id: Uuid,
      name: t.String(),
      address: Nullable(t.String()),
      city: Nullable(t.String()),
      postal_code: Nullable(t.String()),
      country: t.String({ description: "ISO 3166-1 alpha-2" }),
      vat_number: Nullable(t.String()),
      company_number: Nullable(t.String()),
      email: Nullable(t.String()),
      phone: Nullable(t.String()),
      website: Nullable(t.String()),
      peppol_id: Nullable(t.String({ description: "Peppol participant id, <scheme>:<identifier>", examples: ["0208:0123456749"] })),
      contact_name: Nullable(t.String({ description: CONTACT_NAME })),
      default_bank_account_id: Nullable(t.String({ ...Uuid, description: "The bank account whose IBAN goes on documents" })),
      payment_instructions: t.Boolean({
        description:
          "Read-only. Whether documents carry payment instructions (IBAN, EPC QR code, UBL PaymentMeans): false until the organisation has an active bank account of its own (`kontor bank-account add`)",
      }),
      currency: t.String({ description: "ISO 4217; read-only" }),
      language: Language("Default document language (a customer's own language wins)"),
      api_access: t.Boolean({ description: "Read-only; switched with `kontor org api-access`" }),
      prices_include_vat: t.Boolean({ description: PRICES_INCLUDE_VAT }),
      einvoice_business_customers: t.Boolean({ description: EINVOICE_BUSINESS_CUSTOMERS }),
      mail_sender_name: Nullable(t.String({ description: MAIL_SENDER_NAME })),
      mail_reply_to: Nullable(t.String({ description: MAIL_REPLY_TO })),
      own_smtp: t.Boolean({ description: "Read-only. Whether its e-mails go through its own SMTP server (set by an administrator: `kontor org set --smtp-url`) rather than the server's" }),
      send_on_finalize: t.Union([SendOnFinalize, t.Null()], { description: SEND_ON_FINALIZE }),
      peppol_provider: Nullable(
        t.UnionEnum([...PEPPOL_PROVIDERS], {
          description: "Read-only. The Peppol access point documents are sent and received through (set with `kontor org set --peppol-provider`; its credentials are never shown); null: none",
        }),
      ),
      late_compensation: Nullable(t.String({ ...Money, description: LATE_COMPENSATION })),
      late_compensation_by_currency: t.Record(t.String(), Money, { description: LATE_COMPENSATION_BY_CURRENCY }),
      timezone: t.String({ description: TIMEZONE }),
      chart: t.UnionEnum([...CHARTS], {
        description:
          "Read-only: the chart of accounts the organisation was created with (`kontor org create --chart`), generic or be (the Belgian PCMN); fixed once it exists, so a PUT naming it is a 422",
      }),
      fiscal_year_start: t.String({ description: FISCAL_YEAR_START, examples: ["01-01"] }),
      first_fiscal_year_start: Nullable(t.String({ ...DateString, description: FIRST_FISCAL_YEAR_START })),
      first_fiscal_year_end: Nullable(t.String({ ...DateString, description: FIRST_FISCAL_YEAR_END })),
      vat_period: t.UnionEnum([...VAT_PERIODS], { description: VAT_PERIOD }),
      legal_kind: LegalKind,
      legal_form: Nullable(t.String({ description: LEGAL.legal_form })),
      share_capital: Nullable(t.String({ ...Money, description: LEGAL.share_capital })),
      register_kind: Nullable(t.String({ description: LEGAL.register_kind })),
      register_number: Nullable(t.String({ description: LEGAL.register_number })),
      register_place: Nullable(t.String({ description: LEGAL.register_place })),
      managing_directors: Nullable(t.String({ description: LEGAL.managing_directors })),
      general_terms: Nullable(t.String({ description: LEGAL.general_terms })),
      discount_terms: Nullable(t.String({ description: LEGAL.discount_terms })),
      check_legal_mentions: t.Boolean({ description: LEGAL.check_legal_mentions }),
      created_at: Timestamp,
      updated_at: Timestamp,
    },
    { title: "Organization" },
  ),
} as const;

export type OrganizationUpdate = typeof OrganizationModel.update.static;
