/** Customers and suppliers share their fields and rules (docs/invoicing.md#customers). */
import { t } from "elysia";
import { DOCUMENT_LANGUAGES } from "../documents/model.ts";
import { PeppolId } from "../documents/peppol.ts";
import { Country, Currency, Email, ExternalId, Metadata, Nullable, strictObject, Text, Timestamp, Uuid, VatNumber } from "../lib/schemas.ts";

/**
 * The language of the documents a party receives (and, on the organisation, the default).
 * Elysia's UnionEnum gives itself a `default` (its first value), which its body check would
 * write into a request that leaves the field out: an update would reset the language. None here.
 */
export const Language = (description: string) => {
  const schema = t.UnionEnum([...DOCUMENT_LANGUAGES], { description });
  delete schema.default;
  return schema;
};

const optionalFields = {
  email: t.Optional(Nullable(Email)),
  phone: t.Optional(Nullable(Text({ maxLength: 50 }))),
  address: t.Optional(Nullable(Text({ maxLength: 500, multiline: true }))),
  city: t.Optional(Nullable(Text({ maxLength: 100 }))),
  postal_code: t.Optional(Nullable(Text({ maxLength: 10 }))),
  country: t.Optional(Nullable(Country)),
  vat_number: t.Optional(Nullable(VatNumber)),
  company_number: t.Optional(
    Nullable(
      Text({
        maxLength: 50,
        description: "The legal registration (EN 16931 BT-30/BT-47), e.g. the Belgian enterprise number 0123.456.749 (for a Belgian party checked: 10 digits, mod 97)",
      }),
    ),
  ),
  currency: t.Optional(Nullable(Currency)),
  payment_terms: t.Optional(Nullable(Text({ maxLength: 255, multiline: true }))),
  peppol_id: t.Optional(Nullable(PeppolId)),
  language: t.Optional(Nullable(Language("Document language: en, nl, fr or de; null: the organisation's"))),
  external_id: t.Optional(Nullable(ExternalId)),
  metadata: t.Optional(Metadata),
};

const Name = Text({ minLength: 1, maxLength: 255 });

export const PartyModel = {
  create: strictObject({ name: Name, ...optionalFields }),
  update: strictObject({ name: t.Optional(Name), ...optionalFields }),
  party: t.Object({
    id: Uuid,
    type: t.UnionEnum(["organization", "individual"], { description: "organization when vat_number is set" }),
    name: t.String(),
    email: Nullable(t.String()),
    phone: Nullable(t.String()),
    address: Nullable(t.String()),
    city: Nullable(t.String()),
    postal_code: Nullable(t.String()),
    country: Nullable(t.String()),
    vat_number: Nullable(t.String()),
    company_number: Nullable(t.String({ description: "The legal registration (BT-30/BT-47)" })),
    currency: Nullable(t.String()),
    payment_terms: Nullable(t.String()),
    peppol_id: Nullable(t.String({ description: "Peppol participant id, <scheme>:<identifier>", examples: ["0208:0123456749"] })),
    language: Nullable(Language("Document language; null: documents use the organisation's language")),
    external_id: Nullable(t.String({ description: "Your own id of this resource, unique per organisation and resource type" })),
    metadata: t.Record(t.String(), t.String(), { description: "Your own string pairs ({} when none)" }),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
} as const;

export type PartyCreate = typeof PartyModel.create.static;
export type PartyUpdate = typeof PartyModel.update.static;
