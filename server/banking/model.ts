/** Bank statements and their transactions (issue 20): imported from CAMT.053 or CODA, reconciled with invoices and expenses. */
import { t } from "elysia";
import { DateString, Money, moneyInput, Nullable, strictObject, Text, Timestamp, Uuid } from "../lib/schemas.ts";

import { BANK_STATEMENT_FORMATS, BANK_TRANSACTION_DIRECTIONS, BANK_TRANSACTION_STATUSES } from "../../db/values.ts";
export { BANK_STATEMENT_FORMATS, BANK_TRANSACTION_DIRECTIONS, BANK_TRANSACTION_STATUSES, PAYMENT_LINKS } from "../../db/values.ts";


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
    invoice_id: Nullable(t.String({ ...Uuid, description: "Matched invoice or credit note" })),
    expense_id: Nullable(t.String({ ...Uuid, description: "Matched expense" })),
    payment_id: Nullable(t.String({ ...Uuid, description: "The invoice's or expense's payment that records this money" })),
    matched_amount: Nullable(t.String({ ...Money, description: "The part of the line the payment records" })),
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
  /** What became of each statement of an uploaded file (issue 27: files with several statements, ZIP archives). */
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
      amount: t.Optional(moneyInput({ positive: true, description: "Default: the line's amount, or the amount due when that is less" })),
    },
    { title: "BankTransactionMatch", description: "Exactly one of invoice_id and expense_id" },
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
