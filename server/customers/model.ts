import { t } from "elysia";
import { EINVOICE_PROFILES } from "../../db/values.ts";
import { PartyModel } from "../contacts/party-model.ts";
import { Email, Nullable, strictObject, Text, Timestamp, Uuid, withoutDefault } from "../lib/schemas.ts";

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

/** What a customer adds to a party: how its e-invoices are addressed and made. */
const BuyerReference = Text({
  maxLength: 200,
  description: "The buyer reference (EN 16931 BT-10) its new invoices take unless they give one, e.g. a German public buyer's Leitweg-ID (XRechnung)",
});
// no default: an update that leaves it out must not reset it (t.UnionEnum carries its first value as one)
const EinvoiceProfile = withoutDefault(
  t.UnionEnum([...EINVOICE_PROFILES], {
    description: "The e-invoice it receives: peppol (Peppol BIS 3.0 UBL), xrechnung (XRechnung 3.0, checked at finalize), facturx (a Factur-X PDF); null: peppol",
  }),
);
const REMINDERS_PAUSED = "No reminder run reminds this customer of any invoice; default false";
const PREFERRED_CHANNEL =
  "How its documents travel when a send asks for `preferred` (POST /invoices/{id}/send): email or peppol; null: peppol when it has a peppol_id, else email";
// no `default` (t.UnionEnum carries its first value as one, which Elysia would write into a body that leaves the field out)
const PreferredChannel = withoutDefault(t.UnionEnum(["email", "peppol"]));
/** Fields of a customer that a supplier has not (suppliers share the rest: contacts/party-model.ts). */
const customerOnlyInput = {
  buyer_reference: t.Optional(Nullable(BuyerReference)),
  einvoice_profile: t.Optional(Nullable(EinvoiceProfile)),
  preferred_channel: t.Optional(t.Union([PreferredChannel, t.Null()], { description: PREFERRED_CHANNEL })),
  reminders_paused: t.Optional(t.Boolean({ description: REMINDERS_PAUSED })),
  reminders_paused_reason: t.Optional(Nullable(Text({ maxLength: 500, description: "Why reminders are paused, for the people who read it" }))),
};
const customerOnly = t.Object({
  buyer_reference: Nullable(t.String()),
  einvoice_profile: Nullable(EinvoiceProfile),
  preferred_channel: t.Union([PreferredChannel, t.Null()], { description: PREFERRED_CHANNEL }),
  reminders_paused: t.Boolean({ description: REMINDERS_PAUSED }),
  reminders_paused_reason: Nullable(t.String()),
});

/** `Customer` is the customer as shown on its own (with its contact persons); lists show a `CustomerSummary`. */
export const CustomerModel = {
  create: strictObject({ ...PartyModel.create.properties, ...customerOnlyInput }, { title: "CustomerCreate" }),
  update: strictObject({ ...PartyModel.update.properties, ...customerOnlyInput }, { title: "CustomerUpdate" }),
  customer: t.Composite([PartyModel.party, customerOnly], { title: "CustomerSummary" }),
  customerWithContacts: t.Composite([PartyModel.party, customerOnly, t.Object({ contact_persons: t.Array(ContactPersonModel.contactPerson) })], {
    title: "Customer",
  }),
} as const;

export type CustomerCreate = typeof CustomerModel.create.static;
export type CustomerUpdate = typeof CustomerModel.update.static;

export type ContactPersonCreate = typeof ContactPersonModel.create.static;
export type ContactPersonUpdate = typeof ContactPersonModel.update.static;
