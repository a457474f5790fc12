/** The journal and the running totals its triggers keep (server/ledger; written by recordChange through server/ledger/post.ts). */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { JOURNAL_SOURCES, VAT_CATEGORIES, VAT_ROLES, VAT_SIDES } from "../values.ts";
import { bool, createdAt, id } from "./columns.ts";
import { orgId } from "./orgs.ts";
import { accounts } from "./accounts.ts";

/**
 * The ledger (server/ledger). An entry's lines are written first and its header last: the
 * header's INSERT trigger refuses an entry whose lines do not balance, and a line whose entry
 * already exists (migration 0017). The foreign key from a line to its entry is deferred, so a
 * line without a header cannot be committed either. Nothing here is updated or deleted.
 */
export const journalEntries = sqliteTable(
  "journal_entries",
  {
    id: id(),
    organizationId: orgId(),
    /** JE-2026-00001: per organisation and year */
    number: text("number").notNull(),
    date: text("date").notNull(),
    description: text("description").notNull(),
    currency: text("currency").notNull(),
    sourceType: text("source_type", { enum: JOURNAL_SOURCES }).notNull(),
    /** the invoice, payment, expense, expense payment or fiscal year (the year) it posts; null for manual entries */
    sourceId: text("source_id"),
    /** set on a reversing entry: the entry it cancels out */
    reversesEntryId: text("reverses_entry_id"),
    /** a year-end closing entry: left out of the profit and loss of its year */
    isClosing: bool("is_closing").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("journal_entries_org_number").on(t.organizationId, t.number),
    index("journal_entries_org_date").on(t.organizationId, t.date, t.id),
    index("journal_entries_org_source").on(t.organizationId, t.sourceType, t.sourceId, t.date, t.id),
    // an entry is reversed at most once
    uniqueIndex("journal_entries_reverses").on(t.reversesEntryId).where(sql`${t.reversesEntryId} IS NOT NULL`),
  ],
);

/**
 * How many journal entries each day holds (kept by a trigger, migration 0026): an entry's number
 * is its position in its year in date order (server/ledger/entries.ts), counted from these days
 * and the entries of its own day, so a page of the journal is numbered without a walk of its year.
 */
export const journalDayCounts = sqliteTable(
  "journal_day_counts",
  {
    organizationId: orgId(),
    date: text("date").notNull(),
    entries: integer("entries").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.date] })],
);

export const journalLines = sqliteTable(
  "journal_lines",
  {
    id: id(),
    organizationId: orgId(),
    // deferred in the migration's SQL (drizzle cannot say DEFERRABLE): the lines come first
    entryId: text("entry_id").notNull(),
    lineNo: integer("line_no").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** the entry's date and currency, copied so that an account's lines are read by one index */
    date: text("date").notNull(),
    currency: text("currency").notNull(),
    debitCents: integer("debit_cents").notNull(),
    creditCents: integer("credit_cents").notNull(),
    description: text("description"),
    /** what the VAT report counts the line as: sales or purchases, the base or the VAT of a (category, rate) */
    vatSide: text("vat_side", { enum: VAT_SIDES }),
    vatRole: text("vat_role", { enum: VAT_ROLES }),
    vatCategory: text("vat_category", { enum: VAT_CATEGORIES }),
    vatRateBp: integer("vat_rate_bp"),
    /** the line belongs to a credit note's posting (the Belgian return reports those apart) */
    vatNote: bool("vat_note").notNull().default(false),
  },
  (t) => [
    index("journal_lines_entry").on(t.entryId, t.lineNo),
    index("journal_lines_org_account").on(t.organizationId, t.accountId, t.date, t.entryId),
  ],
);

/**
 * Running balances, kept by the journal's triggers: debits and credits per account, currency and
 * day (closing entries apart), so that a report sums days, not postings.
 */
export const accountDays = sqliteTable(
  "account_days",
  {
    organizationId: orgId(),
    accountId: text("account_id").notNull(),
    currency: text("currency").notNull(),
    date: text("date").notNull(),
    isClosing: bool("is_closing").notNull(),
    debitCents: integer("debit_cents").notNull(),
    creditCents: integer("credit_cents").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.accountId, t.currency, t.date, t.isClosing] }),
    index("account_days_org_date").on(t.organizationId, t.currency, t.date, t.accountId, t.isClosing, t.debitCents, t.creditCents),
  ],
);

/** Each account's balance to date per currency (the `balance` of accounts and bank accounts). */
export const accountTotals = sqliteTable(
  "account_totals",
  {
    organizationId: orgId(),
    accountId: text("account_id").notNull(),
    currency: text("currency").notNull(),
    debitCents: integer("debit_cents").notNull(),
    creditCents: integer("credit_cents").notNull(),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.currency] })],
);

/** The VAT report's running totals: base and VAT per day, side, category and rate. */
export const vatDays = sqliteTable(
  "vat_days",
  {
    organizationId: orgId(),
    currency: text("currency").notNull(),
    date: text("date").notNull(),
    side: text("side", { enum: VAT_SIDES }).notNull(),
    category: text("category", { enum: VAT_CATEGORIES }).notNull(),
    rateBp: integer("rate_bp").notNull(),
    /** base and VAT, positive for sales and purchases, negative for credit notes */
    baseCents: integer("base_cents").notNull(),
    vatCents: integer("vat_cents").notNull(),
    /** the part of the above that comes from credit notes (the Belgian return reports them apart) */
    creditBaseCents: integer("credit_base_cents").notNull(),
    creditVatCents: integer("credit_vat_cents").notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.currency, t.date, t.side, t.category, t.rateBp] })],
);
