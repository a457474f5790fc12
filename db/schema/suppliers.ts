/** Suppliers (server/suppliers, through server/contacts/party-service.ts) and what identifies them when an e-invoice is imported. */
import { sql } from "drizzle-orm";
import { type AnySQLiteColumn, index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { id, nocase } from "./columns.ts";
import { orgId } from "./orgs.ts";
import { partyColumns } from "./contacts.ts";

/**
 * A VAT number without spaces, dots or dashes, upper case ("BE 0123.456.789" → "BE0123456789"):
 * the expression the suppliers_org_vat index holds and the import's lookup writes.
 */
export const compactVat = (column: AnySQLiteColumn) =>
  sql`upper(replace(replace(replace(${column}, ' ', ''), '.', ''), '-', ''))`;

export const suppliers = sqliteTable("suppliers", partyColumns(), (t) => [
  index("suppliers_org_name").on(t.organizationId, nocase(t.name), t.id),
  index("suppliers_org_created").on(t.organizationId, t.createdAt, t.id),
  index("suppliers_org_updated").on(t.organizationId, t.updatedAt, t.id),
  index("suppliers_org_country").on(t.organizationId, t.country, nocase(t.name), t.id),
  index("suppliers_org_currency").on(t.organizationId, t.currency, nocase(t.name), t.id),
  // filter[email] with the list order: no sort step
  index("suppliers_org_email").on(t.organizationId, t.email, nocase(t.name), t.id),
  // filter[vat_number] (stored compact) with the list order
  index("suppliers_org_vat_number").on(t.organizationId, t.vatNumber, nocase(t.name), t.id),
  // an external id names one supplier of the organisation (409 naming the holder); filter[external_id]
  uniqueIndex("suppliers_org_external_id").on(t.organizationId, t.externalId).where(sql`${t.externalId} IS NOT NULL`),
  // vendor → supplier matching is case-insensitive and trimmed; created_at, id make the
  // oldest match the index's first row, so the planner prefers this index (no sort)
  index("suppliers_org_lower_name").on(t.organizationId, sql`lower(trim(${t.name}))`, t.createdAt, t.id),
  // an imported e-invoice's supplier is found by VAT number (compact form, see compactVatNumber), then legal registration, then Peppol id
  index("suppliers_org_vat").on(t.organizationId, compactVat(t.vatNumber), t.createdAt, t.id),
  // compared in compact form too ("0123.456.749" = "0123456749")
  index("suppliers_org_company_number").on(t.organizationId, compactVat(t.companyNumber), t.createdAt, t.id),
  index("suppliers_org_peppol").on(t.organizationId, t.peppolId, t.createdAt, t.id),
]);

/**
 * What identifies a supplier when an e-invoice's seller is matched to it (server/suppliers/identity.ts,
 * docs/payables.md#importing-supplier-e-invoices): the supplier's own fields (source `supplier`,
 * rewritten whenever it is created or updated) and what each document filed under it said of its
 * seller (source `document`), kept even when the API would not store the value (a VAT number with
 * wrong check digits still tells two sellers apart). Values in the compared form: VAT numbers and
 * registrations compact, names as `nameKey` makes them.
 */
export const supplierIdentifiers = sqliteTable(
  "supplier_identifiers",
  {
    id: id(),
    organizationId: orgId(),
    supplierId: text("supplier_id")
      .notNull()
      .references(() => suppliers.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["vat", "registration", "peppol", "name"] }).notNull(),
    value: text("value").notNull(),
    /** a registration's scheme (ISO 6523 ICD, e.g. 0088, 0208) when the document gave one; "" when none */
    scheme: text("scheme").notNull().default(""),
    source: text("source", { enum: ["supplier", "document"] }).notNull(),
  },
  (t) => [
    // the candidates of a document: one probe per identifier it carries
    index("supplier_identifiers_org_value").on(t.organizationId, t.kind, t.value, t.supplierId),
    uniqueIndex("supplier_identifiers_supplier").on(t.supplierId, t.kind, t.value, t.scheme, t.source),
  ],
);
