/**
 * The organisation's own identity (issue 18): what goes on its documents as the seller.
 * `GET /api/v1/organization` shows it, `PUT` changes it; `currency` and `api_access` are
 * read-only (the currency prices every stored amount; API access is the CLI's to switch).
 */
import { t } from "elysia";
import { Language } from "../contacts/party-model.ts";
import { PeppolId } from "../documents/peppol.ts";
import { Country, Email, Nullable, strictObject, Text, Timestamp, Uuid, VatNumber } from "../lib/schemas.ts";

const Name = Text({ minLength: 1, maxLength: 255 });

const PRICES_INCLUDE_VAT = "The default of a new invoice's prices_include_vat (unit prices VAT-inclusive, as shops price); default false";
const CONTACT_NAME = "The seller's contact person on e-invoices (EN 16931 BT-41), with phone and email; XRechnung requires all three";
const EINVOICE_BUSINESS_CUSTOMERS =
  "Issue every invoice and credit note to a business customer (one with a VAT number) as a Peppol e-invoice: finalize then refuses one whose UBL " +
  "could not be produced, as it does for a customer with a peppol_id. Default false; recommended in Belgium (B2B e-invoicing mandatory since 1 January 2026)";

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
      created_at: Timestamp,
      updated_at: Timestamp,
    },
    { title: "Organization" },
  ),
} as const;

export type OrganizationUpdate = typeof OrganizationModel.update.static;
