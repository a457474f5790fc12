/** The bank lines' reads as units (`GET /bank-transactions`, `GET /bank-transactions/{id}`): each one snapshot, presented by read.ts. */
import { listPage, type ListQuery } from "../lib/list.ts";
import { snapshot, type Scope } from "../lib/scope.ts";
import { bankTransactionList, presentTransactions, showBankTransaction } from "./read.ts";

/** A page of bank lines, with `filter`, `sort` and `q` (read.ts bankTransactionList). */
export async function listBankTransactions(scope: Scope, query: ListQuery, url: string) {
  return await listPage(scope, bankTransactionList, query, url, async (rows, tx) => await presentTransactions(tx, rows));
}

/** One bank line with its allocations (404 for none). */
export async function showBankTransactionById(scope: Scope, id: string) {
  return await snapshot(scope.db, (tx) => showBankTransaction(tx, scope.org.id, id));
}
