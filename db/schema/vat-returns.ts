/** Filed VAT returns (server/vat-returns). */
import { sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id } from "./columns.ts";
import { orgId } from "./orgs.ts";

/**
 * A VAT return as filed (server/vat-returns): its grids and its Intervat XML byte for byte, never
 * changed. A filed period is closed for VAT: documents dated in it that post later are reported in
 * the next open period.
 */
export const vatReturns = sqliteTable(
  "vat_returns",
  {
    id: id(),
    organizationId: orgId(),
    /** `2026-Q4` or `2026-11` */
    period: text("period").notNull(),
    periodFrom: text("period_from").notNull(),
    periodTo: text("period_to").notNull(),
    /** grid → amount in cents, as filed */
    grids: text("grids", { mode: "json" }).$type<Record<string, number>>().notNull(),
    xml: text("xml").notNull(),
    askRestitution: bool("ask_restitution").notNull(),
    filedAt: text("filed_at").notNull(),
  },
  (t) => [uniqueIndex("vat_returns_org_period").on(t.organizationId, t.period)],
);
