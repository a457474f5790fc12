/** Fiscal years (the organisation's, named by the calendar year they end in): closed by a closing entry and locked; reopened by its reversal. */
import { t } from "elysia";
import { FISCAL_YEAR_STATUSES } from "../ledger/model.ts";
import { DateString, Money, Nullable, Timestamp, Uuid } from "../lib/schemas.ts";

export const FiscalYearModel = {
  fiscalYear: t.Object(
    {
      year: t.Integer({ description: "Its name: the calendar year it ends in (with years from 1 July, 2027 is 2026-07-01 … 2027-06-30)" }),
      start_date: t.String({ ...DateString, description: "Its first day (the organisation's fiscal_year_start, or its first fiscal year's start)" }),
      end_date: t.String({ ...DateString, description: "Its last day: closing entries are dated on it" }),
      status: t.UnionEnum([...FISCAL_YEAR_STATUSES], { description: "closed: nothing posts into the year (a change that would is a 409)" }),
      closed_at: Nullable(Timestamp),
      result: t.String({ ...Money, description: "Revenue less expenses of the year, in the organisation's currency (closing entries left out)" }),
      closing_entry_ids: t.Array(Uuid, { description: "The standing closing entries (one per currency posted in); empty when open" }),
    },
    { title: "FiscalYear" },
  ),
  // checked by the service: anything but a year is a 404, as an unknown id is
  params: t.Object({ year: t.String({ description: "The fiscal year's name: the calendar year it ends in, e.g. 2025" }) }),
} as const;
