/** What invoice and expense payments share: how they are shown, and which bank account they move through. */
import { eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { bankAccounts } from "../../db/schema.ts";
import { defaultBankAccount } from "../ledger/accounts.ts";
import { FieldErrorBag } from "../lib/errors.ts";
import { formatCents, readMoney } from "../lib/money.ts";
import { inOrg } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import type { PaymentInput } from "./model.ts";

type PaymentRow = {
  id: string;
  amountCents: number;
  paymentDate: string;
  paymentMethod: string;
  reference: string | null;
  bankAccountId: string | null;
  createdAt: string;
};
type BankAccountRow = typeof bankAccounts.$inferSelect;

export function presentPayment<R extends PaymentRow>(row: R) {
  return {
    id: row.id,
    amount: formatCents(row.amountCents),
    payment_date: row.paymentDate,
    payment_method: row.paymentMethod as R["paymentMethod"],
    reference: row.reference,
    bank_account_id: row.bankAccountId,
    created_at: row.createdAt,
  };
}

/**
 * The bank account a payment in `currency` moves through: the one named (an active account of the
 * organisation in that currency, else a 422 on `bank_account_id`), or the default one.
 */
export function paymentBankAccount(tx: Tx, orgId: string, bag: FieldErrorBag, id: string | undefined, currency: string): BankAccountRow | null {
  if (id === undefined) return defaultBankAccount(tx, orgId, currency);
  const bank = tx.select().from(bankAccounts).where(inOrg(bankAccounts, orgId, eq(bankAccounts.id, id))).get();
  if (!bank) bag.add("bank_account_id", "The selected bank account id is invalid.");
  else if (!bank.isActive) bag.add("bank_account_id", `The bank account ${bank.name} is not active.`);
  else if (bank.currency !== currency) bag.add("bank_account_id", `The bank account ${bank.name} holds ${bank.currency}, not ${currency}.`);
  else return bank;
  return null;
}

/**
 * A new payment's columns, of an invoice or an expense alike: an amount of at least 0.01 and at
 * most `dueCents` (else 422 on `amount`), through its bank account (`paymentBankAccount`). The
 * bank account comes back too: its ledger account is what the payment posts to.
 */
export function newPayment(tx: Tx, orgId: string, input: PaymentInput, { dueCents, currency }: { dueCents: number; currency: string }) {
  const bag = new FieldErrorBag();
  const amountCents = readMoney(bag, "amount", input.amount, { min: 1 });
  if (amountCents !== null && amountCents > dueCents) {
    bag.add("amount", `The amount must not be greater than the amount due (${formatCents(dueCents)}).`);
  }
  const bank = paymentBankAccount(tx, orgId, bag, input.bank_account_id, currency);
  bag.throwIfAny();
  const columns = {
    id: newId(),
    organizationId: orgId,
    amountCents: amountCents!,
    paymentDate: input.payment_date,
    paymentMethod: input.payment_method ?? "bank_transfer",
    reference: input.reference ?? null,
    bankAccountId: bank?.id ?? null,
    createdAt: nowIso(),
  };
  return { bank, columns };
}
