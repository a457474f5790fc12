/**
 * A bank line allocated to the documents and accounts its money settles (banking decides which:
 * the rules in the header of server/banking/commands/import-statement.ts and server/banking/matching.ts): each allocation takes
 * over a payment recorded by hand for the same money, or records one, or posts to an account;
 * undoing them deletes only the payments they recorded. The rest of the line sits in suspense
 * (./allocations.ts, docs/banking.md#suspense).
 */
import { asc, between, count, eq, min, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { bankAccounts, bankStatements, bankTransactionAllocations, bankTransactions, expensePayments, payments } from "../../db/schema.ts";
import type { AccountType, VatCategory } from "../../db/values.ts";
import { recordChange } from "../changes/record.ts";
import { systemAccount } from "../ledger/accounts.ts";
import type { LedgerEffect } from "../ledger/draft.ts";
import { bankLineEntry, bankLineSelfAssessment } from "../ledger/rules.ts";
import { checkRoom } from "../lib/counts.ts";
import { formatCents } from "../lib/money.ts";
import { inOrg, type Scope } from "../lib/scope.ts";
import { addDays, newId, nowIso } from "../lib/time.ts";
import { allocationsOf, lineName, nextPosition, refreshLine, suspenseDraft, undoEffects, type AllocationRow } from "./allocations.ts";
import { deletePayment, movePayment, recordPayment, type Settled, type Show } from "./payments.ts";
import { firstRow } from "../../db/client.ts";

type BankAccountRow = typeof bankAccounts.$inferSelect;
type TransactionRow = typeof bankTransactions.$inferSelect;

/** The read sides a match's events carry: the document paid, and the bank line. */
export type MatchReaders = { invoice: Show; expense: Show; bankTransaction: Show };

/** How far apart a payment recorded by hand and its bank line may be dated to be the same money. */
const SAME_MONEY_DAYS = 14;

/**
 * A payment recorded by hand that is this bank line's money: of the document, of exactly `cents`,
 * by bank transfer, dated within SAME_MONEY_DAYS of the booking, and held by no other bank line.
 * (A cash or card payment, or an earlier instalment of the same amount, is other money.) One
 * recorded through another bank account is taken over and posted again through this one. Never
 * one dated before the bank account's first statement opens: that money is in the opening balance
 * the statement brought into the books (server/banking/booking.ts), so the line is other money.
 */
export async function handPayment(tx: Tx, orgId: string, bank: Pick<BankAccountRow, "id">, doc: Settled, cents: number, bookingDate: string) {
  const table = doc.kind === "invoice" ? payments : expensePayments;
  const parent = doc.kind === "invoice" ? payments.invoiceId : expensePayments.expenseId;
  const opened = (await firstRow(tx.select({ date: min(bankStatements.openingDate) }).from(bankStatements).where(eq(bankStatements.bankAccountId, bank.id))))?.date ?? null;
  const from = addDays(bookingDate, -SAME_MONEY_DAYS);
  return await firstRow(tx
    .select()
    .from(table)
    .where(
      inOrg(
        table,
        orgId,
        eq(parent, doc.row.id),
        eq(table.amountCents, cents),
        eq(table.paymentMethod, "bank_transfer"),
        between(table.paymentDate, opened !== null && opened > from ? opened : from, addDays(bookingDate, SAME_MONEY_DAYS)),
        sql`NOT EXISTS (SELECT 1 FROM ${bankTransactions} WHERE ${bankTransactions.paymentId} = ${table.id})`,
        sql`NOT EXISTS (SELECT 1 FROM ${bankTransactionAllocations} WHERE ${bankTransactionAllocations.paymentId} = ${table.id})`,
      ),
    )
    .orderBy(asc(table.createdAt), asc(table.id))
    .limit(1));
}

/** What an allocation pays: a document (its payment), or an account of the chart (a fee, interest: with its VAT). */
export type AllocationTarget =
  | Settled
  | {
      kind: "account";
      account: { id: string; type: AccountType };
      vatRateId: string | null;
      vat: { category: VatCategory; rateBp: number } | null;
      description: string | null;
    };
export type Allocation = { target: AllocationTarget; cents: number };

/** What an allocation is called: bank_transaction.matched (on import, or a single target by hand), .allocated (the allocations body), .reclassified. */
export type AllocationHow = "import" | "manual" | "allocation" | "reclassify";

const ACTIONS: Record<AllocationHow, { action: string; event: "bank_transaction.matched" | "bank_transaction.allocated" | "bank_transaction.reclassified" }> = {
  import: { action: "bank_transaction.matched_on_import", event: "bank_transaction.matched" },
  manual: { action: "bank_transaction.matched", event: "bank_transaction.matched" },
  allocation: { action: "bank_transaction.allocated", event: "bank_transaction.allocated" },
  reclassify: { action: "bank_transaction.reclassified", event: "bank_transaction.reclassified" },
};

/**
 * Allocates a line's money (amounts checked by the caller: each positive, together at most what
 * the line has unallocated). On import the line never sat in suspense: each payment posts against
 * the bank account, as it always has. Later the line's money is in suspense, so each allocation
 * moves its amount out of it in one entry: a payment recorded now posts against suspense instead
 * of the bank; a payment recorded by hand for the same money (handPayment) is taken over, moved
 * to this bank account if it went through another, and one entry takes the money out of suspense
 * against the bank (the hand payment had put it there); an account's allocation posts as a booked
 * line does, against suspense. Then the line's status follows, and the change is recorded.
 */
export async function allocateLine(tx: Tx, scope: Scope, bank: BankAccountRow, line: TransactionRow, allocations: Allocation[], how: AllocationHow, readers: MatchReaders): Promise<void> {
  const orgId = scope.org.id;
  const viaSuspense = how !== "import";
  const via = viaSuspense ? (await systemAccount(tx, orgId, "suspense")).id : bank.accountId;
  const held = (await firstRow(tx.select({ n: count() }).from(bankTransactionAllocations).where(inOrg(bankTransactionAllocations, orgId, eq(bankTransactionAllocations.bankTransactionId, line.id)))))!.n;
  checkRoom("allocations", held, allocations.length, "This bank line");
  let position = await nextPosition(tx, line.id);
  const ledger: LedgerEffect[] = [];
  for (const { target, cents } of allocations) {
    const row: typeof bankTransactionAllocations.$inferInsert = {
      id: newId(),
      organizationId: orgId,
      bankTransactionId: line.id,
      position: position++,
      invoiceId: null,
      expenseId: null,
      accountId: null,
      vatRateId: null,
      amountCents: cents,
      paymentId: null,
      paymentLink: null,
      journalEntryId: null,
      viaSuspense,
      createdAt: nowIso(),
    };
    if (target.kind === "account") {
      row.accountId = target.account.id;
      row.vatRateId = target.vatRateId;
      row.journalEntryId = newId();
      ledger.push({ post: await accountDraft(tx, orgId, bank, line, target, cents, row.journalEntryId, via) });
    } else {
      if (target.kind === "invoice") row.invoiceId = target.row.id;
      else row.expenseId = target.row.id;
      const existing = await handPayment(tx, orgId, bank, target, cents, line.bookingDate);
      if (existing) {
        row.paymentId = existing.id;
        row.paymentLink = "linked";
        // the money came in on this account: the hand-made posting moves here, on its own date
        if (existing.bankAccountId !== bank.id) ledger.push(...await movePayment(tx, orgId, target, existing, bank));
        if (viaSuspense) {
          row.journalEntryId = newId();
          ledger.push({ post: await suspenseDraft(tx, orgId, line, -cents, row.journalEntryId) });
        }
      } else {
        const input = {
          amount: formatCents(cents),
          payment_date: line.bookingDate,
          payment_method: "bank_transfer" as const,
          reference: (line.structuredReference ?? line.communication ?? line.entryRef).slice(0, 255),
          bank_account_id: bank.id,
        };
        row.paymentId = (await recordPayment(tx, scope, target, input, readers[target.kind], via)).payment.id;
        row.paymentLink = "recorded";
      }
    }
    await tx.insert(bankTransactionAllocations).values(row);
  }
  await refreshLine(tx, orgId, line.id);
  await recordChange(tx, scope, {
    ...ACTIONS[how],
    resource: { type: "bank_transaction", id: line.id },
    data: () => readers.bankTransaction(tx, orgId, line.id),
    ledger,
  });
}

/** An account's allocation: the line's entry as booking posts it (bankLineEntry), for the allocation's amount, against `via`. */
async function accountDraft(
  tx: Tx,
  orgId: string,
  bank: BankAccountRow,
  line: TransactionRow,
  target: Extract<AllocationTarget, { kind: "account" }>,
  cents: number,
  entryId: string,
  via: string,
) {
  // revenue is sold: output VAT; anything else (costs, assets) is bought: input VAT
  const side = target.account.type === "revenue" ? "sales" : "purchases";
  const vatAccount = target.vat === null ? null : (await systemAccount(tx, orgId, side === "sales" ? "vat_payable" : "vat_receivable")).id;
  return bankLineEntry(
    {
      lineId: line.id,
      entryId,
      date: line.bookingDate,
      currency: bank.currency,
      direction: line.direction,
      amountCents: cents,
      description: (target.description ?? lineName(line)).slice(0, 1000),
      vat: target.vat && { ...target.vat, side },
    },
    { bank: via, account: target.account.id, vat: vatAccount, selfAssessment: side === "purchases" && target.vat ? await bankLineSelfAssessment(tx, orgId) : null },
  );
}

/**
 * Undoes every allocation of a line, last first, in the caller's transaction: a payment an
 * allocation recorded is deleted (its posting reversed: back into suspense, or out of the bank
 * for one made on import), a payment recorded by hand that it took over stays (the entry that
 * moved it out of suspense is reversed), an account's entry is reversed; what was posted on import
 * against the bank goes into suspense. The line is unmatched again, its whole amount in suspense.
 */
export async function unallocateLine(tx: Tx, scope: Scope, line: TransactionRow, documentOf: (a: AllocationRow) => Settled | null | Promise<Settled | null>, readers: MatchReaders): Promise<void> {
  const ledger: LedgerEffect[] = [];
  for (const allocation of (await allocationsOf(tx, line.id)).reverse()) {
    if (allocation.paymentLink === "recorded" && allocation.paymentId) {
      const doc = await documentOf(allocation);
      if (doc) await deletePayment(tx, scope, doc, allocation.paymentId, readers[doc.kind], { releaseLine: false });
    }
    ledger.push(...await undoEffects(tx, scope.org.id, line, allocation));
    await tx.delete(bankTransactionAllocations).where(eq(bankTransactionAllocations.id, allocation.id));
  }
  await refreshLine(tx, scope.org.id, line.id);
  await recordChange(tx, scope, { action: "bank_transaction.unmatched", resource: { type: "bank_transaction", id: line.id }, ledger });
}
