/**
 * Posts what was written before the ledger existed (migration 0017), by the rules new changes
 * post by (./rules.ts): issued invoices and credit notes (not drafts; a cancelled one nets to
 * nothing, so it is left out), their payments, approved expenses. Before that, each bank account
 * that shared the seeded ledger account gets one of its own, and each payment the bank account it
 * would be recorded on today. Runs once, in one transaction (db/connection.ts `migrate`).
 */
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { bankAccounts, bankStatements, bankTransactions, expenses, invoices, organizations, payments } from "../../db/schema.ts";
import { AWAITING_PAYMENT } from "../../db/schema.ts";
import { bankLedgerAccountId, defaultBankAccount, newBankLedgerAccount, systemAccount } from "./accounts.ts";
import { assertYearOpen, postEntry } from "./post.ts";
import { expensePosting, invoicePosting, openingBalancePosting, paymentPosting, suspenseEntry } from "./rules.ts";
import { Conflict } from "../lib/errors.ts";
import { firstRow } from "../../db/client.ts";

export async function backfillLedger(tx: Tx): Promise<void> {
  for (const { id: orgId } of (await tx.select({ id: organizations.id }).from(organizations))) {
    const used = new Set<string>();
    for (const bank of (await tx.select().from(bankAccounts).where(eq(bankAccounts.organizationId, orgId)).orderBy(asc(bankAccounts.createdAt), asc(bankAccounts.id)))) {
      if (used.has(bank.accountId)) {
        const accountId = await newBankLedgerAccount(tx, orgId, bank.name);
        await tx.update(bankAccounts).set({ accountId }).where(eq(bankAccounts.id, bank.id));
        used.add(accountId);
      } else used.add(bank.accountId);
    }

    const issued = await tx
      .select()
      .from(invoices)
      .where(and(eq(invoices.organizationId, orgId), inArray(invoices.status, [...AWAITING_PAYMENT, "paid"])))
      .orderBy(asc(invoices.issueDate), asc(invoices.id));
    // a payment recorded without a bank account went through today's default one of its currency
    for (const { currency } of (await tx.selectDistinct({ currency: invoices.currency }).from(invoices).where(eq(invoices.organizationId, orgId)))) {
      const bank = await defaultBankAccount(tx, orgId, currency);
      if (!bank) continue;
      await tx.update(payments)
        .set({ bankAccountId: bank.id })
        .where(
          and(
            eq(payments.organizationId, orgId),
            isNull(payments.bankAccountId),
            inArray(payments.invoiceId, tx.select({ id: invoices.id }).from(invoices).where(and(eq(invoices.organizationId, orgId), eq(invoices.currency, currency)))),
          ),
        );
    }
    const paymentsOf = Map.groupBy(
      await tx.select().from(payments).where(eq(payments.organizationId, orgId)).orderBy(asc(payments.createdAt), asc(payments.id)),
      (p) => p.invoiceId,
    );
    const banks = new Map((await tx.select().from(bankAccounts).where(eq(bankAccounts.organizationId, orgId))).map((b) => [b.id, b]));
    for (const invoice of issued) {
      await postEntry(tx, orgId, await invoicePosting(tx, invoice));
      for (const payment of paymentsOf.get(invoice.id) ?? []) {
        const bank = payment.bankAccountId ? (banks.get(payment.bankAccountId) ?? null) : null;
        await postEntry(tx, orgId, await paymentPosting(tx, invoice, payment, await bankLedgerAccountId(tx, orgId, bank)));
      }
    }

    const approved = await tx
      .select()
      .from(expenses)
      .where(and(eq(expenses.organizationId, orgId), inArray(expenses.status, ["approved", "paid"])))
      .orderBy(asc(expenses.date), asc(expenses.id));
    for (const expense of approved) await postEntry(tx, orgId, await expensePosting(tx, expense));
  }
}

/**
 * Migration 0030's data migration: the bank accounts whose statements were imported before the
 * opening balance was posted get it now, from their first statement, as an import posts it
 * (server/banking/booking.ts). One whose opening falls in a closed fiscal year is left alone: a
 * closed year's books are final (a manual entry in the open year corrects the balance).
 */
export async function backfillOpeningBalances(tx: Tx): Promise<void> {
  const firsts = await tx
    .select()
    .from(bankStatements)
    .where(sql`${bankStatements.id} = (SELECT s.id FROM bank_statements s WHERE s.bank_account_id = ${bankStatements.bankAccountId} ORDER BY s.closing_date, s.created_at LIMIT 1)`);
  for (const statement of firsts) {
    const bank = await firstRow(tx.select().from(bankAccounts).where(eq(bankAccounts.id, statement.bankAccountId)));
    if (!bank) continue;
    const draft = await openingBalancePosting(tx, bank, { statementId: statement.id, cents: statement.openingCents, date: statement.openingDate });
    if (draft && !await isClosedYear(tx, bank.organizationId, draft.date)) await postEntry(tx, bank.organizationId, draft);
  }
}

async function isClosedYear(tx: Tx, orgId: string, date: string): Promise<boolean> {
  try {
    await assertYearOpen(tx, orgId, date);
    return false;
  } catch (error) {
    if (error instanceof Conflict) return true;
    throw error;
  }
}

/**
 * Migration 0042's data migration: the bank lines nothing holds (unmatched, ignored) and the rest
 * of a line matched for less than its amount are posted to suspense, as an import now posts them
 * (docs/banking.md#suspense), so that each bank account's ledger balance is its statements'. A
 * line dated in a closed fiscal year is left alone, as the opening balances are.
 */
export async function backfillSuspense(tx: Tx): Promise<void> {
  const open = await tx
    .select({
      line: bankTransactions,
      allocated: sql<number>`coalesce((SELECT sum(a.amount_cents) FROM bank_transaction_allocations a WHERE a.bank_transaction_id = ${bankTransactions.id}), 0)`,
    })
    .from(bankTransactions)
    .where(inArray(bankTransactions.status, ["unmatched", "ignored", "partially_matched"]))
    .orderBy(asc(bankTransactions.bookingDate), asc(bankTransactions.id));
  for (const { line, allocated } of open) {
    const cents = line.amountCents - allocated;
    if (cents <= 0 || await isClosedYear(tx, line.organizationId, line.bookingDate)) continue;
    const bank = await firstRow(tx.select().from(bankAccounts).where(eq(bankAccounts.id, line.bankAccountId)));
    if (!bank) continue;
    const description = (line.communication ?? line.counterpartyName ?? `Bank line ${line.entryRef}`).replace(/\s+/g, " ").trim().slice(0, 200);
    const draft = suspenseEntry(
      { lineId: line.id, date: line.bookingDate, currency: bank.currency, direction: line.direction, cents, description },
      { bank: bank.accountId, suspense: (await systemAccount(tx, line.organizationId, "suspense")).id },
    );
    await postEntry(tx, line.organizationId, draft);
  }
}
