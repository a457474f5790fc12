/** The VAT return's API schemas (docs/books.md#the-vat-return). */
import { t } from "elysia";
import { VAT_PERIODS } from "../../db/values.ts";
import { DateString, Money, Nullable, strictObject, Timestamp, Uuid, withoutDefault } from "../lib/schemas.ts";

const Source = t.Object(
  {
    source_type: t.UnionEnum(["invoice", "expense", "bank_transaction"]),
    source_id: Uuid,
    number: Nullable(t.String({ description: "The invoice's or credit note's number; the supplier's number of an expense; null for a bank line" })),
    date: DateString,
    party: t.Object(
      {
        id: Nullable(Uuid),
        name: Nullable(t.String()),
        country: Nullable(t.String()),
        vat_number: Nullable(t.String()),
      },
      { description: "The buyer as issued on the invoice; the supplier of an expense; a bank line's counterparty" },
    ),
    amount: t.String({ ...Money, description: "What it adds to the grid (negative where it reduces it: a credit note received in 81–83, a cancellation)" }),
    intra_code: Nullable(t.UnionEnum(["L", "S", "T"], { description: "In 44, 46 and 48: its code on the intra-Community listing" })),
  },
  { title: "VatReturnSource" },
);

const askRestitution = () => withoutDefault(t.UnionEnum(["true", "false"], { description: "true: ask for the VAT credit (grid 72) to be paid back; default false. Ignored (Restitution NO) unless grid 72 is positive" }));

const GridAmounts = t.Record(t.String({ pattern: "^[0-9]{2}$" }), t.String(Money), {
  description: "Grid (two digits) → amount: every grid with an amount, and 71 (VAT due) or 72 (VAT to recover) always",
  examples: [{ "03": "1000.00", "54": "210.00", "71": "210.00" }],
});

export const VatReturnModel = {
  params: t.Object({ period: t.String({ description: "A quarter (2026-Q4) or a month (2026-11), after the organisation's vat_period", examples: ["2026-Q4"] }) }),
  xmlQuery: t.Object({ ask_restitution: t.Optional(askRestitution()) }, { additionalProperties: false }),
  fileBody: t.Optional(
    strictObject(
      { ask_restitution: t.Optional(t.Boolean({ description: "Ask for the VAT credit (grid 72) to be paid back; default false. Ignored (Restitution NO) unless grid 72 is positive" })) },
      { title: "VatReturnFile", description: "Optional; the body may be omitted" },
    ),
  ),
  vatReturn: t.Object(
    {
      period: t.String({ examples: ["2026-Q4"] }),
      from: DateString,
      to: DateString,
      vat_period: t.UnionEnum([...VAT_PERIODS]),
      grids: GridAmounts,
      sources: t.Record(t.String({ pattern: "^[0-9]{2}$" }), t.Array(Source), { description: "Grid → the documents that make it up (71 and 72 are computed)" }),
      warnings: t.Array(t.String(), {
        description:
          "Plausibility checks that fail, documents reported late (dated in a filed period), rules marked to verify, documents in another currency; a negative grid blocks filing",
      }),
      can_file: t.Boolean({ description: "Not filed yet, and no grid is negative" }),
      filed: t.Boolean(),
      filed_at: Nullable(Timestamp),
    },
    { title: "VatReturn" },
  ),
} as const;
