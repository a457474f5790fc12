/** The interest feature's request schemas: POST /invoices/{id}/interest-note. */
import { t } from "elysia";
import { DateString, strictObject } from "../lib/schemas.ts";

export const InterestModel = {
  note: t.Optional(
    strictObject(
      {
        as_of: t.Optional({ ...DateString, description: "The day up to which interest is charged, and the note's issue date; default today. Not later than today." }),
      },
      { title: "InterestNoteCreate", description: "Optional; an empty body or none charges up to today" },
    ),
  ),
};
