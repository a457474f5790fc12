/** Bank statements and their transactions (docs/banking.md#bank-statements-and-reconciliation): imported from CAMT.053 or CODA, reconciled with invoices and expenses. */
import { t } from "elysia";
import { DateString, Money, moneyInput, Nullable, strictObject, Text, Timestamp, Uuid } from "../lib/schemas.ts";

import { BANK_STATEMENT_FORMATS, BANK_TRANSACTION_DIRECTIONS, BANK_TRANSACTION_STATUSES } from "../../db/values.ts";
export { BANK_STATEMENT_FORMATS, BANK_TRANSACTION_DIRECTIONS, BANK_TRANSACTION_STATUSES, PAYMENT_LINKS } from "../../db/values.ts";


const allocation = t.Object(
  {
    id: Uuid,
    invoice_id: Nullable(t.String({ ...Uuid, description: "The invoice, interest note or credit note it pays" })),
    expense_id: Nullable(t.String({ ...Uuid, description: "The expense (or supplier's credit note) it pays" })),
    account_id: Nullable(t.String({ ...Uuid, description: "The account of the chart it is booked to" })),
    vat_rate_id: Nullable(t.String({ ...Uuid, description: "An account's allocation: the VAT rate its amount was split with" })),
    amount: Money,
    payment_id: Nullable(t.String({ ...Uuid, description: "A document's allocation: the payment that records the money (recorded by it, or recorded by hand before and taken over)" })),
    journal_entry_id: Nullable(
      t.String({ ...Uuid, description: "An account's allocation: its entry; a payment recorded by hand and taken over: the entry that moved the money out of suspense" }),
    ),
    created_at: Timestamp,
  },
  { title: "BankTransactionAllocation" },
);

const allocationInput = strictObject(
  {
    invoice_id: t.Optional(t.String({ ...Uuid, description: "An invoice or interest note (money in) or a credit note (money out) awaiting payment, in the bank account's currency" })),
    expense_id: t.Optional(t.String({ ...Uuid, description: "An approved expense (money out) or supplier's credit note (money in), in the bank account's currency" })),
    account_id: t.Optional(
      t.String({ ...Uuid, description: "An active account of the chart (a fee, interest, a private withdrawal); not receivables, payables, suspense or a bank account's" }),
    ),
    amount: moneyInput({ positive: true, description: "Positive; at most the document's amount due; all allocations together at most what the line has unallocated" }),
    vat_rate_id: t.Optional(Nullable(t.String({ ...Uuid, description: "With account_id only: splits the amount (VAT included) into net and VAT, as booking does" }))),
    description: t.Optional(Nullable(Text({ maxLength: 1000, description: "With account_id only: the entry's description" }))),
  },
  { title: "BankTransactionAllocationInput", description: "Exactly one of invoice_id, expense_id and account_id" },
);

const allocations = t.Array(allocationInput, { minItems: 1, maxItems: 100 });

const transaction = t.Object(
  {
    id: Uuid,
    bank_account_id: Uuid,
    statement_id: t.String({ ...Uuid, description: "The imported statement (bank_statements) the line came in" }),
    entry_ref: t.String({ description: "The bank's reference of the line, unique per bank account (a hash of the line when the bank gave none)" }),
    booking_date: DateString,
    value_date: DateString,
    amount: t.String({ ...Money, description: "Always positive; direction gives the sign" }),
    direction: t.UnionEnum([...BANK_TRANSACTION_DIRECTIONS], { description: "credit: money in; debit: money out" }),
    counterparty_name: Nullable(t.String()),
    counterparty_iban: Nullable(t.String()),
    communication: Nullable(t.String({ description: "Free-text remittance information" })),
    structured_reference: Nullable(t.String({ description: "Structured reference: +++ddd/dddd/ddddd+++ or RF…" })),
    status: t.UnionEnum([...BANK_TRANSACTION_STATUSES]),
    invoice_id: Nullable(t.String({ ...Uuid, description: "The first allocation's invoice, credit note or interest note (kept for compatibility: see allocations)" })),
    expense_id: Nullable(t.String({ ...Uuid, description: "The first allocation's expense (kept for compatibility: see allocations)" })),
    payment_id: Nullable(t.String({ ...Uuid, description: "The first allocation's payment, the one that records this money (kept for compatibility: see allocations)" })),
    matched_amount: Nullable(t.String({ ...Money, description: "The first allocation's amount (kept for compatibility: see allocations)" })),
    allocations: t.Array(allocation, { description: "What the line pays, in the order allocated: documents (with their payments) and accounts (with their entries)" }),
    unallocated_amount: t.String({
      ...Money,
      description: "What of the line waits in the suspense account: all of it while unmatched or ignored, the rest while partially_matched, 0.00 when matched or booked",
    }),
    booked_account_id: Nullable(t.String({ ...Uuid, description: "booked: the account of the chart the line was booked to (another own bank account's: a transfer)" })),
    vat_rate_id: Nullable(t.String({ ...Uuid, description: "booked: the VAT rate the booking split the line's amount with" })),
    journal_entry_id: Nullable(t.String({ ...Uuid, description: "booked: the journal entry that posts the line (a transfer's two lines hold the same one)" })),
    transfer_transaction_id: Nullable(
      t.String({ ...Uuid, description: "A transfer between own bank accounts: the other account's line of the same money, once imported" }),
    ),
    suggested_expense_id: Nullable(
      t.String({ ...Uuid, description: "A debit line's likely approved expense (same amount due, the supplier's IBAN or reference); never applied by itself" }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: "BankTransaction" },
);

export const BankingModel = {
  transaction,
  statement: t.Object(
    {
      id: Uuid,
      bank_account_id: Uuid,
      statement_id: t.String({ description: "The bank's id of the statement (CAMT Stmt/Id; CODA <year>-<sequence>)" }),
      format: t.UnionEnum([...BANK_STATEMENT_FORMATS]),
      currency: t.String(),
      opening_balance: t.String({ ...Money, description: "Signed: negative when overdrawn" }),
      opening_date: DateString,
      closing_balance: Money,
      closing_date: DateString,
      transactions_imported: t.Integer({ description: "Lines added by this import (0 when the statement was imported before)" }),
      transactions_matched: t.Integer({ description: "Lines of the statement matched on import" }),
      transactions: t.Array(transaction, { description: "The statement's lines, in booking order" }),
      created_at: Timestamp,
    },
    { title: "BankStatement" },
  ),
  /** What became of each statement of an uploaded file (a file may hold several statements, or be a ZIP archive of them). */
  statementImport: t.Object(
    {
      file: Nullable(t.String({ description: "The ZIP archive's member the statement came from; null for a plain file" })),
      statement_id: t.String({ description: "The bank's id of the statement (CAMT Stmt/Id; CODA <year>-<sequence>)" }),
      iban: t.String({ description: "The account the statement is of" }),
      currency: t.String(),
      opening_balance: t.String({ ...Money, description: "Signed: negative when overdrawn" }),
      opening_date: DateString,
      closing_balance: Money,
      closing_date: DateString,
      result: t.UnionEnum(["imported", "already_imported", "skipped"], {
        description: "imported: stored now; already_imported: the same statement was imported before (nothing added); skipped: not imported, see reason",
      }),
      reason: Nullable(t.String({ description: "Why a statement was skipped (an account the organisation does not hold, an inactive bank account)" })),
      bank_account_id: Nullable(t.String({ ...Uuid, description: "The organisation's bank account with the statement's IBAN" })),
      id: Nullable(t.String({ ...Uuid, description: "The stored statement (imported now or before)" })),
      transactions_imported: t.Integer({ description: "Lines added by this import" }),
    },
    { title: "BankStatementImport" },
  ),
  match: strictObject(
    {
      invoice_id: t.Optional(t.String({ ...Uuid, description: "An invoice (credit line) or credit note (debit line) awaiting payment" })),
      expense_id: t.Optional(t.String({ ...Uuid, description: "An approved expense (debit line; a supplier's credit note: credit line)" })),
      amount: t.Optional(moneyInput({ positive: true, description: "Default: what the line has unallocated, or the amount due when that is less" })),
      allocations: t.Optional(allocations),
    },
    {
      title: "BankTransactionMatch",
      description:
        "Either exactly one of invoice_id and expense_id (with an optional amount), or `allocations`: several documents and accounts at once. " +
        "What is not allocated stays in suspense (status partially_matched)",
    },
  ),
  reclassify: strictObject(
    { allocations },
    {
      title: "BankTransactionReclassify",
      description: "Replaces whatever holds the line (its allocations, its booking, an ignore) by these allocations, in one transaction",
    },
  ),
  book: strictObject(
    {
      account_id: t.String({ ...Uuid, description: "An active account of the chart: an expense or revenue account (fees, interest), or another own bank account's ledger account (a transfer). Not receivables or payables: match the document instead" }),
      vat_rate_id: t.Optional(Nullable(t.String({ ...Uuid, description: "Splits the line's amount (VAT included) into net and VAT: input VAT for money out, output VAT for money in. None on a transfer" }))),
      description: t.Optional(Nullable(Text({ maxLength: 1000, description: "The entry's description; default: the line's communication or counterparty" }))),
    },
    { title: "BankTransactionBook" },
  ),
} as const;

export type BankTransactionBook = typeof BankingModel.book.static;
export type BankTransactionMatch = typeof BankingModel.match.static;
export type BankTransactionReclassify = typeof BankingModel.reclassify.static;
export type AllocationInput = typeof allocationInput.static;
