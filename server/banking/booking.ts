/**
 * Bank lines that settle no document: booked to an account of the chart with their
 * VAT (a bank fee, interest), or a transfer between two of the organisation's own bank accounts,
 * whose two lines hold one entry; and the opening balance the first statement of an account
 * brings into the books. Postings go through recordChange (the ledger's rules: bankLineEntry,
 * openingBalanceEntry).
 *
 * - Booking posts one entry, dated the line's booking date; unbooking reverses it (entries are
 *   never edited) on the same date, and the line is unmatched again. Both lines of a transfer are
 *   booked and unbooked together.
 * - A line is not booked to receivables or payables (match it with the invoice or expense: that
 *   settles the document), nor to its own bank account.
 * - Booked to another own bank account's ledger account, a line is a transfer: the other
 *   account's line of the same money (opposite direction, same amount, within TRANSFER_DAYS,
 *   preferring one that names this account's IBAN) is booked with it, now or when its statement
 *   is imported. On import, a line whose counterparty IBAN is another own bank account of the
 *   same currency is booked as a transfer by itself.
 */
import { asc, between, desc, eq, isNull, sql, type SQL } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { accounts, bankAccounts, bankStatements, bankTransactions, vatRates } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { systemAccount } from "../ledger/accounts.ts";
import { bankLineEntry, bankLineSelfAssessment, openingBalancePosting } from "../ledger/rules.ts";
import { Conflict, FieldErrorBag } from "../lib/errors.ts";
import { findInOrg, inOrg, updateInOrg, type Scope } from "../lib/scope.ts";
import { addDays, newId, nowIso } from "../lib/time.ts";
import { lineName, suspenseDraft } from "../settlement/allocations.ts";
import { NOT_MATCHED } from "../settlement/payments.ts";
import type { AccountType } from "../../db/values.ts";
import type { BankTransactionBook } from "./model.ts";
import { showBankTransaction } from "./read.ts";
import { firstRow } from "../../db/client.ts";
import { daysApart } from "../../db/dialect.ts";

type BankAccountRow = typeof bankAccounts.$inferSelect;
type TransactionRow = typeof bankTransactions.$inferSelect;

/** How far apart the two lines of a transfer between own accounts may be booked (a transfer can take a few bank days). */
const TRANSFER_DAYS = 5;

/** What a booked line no longer holds once unbooked. */
export const NOT_BOOKED = { bookedAccountId: null, bookedVatRateId: null, journalEntryId: null, transferLineId: null, suspenseExitEntryId: null } as const;

/** Books an unmatched line to an account of the chart (with a VAT rate), or as a transfer to another own bank account. */
export async function postBooking(tx: Tx, scope: Scope, line: TransactionRow, input: BankTransactionBook): Promise<void> {
  if (line.status !== "unmatched") throw new Conflict(`The bank transaction is ${line.status}; only an unmatched one can be booked (unmatch or unbook it first).`);
  const bank = await findInOrg(tx, bankAccounts, scope.org.id, line.bankAccountId);
  const bag = new FieldErrorBag();
  const account = await firstRow(tx.select().from(accounts).where(inOrg(accounts, scope.org.id, eq(accounts.id, input.account_id))));
  let other: BankAccountRow | null = null;
  if (!account) bag.add("account_id", "The selected account_id is invalid.");
  else if (!account.isActive) bag.add("account_id", `The account ${account.code} ${account.name} is not active.`);
  else if (account.systemAccount === "receivables" || account.systemAccount === "payables") {
    bag.add("account_id", `The account ${account.code} ${account.name} holds what customers and suppliers owe: match the line with its invoice, credit note or expense instead.`);
  } else if (account.systemAccount === "suspense") {
    bag.add("account_id", `The account ${account.code} ${account.name} is where the line waits until it is booked or matched; book it to the account it belongs to.`);
  } else if (account.id === bank.accountId) bag.add("account_id", `The account ${account.code} ${account.name} is the line's own bank account.`);
  else {
    other = (await firstRow(tx.select().from(bankAccounts).where(inOrg(bankAccounts, scope.org.id, eq(bankAccounts.accountId, account.id))))) ?? null;
    if (other && other.currency !== bank.currency) bag.add("account_id", `The bank account ${other.name} holds ${other.currency}; the line is in ${bank.currency}.`);
  }
  let vat: { category: (typeof vatRates.$inferSelect)["category"]; rateBp: number } | null = null;
  if (input.vat_rate_id !== undefined && input.vat_rate_id !== null) {
    const rate = await firstRow(tx.select().from(vatRates).where(inOrg(vatRates, scope.org.id, eq(vatRates.id, input.vat_rate_id))));
    if (!rate) bag.add("vat_rate_id", "The selected vat_rate_id is invalid.");
    else if (other) bag.add("vat_rate_id", "A transfer between own bank accounts carries no VAT.");
    else vat = { category: rate.category, rateBp: rate.rateBp };
  }
  bag.throwIfAny();
  // an unmatched line's money is in suspense: booking takes it out of there
  if (other) return void await bookTransfer(tx, scope, bank, line, other, "bank_transaction.booked", true);
  await post(tx, scope, bank, line, account!, input.vat_rate_id ?? null, vat, input.description ?? null, "bank_transaction.booked", true);
}

/**
 * A line of `bank` that moves money to or from the own account `other`: the other half already
 * booked there (its line came first) takes this one in; else it is posted, and the other
 * account's line of the same money, if already imported, joins it. The transfer is posted once.
 */
async function bookTransfer(tx: Tx, scope: Scope, bank: BankAccountRow, line: TransactionRow, other: BankAccountRow, action: string, inSuspense: boolean): Promise<void> {
  const waiting = (await bookedHalf(tx, scope.org.id, bank, line)).find((w) => w.bankAccountId === other.id);
  if (waiting) return joinTransfer(tx, scope, waiting, line, other, inSuspense);
  await post(tx, scope, bank, line, { id: other.accountId, type: "asset" }, null, null, null, action, inSuspense);
  const pair = await transferPartner(tx, scope.org.id, line, other, bank);
  // the partner was imported before: unmatched, in suspense
  if (pair) await joinTransfer(tx, scope, await findInOrg(tx, bankTransactions, scope.org.id, line.id), pair, bank, true);
}

/**
 * Could `candidate` (a line of `owner`) be the other half of a transfer from or to `bank`? Only
 * when it names no counterparty, or names `bank`: a line naming a third party's IBAN is that
 * party's money, however equal the amount.
 */
const namesOnly = (candidate: TransactionRow, bank: BankAccountRow) => candidate.counterpartyIban === null || candidate.counterpartyIban === bank.iban;

/** Lines of the same money as `line` the other way round (the same amount, the opposite direction, near in time) that also meet `where`, nearest first. */
async function sameMoneyLines(tx: Tx, orgId: string, line: TransactionRow, ...where: SQL[]): Promise<TransactionRow[]> {
  return await tx
    .select()
    .from(bankTransactions)
    .where(
      inOrg(
        bankTransactions,
        orgId,
        eq(bankTransactions.amountCents, line.amountCents),
        eq(bankTransactions.direction, line.direction === "credit" ? "debit" : "credit"),
        between(bankTransactions.bookingDate, addDays(line.bookingDate, -TRANSFER_DAYS), addDays(line.bookingDate, TRANSFER_DAYS)),
        ...where,
      ),
    )
    .orderBy(sql`${daysApart(bankTransactions.bookingDate, sql`${line.bookingDate}`)}`, asc(bankTransactions.createdAt));
}

/** Booked, unpaired transfer lines on other own accounts that moved this line's money to or from `bank`. */
async function bookedHalf(tx: Tx, orgId: string, bank: BankAccountRow, line: TransactionRow): Promise<TransactionRow[]> {
  return (await sameMoneyLines(tx, orgId, line, eq(bankTransactions.bookedAccountId, bank.accountId), eq(bankTransactions.status, "booked"), isNull(bankTransactions.transferLineId))).filter(
    (w) => w.bankAccountId !== bank.id,
  );
}

/**
 * Unbooks a booked line (and the other line of its transfer): the entry is reversed, the lines are
 * unmatched again, back in suspense: a line booked out of suspense returns there by the reversal
 * (of its booking, or of the entry that took the transfer's second line out); one booked on
 * import is posted into suspense.
 */
export async function reverseBooking(tx: Tx, scope: Scope, line: TransactionRow): Promise<void> {
  if (line.status !== "booked") throw new Conflict(`The bank transaction is ${line.status}; only a booked one can be unbooked.`);
  const lines = [line];
  if (line.transferLineId) lines.push(await findInOrg(tx, bankTransactions, scope.org.id, line.transferLineId));
  const now = nowIso();
  for (const [i, l] of lines.entries()) {
    await updateInOrg(tx, bankTransactions, scope.org.id, l.id, { ...NOT_MATCHED, ...NOT_BOOKED, updatedAt: now });
    await recordChange(tx, scope, {
      action: "bank_transaction.unbooked",
      resource: { type: "bank_transaction", id: l.id },
      event: "bank_transaction.unbooked",
      data: () => showBankTransaction(tx, scope.org.id, l.id),
      ledger: [
        // the two lines of a transfer hold one entry: reversed once
        ...(i === 0 && line.journalEntryId ? [{ reverseEntry: { entryId: line.journalEntryId } }] : []),
        ...(l.suspenseExitEntryId === null
          ? [{ post: await suspenseDraft(tx, scope.org.id, l, l.amountCents) }]
          : l.suspenseExitEntryId !== l.journalEntryId
            ? [{ reverseEntry: { entryId: l.suspenseExitEntryId } }]
            : []),
      ],
    });
  }
}

/**
 * On import, after matching by reference found no document: the other half of a transfer booked
 * on another own account joins it; a line that names another own account's IBAN is booked as a
 * transfer to it. True when the line was booked.
 */
export async function bookTransferOnImport(tx: Tx, scope: Scope, bank: BankAccountRow, line: TransactionRow): Promise<boolean> {
  const owners = new Map<string, BankAccountRow>();
  const ownerOf = async (id: string) => owners.get(id) ?? owners.set(id, await findInOrg(tx, bankAccounts, scope.org.id, id)).get(id)!;
  // the other half, booked first on its own account, if this line could be it
  let first: TransactionRow | undefined;
  for (const w of await bookedHalf(tx, scope.org.id, bank, line)) {
    if (namesOnly(line, await ownerOf(w.bankAccountId)) && namesOnly(w, bank)) {
      first = w;
      break;
    }
  }
  if (first) {
    await joinTransfer(tx, scope, first, line, await ownerOf(first.bankAccountId), false);
    return true;
  }
  if (!line.counterpartyIban || line.counterpartyIban === bank.iban) return false;
  const other = await firstRow(tx
    .select()
    .from(bankAccounts)
    .where(inOrg(bankAccounts, scope.org.id, eq(bankAccounts.iban, line.counterpartyIban), eq(bankAccounts.isActive, true), eq(bankAccounts.currency, bank.currency))));
  if (!other) return false;
  await bookTransfer(tx, scope, bank, line, other, "bank_transaction.booked_on_import", false);
  return true;
}

/** The other own account's line of a transfer just booked: unmatched, of the same money. */
async function transferPartner(tx: Tx, orgId: string, line: TransactionRow, other: BankAccountRow, bank: BankAccountRow): Promise<TransactionRow | null> {
  const candidates = await sameMoneyLines(tx, orgId, line, eq(bankTransactions.bankAccountId, other.id), eq(bankTransactions.status, "unmatched"));
  return candidates.find((c) => c.counterpartyIban === bank.iban) ?? candidates.find((c) => namesOnly(c, bank) && namesOnly(line, other)) ?? null;
}

/**
 * `second` joins the transfer `first` booked: it holds the same entry, and each names the other.
 * The transfer's entry moved the money into `second`'s account already: when `second` sat in
 * suspense, one entry takes it out of there against its bank account.
 */
async function joinTransfer(tx: Tx, scope: Scope, first: TransactionRow, second: TransactionRow, firstBank: BankAccountRow, secondInSuspense: boolean): Promise<void> {
  const now = nowIso();
  const exitId = secondInSuspense ? newId() : null;
  await updateInOrg(tx, bankTransactions, scope.org.id, first.id, { transferLineId: second.id, updatedAt: now });
  await updateInOrg(tx, bankTransactions, scope.org.id, second.id, {
    ...NOT_MATCHED,
    status: "booked",
    bookedAccountId: firstBank.accountId,
    journalEntryId: first.journalEntryId,
    transferLineId: first.id,
    suspenseExitEntryId: exitId,
    suggestedExpenseId: null,
    updatedAt: now,
  });
  for (const id of [first.id, second.id]) {
    await recordChange(tx, scope, {
      action: "bank_transaction.transfer_matched",
      resource: { type: "bank_transaction", id },
      event: "bank_transaction.booked",
      data: () => showBankTransaction(tx, scope.org.id, id),
      ledger: id === second.id && exitId ? [{ post: await suspenseDraft(tx, scope.org.id, second, -second.amountCents, exitId) }] : [],
    });
  }
}

/** Posts a line to `accountId` and marks it booked. */
async function post(
  tx: Tx,
  scope: Scope,
  bank: BankAccountRow,
  line: TransactionRow,
  account: { id: string; type: AccountType },
  vatRateId: string | null,
  vat: { category: (typeof vatRates.$inferSelect)["category"]; rateBp: number } | null,
  description: string | null,
  action: string,
  inSuspense: boolean,
): Promise<void> {
  const entryId = newId();
  const accountId = account.id;
  // revenue is sold: output VAT; anything else (costs, assets) is bought: input VAT
  const side = account.type === "revenue" ? "sales" : "purchases";
  const vatAccount = vat === null ? null : (await systemAccount(tx, scope.org.id, side === "sales" ? "vat_payable" : "vat_receivable")).id;
  const draft = bankLineEntry(
    {
      lineId: line.id,
      entryId,
      date: line.bookingDate,
      currency: bank.currency,
      direction: line.direction,
      amountCents: line.amountCents,
      description: (description ?? lineName(line)).slice(0, 1000),
      vat: vat && { ...vat, side },
    },
    {
      bank: inSuspense ? (await systemAccount(tx, scope.org.id, "suspense")).id : bank.accountId,
      account: accountId,
      vat: vatAccount,
      selfAssessment: side === "purchases" && vat ? await bankLineSelfAssessment(tx, scope.org.id) : null,
    },
  );
  await updateInOrg(tx, bankTransactions, scope.org.id, line.id, {
    ...NOT_MATCHED,
    status: "booked",
    bookedAccountId: accountId,
    bookedVatRateId: vatRateId,
    journalEntryId: entryId,
    transferLineId: null,
    suspenseExitEntryId: inSuspense ? entryId : null,
    suggestedExpenseId: null,
    updatedAt: nowIso(),
  });
  await recordChange(tx, scope, {
    action,
    resource: { type: "bank_transaction", id: line.id },
    event: "bank_transaction.booked",
    data: () => showBankTransaction(tx, scope.org.id, line.id),
    ledger: [{ post: draft }],
  });
}

// The opening balance

/** A bank account's first or last imported statement, by closing date (the index bank_statements_account_closing): its balances chain. */
export async function edgeStatement(tx: Tx, bankAccountId: string, which: "first" | "last") {
  const order = which === "first" ? asc : desc;
  return await firstRow(tx
    .select()
    .from(bankStatements)
    .where(eq(bankStatements.bankAccountId, bankAccountId))
    .orderBy(order(bankStatements.closingDate), order(bankStatements.createdAt))
    .limit(1));
}

/**
 * Before a statement is stored: a statement older than the account's first one is refused (its
 * opening balance is in the books). True when the account has no statement yet: its opening
 * balance is then posted (postOpeningBalance) once the statement is stored.
 */
export async function isFirstStatement(tx: Tx, bank: BankAccountRow, openingDate: string, refuse: (message: string) => never): Promise<boolean> {
  const first = await edgeStatement(tx, bank.id, "first");
  if (!first) return true;
  if (openingDate < first.openingDate) {
    refuse(
      `The statement opens on ${openingDate}, before the first statement imported for ${bank.name} (${first.statementId}, opening on ${first.openingDate}), whose opening balance is the account's opening balance in the books; an older statement cannot be imported after it.`,
    );
  }
  return false;
}

/**
 * The opening balance entry of a bank account's first statement (`statementId`: its stored row):
 * the bank's opening balance less what the books already hold for the account on the day before
 * (payments recorded by hand before the statement), so the ledger balance equals the bank's.
 */
export async function postOpeningBalance(tx: Tx, scope: Scope, bank: BankAccountRow, opening: { cents: number; date: string }, statementId: string): Promise<void> {
  const draft = await openingBalancePosting(tx, bank, { statementId, ...opening });
  if (!draft) return;
  await recordChange(tx, scope, { action: "bank_account.opening_balance_posted", resource: { type: "bank_account", id: bank.id }, ledger: [{ post: draft }] });
}
