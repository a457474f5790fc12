/**
 * Fiscal years as the organisation has them (server/lib/fiscal-year.ts: calendar years by default,
 * or from the first of another month, named by the calendar year they end in; a first year of 6
 * to 24 months). Closing one posts its closing entries (each revenue and expense account's result
 * to retained earnings, per currency, dated its last day) and locks its dates: every posting into
 * it is then a 409 (server/ledger/post.ts `assertYearOpen`, and the journal's trigger), but for
 * its closing entries and their reversal. Years close in order and reopen in reverse order;
 * reopening reverses the closing entries.
 */
import { and, asc, eq, gt, gte, lt, lte, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { fiscalYears, journalEntries } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { closingPostings } from "../ledger/rules.ts";
import { netResult } from "../reports/balances.ts";
import { standingEntries } from "../ledger/entries.ts";
import { Conflict, NotFound } from "../lib/errors.ts";
import { fiscalCalendar, fiscalYearNamed, fiscalYearOf, firstYearName, type FiscalCalendar, type FiscalYear } from "../lib/fiscal-year.ts";
import { formatCents } from "../lib/money.ts";
import { snapshot, unitOfWork, type Scope } from "../lib/scope.ts";
import { nowIso, today } from "../lib/time.ts";
import { firstRow } from "../../db/client.ts";

type YearRow = typeof fiscalYears.$inferSelect;

/** The years with postings, the closed ones and the current one, oldest first (none before a declared first year). */
async function knownYears(tx: Tx, orgId: string, calendar: FiscalCalendar): Promise<number[]> {
  const span = await firstRow(tx
    .select({ first: sql<string | null>`min(${journalEntries.date})`, last: sql<string | null>`max(${journalEntries.date})` })
    .from(journalEntries)
    .where(eq(journalEntries.organizationId, orgId)));
  const closed = (await tx.select({ year: fiscalYears.year }).from(fiscalYears).where(eq(fiscalYears.organizationId, orgId))).map((r) => r.year);
  const years = [fiscalYearOf(calendar, today()).year, ...closed];
  if (span?.first) years.push(fiscalYearOf(calendar, span.first).year);
  if (span?.last) years.push(fiscalYearOf(calendar, span.last).year);
  const from = Math.max(Math.min(...years), firstYearName(calendar) ?? -Infinity);
  const to = Math.max(...years);
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

type OrgCurrency = { id: string; currency: string };

async function present(tx: Tx, org: OrgCurrency, year: FiscalYear, row: YearRow | undefined) {
  const closed = row?.status === "closed";
  // a closed year shows the dates it was closed with (the calendar cannot change while one is)
  const start = (closed && row!.startDate) || year.start;
  const end = (closed && row!.endDate) || year.end;
  return {
    year: year.year,
    start_date: start,
    end_date: end,
    status: closed ? ("closed" as const) : ("open" as const),
    closed_at: closed ? row!.closedAt : null,
    result: formatCents(await netResult(tx, org.id, org.currency, start, end)),
    closing_entry_ids: closed ? (await standingEntries(tx, org.id, "fiscal_year", String(year.year))).map((e) => e.id) : [],
  };
}

async function yearRow(tx: Tx, orgId: string, year: number): Promise<YearRow | undefined> {
  return await firstRow(tx.select().from(fiscalYears).where(and(eq(fiscalYears.organizationId, orgId), eq(fiscalYears.year, year))));
}

/** The fiscal year named `year` of the organisation's calendar; 404 before its first fiscal year. */
function namedYear(calendar: FiscalCalendar, year: number): FiscalYear {
  const found = fiscalYearNamed(calendar, year);
  if (!found) throw new NotFound();
  return found;
}

/** The year as the API and its webhooks show it (`org`: whose currency the result is in). */
export async function showFiscalYear(tx: Tx, org: OrgCurrency, year: number) {
  return present(tx, org, namedYear(await fiscalCalendar(tx, org.id), year), await yearRow(tx, org.id, year));
}

function parseYear(text: string): number {
  if (!/^\d{4}$/.test(text) || Number(text) < 1900) throw new NotFound();
  return Number(text);
}

export const fiscalYearService = {
  async list(scope: Scope) {
    return await snapshot(scope.db, async (tx) => {
      const rows = new Map((await tx.select().from(fiscalYears).where(eq(fiscalYears.organizationId, scope.org.id))).map((r) => [r.year, r]));
      const calendar = await fiscalCalendar(tx, scope.org.id);
      return await Promise.all((await knownYears(tx, scope.org.id, calendar)).map((year) => present(tx, scope.org, namedYear(calendar, year), rows.get(year))));
    });
  },

  async get(scope: Scope, yearText: string) {
    const year = parseYear(yearText);
    return await snapshot(scope.db, (tx) => showFiscalYear(tx, scope.org, year));
  },

  async close(scope: Scope, yearText: string) {
    const year = parseYear(yearText);
    return await unitOfWork(scope.db, async (tx) => {
      const calendar = await fiscalCalendar(tx, scope.org.id);
      const fiscalYear = namedYear(calendar, year);
      if ((await yearRow(tx, scope.org.id, year))?.status === "closed") throw new Conflict(`The fiscal year ${year} is closed already.`);
      if (fiscalYear.end >= today()) throw new Conflict(`The fiscal year ${year} is open and has not ended yet (it ends on ${fiscalYear.end}).`);
      const earliest = await firstRow(tx
        .select({ date: journalEntries.date })
        .from(journalEntries)
        .where(and(eq(journalEntries.organizationId, scope.org.id), lt(journalEntries.date, fiscalYear.start)))
        .orderBy(asc(journalEntries.date)));
      // every earlier year with postings is closed first; a year without any has nothing to close
      const hasPostings = async (y: FiscalYear) =>
        (await firstRow(tx
          .select({ id: journalEntries.id })
          .from(journalEntries)
          .where(and(eq(journalEntries.organizationId, scope.org.id), gte(journalEntries.date, y.start), lte(journalEntries.date, y.end)))
          .limit(1))) !== undefined;
      const from = earliest ? fiscalYearOf(calendar, earliest.date).year : year;
      for (let y = from; y < year; y++) {
        const earlier = fiscalYearNamed(calendar, y);
        if (earlier && (await yearRow(tx, scope.org.id, y))?.status !== "closed" && (await hasPostings(earlier))) {
          throw new Conflict(`The fiscal year ${y} is open; years close in order: close ${y} first.`);
        }
      }
      const now = nowIso();
      const dates = { startDate: fiscalYear.start, endDate: fiscalYear.end };
      await tx.insert(fiscalYears)
        .values({ organizationId: scope.org.id, year, status: "closed", ...dates, closedAt: now, updatedAt: now })
        .onConflictDoUpdate({ target: [fiscalYears.organizationId, fiscalYears.year], set: { status: "closed", ...dates, closedAt: now, updatedAt: now } });
      // closing entries are the one posting a closed year takes (server/ledger/post.ts)
      await recordChange(tx, scope, {
        action: "fiscal_year.closed",
        resource: { type: "fiscal_year", id: String(year) },
        event: "fiscal_year.closed",
        data: () => showFiscalYear(tx, scope.org, year),
        ledger: (await closingPostings(tx, scope.org.id, fiscalYear)).map((post) => ({ post })),
      });
      return showFiscalYear(tx, scope.org, year);
    });
  },

  async reopen(scope: Scope, yearText: string) {
    const year = parseYear(yearText);
    return await unitOfWork(scope.db, async (tx) => {
      namedYear(await fiscalCalendar(tx, scope.org.id), year);
      if ((await yearRow(tx, scope.org.id, year))?.status !== "closed") throw new Conflict(`The fiscal year ${year} is open; only a closed year can be reopened.`);
      const later = await firstRow(tx
        .select({ year: fiscalYears.year })
        .from(fiscalYears)
        .where(and(eq(fiscalYears.organizationId, scope.org.id), gt(fiscalYears.year, year), eq(fiscalYears.status, "closed")))
        .orderBy(asc(fiscalYears.year)));
      if (later) throw new Conflict(`The fiscal year ${later.year} is closed; years reopen in reverse order: reopen ${later.year} first.`);
      await tx.update(fiscalYears)
        .set({ status: "open", closedAt: null, updatedAt: nowIso() })
        .where(and(eq(fiscalYears.organizationId, scope.org.id), eq(fiscalYears.year, year)));
      await recordChange(tx, scope, {
        action: "fiscal_year.reopened",
        resource: { type: "fiscal_year", id: String(year) },
        event: "fiscal_year.reopened",
        data: () => showFiscalYear(tx, scope.org, year),
        ledger: [{ reverse: { type: "fiscal_year", id: String(year) } }],
      });
      return showFiscalYear(tx, scope.org, year);
    });
  },
};
