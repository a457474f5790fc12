/** Customers and their contact persons (server/customers, through server/contacts/party-service.ts). */
import { sql } from "drizzle-orm";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, createdAt, id, nocase, updatedAt } from "./columns.ts";
import { orgId } from "./orgs.ts";
import { partyColumns } from "./contacts.ts";

export const customers = sqliteTable(
  "customers",
  partyColumns(),
  (t) => [
  index("customers_org_name").on(t.organizationId, nocase(t.name), t.id),
  index("customers_org_created").on(t.organizationId, t.createdAt, t.id),
  index("customers_org_updated").on(t.organizationId, t.updatedAt, t.id),
  index("customers_org_country").on(t.organizationId, t.country, nocase(t.name), t.id),
  index("customers_org_currency").on(t.organizationId, t.currency, nocase(t.name), t.id),
  // filter[email] with the list order: no sort step
  index("customers_org_email").on(t.organizationId, t.email, nocase(t.name), t.id),
  // filter[vat_number] (stored compact) with the list order
  index("customers_org_vat_number").on(t.organizationId, t.vatNumber, nocase(t.name), t.id),
  // an external id names one customer of the organisation (409 naming the holder); filter[external_id]
  uniqueIndex("customers_org_external_id").on(t.organizationId, t.externalId).where(sql`${t.externalId} IS NOT NULL`),
],
);

export const contactPersons = sqliteTable(
  "contact_persons",
  {
    id: id(),
    organizationId: orgId(),
    customerId: text("customer_id")
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    firstName: text("first_name").notNull(),
    lastName: text("last_name").notNull(),
    email: text("email"),
    phone: text("phone"),
    position: text("position"),
    isPrimary: bool("is_primary").notNull(),
    notes: text("notes"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  // a customer's persons in list order, id as the tiebreak: no sort step
  (t) => [index("contact_persons_customer").on(t.customerId, t.createdAt, t.id)],
);
