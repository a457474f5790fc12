/** The bank lines' and statements' read side: as their GETs, lists and webhook payloads show them. */
import { asc, eq } from "drizzle-orm";
import { t } from "elysia";
import type { Tx } from "../../db/client.ts";
import {  bankStatements, bankTransactions } from "../../db/schema.ts";
import type { ListSpec } from "../lib/list.ts";
import { formatCents } from "../lib/money.ts";
import { DateString, Uuid } from "../lib/schemas.ts";
import { findInOrg } from "../lib/scope.ts";
import { BANK_TRANSACTION_STATUSES } from "./model.ts";

type StatementRow = typeof bankStatements.$inferSelect;
type TransactionRow = typeof bankTransactions.$inferSelect;

export function presentTransaction(row: TransactionRow) {
  return {
    id: row.id,
    bank_account_id: row.bankAccountId,
    statement_id: row.statementId,
    entry_ref: row.entryRef,
    booking_date: row.bookingDate,
    value_date: row.valueDate,
    amount: formatCents(row.amountCents),
    direction: row.direction,
    counterparty_name: row.counterpartyName,
    counterparty_iban: row.counterpartyIban,
    communication: row.communication,
    structured_reference: row.structuredReference,
    status: row.status,
    invoice_id: row.invoiceId,
    expense_id: row.expenseId,
    payment_id: row.paymentId,
    matched_amount: row.matchedCents === null ? null : formatCents(row.matchedCents),
    booked_account_id: row.bookedAccountId,
    vat_rate_id: row.bookedVatRateId,
    journal_entry_id: row.journalEntryId,
    transfer_transaction_id: row.transferLineId,
    suggested_expense_id: row.suggestedExpenseId,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export function showBankTransaction(tx: Tx, orgId: string, id: string) {
  return presentTransaction(findInOrg(tx, bankTransactions, orgId, id));
}

export function presentStatement(tx: Tx, row: StatementRow, imported: number) {
  const lines = tx
    .select()
    .from(bankTransactions)
    .where(eq(bankTransactions.statementId, row.id))
    .orderBy(asc(bankTransactions.bookingDate), asc(bankTransactions.id))
    .all();
  return {
    id: row.id,
    bank_account_id: row.bankAccountId,
    statement_id: row.statementId,
    format: row.format,
    currency: row.currency,
    opening_balance: formatCents(row.openingCents),
    opening_date: row.openingDate,
    closing_balance: formatCents(row.closingCents),
    closing_date: row.closingDate,
    transactions_imported: imported,
    transactions_matched: lines.filter((l) => l.status === "matched").length,
    transactions: lines.map(presentTransaction),
    created_at: row.createdAt,
  };
}

export const bankTransactionList: ListSpec<typeof bankTransactions> = {
  table: bankTransactions,
  sorts: {
    booking_date: bankTransactions.bookingDate,
    amount: bankTransactions.amountCents,
    created_at: bankTransactions.createdAt,
    updated_at: bankTransactions.updatedAt,
  },
  defaultSort: "-booking_date",
  filters: {
    bank_account_id: { column: bankTransactions.bankAccountId, schema: Uuid },
    status: { column: bankTransactions.status, schema: t.UnionEnum([...BANK_TRANSACTION_STATUSES]) },
    date_from: { column: bankTransactions.bookingDate, op: "gte", schema: t.String({ ...DateString, description: "Booked on or after this date" }) },
    date_to: { column: bankTransactions.bookingDate, op: "lte", schema: t.String({ ...DateString, description: "Booked on or before this date" }) },
  },
  // counterparty name and IBAN, communication, structured reference
  search: "bank_transactions_fts",
  updatedAt: bankTransactions.updatedAt,
};
