import { t } from "elysia";
import { CustomerPartyModel } from "../contacts/party-model.ts";
import { Email, named, Nullable, strictObject, Text, Timestamp, Uuid } from "../lib/schemas.ts";

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
  create: named("CustomerCreate", CustomerPartyModel.create),
  update: named("CustomerUpdate", CustomerPartyModel.update),
  customer: named("CustomerSummary", CustomerPartyModel.party),
  customerWithContacts: t.Composite([CustomerPartyModel.party, t.Object({ contact_persons: t.Array(ContactPersonModel.contactPerson) })], {
    title: "Customer",
  }),
} as const;

export type ContactPersonCreate = typeof ContactPersonModel.create.static;
export type ContactPersonUpdate = typeof ContactPersonModel.update.static;
