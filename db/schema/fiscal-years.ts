/** Closed fiscal years (server/fiscal-years). */
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { FISCAL_YEAR_STATUSES } from "../values.ts";
import { updatedAt } from "./columns.ts";
import { orgId } from "./orgs.ts";

/** Calendar years that have been closed (an open year has no row, or status open after a reopen). */
export const fiscalYears = sqliteTable(
  "fiscal_years",
  {
    organizationId: orgId(),
    year: integer("year").notNull(),
    status: text("status", { enum: FISCAL_YEAR_STATUSES }).notNull(),
    /** its first and last day as it was closed (the journal's trigger locks these dates); set on every row */
    startDate: text("start_date"),
    endDate: text("end_date"),
    closedAt: text("closed_at"),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.year] })],
);
