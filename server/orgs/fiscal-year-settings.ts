/**
 * The organisation's fiscal years as it sets them (docs/books.md#fiscal-years): `fiscal_year_start`
 * (`MM-01`) and, optionally, its first fiscal year (`first_fiscal_year_start`,
 * `first_fiscal_year_end`, 6 to 24 months, ending the day before a fiscal year starts). Set when
 * the organisation is created (`kontor org create --fiscal-year-start`) or later (`PUT
 * /organization`, `kontor org set`), but only while no fiscal year is closed: a closed year's
 * dates, closing entries and entry numbers are final. A refusal is a 422 naming the field.
 */
import { and, asc, eq, lt } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { fiscalYears, journalEntries, organizations } from "../../db/schema.ts";
import { ValidationFailed } from "../lib/errors.ts";
import { firstYearProblem, parseFiscalYearStart } from "../lib/fiscal-year.ts";
import { firstRow } from "../../db/client.ts";

type OrganizationRow = typeof organizations.$inferSelect;

/** The fields as the API names them; null clears the first fiscal year. */
export type FiscalYearInput = { fiscal_year_start?: string; first_fiscal_year_start?: string | null; first_fiscal_year_end?: string | null };

type Settings = Pick<OrganizationRow, "fiscalYearStart" | "firstFiscalYearStart" | "firstFiscalYearEnd">;

export const FISCAL_YEAR_FIELDS = ["fiscal_year_start", "first_fiscal_year_start", "first_fiscal_year_end"] as const;

const asked = (input: FiscalYearInput) => FISCAL_YEAR_FIELDS.some((f) => input[f] !== undefined);

/**
 * The settings `input` asks for, from `current`. A first year given by its end only starts on
 * the first day of the month the organisation was created in (`createdOn`): a business that
 * starts its books in Kontor. Checks what needs no database (422 naming the field).
 */
export function fiscalYearSettings(current: Settings, input: FiscalYearInput, createdOn: string): Settings {
  const next: Settings = { ...current };
  if (input.fiscal_year_start !== undefined) {
    if (parseFiscalYearStart(input.fiscal_year_start) === null) {
      throw ValidationFailed.field("fiscal_year_start", "The fiscal_year_start field must be the first day of a month, MM-01 (e.g. 07-01 for years from 1 July to 30 June).");
    }
    next.fiscalYearStart = input.fiscal_year_start;
  }
  if (input.first_fiscal_year_end === null) {
    if (input.first_fiscal_year_start) throw ValidationFailed.field("first_fiscal_year_end", "The first_fiscal_year_end field is required with first_fiscal_year_start.");
    next.firstFiscalYearStart = null;
    next.firstFiscalYearEnd = null;
  } else if (input.first_fiscal_year_end !== undefined || input.first_fiscal_year_start !== undefined) {
    const end = input.first_fiscal_year_end ?? current.firstFiscalYearEnd;
    if (end === null) throw ValidationFailed.field("first_fiscal_year_end", "The first_fiscal_year_end field is required with first_fiscal_year_start.");
    next.firstFiscalYearEnd = end;
    next.firstFiscalYearStart = input.first_fiscal_year_start ?? current.firstFiscalYearStart ?? `${createdOn.slice(0, 7)}-01`;
  }
  if (next.firstFiscalYearStart && next.firstFiscalYearEnd) {
    const problem = firstYearProblem(parseFiscalYearStart(next.fiscalYearStart)!, next.firstFiscalYearStart, next.firstFiscalYearEnd);
    if (problem) throw ValidationFailed.field(problem.field, problem.message);
  }
  return next;
}

/**
 * Applies `input` to an existing organisation's settings (the caller writes them): refused while
 * a fiscal year is closed, and a first year that would leave postings before it.
 */
export async function changeFiscalYears(tx: Tx, row: OrganizationRow, input: FiscalYearInput): Promise<Partial<Settings>> {
  if (!asked(input)) return {};
  const next = fiscalYearSettings(row, input, row.createdAt);
  const changed = (Object.keys(next) as (keyof Settings)[]).filter((k) => next[k] !== row[k]);
  if (changed.length === 0) return {};
  const closed = await firstRow(tx
    .select({ year: fiscalYears.year })
    .from(fiscalYears)
    .where(and(eq(fiscalYears.organizationId, row.id), eq(fiscalYears.status, "closed")))
    .orderBy(asc(fiscalYears.year)));
  if (closed) {
    const field = FISCAL_YEAR_FIELDS.find((f) => input[f] !== undefined)!;
    throw ValidationFailed.field(field, `The fiscal years can change only while none is closed: the fiscal year ${closed.year} is closed (reopen the closed years first).`);
  }
  if (next.firstFiscalYearStart) {
    const before = await firstRow(tx
      .select({ date: journalEntries.date })
      .from(journalEntries)
      .where(and(eq(journalEntries.organizationId, row.id), lt(journalEntries.date, next.firstFiscalYearStart)))
      .orderBy(asc(journalEntries.date))
      .limit(1));
    if (before) {
      throw ValidationFailed.field(
        "first_fiscal_year_start",
        `The first fiscal year must hold every posting: one is dated ${before.date}, before ${next.firstFiscalYearStart}.`,
      );
    }
  }
  return Object.fromEntries(changed.map((k) => [k, next[k]]));
}
