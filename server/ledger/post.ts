/**
 * The one function that writes to the journal (`postEntry`), and the one that cancels entries out
 * (`reverseEntry`), applied by `recordChange` (server/changes/record.ts) from a change's ledger
 * effects: only server/changes/ and the ledger's own data migration (backfill.ts) import this
 * file (.dependency-cruiser.cjs). Amounts are signed integer cents: positive debits, negative credits.
 *
 * The database holds the rules as well as this code (the ledger's migration triggers, and the fiscal years' ones): the lines go in
 * first and the header last, and the header's INSERT triggers refuse lines that do not balance, a
 * closed fiscal year or a date before the first one, or lines of another organisation, date or
 * currency; a line added to an existing entry, any UPDATE and any DELETE are refused; the same triggers keep the running balances
 * (account_days, account_totals, vat_days) that reports read.
 */
import { and, asc, eq } from "drizzle-orm";
import { firstRow, type Tx, preparedSql } from "../../db/client.ts";
import { journalEntries, journalLines } from "../../db/schema.ts";
import { Conflict } from "../lib/errors.ts";
import { drawSequence } from "../lib/sequences.ts";
import { newId, nowIso } from "../lib/time.ts";
import type { DraftLine, EntryDraft, LedgerEffect } from "./draft.ts";
import { standingEntries } from "./entries.ts";
import type { JournalSource } from "./model.ts";

type EntryRow = typeof journalEntries.$inferSelect;
type LineRow = typeof journalLines.$inferSelect;

/**
 * 409 when `date` falls in a closed fiscal year of the organisation (by the dates it was closed
 * with: a year from 1 July to 30 June locks those days), or before its first fiscal year.
 */
export async function assertYearOpen(tx: Tx, orgId: string, date: string, what = "This change"): Promise<void> {
  const found = (await preparedSql<{ year: number | null; firstStart: string | null }, [string, string]>(
    tx,
    "ledger: closed year",
    `SELECT (SELECT "year" FROM "fiscal_years" WHERE "organization_id" = ?1 AND "status" = 'closed' AND "start_date" <= ?2 AND "end_date" >= ?2) AS "year",
        (SELECT "first_fiscal_year_start" FROM "organizations" WHERE "id" = ?1 AND "first_fiscal_year_start" > ?2) AS "firstStart"`,
  ).get(orgId, date))!;
  const change = `${what.charAt(0).toLowerCase()}${what.slice(1)}`;
  if (found.year !== null) throw new Conflict(`The fiscal year ${found.year} is closed; ${change} would post into it (${date}). Reopen the year first.`);
  if (found.firstStart !== null) {
    throw new Conflict(`The organisation's first fiscal year starts on ${found.firstStart}; ${change} would post before it (${date}).`);
  }
}

/**
 * The two inserts of a posting as statements of the connection: an entry's lines and its header
 * are written on every change that posts (and a million times by a backfill), where building
 * drizzle's insert each time would cost more than running it.
 */
const LINE_COLUMNS = [
  "id", "organization_id", "entry_id", "line_no", "account_id", "date", "currency", "debit_cents", "credit_cents", "description",
  "vat_side", "vat_role", "vat_category", "vat_rate_bp", "vat_note",
] as const;
const ENTRY_COLUMNS = [
  "id", "organization_id", "number", "date", "description", "currency", "source_type", "source_id", "reverses_entry_id", "is_closing", "created_at",
] as const;
const insertInto = (table: string, columns: readonly string[]) =>
  `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`;
const insertLine = (tx: Tx) => preparedSql<never, unknown[]>(tx, "ledger: insert line", insertInto("journal_lines", LINE_COLUMNS));
const insertEntry = (tx: Tx) => preparedSql<never, unknown[]>(tx, "ledger: insert entry", insertInto("journal_entries", ENTRY_COLUMNS));

/**
 * Writes a balanced entry and returns its id; null when every line is zero (a document of 0.00
 * posts nothing). Lines of the same account and VAT tag are not merged: each says what it is.
 */
export async function postEntry(tx: Tx, orgId: string, draft: EntryDraft): Promise<string | null> {
  const lines = draft.lines.filter((l) => l.cents !== 0);
  if (lines.length === 0) return null;
  const sum = lines.reduce((s, l) => s + l.cents, 0);
  // the code computes balanced entries; the trigger is the backstop, this names the bug
  if (sum !== 0 || lines.length < 2) throw new Error(`unbalanced journal entry (${draft.source.type} ${draft.source.id}): off by ${sum} cents`);
  // closing entries (and their reversal on reopening) are the one posting a closed year takes
  if (!draft.isClosing) await assertYearOpen(tx, orgId, draft.date, draft.source.type === "manual" ? "This entry" : "This change");
  const year = Number(draft.date.slice(0, 4));
  // the posting sequence, kept unique and never shown: the number a client sees is the entry's
  // position in its year in date order, derived when read (entries.ts entryNumbers)
  const number = `JE-${year}-${String(await drawSequence(tx, orgId, "journal", year)).padStart(5, "0")}`;
  const id = draft.id ?? newId();
  const line = insertLine(tx);
  for (const [i, l] of lines.entries()) {
    const vat = l.vat;
    await line.run(
      newId(), orgId, id, i + 1, l.accountId, draft.date, draft.currency, l.cents > 0 ? l.cents : 0, l.cents < 0 ? -l.cents : 0, l.description ?? null,
      vat?.side ?? null, vat?.role ?? null, vat?.category ?? null, vat?.rateBp ?? null, vat?.note ? 1 : 0,
    );
  }
  await insertEntry(tx).run(
    id, orgId, number, draft.date, draft.description, draft.currency, draft.source.type, draft.source.id,
    draft.reversesEntryId ?? null, draft.isClosing ? 1 : 0, nowIso(),
  );
  return id;
}

/** An entry's lines in order. */
export async function linesOf(tx: Tx, entryId: string): Promise<LineRow[]> {
  return await tx.select().from(journalLines).where(eq(journalLines.entryId, entryId)).orderBy(asc(journalLines.lineNo));
}

const asDraftLine = (l: LineRow): DraftLine => ({
  accountId: l.accountId,
  cents: l.debitCents - l.creditCents,
  description: l.description,
  vat: l.vatSide ? { side: l.vatSide, role: l.vatRole!, category: l.vatCategory!, rateBp: l.vatRateBp!, note: l.vatNote } : undefined,
});

/** Posts the mirror image of `entry` (every debit a credit), dated `date` (default: the entry's own). */
export async function reverseEntry(tx: Tx, entry: EntryRow, { date = entry.date, description, id }: { date?: string; description?: string; id?: string } = {}): Promise<string> {
  const reversal = await postEntry(tx, entry.organizationId, {
    id,
    date,
    // by date, not number: a number in an open year moves when an earlier-dated entry is posted (entries.ts)
    description: description ?? `Reversal of the entry of ${entry.date}: ${entry.description}`,
    currency: entry.currency,
    source: { type: entry.sourceType, id: entry.sourceId },
    isClosing: entry.isClosing,
    reversesEntryId: entry.id,
    lines: (await linesOf(tx, entry.id)).map((l) => {
      const line = asDraftLine(l);
      return { ...line, cents: -line.cents };
    }),
  });
  return reversal!;
}

/** Reverses every standing entry of a source (see standingEntries); returns the reversals' ids. */
export async function reverseSource(tx: Tx, orgId: string, sourceType: JournalSource, sourceId: string): Promise<string[]> {
  const reversals: string[] = [];
  for (const entry of await standingEntries(tx, orgId, sourceType, sourceId)) reversals.push(await reverseEntry(tx, entry));
  return reversals;
}


/** Applies a change's ledger effects in order; returns the ids of the entries written. */
export async function applyLedgerEffects(tx: Tx, orgId: string, effects: LedgerEffect[]): Promise<string[]> {
  const ids: string[] = [];
  for (const effect of effects) {
    if ("post" in effect) {
      const id = await postEntry(tx, orgId, effect.post);
      if (id) ids.push(id);
    } else if ("reverse" in effect) ids.push(...await reverseSource(tx, orgId, effect.reverse.type, effect.reverse.id));
    else ids.push(await reverseEntry(tx, await findEntry(tx, orgId, effect.reverseEntry.entryId), effect.reverseEntry));
  }
  return ids;
}

async function findEntry(tx: Tx, orgId: string, id: string): Promise<EntryRow> {
  const entry = await firstRow(tx.select().from(journalEntries).where(and(eq(journalEntries.organizationId, orgId), eq(journalEntries.id, id))));
  if (!entry) throw new Error(`no journal entry ${id} in the organisation to reverse`);
  return entry;
}
