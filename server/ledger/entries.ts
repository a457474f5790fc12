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
const positionInYear = (tx: Tx) =>
  prepared(tx, "ledger: entry position in its year", (tx) =>
    tx.$client.prepare<{ n: number }, [string, string, string, string]>(
      `SELECT (SELECT coalesce(sum("entries"), 0) FROM "journal_day_counts" WHERE "organization_id" = ?1 AND "date" >= ?2 AND "date" < ?3)
            + (SELECT count(*) FROM "journal_entries" WHERE "organization_id" = ?1 AND "date" = ?3 AND "id" <= ?4) AS n`,
    ),
  );

/** JE-2026-00042 for the 42nd entry of 2026 (five digits at least, as posted numbers always were). */
export const formatEntryNumber = (date: string, position: number) => `JE-${date.slice(0, 4)}-${String(position).padStart(5, "0")}`;

/** The entry's position in its year in date order (see above). */
export function entryPosition(tx: Tx, entry: Pick<EntryRow, "organizationId" | "date" | "id">): number {
  return positionInYear(tx).get(entry.organizationId, `${entry.date.slice(0, 4)}-01-01`, entry.date, entry.id)!.n;
}

/** The number of each entry, by id (two index reads per entry). */
export function entryNumbers(tx: Tx, entries: Pick<EntryRow, "organizationId" | "date" | "id">[]): Map<string, string> {
  return new Map(entries.map((e) => [e.id, formatEntryNumber(e.date, entryPosition(tx, e))]));
}

/** One entry's number. */
export const entryNumber = (tx: Tx, entry: Pick<EntryRow, "organizationId" | "date" | "id">): string => formatEntryNumber(entry.date, entryPosition(tx, entry));
