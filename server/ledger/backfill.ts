/**
 * Posts what was written before the ledger existed (migration 0017), by the rules new changes
 * post by (./rules.ts): issued invoices and credit notes (not drafts; a cancelled one nets to
 * nothing, so it is left out), their payments, approved expenses. Before that, each bank account
 * that shared the seeded ledger account gets one of its own, and each payment the bank account it
 * would be recorded on today. Runs once, in one transaction (db/connection.ts `migrate`).
 */
import { asc, eq, inArray, isNull, and } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { bankAccounts, expenses, invoices, organizations, payments } from "../../db/schema.ts";
import { AWAITING_PAYMENT } from "../../db/schema.ts";
import { bankLedgerAccountId, defaultBankAccount, newBankLedgerAccount } from "./accounts.ts";
import { postEntry } from "./post.ts";
import { expensePosting, invoicePosting, paymentPosting } from "./rules.ts";

export function backfillLedger(tx: Tx): void {
  for (const { id: orgId } of tx.select({ id: organizations.id }).from(organizations).all()) {
    const used = new Set<string>();
    for (const bank of tx.select().from(bankAccounts).where(eq(bankAccounts.organizationId, orgId)).orderBy(asc(bankAccounts.createdAt), asc(bankAccounts.id)).all()) {
      if (used.has(bank.accountId)) {
        const accountId = newBankLedgerAccount(tx, orgId, bank.name);
        tx.update(bankAccounts).set({ accountId }).where(eq(bankAccounts.id, bank.id)).run();
        used.add(accountId);
      } else used.add(bank.accountId);
    }

    const issued = tx
      .select()
      .from(invoices)
      .where(and(eq(invoices.organizationId, orgId), inArray(invoices.status, [...AWAITING_PAYMENT, "paid"])))
      .orderBy(asc(invoices.issueDate), asc(invoices.id))
      .all();
    for (const invoice of issued) {
      postEntry(tx, orgId, invoicePosting(tx, invoice));
      for (const payment of tx.select().from(payments).where(eq(payments.invoiceId, invoice.id)).orderBy(asc(payments.createdAt), asc(payments.id)).all()) {
        let bank = payment.bankAccountId ? tx.select().from(bankAccounts).where(eq(bankAccounts.id, payment.bankAccountId)).get() ?? null : null;
        if (!payment.bankAccountId) {
          bank = defaultBankAccount(tx, orgId, invoice.currency);
          if (bank) tx.update(payments).set({ bankAccountId: bank.id }).where(and(eq(payments.id, payment.id), isNull(payments.bankAccountId))).run();
        }
        postEntry(tx, orgId, paymentPosting(tx, invoice, payment, bankLedgerAccountId(tx, orgId, bank)));
      }
    }

    const approved = tx
      .select()
      .from(expenses)
      .where(and(eq(expenses.organizationId, orgId), eq(expenses.status, "approved")))
      .orderBy(asc(expenses.date), asc(expenses.id))
      .all();
    for (const expense of approved) postEntry(tx, orgId, expensePosting(tx, expense));
  }
}
