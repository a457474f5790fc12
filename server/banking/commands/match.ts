/**
 * Matching a bank line (`POST /bank-transactions/{id}/match`), unmatched or partially matched:
 * with one invoice, credit note or expense (for at most what the line has unallocated and the
 * document's amount due), or with `allocations` to several documents and accounts
 * (allocations.ts); what is not allocated stays in suspense. A payment recorded by hand of the
 * same money is taken over rather than doubled (server/settlement/bank-matches.ts).
 * Refuses: 404 for no such line; 409 when it is matched, booked or ignored, or its bank account
 * is not active, and when the one document matched is in no state to be paid (a draft, a
 * cancelled one: settlement's state check); 422 naming the field (`invoice_id`, `expense_id`,
 * `amount`, `allocations` or `allocations.{i}.…`: a document of the other direction or currency,
 * an allocated document not awaiting payment, an amount beyond the line's rest or the amount due,
 * nothing due).
 * Records: per document allocation, its payment (invoice.payment_recorded or the expense's,
 * posted against suspense) or the hand payment taken over; per account allocation, its entry;
 * and bank_transaction.matched (with one document) or bank_transaction.allocated (with
 * `allocations`), audit and event (settlement/bank-matches.ts allocateLine).
 */
import { bankTransactions } from "../../../db/schema.ts";
import { FieldErrorBag, Conflict, ValidationFailed } from "../../lib/errors.ts";
import { formatCents, readMoney } from "../../lib/money.ts";
import { findInOrg, unitOfWork, type Scope } from "../../lib/scope.ts";
import { allocatedCents } from "../../settlement/allocations.ts";
import { allocateLine, handPayment } from "../../settlement/bank-matches.ts";
import { directionOf, dueOf, type Settled } from "../../settlement/payments.ts";
import { activeBank, findTarget, MATCH_READERS, readAllocations } from "../allocations.ts";
import type { BankTransactionMatch } from "../model.ts";
import { showBankTransaction } from "../read.ts";

/**
 * Matches an unmatched or partially matched line: with one invoice, credit note or expense (for
 * what the line has unallocated or less: the old body), or with `allocations` (several documents
 * and accounts). What is not allocated stays in suspense.
 */
export async function matchLine(scope: Scope, id: string, input: BankTransactionMatch) {
  return await unitOfWork(scope.db, async (tx) => {
    const line = await findInOrg(tx, bankTransactions, scope.org.id, id);
    if (line.status !== "unmatched" && line.status !== "partially_matched") {
      throw new Conflict(`The bank transaction is ${line.status}; only an unmatched or partially matched one can be matched (unmatch it first, or reclassify it).`);
    }
    const bank = await activeBank(tx, scope, line.bankAccountId);
    const rest = line.amountCents - await allocatedCents(tx, line.id);
    if (input.allocations !== undefined) {
      if (input.invoice_id !== undefined || input.expense_id !== undefined || input.amount !== undefined) {
        throw ValidationFailed.field("allocations", "Give either allocations, or invoice_id or expense_id with an amount; not both.");
      }
      await allocateLine(tx, scope, bank, line, await readAllocations(tx, scope, bank, line, input.allocations, rest), "allocation", MATCH_READERS);
      return showBankTransaction(tx, scope.org.id, id);
    }
    if ((input.invoice_id === undefined) === (input.expense_id === undefined)) {
      throw ValidationFailed.field("invoice_id", "Give exactly one of invoice_id and expense_id (or allocations).");
    }
    const bag = new FieldErrorBag();
    const target: Settled | null = input.invoice_id !== undefined ? await findTarget(tx, scope, bag, "invoice", input.invoice_id) : await findTarget(tx, scope, bag, "expense", input.expense_id!);
    const field = input.invoice_id !== undefined ? "invoice_id" : "expense_id";
    let cents = 0;
    if (target) {
      if (directionOf(target) !== line.direction) {
        bag.add(field, `A ${line.direction} line (money ${line.direction === "credit" ? "in" : "out"}) cannot pay this document: its money goes ${directionOf(target) === "credit" ? "in" : "out"}.`);
      }
      if (target.row.currency !== bank.currency) bag.add(field, `The document is in ${target.row.currency}; the bank account holds ${bank.currency}.`);
      const asked = input.amount === undefined ? Math.min(rest, Math.max(dueOf(target), 0)) : readMoney(bag, "amount", input.amount, { min: 1 });
      if (asked !== null && asked > rest) {
        bag.add("amount", rest === line.amountCents ? `The amount must not be greater than the line's amount (${formatCents(line.amountCents)}).` : `The amount must not be greater than what the line has unallocated (${formatCents(rest)}).`);
      }
      cents = asked ?? 0;
    }
    bag.throwIfAny();
    // a payment recorded by hand may have paid the document already (its amount due is then 0)
    if (cents === 0) {
      const paid = await handPayment(tx, scope.org.id, bank, target!, rest, line.bookingDate);
      if (!paid) throw ValidationFailed.field("amount", "Nothing is due on the document.");
      cents = rest;
    }
    await allocateLine(tx, scope, bank, line, [{ target: target!, cents }], "manual", MATCH_READERS);
    return showBankTransaction(tx, scope.org.id, id);
  });
}
