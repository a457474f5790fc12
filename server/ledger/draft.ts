/** What a change asks of the ledger: entries to post (drafts of balanced lines), or to reverse. */
import type { VatCategory } from "../../db/values.ts";
import type { JournalSource, VatRole, VatSide } from "./model.ts";

/** How the VAT report counts a line: the base or the VAT of sales or purchases at a (category, rate). */
export type VatTag = { side: VatSide; role: VatRole; category: VatCategory; rateBp: number; note: boolean };

export type DraftLine = {
  accountId: string;
  /** positive: a debit; negative: a credit */
  cents: number;
  description?: string | null;
  vat?: VatTag;
};

export type EntryDraft = {
  date: string;
  description: string;
  currency: string;
  source: { type: JournalSource; id: string | null };
  lines: DraftLine[];
  isClosing?: boolean;
  /** the entry's id when its caller names it beforehand (a manual entry: the audit entry names it); else a new one */
  id?: string;
  reversesEntryId?: string | null;
};

/**
 * What a change does to the ledger (`recordChange`'s `ledger`): post a draft, reverse what a
 * source posted, or reverse one entry (a manual one, on `date`, the reversal with the id `id`).
 */
export type LedgerEffect =
  | { post: EntryDraft }
  | { reverse: { type: JournalSource; id: string } }
  | { reverseEntry: { entryId: string; date?: string; id?: string } };
