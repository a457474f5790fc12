/**
 * Unmatching a bank line (`POST /bank-transactions/{id}/unmatch`): every allocation undone, or
 * an ignore lifted; the whole line is back in suspense.
 * Refuses: 404 for no such line; 409 when it is unmatched already, or booked (unbook it instead).
 * Records: per allocation, the payment it recorded deleted (invoice.payment_deleted or
 * expense.payment_deleted, postings reversed; a payment recorded by hand that it took over
 * stays), and bank_transaction.unmatched (audit) with the reversal of the line's entries out of
 * suspense (settlement/bank-matches.ts unallocateLine).
 */
import { bankTransactions } from "../../../db/schema.ts";
import { Conflict } from "../../lib/errors.ts";
import { findInOrg, unitOfWork, type Scope } from "../../lib/scope.ts";
import { unallocateLine } from "../../settlement/bank-matches.ts";
import { allocatedDocument, MATCH_READERS } from "../allocations.ts";
import { showBankTransaction } from "../read.ts";

/**
 * Undoes every allocation of a line (allocateLine's undo: payments it recorded are deleted, their
 * postings reversed; payments recorded by hand that it took over stay), or an ignore: the line
 * is unmatched, all of it in suspense.
 */
export async function unmatchLine(scope: Scope, id: string) {
  return await unitOfWork(scope.db, async (tx) => {
    const line = await findInOrg(tx, bankTransactions, scope.org.id, id);
    if (line.status === "unmatched") throw new Conflict("The bank transaction is unmatched; only a matched, partially matched or ignored one can be unmatched.");
    if (line.status === "booked") throw new Conflict("The bank transaction is booked to an account; unbook it (POST …/unbook) to reverse its entry.");
    await unallocateLine(tx, scope, line, async (a) => await allocatedDocument(tx, scope, a), MATCH_READERS);
    return showBankTransaction(tx, scope.org.id, id);
  });
}
