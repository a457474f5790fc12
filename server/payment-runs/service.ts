/**
 * Payment runs (docs/banking.md#paying-suppliers): pay the approved expenses due by a date from one bank account with a
 * SEPA credit transfer file (./pain001.ts). The rules:
 * - Selected: approved supplier invoices (not credit notes) with something due, a payee IBAN and a
 *   due date on or before `due_by`, in the bank account's currency, which must be EUR (SEPA).
 * - An expense in a run is selected by no other run while it has something due: the run is open
 *   until all its expenses are paid (a statement line carrying the EndToEndId pays them,
 *   server/banking/matching.ts), then completed.
 * - At most MAX_PAYMENT_RUN_ITEMS (500) expenses per run, the earliest due first; the rest wait for the next run.
 * - The run, its items and its file are stored in one transaction; nothing to pay is a 422.
 */
import { asc, eq, inArray, lte, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { bankAccounts, expenses, paymentRunItems, paymentRuns, suppliers } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { canonicalPaymentReference } from "../documents/payment-reference.ts";
import { MAX_PAYMENT_RUN_ITEMS } from "../lib/counts.ts";
import { FieldErrorBag, ValidationFailed } from "../lib/errors.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { formatCents } from "../lib/money.ts";
import { findInOrg, inOrg, snapshot, unitOfWork, type Scope } from "../lib/scope.ts";
import { newId, nowIso, today } from "../lib/time.ts";
import { expenseDueCents } from "../settlement/due.ts";
import type { PaymentRunCreate } from "./model.ts";
import { pain001, type CreditTransfer } from "./pain001.ts";
import { firstRow } from "../../db/client.ts";

type RunRow = typeof paymentRuns.$inferSelect;

/** A UUID without its dashes: 32 characters, within MsgId's and EndToEndId's 35. */
const compactId = () => newId().replace(/-/g, "");

async function present(tx: Tx, run: RunRow) {
  const items = await tx.select().from(paymentRunItems).where(eq(paymentRunItems.paymentRunId, run.id)).orderBy(asc(paymentRunItems.id));
  const rows = items.length
    ? (await tx.select().from(expenses).where(inArray(expenses.id, items.map((i) => i.expenseId))))
    : [];
  const open = rows.some((e) => expenseDueCents(e) > 0);
  return {
    id: run.id,
    bank_account_id: run.bankAccountId,
    message_id: run.messageId,
    due_by: run.dueBy,
    execution_date: run.executionDate,
    currency: run.currency,
    total: formatCents(run.totalCents),
    item_count: run.itemCount,
    status: open ? ("open" as const) : ("completed" as const),
    items: items.map((i) => ({
      expense_id: i.expenseId,
      amount: formatCents(i.amountCents),
      end_to_end_id: i.endToEndId,
      reference: i.reference,
      creditor_name: i.creditorName,
      creditor_iban: i.creditorIban,
    })),
    created_at: run.createdAt,
    updated_at: run.updatedAt,
  };
}

export const paymentRunList: ListSpec<typeof paymentRuns> = {
  table: paymentRuns,
  sorts: { created_at: paymentRuns.createdAt, execution_date: paymentRuns.executionDate, updated_at: paymentRuns.updatedAt },
  defaultSort: "-created_at",
  updatedAt: paymentRuns.updatedAt,
};

export const paymentRunService = {
  list(scope: Scope, query: ListQuery, url: string) {
    return listPage(scope, paymentRunList, query, url, async (rows, tx) => await Promise.all(rows.map((r) => present(tx, r))));
  },

  async get(scope: Scope, id: string) {
    return await snapshot(scope.db, async (tx) => present(tx, await findInOrg(tx, paymentRuns, scope.org.id, id)));
  },

  async file(scope: Scope, id: string): Promise<{ body: string; name: string }> {
    const run = await snapshot(scope.db, (tx) => findInOrg(tx, paymentRuns, scope.org.id, id));
    return { body: run.file, name: `payment-run-${run.executionDate}-${run.id.slice(0, 8)}` };
  },

  async create(scope: Scope, body: PaymentRunCreate) {
    return await unitOfWork(scope.db, async (tx) => {
      const bag = new FieldErrorBag();
      const bank = await firstRow(tx.select().from(bankAccounts).where(inOrg(bankAccounts, scope.org.id, eq(bankAccounts.id, body.bank_account_id))));
      if (!bank || !bank.isActive) bag.add("bank_account_id", "The selected bank_account_id is invalid.");
      else if (bank.currency !== "EUR") bag.add("bank_account_id", `A SEPA credit transfer is in EUR; this bank account is in ${bank.currency}.`);
      const executionDate = body.execution_date ?? today();
      if (executionDate < today()) bag.add("execution_date", "The execution date must not be before today.");
      bag.throwIfAny();
      const due = await tx
        .select({ expense: expenses, supplierName: suppliers.name })
        .from(expenses)
        .leftJoin(suppliers, eq(suppliers.id, expenses.supplierId))
        .where(
          inOrg(
            expenses,
            scope.org.id,
            eq(expenses.status, "approved"),
            eq(expenses.documentType, "invoice"),
            eq(expenses.currency, bank!.currency),
            lte(expenses.dueDate, body.due_by),
            sql`${expenses.payeeIban} IS NOT NULL`,
            // something to pay (BT-115: total less prepaid plus rounding); an invoice prepaid beyond its total has a refund due instead
            sql`${expenses.paidCents} < ${expenses.amountCents} + ${expenses.vatCents} - ${expenses.prepaidCents} + ${expenses.roundingCents}`,
            // in a run already, which stays open while the expense has something due
            sql`NOT EXISTS (SELECT 1 FROM ${paymentRunItems} WHERE ${paymentRunItems.expenseId} = ${expenses.id})`,
          ),
        )
        .orderBy(asc(expenses.dueDate), asc(expenses.id))
        // one run pays at most so many, the earliest due first: the rest wait for the next run
        .limit(MAX_PAYMENT_RUN_ITEMS);
      if (due.length === 0) {
        throw new ValidationFailed({
          due_by: [`No approved expense in ${bank!.currency} with a payee IBAN, not in another payment run, is due by ${body.due_by}.`],
        });
      }
      const transfers: (CreditTransfer & { expenseId: string })[] = due.map(({ expense, supplierName }) => ({
        expenseId: expense.id,
        endToEndId: compactId(),
        amountCents: expenseDueCents(expense),
        creditorName: supplierName ?? expense.vendor ?? expense.payeeIban!,
        creditorIban: expense.payeeIban!,
        reference: expense.paymentReference
          ? (canonicalPaymentReference(expense.paymentReference) ?? expense.paymentReference.trim())
          : expense.supplierInvoiceNumber,
      }));
      const now = nowIso();
      const messageId = compactId();
      const run: RunRow = {
        id: newId(),
        organizationId: scope.org.id,
        bankAccountId: bank!.id,
        messageId,
        dueBy: body.due_by,
        executionDate,
        currency: bank!.currency,
        totalCents: transfers.reduce((sum, t) => sum + t.amountCents, 0),
        itemCount: transfers.length,
        file: pain001({
          messageId,
          createdAt: now,
          executionDate,
          debtorName: scope.org.name,
          debtorIban: bank!.iban,
          debtorBic: bank!.bic,
          currency: bank!.currency,
          transfers,
        }),
        createdAt: now,
        updatedAt: now,
      };
      await tx.insert(paymentRuns).values(run);
      await tx.insert(paymentRunItems)
        .values(
          transfers.map((t) => ({
            id: newId(),
            organizationId: scope.org.id,
            paymentRunId: run.id,
            expenseId: t.expenseId,
            amountCents: t.amountCents,
            endToEndId: t.endToEndId,
            reference: t.reference,
            creditorName: t.creditorName,
            creditorIban: t.creditorIban,
          })),
        );
      await recordChange(tx, scope, { action: "payment_run.created", resource: { type: "payment_run", id: run.id } });
      return present(tx, run);
    });
  },
};
