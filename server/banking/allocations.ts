/**
 * What the commands on a bank line share (commands/match.ts, reclassify.ts, unmatch.ts): its bank
 * account (active), the allocations asked for read and checked, the document an allocation's
 * payment belongs to, and the readers that present what a match changes.
 */
import { eq } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { accounts, AWAITING_PAYMENT, bankAccounts, bankTransactions, expenses, invoices, vatRates } from "../../db/schema.ts";
import type { VatCategory } from "../../db/values.ts";
import { showExpense } from "../expenses/service.ts";
import { showInvoice } from "../invoices/read.ts";
import { Conflict, FieldErrorBag } from "../lib/errors.ts";
import { formatCents, readMoney } from "../lib/money.ts";
import { findInOrg, inOrg, type Scope } from "../lib/scope.ts";
import type { AllocationRow } from "../settlement/allocations.ts";
import { handPayment, type Allocation, type MatchReaders } from "../settlement/bank-matches.ts";
import { directionOf, dueOf, type Settled } from "../settlement/payments.ts";
import type { AllocationInput } from "./model.ts";
import { showBankTransaction } from "./read.ts";
import { firstRow } from "../../db/client.ts";

type BankAccountRow = typeof bankAccounts.$inferSelect;
type TransactionRow = typeof bankTransactions.$inferSelect;

/** What a match's events carry: the documents and the line as their GETs show them. */
export const MATCH_READERS: MatchReaders = { invoice: showInvoice, expense: showExpense, bankTransaction: (tx, orgId, id) => showBankTransaction(tx, orgId, id) };

/** The line's or the path's bank account: 404, and a 409 when it is not active. */
export async function activeBank(tx: Tx, scope: Scope, id: string): Promise<BankAccountRow> {
  const bank = await findInOrg(tx, bankAccounts, scope.org.id, id);
  if (!bank.isActive) throw new Conflict(`The bank account ${bank.name} is not active.`);
  return bank;
}

/** The document an allocation's payment belongs to. */
export async function allocatedDocument(tx: Tx, scope: Scope, a: AllocationRow): Promise<Settled | null> {
  if (a.invoiceId) return { kind: "invoice", row: await findInOrg(tx, invoices, scope.org.id, a.invoiceId) };
  if (a.expenseId) return { kind: "expense", row: await findInOrg(tx, expenses, scope.org.id, a.expenseId) };
  return null;
}

/** Is this account some bank account's ledger account (a transfer's other side)? */
export async function isBankLedger(tx: Tx, scope: Scope, accountId: string | null): Promise<boolean> {
  if (accountId === null) return false;
  return (await firstRow(tx.select({ id: bankAccounts.id }).from(bankAccounts).where(inOrg(bankAccounts, scope.org.id, eq(bankAccounts.accountId, accountId))))) !== undefined;
}

const nounOf = (doc: Settled) => (doc.kind === "expense" ? (doc.row.documentType === "credit_note" ? "supplier's credit note" : "expense") : doc.row.type.replace("_", " "));

/**
 * The allocations of a match or a reclassification, checked (422 naming `allocations.{i}.…`):
 * exactly one of invoice_id, expense_id and account_id each; positive amounts adding up to at most
 * `rest` (what the line has unallocated); a document of the organisation, in the bank account's
 * currency, whose money goes the line's way (money in pays invoices, interest notes and
 * suppliers' credit notes; money out pays expenses and refunds credit notes), awaiting payment,
 * for at most its amount due, named once (or holding a payment recorded by hand of exactly the
 * amount, which the line takes over); an active account that is not receivables or payables
 * (those are settled by documents), suspense, or a bank account's (a transfer is booked).
 */
export async function readAllocations(tx: Tx, scope: Scope, bank: BankAccountRow, line: TransactionRow, inputs: AllocationInput[], rest: number): Promise<Allocation[]> {
  const bag = new FieldErrorBag();
  const out: Allocation[] = [];
  const seen = new Set<string>();
  let sum = 0;
  for (const [i, a] of inputs.entries()) {
    const key = (name: string) => `allocations.${i}.${name}`;
    const cents = readMoney(bag, key("amount"), a.amount, { min: 1 });
    if (cents !== null) {
      sum += cents;
      if (sum > rest) bag.add(key("amount"), `The allocations add up to ${formatCents(sum)} so far, more than the line has unallocated (${formatCents(rest)}).`);
    }
    const named = [a.invoice_id, a.expense_id, a.account_id].filter((x) => x !== undefined).length;
    if (named !== 1) { bag.add(key("invoice_id"), "Give exactly one of invoice_id, expense_id and account_id."); continue; }
    if (a.account_id === undefined) {
      if (a.vat_rate_id !== undefined && a.vat_rate_id !== null) bag.add(key("vat_rate_id"), "A VAT rate goes with an account's allocation only.");
      if (a.description !== undefined && a.description !== null) bag.add(key("description"), "A description goes with an account's allocation only.");
      const kind = a.invoice_id !== undefined ? "invoice" : "expense";
      const field = key(kind === "invoice" ? "invoice_id" : "expense_id");
      const docId = (a.invoice_id ?? a.expense_id)!;
      const target = await findTarget(tx, scope, bag, kind, docId, field);
      if (!target) continue;
      if (seen.has(docId)) { bag.add(field, "The document is named twice; give it one allocation."); continue; }
      seen.add(docId);
      const noun = nounOf(target);
      if (directionOf(target) !== line.direction) {
        bag.add(field, `A ${line.direction} line (money ${line.direction === "credit" ? "in" : "out"}) cannot pay this ${noun}: its money goes ${directionOf(target) === "credit" ? "in" : "out"}.`);
      } else if (target.row.currency !== bank.currency) bag.add(field, `The ${noun} is in ${target.row.currency}; the bank account holds ${bank.currency}.`);
      else if (cents !== null && !await handPayment(tx, scope.org.id, bank, target, cents, line.bookingDate)) {
        const open = target.kind === "invoice" ? (AWAITING_PAYMENT as readonly string[]).includes(target.row.status) : target.row.status === "approved";
        if (!open) bag.add(field, `The ${noun} is ${target.row.status}; only one awaiting payment can be paid.`);
        else if (cents > dueOf(target)) bag.add(key("amount"), `The amount must not be greater than the ${noun}'s amount due (${formatCents(Math.max(dueOf(target), 0))}).`);
      }
      if (cents !== null) out.push({ target, cents });
      continue;
    }
    const field = key("account_id");
    const account = await firstRow(tx.select().from(accounts).where(inOrg(accounts, scope.org.id, eq(accounts.id, a.account_id))));
    if (!account) { bag.add(field, "The selected account_id is invalid."); continue; }
    if (!account.isActive) bag.add(field, `The account ${account.code} ${account.name} is not active.`);
    else if (account.systemAccount === "receivables" || account.systemAccount === "payables") {
      bag.add(field, `The account ${account.code} ${account.name} holds what customers and suppliers owe: allocate to the invoice, credit note or expense instead.`);
    } else if (account.systemAccount === "suspense") bag.add(field, `The account ${account.code} ${account.name} is where the unallocated rest waits already.`);
    else if (await isBankLedger(tx, scope, account.id) || account.systemAccount === "bank") {
      bag.add(field, `The account ${account.code} ${account.name} is a bank account's: book a transfer between own accounts with POST …/book.`);
    }
    let vat: { category: VatCategory; rateBp: number } | null = null;
    if (a.vat_rate_id !== undefined && a.vat_rate_id !== null) {
      const rate = await firstRow(tx.select().from(vatRates).where(inOrg(vatRates, scope.org.id, eq(vatRates.id, a.vat_rate_id))));
      if (!rate) bag.add(key("vat_rate_id"), "The selected vat_rate_id is invalid.");
      else vat = { category: rate.category, rateBp: rate.rateBp };
    }
    if (cents !== null) out.push({ target: { kind: "account", account, vatRateId: a.vat_rate_id ?? null, vat, description: a.description ?? null }, cents });
  }
  bag.throwIfAny();
  return out;
}

export async function findTarget(tx: Tx, scope: Scope, bag: FieldErrorBag, kind: "invoice" | "expense", id: string, field: string = `${kind}_id`): Promise<Settled | null> {
  if (kind === "invoice") {
    const row = await firstRow(tx.select().from(invoices).where(inOrg(invoices, scope.org.id, eq(invoices.id, id))));
    if (!row) bag.add(field, "The selected invoice_id is invalid.");
    return row ? { kind, row } : null;
  }
  const row = await firstRow(tx.select().from(expenses).where(inOrg(expenses, scope.org.id, eq(expenses.id, id))));
  if (!row) bag.add(field, "The selected expense_id is invalid.");
  return row ? { kind, row } : null;
}
