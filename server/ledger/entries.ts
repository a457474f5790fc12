/** Reading the journal's entries (what a change posted, and still stands). */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
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
