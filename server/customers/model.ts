import { t } from "elysia";
import { EINVOICE_PROFILES } from "../../db/values.ts";
import { PartyModel } from "../contacts/party-model.ts";
import { Email, named, Nullable, strictObject, Text, Timestamp, Uuid } from "../lib/schemas.ts";

/** What a customer adds to a party (issue 31): how its e-invoices are addressed and made. */
const BuyerReference = Text({
  maxLength: 200,
  description: "The buyer reference (EN 16931 BT-10) its new invoices take unless they give one, e.g. a German public buyer's Leitweg-ID (XRechnung)",
});
const EinvoiceProfile = (() => {
  const schema = t.UnionEnum([...EINVOICE_PROFILES], {
    description: "The e-invoice it receives: peppol (Peppol BIS 3.0 UBL), xrechnung (XRechnung 3.0, checked at finalize), facturx (a Factur-X PDF); null: peppol",
  });
  // no default: an update that leaves it out must not reset it (see party-model.ts Language)
  delete schema.default;
  return schema;
})();
const customerInput = { buyer_reference: t.Optional(Nullable(BuyerReference)), einvoice_profile: t.Optional(Nullable(EinvoiceProfile)) };
const customerOutput = { buyer_reference: Nullable(t.String()), einvoice_profile: Nullable(EinvoiceProfile) };

const contactFields = {
  email: t.Optional(Nullable(Email)),
  phone: t.Optional(Nullable(Text({ maxLength: 50 }))),
  position: t.Optional(Nullable(Text({ maxLength: 255 }))),
  is_primary: t.Optional(t.Boolean()),
  notes: t.Optional(Nullable(Text({ maxLength: 5000, multiline: true }))),
};
const PersonName = Text({ minLength: 1, maxLength: 100 });

export const ContactPersonModel = {
  create: strictObject({ first_name: PersonName, last_name: PersonName, ...contactFields }, { title: "ContactPersonCreate" }),
  update: strictObject(
    { first_name: t.Optional(PersonName), last_name: t.Optional(PersonName), ...contactFields },
    { title: "ContactPersonUpdate" },
  ),
  contactPerson: t.Object(
    {
      id: Uuid,
      first_name: t.String(),
      last_name: t.String(),
      full_name: t.String(),
      email: Nullable(t.String()),
      phone: Nullable(t.String()),
      position: Nullable(t.String()),
      is_primary: t.Boolean(),
      notes: Nullable(t.String()),
      created_at: Timestamp,
      updated_at: Timestamp,
    },
    { title: "ContactPerson" },
  ),
} as const;

/** `Customer` is the customer as shown on its own (with its contact persons); lists show a `CustomerSummary`. */
export const CustomerModel = {
  create: strictObject({ ...PartyModel.create.properties, ...customerInput }, { title: "CustomerCreate" }),
  update: strictObject({ ...PartyModel.update.properties, ...customerInput }, { title: "CustomerUpdate" }),
  customer: named("CustomerSummary", PartyModel.party),
  customerWithContacts: t.Composite([PartyModel.party, t.Object({ ...customerOutput, contact_persons: t.Array(ContactPersonModel.contactPerson) })], {
    title: "Customer",
  }),
} as const;

export type CustomerUpdate = typeof CustomerModel.update.static;
export type ContactPersonCreate = typeof ContactPersonModel.create.static;
export type ContactPersonUpdate = typeof ContactPersonModel.update.static;
