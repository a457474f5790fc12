/** The bank lines' and statements' read side: as their GETs, lists and webhook payloads show them. */
import { asc, eq, inArray } from "drizzle-orm";
import { t } from "elysia";
import type { Tx } from "../../db/client.ts";
import { bankStatements, bankTransactionAllocations, bankTransactions } from "../../db/schema.ts";
import type { ListSpec } from "../lib/list.ts";
import { formatCents } from "../lib/money.ts";
import { DateString, Uuid } from "../lib/schemas.ts";
import { findInOrg } from "../lib/scope.ts";
import { BANK_TRANSACTION_STATUSES } from "./model.ts";

type StatementRow = typeof bankStatements.$inferSelect;
type TransactionRow = typeof bankTransactions.$inferSelect;
type AllocationRow = typeof bankTransactionAllocations.$inferSelect;

function presentAllocation(a: AllocationRow) {
  return {
    id: a.id,
    invoice_id: a.invoiceId,
    expense_id: a.expenseId,
    account_id: a.accountId,
    vat_rate_id: a.vatRateId,
    amount: formatCents(a.amountCents),
    payment_id: a.paymentId,
    journal_entry_id: a.journalEntryId,
    created_at: a.createdAt,
  };
}

/** The allocations of these lines, by line, first first (one query for a page of lines). */
export async function allocationsByLine(tx: Pick<Tx, "select">, lineIds: string[]): Promise<Map<string, AllocationRow[]>> {
  if (lineIds.length === 0) return new Map();
  const rows = await tx
    .select()
    .from(bankTransactionAllocations)
    .where(inArray(bankTransactionAllocations.bankTransactionId, lineIds))
    .orderBy(asc(bankTransactionAllocations.bankTransactionId), asc(bankTransactionAllocations.position));
  return Map.groupBy(rows, (a) => a.bankTransactionId);
}

/** What waits in suspense of a line: all of it while nothing holds it, the rest of a partial allocation, nothing once booked. */
function unallocatedCents(row: TransactionRow, allocations: AllocationRow[]): number {
  if (row.status === "booked") return 0;
  return row.amountCents - allocations.reduce((s, a) => s + a.amountCents, 0);
}

export function presentTransaction(row: TransactionRow, allocations: AllocationRow[] = []) {
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
    allocations: allocations.map(presentAllocation),
    unallocated_amount: formatCents(unallocatedCents(row, allocations)),
    booked_account_id: row.bookedAccountId,
    vat_rate_id: row.bookedVatRateId,
    journal_entry_id: row.journalEntryId,
    transfer_transaction_id: row.transferLineId,
    suggested_expense_id: row.suggestedExpenseId,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

export async function showBankTransaction(tx: Tx, orgId: string, id: string) {
  return presentTransaction(await findInOrg(tx, bankTransactions, orgId, id), (await allocationsByLine(tx, [id])).get(id) ?? []);
}

/** A page of lines with their allocations. */
export async function presentTransactions(tx: Pick<Tx, "select">, rows: TransactionRow[]) {
  const byLine = await allocationsByLine(tx, rows.map((r) => r.id));
  return rows.map((r) => presentTransaction(r, byLine.get(r.id) ?? []));
}

export async function presentStatement(tx: Tx, row: StatementRow, imported: number) {
  const lines = await tx
    .select()
    .from(bankTransactions)
    .where(eq(bankTransactions.statementId, row.id))
    .orderBy(asc(bankTransactions.bookingDate), asc(bankTransactions.id));
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
    transactions: await presentTransactions(tx, lines),
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
