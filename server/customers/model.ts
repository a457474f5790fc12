import { t } from "elysia";
import { PartyModel } from "../contacts/party-model.ts";
import { Email, Nullable, strictObject, Text, Timestamp, Uuid } from "../lib/schemas.ts";

const contactFields = {
  email: t.Optional(Nullable(Email)),
  phone: t.Optional(Nullable(Text({ maxLength: 50 }))),
  position: t.Optional(Nullable(Text({ maxLength: 255 }))),
  is_primary: t.Optional(t.Boolean()),
  notes: t.Optional(Nullable(Text({ maxLength: 5000 }))),
};
const PersonName = Text({ minLength: 1, maxLength: 100 });

export const ContactPersonModel = {
  create: strictObject({ first_name: PersonName, last_name: PersonName, ...contactFields }),
  update: strictObject({ first_name: t.Optional(PersonName), last_name: t.Optional(PersonName), ...contactFields }),
  contactPerson: t.Object({
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
  }),
} as const;

export const CustomerModel = {
  create: PartyModel.create,
  update: PartyModel.update,
  customer: PartyModel.party,
  customerWithContacts: t.Composite([PartyModel.party, t.Object({ contact_persons: t.Array(ContactPersonModel.contactPerson) })]),
} as const;

export type ContactPersonCreate = typeof ContactPersonModel.create.static;
export type ContactPersonUpdate = typeof ContactPersonModel.update.static;
