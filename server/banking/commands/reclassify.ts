/**
 * Reclassifying a bank line (`POST /bank-transactions/{id}/reclassify`): whatever holds it (its
 * allocations, a booking, an ignore) replaced by new allocations in one unit, as unmatch or
 * unbook followed by match; refused allocations leave everything as it was.
 * Refuses: 404 for no such line; 409 for a line booked as a transfer between own bank accounts
 * (unbook it first) or a bank account not active; 422 naming `allocations.{i}.…` as match does.
 * Records: what unmatch or unbook records (payments deleted, entries reversed), then the new
 * allocations as match records them, under bank_transaction.reclassified (audit and event).
 */
import { bankTransactions } from "../../../db/schema.ts";
import { Conflict } from "../../lib/errors.ts";
import { findInOrg, unitOfWork, type Scope } from "../../lib/scope.ts";
import { allocateLine, unallocateLine } from "../../settlement/bank-matches.ts";
import { activeBank, allocatedDocument, isBankLedger, MATCH_READERS, readAllocations } from "../allocations.ts";
import { reverseBooking } from "../booking.ts";
import type { BankTransactionReclassify } from "../model.ts";
import { showBankTransaction } from "../read.ts";

/**
 * Replaces whatever holds a line by `allocations`, in one transaction: its allocations are undone
 * (as unmatch), its booking reversed (as unbook; a transfer between own accounts is unbooked
 * first, 409), an ignore lifted; then the line is allocated anew, from suspense.
 */
export async function reclassifyLine(scope: Scope, id: string, input: BankTransactionReclassify) {
  return await unitOfWork(scope.db, async (tx) => {
    const line = await findInOrg(tx, bankTransactions, scope.org.id, id);
    const bank = await activeBank(tx, scope, line.bankAccountId);
    if (line.status === "booked") {
      if (line.transferLineId || line.bookedAccountId === bank.accountId || await isBankLedger(tx, scope, line.bookedAccountId)) {
        throw new Conflict("The bank transaction is booked as a transfer between own bank accounts; unbook it (POST …/unbook) first.");
      }
      await reverseBooking(tx, scope, line);
    } else if (line.status !== "unmatched") {
      await unallocateLine(tx, scope, line, async (a) => await allocatedDocument(tx, scope, a), MATCH_READERS);
    }
    const fresh = await findInOrg(tx, bankTransactions, scope.org.id, id);
    await allocateLine(tx, scope, bank, fresh, await readAllocations(tx, scope, bank, fresh, input.allocations, fresh.amountCents), "reclassify", MATCH_READERS);
    return showBankTransaction(tx, scope.org.id, id);
  });
}
