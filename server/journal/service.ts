/**
 * The journal over the API: entries read, entries posted by hand, entries reversed. Posted entries
 * are never edited or deleted (the database refuses it too): a correction is a reversing entry.
 */
import { and, asc, desc, eq, gte, inArray, lte, sql } from "drizzle-orm";
import { t } from "elysia";
import type { Tx } from "../../db/client.ts";
import { accounts, journalEntries, journalLines } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { Conflict, FieldErrorBag, ValidationFailed } from "../lib/errors.ts";
import { checkCursor, encodeCursor, linksAndMeta, listPage, openedCursor, parseListRequest, rowsBefore, sealContext, type ListQuery, type ListSpec } from "../lib/list.ts";
import { sealCursor } from "../lib/cursor-seal.ts";
import { formatCents, MAX_CENTS, readMoney } from "../lib/money.ts";
import { isCurrencyCode } from "../lib/iso-codes.ts";
import { DateString, Uuid } from "../lib/schemas.ts";
import { findInOrg, inOrg, snapshot, unitOfWork, type Scope } from "../lib/scope.ts";
import { JOURNAL_SOURCES, type JournalEntryCreate, type JournalEntryReverse, type JournalSource } from "../ledger/model.ts";
import type { DraftLine } from "../ledger/draft.ts";
import { entryNumber, entryNumbers } from "../ledger/entries.ts";
import { newId } from "../lib/time.ts";
import { firstRow } from "../../db/client.ts";

type EntryRow = typeof journalEntries.$inferSelect;

/** Entries as the API shows them, with their lines and what reversed them (two queries for a page). */
export async function presentEntries(tx: Tx, rows: EntryRow[]) {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const lines = Map.groupBy(
    await tx.select().from(journalLines).where(inArray(journalLines.entryId, ids)).orderBy(asc(journalLines.entryId), asc(journalLines.lineNo)),
    (l) => l.entryId,
  );
  // derived, in date order per year (ledger/entries.ts): journal_entries.number is the posting sequence
  const numbers = await entryNumbers(tx, rows);
  const reversedBy = new Map(
    (await tx
      .select({ id: journalEntries.id, reverses: journalEntries.reversesEntryId })
      .from(journalEntries)
      .where(inArray(journalEntries.reversesEntryId, ids)))
      .map((r) => [r.reverses!, r.id]),
  );
  return rows.map((row) => ({
    id: row.id,
    date: row.date,
    number: numbers.get(row.id)!,
    description: row.description,
    currency: row.currency,
    source_type: row.sourceType,
    source_id: row.sourceId,
    reverses_entry_id: row.reversesEntryId,
    reversed_by_entry_id: reversedBy.get(row.id) ?? null,
    lines: (lines.get(row.id) ?? []).map((l) => ({
      account_id: l.accountId,
      debit: formatCents(l.debitCents),
      credit: formatCents(l.creditCents),
      description: l.description,
    })),
    created_at: row.createdAt,
  }));
}

export async function showEntry(tx: Tx, orgId: string, id: string) {
  return (await presentEntries(tx, [await findInOrg(tx, journalEntries, orgId, id)]))[0]!;
}

export const journalList: ListSpec<typeof journalEntries> = {
  table: journalEntries,
  // numbers follow the dates (ties by id, as the list breaks them): sorting by number is sorting by date
  sorts: { date: journalEntries.date, number: journalEntries.date, created_at: journalEntries.createdAt },
  defaultSort: "-date",
  filters: {
    date_from: { column: journalEntries.date, op: "gte", schema: t.String({ ...DateString, description: "On or after this date" }) },
    date_to: { column: journalEntries.date, op: "lte", schema: t.String({ ...DateString, description: "On or before this date" }) },
    // answered by accountJournal, from the account's lines; here for the schema and its validation
    account_id: {
      schema: t.String({ ...Uuid, description: "Entries with a line on this account (with the date filters only; sorted by date)" }),
      where: () => undefined,
    },
    source_type: { column: journalEntries.sourceType, schema: t.UnionEnum([...JOURNAL_SOURCES]) },
    source_id: { column: journalEntries.sourceId, schema: t.String({ maxLength: 64, description: "The invoice, payment, expense, expense payment or year posted" }) },
  },
  // entries never change: their creation is their last change
  updatedAt: journalEntries.createdAt,
};

/** Where an automatic entry is corrected instead: the operation that reverses it. */
const CORRECTED_BY: Record<JournalSource, string> = {
  invoice: "cancel the invoice, or credit it with a credit note",
  payment: "delete the payment (DELETE /api/v1/invoices/{id}/payments/{pid})",
  expense: "record what changed as a manual entry",
  expense_payment: "delete the payment (DELETE /api/v1/expenses/{id}/payments/{pid})",
  fiscal_year: "reopen the year (POST /api/v1/fiscal-years/{year}/reopen)",
  bank_statement: "record the difference to the bank's opening balance as a manual entry against the opening balances account",
  bank_transaction: "unbook the line (POST /api/v1/bank-transactions/{id}/unbook)",
  manual: "reverse it",
};

/**
 * The journal of one account (`filter[account_id]`), read from the account's lines in date order
 * (journal_lines_org_account), not by testing every entry: an account with few postings would
 * otherwise cost a walk through the whole journal (seconds at a million invoices, for a page
 * with nothing on it). An entry with several lines on the account is one row. It combines with
 * the date filters and sorts by date only; its count is remembered until anything commits.
 */
async function accountJournal(scope: Scope, query: ListQuery, url: string) {
  const context = sealContext("journal_lines", scope.org.id);
  const request = parseListRequest(journalList, await snapshot(scope.db, (tx) => openedCursor(tx, query, context)));
  const other = Object.keys(request.filters).filter((f) => !["account_id", "date_from", "date_to"].includes(f));
  if (request.updatedSince !== null) other.push("updated_since");
  if (other.length > 0) throw ValidationFailed.field(`filter.${other[0]}`, "filter[account_id] combines with filter[date_from] and filter[date_to] only.");
  if (request.sort !== "date" && request.sort !== "-date") throw ValidationFailed.field("sort", "filter[account_id] sorts by date only (date or -date).");
  const newestFirst = request.sort === "-date";
  const { account_id: accountId, date_from: from, date_to: to } = request.filters;
  // a cursor of this list is tied to the account's journal of this organisation
  const cursorScope = `journal_lines\u0000${scope.org.id}\u0000${accountId}`;
  checkCursor(request, cursorScope);
  const { after, perPage } = request;
  return await snapshot(scope.db, async (tx) => {
    const lines = and(
      eq(journalLines.organizationId, scope.org.id),
      eq(journalLines.accountId, accountId!),
      from ? gte(journalLines.date, from) : undefined,
      to ? lte(journalLines.date, to) : undefined,
    );
    const entries = tx.selectDistinct({ date: journalLines.date, entryId: journalLines.entryId }).from(journalLines).where(lines);
    const memory = tx.connection.memory.refresh();
    const total = await memory.rememberAsync(`journal of account\u0000${scope.org.id}\u0000${accountId}\u0000${from ?? ""}\u0000${to ?? ""}`, async () =>
      (await firstRow(tx.select({ n: sql<number>`count(*)` }).from(entries.as("entries"))))!.n,
    );
    const order = newestFirst ? [desc(journalLines.date), desc(journalLines.entryId)] : [asc(journalLines.date), asc(journalLines.entryId)];
    // under a cursor: the entries past its key (date, entry id), one more to know whether a page follows
    const page = after
      ? (await tx
          .selectDistinct({ date: journalLines.date, entryId: journalLines.entryId })
          .from(journalLines)
          .where(and(lines, sql`(${journalLines.date}, ${journalLines.entryId}) ${sql.raw(newestFirst ? "<" : ">")} (${after.sort}, ${after.id})`))
          .orderBy(...order)
          .limit(perPage + 1))
      : (await entries
          .orderBy(...order)
          .limit(perPage)
          .offset((request.page - 1) * perPage));
    const more = after ? page.length > perPage : page.length === perPage && request.page * perPage < total;
    if (page.length > perPage) page.pop();
    const ids = page.map((r) => r.entryId);
    const byId = new Map((await tx.select().from(journalEntries).where(inArray(journalEntries.id, ids))).map((e) => [e.id, e]));
    const rows = ids.map((id) => byId.get(id)!);
    const last = page[page.length - 1];
    const next = more && last ? await sealCursor(tx, encodeCursor(request, cursorScope, [last.date, last.entryId], rowsBefore(request) + rows.length), context) : null;
    return { data: await presentEntries(tx, rows), ...linksAndMeta(request, rows.length, total, url, next) };
  });
}

export const journalService = {
  async list(scope: Scope, query: ListQuery, url: string) {
    if (query["filter[account_id]"] !== undefined && query["filter[account_id]"] !== "") return accountJournal(scope, query, url);
    return await listPage(scope, journalList, query, url, async (rows, tx) => await presentEntries(tx, rows));
  },

  get(scope: Scope, id: string) {
    return snapshot(scope.db, (tx) => showEntry(tx, scope.org.id, id));
  },

  /** A manual entry: at least two lines, each a debit or a credit on an active account of the organisation, balanced. */
  async create(scope: Scope, input: JournalEntryCreate) {
    return await unitOfWork(scope.db, async (tx) => {
      const bag = new FieldErrorBag();
      const currency = input.currency ?? scope.org.currency;
      if (!isCurrencyCode(currency)) bag.add("currency", "The currency must be an ISO 4217 code (e.g. EUR).");
      const description = input.description.trim();
      if (description === "") bag.add("description", "The description field must not be empty.");
      const ids = [...new Set(input.lines.map((l) => l.account_id))];
      const known = new Map(
        (await tx.select().from(accounts).where(inOrg(accounts, scope.org.id, inArray(accounts.id, ids)))).map((a) => [a.id, a]),
      );
      const lines: DraftLine[] = [];
      input.lines.forEach((line, i) => {
        const account = known.get(line.account_id);
        if (!account) bag.add(`lines.${i}.account_id`, "The selected account_id is invalid.");
        else if (!account.isActive) bag.add(`lines.${i}.account_id`, `The account ${account.code} ${account.name} is not active.`);
        const debit = line.debit === undefined ? 0 : readMoney(bag, `lines.${i}.debit`, line.debit);
        const credit = line.credit === undefined ? 0 : readMoney(bag, `lines.${i}.credit`, line.credit);
        if (debit === null || credit === null) return;
        if ((debit === 0) === (credit === 0)) {
          bag.add(`lines.${i}`, "Each line has a debit or a credit greater than 0.00, not both.");
          return;
        }
        lines.push({ accountId: line.account_id, cents: debit - credit, description: line.description?.trim() || null });
      });
      if (bag.empty) {
        // exact in integers: 500 lines of the largest amount would pass 2^53 as a float sum
        const debits = lines.reduce((s, l) => s + BigInt(Math.max(l.cents, 0)), 0n);
        const credits = lines.reduce((s, l) => s - BigInt(Math.min(l.cents, 0)), 0n);
        if (debits > BigInt(MAX_CENTS)) bag.add("lines", `The entry's debits must not be greater than ${formatCents(MAX_CENTS)} in all.`);
        else if (debits !== credits) bag.add("lines", `The entry does not balance: debits ${formatCents(Number(debits))}, credits ${formatCents(Number(credits))}.`);
      }
      bag.throwIfAny();
      const id = newId();
      await recordChange(tx, scope, {
        action: "journal_entry.created",
        resource: { type: "journal_entry", id },
        ledger: [{ post: { id, date: input.date, description, currency, source: { type: "manual", id: null }, lines } }],
      });
      return showEntry(tx, scope.org.id, id);
    });
  },

  /** The mirror image of a manual entry, dated as asked (default: the entry's own date). */
  async reverse(scope: Scope, id: string, input: JournalEntryReverse | null | undefined) {
    return await unitOfWork(scope.db, async (tx) => {
      const entry = await findInOrg(tx, journalEntries, scope.org.id, id);
      if (entry.sourceType !== "manual") {
        throw new Conflict(`The entry ${await entryNumber(tx, entry)} was posted by ${entry.sourceType.replace("_", " ")} ${entry.sourceId}; to correct it, ${CORRECTED_BY[entry.sourceType]}.`);
      }
      const reversal = await firstRow(tx.select().from(journalEntries).where(and(eq(journalEntries.reversesEntryId, entry.id))));
      if (reversal) throw new Conflict(`The entry ${await entryNumber(tx, entry)} is reversed already, by ${await entryNumber(tx, reversal)}.`);
      const reversalId = newId();
      await recordChange(tx, scope, {
        action: "journal_entry.reversed",
        resource: { type: "journal_entry", id: entry.id },
        ledger: [{ reverseEntry: { entryId: entry.id, date: input?.date ?? entry.date, id: reversalId } }],
      });
      return showEntry(tx, scope.org.id, reversalId);
    });
  },
};
