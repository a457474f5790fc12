/**
 * Ignoring a bank line (`POST /bank-transactions/{id}/ignore`): an unmatched line taken off the
 * list of lines to look at; its money stays in suspense, nothing is posted (unmatch lifts it).
 * Refuses: 404 for no such line; 409 when it is not unmatched.
 * Records: bank_transaction.ignored (audit only).
 */
import { bankTransactions } from "../../../db/schema.ts";
import { recordChange } from "../../changes/record.ts";
import { Conflict } from "../../lib/errors.ts";
import { findInOrg, unitOfWork, updateInOrg, type Scope } from "../../lib/scope.ts";
import { nowIso } from "../../lib/time.ts";
import { showBankTransaction } from "../read.ts";

/** Takes an unmatched line off the list of lines to look at: its money stays in suspense (nothing is posted). */
export async function ignoreLine(scope: Scope, id: string) {
  return await unitOfWork(scope.db, async (tx) => {
    const line = await findInOrg(tx, bankTransactions, scope.org.id, id);
    if (line.status !== "unmatched") throw new Conflict(`The bank transaction is ${line.status}; only an unmatched one can be ignored.`);
    await updateInOrg(tx, bankTransactions, scope.org.id, id, { status: "ignored", updatedAt: nowIso() });
    await recordChange(tx, scope, { action: "bank_transaction.ignored", resource: { type: "bank_transaction", id } });
    return showBankTransaction(tx, scope.org.id, id);
  });
}
