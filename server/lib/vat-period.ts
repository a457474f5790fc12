/**
 * VAT periods as the Belgian return names them: a month (`2026-11`) or a quarter (`2026-Q4`),
 * after the organisation's `vat_period` (docs/books.md). Pure: no database, no clock.
 */
import type { VatPeriod } from "../../db/values.ts";
import { lastDayOfMonth } from "./period.ts";

export type VatPeriodName = {
  /** as written: `2026-Q4` or `2026-11` */
  name: string;
  kind: VatPeriod;
  year: number;
  /** 1–4 for a quarter, 1–12 for a month */
  index: number;
  /** its first and last day, YYYY-MM-DD */
  from: string;
  to: string;
};

const pad = (n: number) => String(n).padStart(2, "0");

function period(kind: VatPeriod, year: number, index: number): VatPeriodName {
  const firstMonth = kind === "quarterly" ? (index - 1) * 3 + 1 : index;
  const lastMonth = kind === "quarterly" ? firstMonth + 2 : index;
  return {
    name: kind === "quarterly" ? `${year}-Q${index}` : `${year}-${pad(index)}`,
    kind,
    year,
    index,
    from: `${year}-${pad(firstMonth)}-01`,
    to: `${year}-${pad(lastMonth)}-${pad(lastDayOfMonth(year, lastMonth))}`,
  };
}

/** A period's name read (`YYYY-Qn` or `YYYY-MM`, years 1900–2999), or null when it names none. */
export function parseVatPeriod(text: string): VatPeriodName | null {
  const quarter = /^(\d{4})-Q([1-4])$/.exec(text);
  if (quarter) return validYear(Number(quarter[1])) ? period("quarterly", Number(quarter[1]), Number(quarter[2])) : null;
  const month = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(text);
  if (month) return validYear(Number(month[1])) ? period("monthly", Number(month[1]), Number(month[2])) : null;
  return null;
}

const validYear = (year: number) => year >= 1900 && year <= 2999;

/** The period of `kind` that holds `date` (YYYY-MM-DD). */
export function vatPeriodOf(kind: VatPeriod, date: string): VatPeriodName {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  return period(kind, year, kind === "quarterly" ? Math.ceil(month / 3) : month);
}

/** The period after `p`, of the same kind. */
export function nextVatPeriod(p: VatPeriodName): VatPeriodName {
  const last = p.kind === "quarterly" ? 4 : 12;
  return p.index === last ? period(p.kind, p.year + 1, 1) : period(p.kind, p.year, p.index + 1);
}

/** Whether `p` is the last period of its calendar year (the one whose return says whether a client listing follows). */
export const isLastOfYear = (p: VatPeriodName) => p.index === (p.kind === "quarterly" ? 4 : 12);
