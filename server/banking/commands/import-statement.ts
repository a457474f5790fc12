/**
 * Importing bank statements (`POST /bank-accounts/{id}/statements`); reconciliation (docs/banking.md#bank-statements-and-reconciliation). A statement file (CAMT.053 or CODA, or a ZIP of
 * them, read by server/inbound) becomes bank_transactions of the bank accounts its statements are
 * of (banks put several accounts' and days' statements in one file); credit lines that carry an open
 * invoice's payment reference pay it, debit lines that look like an approved expense's payment
 * are suggested; the rest wait for a person (match, unmatch, ignore).
 *
 * The rules (this file: importing; ../matching.ts: what a line pays; server/settlement: settling it):
 * - Each statement goes into the organisation's bank account with its IBAN; one of them must be
 *   the path's account (422); those of accounts it does not hold are skipped and named. Each
 *   account's statements are imported in date order, the whole file in one transaction.
 * - The statement's currency is its bank account's (422). Its opening balance is the
 *   closing balance of the account's last imported statement (latest closing date); the first
 *   statement of an account may open with any balance. Its lines add up to its closing balance
 *   (the readers check it). Either refusal is a 422 naming the figures and the difference.
 * - The same statement again (bank account, statement id and content, whatever file brings it)
 *   adds nothing: 200 when nothing in the file is new; the same id with other content is a 409. A line already imported through another
 *   statement (same entry reference on the account) is not imported twice.
 * - The first statement of an account posts its opening balance (booking.ts); after that every
 *   line is in the bank account's ledger balance from its import: through the payment of a match
 *   on import, a booking on import (a transfer), or else against the suspense account, which it
 *   leaves in one entry when it is matched, allocated or booked later, and returns to when that is
 *   undone (docs/banking.md#suspense). So the ledger balance is the last statement's closing
 *   balance plus the payments recorded by hand through the account that no line holds.
 * - A line pays several documents and accounts (allocations, settlement/bank-matches.ts):
 *   partially_matched until they add up to its amount; on import, a credit line of exactly an
 *   invoice's amount due plus its open interest notes', with the invoice's reference, pays them all.
 * - A credit line matches an invoice when its structured reference (or a valid reference in its
 *   free text) is the invoice's payment_reference, the invoice awaits payment in the account's
 *   currency, and the line is at most its amount due. A larger line is left unmatched (in
 *   suspense) unless its interest notes make up the difference exactly.
 * - Replaces, never doubles: before recording a payment for a match, a payment of that document
 *   of exactly the matched amount that no bank line holds yet (one recorded by hand) is taken
 *   over: the line links to it, and if it went through another bank account its posting is
 *   reversed and posted again through this one. Only when there is none is a payment recorded.
 *
 * Refuses: 404 for no such bank account (before the file is read); 409 when it is not active, or a
 * statement id was imported with other content; 422 naming the field (`iban`: none of the file's
 * statements is of this account; `currency`, `opening_balance`, `opening_date`, numbered
 * `statements[i].…` in a file of several); the readers' 422 for a file that is no statement.
 * Records: bank_statement.imported (audit) per statement, an account's opening balance
 * (booking.ts), bank_transaction.imported (audit and event) per line, then the line's match
 * (bank_transaction.matched_on_import, the payment and its postings), its transfer booking
 * (bank_transaction.booked_on_import), or bank_transaction.posted_to_suspense and its entry.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Tx } from "../../../db/client.ts";
import { bankAccounts, bankStatements, bankTransactions, expenses } from "../../../db/schema.ts";
import { recordChange } from "../../changes/record.ts";
import type { DocumentUpload } from "../../http/kernel.ts";
import type { BankStatementEntry } from "../../inbound/bank-statement.ts";
import { Conflict, FieldErrorBag, ValidationFailed } from "../../lib/errors.ts";
import { formatCents } from "../../lib/money.ts";
import { findInOrg, snapshot, unitOfWork, updateInOrg, type Scope } from "../../lib/scope.ts";
import { newId, nowIso } from "../../lib/time.ts";
import { suspenseDraft } from "../../settlement/allocations.ts";
import { allocateLine } from "../../settlement/bank-matches.ts";
import { invoiceDueCents } from "../../settlement/due.ts";
import { NOT_MATCHED } from "../../settlement/payments.ts";
import { activeBank, MATCH_READERS } from "../allocations.ts";
import { bookTransferOnImport, edgeStatement, isFirstStatement, NOT_BOOKED, postOpeningBalance } from "../booking.ts";
import { expensePaidBy, expensePaidByReference, forgetExpense, invoicePaidBy, invoiceWithNotesPaidBy, openExpensesByDue, suggestedExpense } from "../matching.ts";
import { presentStatement, presentTransaction } from "../read.ts";
import { readStatementFile, type FileStatement } from "../statement-file.ts";
import { firstRow } from "../../../db/client.ts";

type BankAccountRow = typeof bankAccounts.$inferSelect;
type StatementRow = typeof bankStatements.$inferSelect;
type TransactionRow = typeof bankTransactions.$inferSelect;
type ExpenseRow = typeof expenses.$inferSelect;
/**
 * Imports the statements of a file (one or several statements, or a ZIP archive of statement
 * files). The bank account's own statements and those of the organisation's other bank accounts
 * (by IBAN) are imported, each account's in date order; those of accounts it does not hold are
 * skipped. `data` is the bank account's latest statement of the file, `statements` what became of
 * each. One transaction: a statement that cannot be imported (422, 409) refuses the whole file.
 * `created` is false when nothing was added.
 */
/** `received` gives the file, or throws the kernel's refusal of it (415, 413): called after the 404 check. */
export async function importStatement(scope: Scope, bankAccountId: string, received: () => DocumentUpload) {
  // 404 before reading the file
  await snapshot(scope.db, (tx) => findInOrg(tx, bankAccounts, scope.org.id, bankAccountId));
  const upload = received();
  const statements = readStatementFile(upload);
  const single = statements.length === 1;
  // a single statement keeps the field names it always had; several are numbered
  const field = (s: FileStatement, name: string) => (single ? name : `statements[${s.index}].${name}`);
  return await unitOfWork(scope.db, async (tx) => {
    const bank = await activeBank(tx, scope, bankAccountId);
    const owned = await tx.select().from(bankAccounts).where(eq(bankAccounts.organizationId, scope.org.id));
    // the path's account first: an IBAN held twice (a replaced account) belongs to it
    const ownerOf = (iban: string) => (iban === bank.iban ? bank : (owned.find((a) => a.iban === iban && a.isActive) ?? owned.find((a) => a.iban === iban) ?? null));

    const bag = new FieldErrorBag();
    if (!statements.some((s) => s.statement.iban === bank.iban)) {
      const ibans = [...new Set(statements.map((s) => s.statement.iban))].join(", ");
      bag.add(
        "iban",
        single
          ? `The statement is of account ${ibans}, not of the bank account ${bank.name} (${bank.iban}).`
          : `None of the file's ${statements.length} statements is of the bank account ${bank.name} (${bank.iban}); they are of ${ibans}. Import the file through one of those accounts.`,
      );
    }
    for (const s of statements) {
      const owner = await ownerOf(s.statement.iban);
      if (owner?.isActive && s.statement.currency !== owner.currency) {
        bag.add(field(s, "currency"), `The statement ${s.statement.statementId} is in ${s.statement.currency}; the bank account ${owner.name} holds ${owner.currency}.`);
      }
    }
    bag.throwIfAny();

    const results = new Map<FileStatement, { result: "imported" | "already_imported" | "skipped"; reason: string | null; owner: BankAccountRow | null; row: StatementRow | null; imported: number }>();
    // each account's statements in balance order: by date, the file's order among equal dates
    const ordered = [...statements].sort(
      (a, b) => a.statement.openingBalance.date.localeCompare(b.statement.openingBalance.date) || a.statement.closingBalance.date.localeCompare(b.statement.closingBalance.date) || a.index - b.index,
    );
    const now = nowIso();
    for (const s of ordered) {
      const owner = await ownerOf(s.statement.iban);
      if (owner === null) {
        results.set(s, { result: "skipped", reason: `The organisation has no bank account with IBAN ${s.statement.iban}.`, owner, row: null, imported: 0 });
      } else if (!owner.isActive) {
        results.set(s, { result: "skipped", reason: `The bank account ${owner.name} (${owner.iban}) is not active.`, owner, row: null, imported: 0 });
      } else {
        const { row, imported } = await importOne(tx, scope, owner, s, now, (name) => field(s, name), single);
        results.set(s, { result: imported === null ? "already_imported" : "imported", reason: null, owner, row, imported: imported ?? 0 });
      }
    }

    const own = ordered.filter((s) => results.get(s)!.owner?.id === bank.id);
    const latest = results.get(own[own.length - 1]!)!;
    const created = [...results.values()].some((r) => r.result === "imported");
    return {
      created,
      statement: await presentStatement(tx, latest.row!, latest.imported),
      statements: statements.map((s) => {
        const r = results.get(s)!;
        return {
          file: s.file,
          statement_id: s.statement.statementId,
          iban: s.statement.iban,
          currency: s.statement.currency,
          opening_balance: formatCents(s.statement.openingBalance.cents),
          opening_date: s.statement.openingBalance.date,
          closing_balance: formatCents(s.statement.closingBalance.cents),
          closing_date: s.statement.closingBalance.date,
          result: r.result,
          reason: r.reason,
          bank_account_id: r.owner?.id ?? null,
          id: r.row?.id ?? null,
          transactions_imported: r.imported,
        };
      }),
    };
  });
}

/**
 * One statement into its bank account: `imported` is null when the same statement was imported
 * before (nothing added). Refuses (409, 422) a statement id imported with other content, and an
 * opening balance that does not follow on from the account's last statement.
 */
async function importOne(
  tx: Tx,
  scope: Scope,
  bank: BankAccountRow,
  { statement, sha256, fileSha256 }: FileStatement,
  now: string,
  field: (name: string) => string,
  single: boolean,
): Promise<{ row: StatementRow; imported: number | null }> {
  const before = await firstRow(tx.select().from(bankStatements).where(and(eq(bankStatements.bankAccountId, bank.id), eq(bankStatements.statementId, statement.statementId))));
  if (before) {
    if (before.sha256 !== sha256 && before.sha256 !== fileSha256) {
      throw new Conflict(`Statement ${statement.statementId} of ${bank.iban} was imported before (${before.id}) with other content; a statement is imported once.`);
    }
    return { row: before, imported: null };
  }
  const last = await edgeStatement(tx, bank.id, "last");
  const first = await isFirstStatement(tx, bank, statement.openingBalance.date, (message) => {
    throw ValidationFailed.field(field("opening_date"), single ? message : `Statement ${statement.statementId} of ${bank.iban}: ${message}`);
  });
  if (last && last.closingCents !== statement.openingBalance.cents) {
    throw ValidationFailed.field(
      field("opening_balance"),
      `${single ? "The statement" : `Statement ${statement.statementId} of ${bank.iban}`} opens with ${formatCents(statement.openingBalance.cents)}, but statement ${last.statementId} closed with ${formatCents(last.closingCents)} on ${last.closingDate}: a difference of ${formatCents(statement.openingBalance.cents - last.closingCents)}. Import the statements in between first.`,
    );
  }

  const row: StatementRow = {
    id: newId(),
    organizationId: scope.org.id,
    bankAccountId: bank.id,
    statementId: statement.statementId,
    format: statement.format,
    currency: statement.currency,
    openingCents: statement.openingBalance.cents,
    openingDate: statement.openingBalance.date,
    closingCents: statement.closingBalance.cents,
    closingDate: statement.closingBalance.date,
    sha256,
    createdAt: now,
  };
  await tx.insert(bankStatements).values(row);
  await recordChange(tx, scope, { action: "bank_statement.imported", resource: { type: "bank_statement", id: row.id } });
  if (first) await postOpeningBalance(tx, scope, bank, statement.openingBalance, row.id);

  const known = new Set(
    statement.entries.length === 0
      ? []
      : (await tx
          .select({ ref: bankTransactions.entryRef })
          .from(bankTransactions)
          .where(and(eq(bankTransactions.bankAccountId, bank.id), inArray(bankTransactions.entryRef, statement.entries.map((e) => e.entryRef)))))
          .map((r) => r.ref),
  );
  let imported = 0;
  let openByDue: Map<number, ExpenseRow[]> | null = null;
  const openExpenses = async () => (openByDue ??= await openExpensesByDue(tx, scope.org.id, bank.currency));
  for (const entry of statement.entries) {
    if (known.has(entry.entryRef)) continue;
    known.add(entry.entryRef);
    imported++;
    await importLine(tx, scope, bank, row.id, entry, now, openExpenses);
  }
  return { row, imported };
}

/** One new line of a statement: stored unmatched (bank_transaction.imported), then matched by reference or given a suggestion. */
async function importLine(
  tx: Tx,
  scope: Scope,
  bank: BankAccountRow,
  statementId: string,
  entry: BankStatementEntry,
  now: string,
  openExpenses: () => Promise<Map<number, ExpenseRow[]>>,
): Promise<void> {
  const line: TransactionRow = {
    id: newId(),
    organizationId: scope.org.id,
    bankAccountId: bank.id,
    statementId,
    entryRef: entry.entryRef,
    bookingDate: entry.bookingDate,
    valueDate: entry.valueDate,
    amountCents: entry.amountCents,
    direction: entry.direction,
    counterpartyName: entry.counterpartyName,
    counterpartyIban: entry.counterpartyIban,
    communication: entry.communication,
    structuredReference: entry.structuredReference,
    ...NOT_MATCHED,
    ...NOT_BOOKED,
    suggestedExpenseId: null,
    createdAt: now,
    updatedAt: now,
  };
  await tx.insert(bankTransactions).values(line);
  await recordChange(tx, scope, {
    action: "bank_transaction.imported",
    resource: { type: "bank_transaction", id: line.id },
    event: "bank_transaction.imported",
    data: presentTransaction(line),
  });
  // a credit line pays an invoice, a debit line refunds a credit note: by the document's payment reference
  const invoice = await invoicePaidBy(tx, scope.org.id, bank, line);
  if (invoice) return void await allocateLine(tx, scope, bank, line, [{ target: { kind: "invoice", row: invoice }, cents: line.amountCents }], "import", MATCH_READERS);
  // an invoice and its interest notes in one transfer, as the reminder letter asks
  const withNotes = await invoiceWithNotesPaidBy(tx, scope.org.id, bank, line);
  if (withNotes) {
    const allocations = withNotes.map((row) => ({ target: { kind: "invoice" as const, row }, cents: invoiceDueCents(row) }));
    return void await allocateLine(tx, scope, bank, line, allocations, "import", MATCH_READERS);
  }
  if (line.direction === "debit") {
    // a payment run's transfer (its EndToEndId), else the supplier's payment reference or IBAN and amount
    const expense = await expensePaidBy(tx, scope.org.id, bank, line, entry.endToEndId) ?? expensePaidByReference(line, await openExpenses());
    if (expense) {
      forgetExpense(await openExpenses(), expense);
      return void await allocateLine(tx, scope, bank, line, [{ target: { kind: "expense", row: expense }, cents: line.amountCents }], "import", MATCH_READERS);
    }
  }
  if (await bookTransferOnImport(tx, scope, bank, line)) return;
  // nothing holds the line: its money waits in suspense until it is matched, booked or allocated
  await recordChange(tx, scope, {
    action: "bank_transaction.posted_to_suspense",
    resource: { type: "bank_transaction", id: line.id },
    ledger: [{ post: await suspenseDraft(tx, scope.org.id, line, line.amountCents) }],
  });
  if (line.direction === "debit") {
    const suggestion = suggestedExpense(line, await openExpenses());
    if (suggestion) await updateInOrg(tx, bankTransactions, scope.org.id, line.id, { suggestedExpenseId: suggestion });
  }
}
