/**
 * An organisation's fiscal years (docs/books.md#fiscal-years): they start on the first day of a
 * month (`fiscal_year_start`, "07-01"; "01-01" for calendar years), and a fiscal year is named by
 * the calendar year it ends in: 2027 is 2026-07-01 … 2027-06-30. An organisation may declare its
 * first fiscal year, of 6 to 24 months (2026-01-01 … 2027-06-30, named 2027): nothing posts
 * before its start, and the regular years follow it. VAT periods, the client listing and invoice
 * numbers keep to calendar years; they do not read this.
 */
import { type Tx, preparedSql } from "../../db/client.ts";
import { addMonthsOnDay, lastDayOfMonth } from "./period.ts";
import { addDays, isValidDate } from "./time.ts";

/** How an organisation's years run: the month they start in (1–12) and its first year, if it declares one. */
export type FiscalCalendar = { startMonth: number; first: { start: string; end: string } | null };

/** One fiscal year: its name (the calendar year it ends in) and its first and last day. */
export type FiscalYear = { year: number; start: string; end: string };

/** Calendar years, the default. */
export const CALENDAR_YEARS: FiscalCalendar = { startMonth: 1, first: null };

/** The first fiscal year's bounds, in months (Belgian practice allows a first year of up to 24). */
export const FIRST_YEAR_MONTHS = { min: 6, max: 24 } as const;

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** "07-01" → 7; null when it is not the first day of a month. */
export function parseFiscalYearStart(text: string): number | null {
  const m = /^(0[1-9]|1[0-2])-01$/.exec(text);
  return m ? Number(m[1]) : null;
}

/** The regular (twelve-month) fiscal year named `year`. */
function regularYear(cal: FiscalCalendar, year: number): FiscalYear {
  if (cal.startMonth === 1) return { year, start: `${pad(year, 4)}-01-01`, end: `${pad(year, 4)}-12-31` };
  const endMonth = cal.startMonth - 1;
  return { year, start: `${pad(year - 1, 4)}-${pad(cal.startMonth)}-01`, end: `${pad(year, 4)}-${pad(endMonth)}-${pad(lastDayOfMonth(year, endMonth))}` };
}

/** The name of the first fiscal year (the calendar year its last day is in), or null. */
export const firstYearName = (cal: FiscalCalendar): number | null => (cal.first ? Number(cal.first.end.slice(0, 4)) : null);

/**
 * The fiscal year that holds `date`. A date before a declared first year (where nothing posts)
 * is given the regular year around it, cut at the first year's start: what a report's default
 * period needs, never a year that closes.
 */
export function fiscalYearOf(cal: FiscalCalendar, date: string): FiscalYear {
  const { first } = cal;
  if (first && date >= first.start && date <= first.end) return { year: firstYearName(cal)!, ...first };
  const y = Number(date.slice(0, 4));
  const year = cal.startMonth !== 1 && Number(date.slice(5, 7)) >= cal.startMonth ? regularYear(cal, y + 1) : regularYear(cal, y);
  if (first && date < first.start && year.end >= first.start) return { ...year, end: addDays(first.start, -1) };
  return year;
}

/** The fiscal year named `year`; null for a name before the organisation's first fiscal year. */
export function fiscalYearNamed(cal: FiscalCalendar, year: number): FiscalYear | null {
  const first = firstYearName(cal);
  if (first !== null) {
    if (year === first) return { year, ...cal.first! };
    if (year < first) return null;
  }
  return regularYear(cal, year);
}

/**
 * Why a first fiscal year from `start` to `end` cannot be (a sentence for a 422 on `field`), or
 * null: it ends the day before a fiscal year starts (regular years follow it), and lasts 6 to 24
 * months: from 2026-01-01, it ends on 2026-06-30 at the earliest and on 2027-12-31 at the latest.
 */
export function firstYearProblem(startMonth: number, start: string, end: string): { field: string; message: string } | null {
  if (!isValidDate(start)) return { field: "first_fiscal_year_start", message: "The first_fiscal_year_start field must be a date (YYYY-MM-DD)." };
  if (!isValidDate(end)) return { field: "first_fiscal_year_end", message: "The first_fiscal_year_end field must be a date (YYYY-MM-DD)." };
  const next = addDays(end, 1);
  if (Number(next.slice(5, 7)) !== startMonth || next.slice(8) !== "01") {
    return {
      field: "first_fiscal_year_end",
      message: `The first fiscal year must end on the day before a fiscal year starts (fiscal years start on ${pad(startMonth)}-01), e.g. ${regularYear({ startMonth, first: null }, Number(end.slice(0, 4))).end}.`,
    };
  }
  const day = Number(start.slice(8));
  const earliest = addDays(addMonthsOnDay(start, FIRST_YEAR_MONTHS.min, day), -1);
  const latest = addDays(addMonthsOnDay(start, FIRST_YEAR_MONTHS.max, day), -1);
  if (end < earliest || end > latest) {
    return {
      field: "first_fiscal_year_end",
      message: `The first fiscal year must last ${FIRST_YEAR_MONTHS.min} to ${FIRST_YEAR_MONTHS.max} months: from ${start}, it ends between ${earliest} and ${latest}.`,
    };
  }
  return null;
}

type CalendarRow = { fiscalYearStart: string; firstFiscalYearStart: string | null; firstFiscalYearEnd: string | null };

/** An organisation's calendar as its row holds it. */
export function calendarOf(row: CalendarRow): FiscalCalendar {
  const first = row.firstFiscalYearStart && row.firstFiscalYearEnd ? { start: row.firstFiscalYearStart, end: row.firstFiscalYearEnd } : null;
  return { startMonth: parseFiscalYearStart(row.fiscalYearStart) ?? 1, first };
}

/** The organisation's fiscal calendar, read in the caller's transaction (prepared once per connection: journal numbers read it). */
export async function fiscalCalendar(tx: Tx, orgId: string): Promise<FiscalCalendar> {
  const row = await preparedSql<CalendarRow, [string]>(
    tx,
    "fiscal years: calendar",
    `SELECT "fiscal_year_start" AS "fiscalYearStart", "first_fiscal_year_start" AS "firstFiscalYearStart", "first_fiscal_year_end" AS "firstFiscalYearEnd" FROM "organizations" WHERE "id" = ?1`,
  ).get(orgId);
  return row ? calendarOf(row) : CALENDAR_YEARS;
}
