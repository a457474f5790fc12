/**
 * Booking a bank line that settles no document (`POST /bank-transactions/{id}/book`) to an
 * account of the chart with its VAT (a fee, interest), or to another own bank account (a
 * transfer, paired with that account's line); and undoing it (`…/unbook`). The rules are
 * booking.ts's.
 * Refuses: 404 for no such line; book: 409 when the line is not unmatched or its bank account not
 * active, 422 naming `account_id` (receivables, payables, suspense, its own bank account, another
 * currency's bank account, an inactive account) or `vat_rate_id`; unbook: 409 when it is not
 * booked.
 * Records: bank_transaction.booked (audit and event; bank_transaction.transfer_matched for a
 * transfer's other line) with the line's entry out of suspense (ledger/rules.ts bankLineEntry),
 * or bank_transaction.unbooked (audit and event) with its reversal, for both lines of a transfer.
 */
import { bankTransactions } from "../../../db/schema.ts";
import { findInOrg, unitOfWork, type Scope } from "../../lib/scope.ts";
import { activeBank } from "../allocations.ts";
import { postBooking, reverseBooking } from "../booking.ts";
import type { BankTransactionBook } from "../model.ts";
import { showBankTransaction } from "../read.ts";

/** Books an unmatched line to an account of the chart, with a VAT rate, or to another own bank account (a transfer): booking.ts. */
export async function bookLine(scope: Scope, id: string, input: BankTransactionBook) {
  return await unitOfWork(scope.db, async (tx) => {
    const line = await findInOrg(tx, bankTransactions, scope.org.id, id);
    await activeBank(tx, scope, line.bankAccountId);
    await postBooking(tx, scope, line, input);
    return showBankTransaction(tx, scope.org.id, id);
  });
}

/** Reverses a booked line's entry (both lines of a transfer): the line is unmatched again. */
export async function unbookLine(scope: Scope, id: string) {
  return await unitOfWork(scope.db, async (tx) => {
    await reverseBooking(tx, scope, await findInOrg(tx, bankTransactions, scope.org.id, id));
    return showBankTransaction(tx, scope.org.id, id);
  });
}
