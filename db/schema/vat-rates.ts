/** An organisation's VAT rates (server/vat-rates). */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { VAT_CATEGORIES } from "../values.ts";
import { bool, createdAt, id } from "./columns.ts";
import { orgId } from "./orgs.ts";

export const vatRates = sqliteTable(
  "vat_rates",
  {
    id: id(),
    organizationId: orgId(),
    name: text("name").notNull(),
    /** Percentage in hundredths: 21.00 % → 2100. */
    rateBp: integer("rate_bp").notNull(),
    isDefault: bool("is_default").notNull(),
    /** EN 16931 VAT category (UNCL5305): S standard/reduced, Z zero, E exempt, AE reverse charge, K intra-EU, G export, O outside scope */
    category: text("category", { enum: VAT_CATEGORIES }).notNull().default("S"),
    /** VATEX code where the category needs an exemption reason (E, AE, K, G, O) */
    exemptionReasonCode: text("exemption_reason_code"),
    createdAt: createdAt(),
  },
  (t) => [index("vat_rates_org").on(t.organizationId, t.rateBp)],
);
