/** Reading the journal's entries (what a change posted, and still stands) and their numbers in date order. */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { prepared, type Tx } from "../../db/client.ts";
import { journalEntries } from "../../db/schema.ts";
import type { JournalSource } from "./model.ts";

type EntryRow = typeof journalEntries.$inferSelect;

/**
 * The entries a source posted that still stand: neither a reversal nor reversed. Cancelling an
 * invoice or deleting a payment reverses these, each on its own date, so that the ledger at any
 * date says what the documents say.
 */
export function standingEntries(tx: Tx, orgId: string, sourceType: JournalSource, sourceId: string): EntryRow[] {
  const reversal = sql`(SELECT 1 FROM ${journalEntries} r WHERE r.reverses_entry_id = ${journalEntries.id})`;
  return tx
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
    .orderBy(asc(journalEntries.date), asc(journalEntries.id))
    .all();
}

/**
 * Journal entry numbers (issue 26): JE-<year>-<n>, where n is the entry's position in its year
 * ordered by date, then by id (a UUIDv7: posting order within a day). So within a year the
 * numbers ascend with the dates and have no gaps, whatever order the entries were posted in.
 *
 * Why derived when read, not stored: entries are immutable (migration 0017), and a back-dated
 * entry posted later must still fall between the entries dated around it; a stored number would
 * have to renumber every later entry. The cost is that a number in an open year moves up when an
 * earlier-dated entry is posted after it; a closed year takes no postings but its closing
 * entries (dated its last day), so its numbers are final. (journal_entries.number still holds the
 * posting sequence: immutable, unique, and not shown.)
 *
 * Counting is cheap at any size: the entries of the year's earlier days are a sum over
 * journal_day_counts (at most 366 rows, kept by a trigger, migration 0026); those of the entry's
 * own day before it are a range of journal_entries_org_date (organization_id, date, id).
 */
const daysBefore = (tx: Tx) =>
  prepared(tx, "ledger: entries of the year before a day", (tx) =>
    tx.$client.prepare<{ n: number }, [string, string, string]>(
      `SELECT coalesce(sum("entries"), 0) AS n FROM "journal_day_counts" WHERE "organization_id" = ?1 AND "date" >= ?2 AND "date" < ?3`,
    ),
  );
const ofDayBetween = (tx: Tx) =>
  prepared(tx, "ledger: entries of a day between two ids", (tx) =>
    tx.$client.prepare<{ n: number }, [string, string, string, string]>(
      `SELECT count(*) AS n FROM "journal_entries" WHERE "organization_id" = ?1 AND "date" = ?2 AND "id" > ?3 AND "id" <= ?4`,
    ),
  );

/** JE-2026-00042 for the 42nd entry of 2026 (five digits at least, as posted numbers always were). */
export const formatEntryNumber = (date: string, position: number) => `JE-${date.slice(0, 4)}-${String(position).padStart(5, "0")}`;

type Numbered = Pick<EntryRow, "organizationId" | "date" | "id">;

/**
 * The position of each entry in its year in date order (see above), by id. The entries of one
 * day are counted in id order, each from the one before, so a page of a busy day walks that day's
 * index once, not once per entry.
 */
export function entryPositions(tx: Tx, entries: Numbered[]): Map<string, number> {
  const positions = new Map<string, number>();
  const byDay = Map.groupBy(entries, (e) => `${e.organizationId}\u0000${e.date}`);
  for (const day of byDay.values()) {
    const { organizationId, date } = day[0]!;
    let position = daysBefore(tx).get(organizationId, `${date.slice(0, 4)}-01-01`, date)!.n;
    let previous = "";
    for (const id of [...new Set(day.map((e) => e.id))].sort()) {
      position += ofDayBetween(tx).get(organizationId, date, previous, id)!.n;
      positions.set(id, position);
      previous = id;
    }
  }
  return positions;
}

/** The entry's position in its year in date order. */
export const entryPosition = (tx: Tx, entry: Numbered): number => entryPositions(tx, [entry]).get(entry.id)!;

/** The number of each entry, by id. */
export function entryNumbers(tx: Tx, entries: Numbered[]): Map<string, string> {
  const positions = entryPositions(tx, entries);
  return new Map(entries.map((e) => [e.id, formatEntryNumber(e.date, positions.get(e.id)!)]));
}

/** One entry's number. */
export const entryNumber = (tx: Tx, entry: Numbered): string => formatEntryNumber(entry.date, entryPosition(tx, entry));
