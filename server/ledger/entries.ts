/** Reading the journal's entries (what a change posted, and still stands) and their numbers in date order. */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { type Tx, preparedSql } from "../../db/client.ts";
import { journalEntries } from "../../db/schema.ts";
import { fiscalCalendar, fiscalYearOf, type FiscalYear } from "../lib/fiscal-year.ts";
import type { JournalSource } from "./model.ts";

type EntryRow = typeof journalEntries.$inferSelect;

/**
 * The entries a source posted that still stand: neither a reversal nor reversed. Cancelling an
 * invoice or deleting a payment reverses these, each on its own date, so that the ledger at any
 * date says what the documents say.
 */
export async function standingEntries(tx: Tx, orgId: string, sourceType: JournalSource, sourceId: string): Promise<EntryRow[]> {
  const reversal = sql`(SELECT 1 FROM ${journalEntries} r WHERE r.reverses_entry_id = ${journalEntries.id})`;
  return await tx
    .select()
    .from(journalEntries)
    .where(
      and(
        eq(journalEntries.organizationId, orgId),
        eq(journalEntries.sourceType, sourceType),
        eq(journalEntries.sourceId, sourceId),
        isNull(journalEntries.reversesEntryId),
        sql`NOT EXISTS ${reversal}`,
      ),
    )
    .orderBy(asc(journalEntries.date), asc(journalEntries.id));
}

/**
 * Journal entry numbers: JE-<fiscal year>-<n>, where n is the entry's position in its fiscal year
 * ordered by date, then by id (a UUIDv7: posting order within a day). So within a year the
 * numbers ascend with the dates and have no gaps, whatever order the entries were posted in. The
 * fiscal year is the organisation's (docs/books.md#fiscal-years): with years from 1 July, the
 * entries of 2026-07-01 … 2027-06-30 are JE-2027-00001 on; with calendar years, JE-<its year>.
 *
 * Why derived when read, not stored: entries are immutable (migration 0017), and a back-dated
 * entry posted later must still fall between the entries dated around it; a stored number would
 * have to renumber every later entry. The cost is that a number in an open year moves up when an
 * earlier-dated entry is posted after it; a closed year takes no postings but its closing
 * entries (dated its last day), so its numbers are final. (journal_entries.number still holds the
 * posting sequence: immutable, unique, and not shown.)
 *
 * Counting is cheap at any size: the entries of the year's earlier days are a sum over
 * journal_day_counts (at most 731 rows, kept by a trigger, migration 0026); those of the entry's
 * own day before it are a range of journal_entries_org_date (organization_id, date, id).
 */
const daysBefore = (tx: Tx) =>
  preparedSql<{ n: number }, [string, string, string]>(
    tx,
    "ledger: entries of the year before a day",
    `SELECT coalesce(sum("entries"), 0) AS n FROM "journal_day_counts" WHERE "organization_id" = ?1 AND "date" >= ?2 AND "date" < ?3`,
  );
const ofDayBetween = (tx: Tx) =>
  preparedSql<{ n: number }, [string, string, string, string]>(
    tx,
    "ledger: entries of a day between two ids",
    `SELECT count(*) AS n FROM "journal_entries" WHERE "organization_id" = ?1 AND "date" = ?2 AND "id" > ?3 AND "id" <= ?4`,
  );

/** JE-2026-00042 for the 42nd entry of the fiscal year 2026 (five digits at least, as posted numbers always were). */
export const formatEntryNumber = (year: number, position: number) => `JE-${year}-${String(position).padStart(5, "0")}`;

type Numbered = Pick<EntryRow, "organizationId" | "date" | "id">;

/** The fiscal year of each date of an organisation (its calendar read once). */
export async function fiscalYearsOf(tx: Tx, orgId: string): Promise<(date: string) => FiscalYear> {
  const calendar = await fiscalCalendar(tx, orgId);
  return (date) => fiscalYearOf(calendar, date);
}

/**
 * The position of each entry in its fiscal year in date order (see above), and that year, by id.
 * The entries of one day are counted in id order, each from the one before, so a page of a busy
 * day walks that day's index once, not once per entry.
 */
export async function entryPositions(tx: Tx, entries: Numbered[]): Promise<Map<string, { year: number; position: number }>> {
  const positions = new Map<string, { year: number; position: number }>();
  const calendars = new Map<string, (date: string) => FiscalYear>();
  const byDay = Map.groupBy(entries, (e) => `${e.organizationId}\u0000${e.date}`);
  for (const day of byDay.values()) {
    const { organizationId, date } = day[0]!;
    let yearOf = calendars.get(organizationId);
    if (!yearOf) calendars.set(organizationId, (yearOf = await fiscalYearsOf(tx, organizationId)));
    const year = yearOf(date);
    let position = (await daysBefore(tx).get(organizationId, year.start, date))!.n;
    let previous = "";
    for (const id of [...new Set(day.map((e) => e.id))].sort()) {
      position += (await ofDayBetween(tx).get(organizationId, date, previous, id))!.n;
      positions.set(id, { year: year.year, position });
      previous = id;
    }
  }
  return positions;
}

/** The entry's fiscal year and position in it in date order. */
export const entryPosition = async (tx: Tx, entry: Numbered): Promise<{ year: number; position: number }> => (await entryPositions(tx, [entry])).get(entry.id)!;

/** The number of each entry, by id. */
export async function entryNumbers(tx: Tx, entries: Numbered[]): Promise<Map<string, string>> {
  const positions = await entryPositions(tx, entries);
  return new Map(
    entries.map((e) => {
      const { year, position } = positions.get(e.id)!;
      return [e.id, formatEntryNumber(year, position)];
    }),
  );
}

/** One entry's number. */
export const entryNumber = async (tx: Tx, entry: Numbered): Promise<string> => {
  const { year, position } = await entryPosition(tx, entry);
  return formatEntryNumber(year, position);
};
