/** Fiscal years (calendar years): closed by a closing entry and locked; reopened by its reversal. */
import { t } from "elysia";
import { FISCAL_YEAR_STATUSES } from "../ledger/model.ts";
import { DateString, Money, Nullable, Timestamp, Uuid } from "../lib/schemas.ts";

export const FiscalYearModel = {
  fiscalYear: t.Object(
    {
      year: t.Integer(),
      start_date: DateString,
      end_date: DateString,
      status: t.UnionEnum([...FISCAL_YEAR_STATUSES], { description: "closed: nothing posts into the year (a change that would is a 409)" }),
      closed_at: Nullable(Timestamp),
      result: t.String({ ...Money, description: "Revenue less expenses of the year, in the organisation's currency (closing entries left out)" }),
      closing_entry_ids: t.Array(Uuid, { description: "The standing closing entries (one per currency posted in); empty when open" }),
    },
    { title: "FiscalYear" },
  ),
  // checked by the service: anything but a year is a 404, as an unknown id is
  params: t.Object({ year: t.String({ description: "The calendar year, e.g. 2025" }) }),
} as const;
