/** The journal (docs/books.md): entries of balanced lines, posted by Kontor or by hand, never edited. */
import { t } from "elysia";
import { DateString, Money, moneyInput, Nullable, strictObject, Text, Timestamp, Uuid } from "../lib/schemas.ts";

import { JOURNAL_SOURCES } from "../../db/values.ts";
export {
  FISCAL_YEAR_STATUSES, JOURNAL_SOURCES, VAT_ROLES, VAT_SIDES, type JournalSource, type VatRole, type VatSide,
} from "../../db/values.ts";

const Amount = moneyInput({ positive: false, description: "Decimal, at most 2 fraction digits; 0 on the other side" });

export const JournalModel = {
  entry: t.Object(
    {
      id: Uuid,
      date: DateString,
      number: t.String({
        description:
          "JE-<year>-<n>: the entry's position in its year by date (then posting order), per organisation: ascending with the dates, no gaps. " +
          "Derived when read: in an open year an entry posted later with an earlier date takes its place and the later-dated entries move up one; " +
          "a closed year's numbers are final",
      }),
      description: t.String(),
      currency: t.String(),
      source_type: t.UnionEnum([...JOURNAL_SOURCES], { description: "What posted the entry" }),
      source_id: Nullable(t.String({ description: "The invoice, payment, expense, expense payment or year (closing) it posts; null for manual entries" })),
      reverses_entry_id: Nullable(t.String({ ...Uuid, description: "Set on a reversing entry: the entry it cancels out" })),
      reversed_by_entry_id: Nullable(t.String({ ...Uuid, description: "The entry that reverses this one, if any" })),
      lines: t.Array(
        t.Object(
          {
            account_id: Uuid,
            debit: Money,
            credit: Money,
            description: Nullable(t.String()),
          },
          { title: "JournalLine" },
        ),
      ),
      created_at: Timestamp,
    },
    { title: "JournalEntry" },
  ),
  create: strictObject(
    {
      date: DateString,
      description: Text({ minLength: 1, maxLength: 1000 }),
      currency: t.Optional(t.String({ pattern: "^[A-Z]{3}$", description: "ISO 4217; default: the organisation's currency" })),
      lines: t.Array(
        strictObject(
          {
            account_id: t.String({ ...Uuid, description: "An account of the organisation" }),
            debit: t.Optional(Amount),
            credit: t.Optional(Amount),
            description: t.Optional(Nullable(Text({ maxLength: 1000 }))),
          },
          { title: "JournalLineInput" },
        ),
        { minItems: 2, maxItems: 500, description: "At least two lines; each has a debit or a credit (not both); debits equal credits" },
      ),
    },
    { title: "JournalEntryCreate" },
  ),
  reverse: strictObject(
    { date: t.Optional(t.String({ ...DateString, description: "Default: the date of the entry reversed" })) },
    { title: "JournalEntryReverse", description: "The body may be omitted" },
  ),
} as const;

export type JournalEntryCreate = typeof JournalModel.create.static;
export type JournalEntryReverse = typeof JournalModel.reverse.static;
