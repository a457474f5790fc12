/**
 * Bank statements and reconciliation (docs/banking.md#bank-statements-and-reconciliation). A statement file (CAMT.053 or CODA, or a ZIP of
 * them, read by server/inbound) becomes bank_transactions of the bank accounts its statements are
 * of (banks put several accounts' and days' statements in one file); credit lines that carry an open
 * invoice's payment reference pay it, debit lines that look like an approved expense's payment
 * are suggested; the rest wait for a person (match, unmatch, ignore).
 *
 * The rules (this file: statements; matching.ts: what a line pays; server/settlement: settling it):
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
 */
import { createHash } from "node:crypto";
import { bookLine, bookTransferOnImport, edgeStatement, isFirstStatement, NOT_BOOKED, postOpeningBalance, unbookLine } from "./booking.ts";
import { expensePaidBy, expensePaidByReference, forgetExpense, invoicePaidBy, invoiceWithNotesPaidBy, openExpensesByDue, suggestedExpense } from "./matching.ts";
import { bankTransactionList, presentStatement, presentTransaction, presentTransactions, showBankTransaction } from "./read.ts";
import { and, eq, inArray } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { accounts, AWAITING_PAYMENT, bankAccounts, bankStatements, bankTransactions, expenses, invoices, vatRates } from "../../db/schema.ts";
import type { VatCategory } from "../../db/values.ts";
import { recordChange } from "../changes/record.ts";
import { showExpense } from "../expenses/service.ts";
import type { DocumentUpload } from "../http/kernel.ts";
import type { BankStatement, BankStatementEntry } from "../inbound/bank-statement.ts";
import { decodeCoda, decodeXml, looksLikeXml, looksLikeZip } from "../inbound/decode.ts";
import { InboundDocumentError, STATEMENT_FORMATS } from "../inbound/errors.ts";
import { showInvoice } from "../invoices/read.ts";
import { Conflict, FieldErrorBag, ValidationFailed } from "../lib/errors.ts";
import { listPage, type ListQuery } from "../lib/list.ts";
import { formatCents, readMoney } from "../lib/money.ts";
import { findInOrg, inOrg, snapshot, unitOfWork, updateInOrg, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { allocatedCents, suspenseDraft, type AllocationRow } from "../settlement/allocations.ts";
import { allocateLine, handPayment, unallocateLine, type Allocation, type MatchReaders } from "../settlement/bank-matches.ts";
import { invoiceDueCents } from "../settlement/due.ts";
import { directionOf, dueOf, NOT_MATCHED, type Settled } from "../settlement/payments.ts";
import type { AllocationInput, BankTransactionBook, BankTransactionMatch, BankTransactionReclassify } from "./model.ts";

/**
 * The statement readers (camt.053, CODA, ZIP), loaded by the first import (synchronously: the
 * import is one transaction): an HTTP thread that never imports a statement never loads them.
 */
const statementReaders = () => ({
  camt053: require("../inbound/camt053.ts") as typeof import("../inbound/camt053.ts"),
  coda: require("../inbound/coda.ts") as typeof import("../inbound/coda.ts"),
  zip: require("../inbound/zip.ts") as typeof import("../inbound/zip.ts"),
});

type BankAccountRow = typeof bankAccounts.$inferSelect;
type StatementRow = typeof bankStatements.$inferSelect;
type TransactionRow = typeof bankTransactions.$inferSelect;

type ExpenseRow = typeof expenses.$inferSelect;

/** What a match's events carry: the documents and the line as their GETs show them. */
const MATCH_READERS: MatchReaders = { invoice: showInvoice, expense: showExpense, bankTransaction: (tx, orgId, id) => showBankTransaction(tx, orgId, id) };

/** A statement of an uploaded file, with the ZIP member it came from and what identifies its content. */
type FileStatement = { file: string | null; index: number; statement: BankStatement; sha256: string; fileSha256: string | null };

/** The statements of an upload: XML is camt.053, a ZIP archive holds statement files, text that starts like a CODA header is CODA. */
function readStatementFile(upload: DocumentUpload): FileStatement[] {
  if (looksLikeZip(upload.bytes)) {
    const members = statementReaders().zip.readZip(upload.bytes);
    if (members.length === 0) throw new InboundDocumentError("/", "The ZIP archive holds no file.");
    const statements = members.flatMap((member) => {
      if (looksLikeZip(member.bytes)) throw new InboundDocumentError(member.name, "The file is a ZIP archive inside the ZIP archive; Kontor reads statement files in one archive, not archives in archives.");
      try {
        return statementsOf(member.bytes, null).map((statement) => ({ file: member.name, statement }));
      } catch (error) {
        // name the member: the path alone does not say which file of the archive is wrong
        if (error instanceof InboundDocumentError) throw new InboundDocumentError(memberPath(member.name, error.path), error.message);
        throw error;
      }
    });
    return statements.map(({ file, statement }, index) => ({ file, index, statement, sha256: contentHash(statement), fileSha256: null }));
  }
  const statements = statementsOf(upload.bytes, upload.charset);
  // statements imported before files could hold several were recognised by the file's hash; a one-statement file still is
  const fileSha256 = statements.length === 1 ? createHash("sha256").update(upload.bytes).digest("hex") : null;
  return statements.map((statement, index) => ({ file: null, index, statement, sha256: contentHash(statement), fileSha256 }));
}

/** Where in a ZIP member: `name.xml/Document/…`, `name.coda line 3`, or the member's name for the whole file. */
function memberPath(name: string, path: string): string {
  if (path === "/") return name;
  return path.startsWith("/") ? `${name}${path}` : `${name} ${path}`;
}

function statementsOf(bytes: Uint8Array, charset: string | null): BankStatement[] {
  if (looksLikeXml(bytes)) return statementReaders().camt053.readCamt053(decodeXml(bytes, charset));
  // a CODA file opens with its header record: record type 0, then four zeros and the creation date
  if (/^\uFEFF?0{5}\d{6}/.test(new TextDecoder("latin1").decode(bytes.subarray(0, 16)).replace(/^ï»¿/, ""))) return statementReaders().coda.readCoda(decodeCoda(bytes, charset));
  throw new InboundDocumentError("/", `The file is no bank statement: it is neither camt.053 XML, a CODA file nor a ZIP archive. ${STATEMENT_FORMATS}`);
}

/** What a statement says, whatever file (plain, several statements, ZIP member) brought it. */
function contentHash(statement: BankStatement): string {
  return createHash("sha256").update(JSON.stringify(statement)).digest("hex");
}

function activeBank(tx: Tx, scope: Scope, id: string): BankAccountRow {
  const bank = findInOrg(tx, bankAccounts, scope.org.id, id);
  if (!bank.isActive) throw new Conflict(`The bank account ${bank.name} is not active.`);
  return bank;
}

export const bankingService = {
  /**
   * Imports the statements of a file (one or several statements, or a ZIP archive of statement
   * files). The bank account's own statements and those of the organisation's other bank accounts
   * (by IBAN) are imported, each account's in date order; those of accounts it does not hold are
   * skipped. `data` is the bank account's latest statement of the file, `statements` what became of
   * each. One transaction: a statement that cannot be imported (422, 409) refuses the whole file.
   * `created` is false when nothing was added.
   */
  /** `received` gives the file, or throws the kernel's refusal of it (415, 413): called after the 404 check. */
  async importStatement(scope: Scope, bankAccountId: string, received: () => DocumentUpload) {
    // 404 before reading the file
    await snapshot(scope.db, (tx) => findInOrg(tx, bankAccounts, scope.org.id, bankAccountId));
    const upload = received();
    const statements = readStatementFile(upload);
    const single = statements.length === 1;
    // a single statement keeps the field names it always had; several are numbered
    const field = (s: FileStatement, name: string) => (single ? name : `statements[${s.index}].${name}`);
    return await unitOfWork(scope.db, (tx) => {
      const bank = activeBank(tx, scope, bankAccountId);
      const owned = tx.select().from(bankAccounts).where(eq(bankAccounts.organizationId, scope.org.id)).all();
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
        const owner = ownerOf(s.statement.iban);
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
        const owner = ownerOf(s.statement.iban);
        if (owner === null) {
          results.set(s, { result: "skipped", reason: `The organisation has no bank account with IBAN ${s.statement.iban}.`, owner, row: null, imported: 0 });
        } else if (!owner.isActive) {
          results.set(s, { result: "skipped", reason: `The bank account ${owner.name} (${owner.iban}) is not active.`, owner, row: null, imported: 0 });
        } else {
          const { row, imported } = importOne(tx, scope, owner, s, now, (name) => field(s, name), single);
          results.set(s, { result: imported === null ? "already_imported" : "imported", reason: null, owner, row, imported: imported ?? 0 });
        }
      }

      const own = ordered.filter((s) => results.get(s)!.owner?.id === bank.id);
      const latest = results.get(own[own.length - 1]!)!;
      const created = [...results.values()].some((r) => r.result === "imported");
      return {
        created,
        statement: presentStatement(tx, latest.row!, latest.imported),
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
  },

  list(scope: Scope, query: ListQuery, url: string) {
    return listPage(scope, bankTransactionList, query, url, (rows, tx) => presentTransactions(tx, rows));
  },

  async get(scope: Scope, id: string) {
    return await snapshot(scope.db, (tx) => showBankTransaction(tx, scope.org.id, id));
  },

  /**
   * Matches an unmatched or partially matched line: with one invoice, credit note or expense (for
   * what the line has unallocated or less: the old body), or with `allocations` (several documents
   * and accounts). What is not allocated stays in suspense.
   */
  async match(scope: Scope, id: string, input: BankTransactionMatch) {
    return await unitOfWork(scope.db, (tx) => {
      const line = findInOrg(tx, bankTransactions, scope.org.id, id);
      if (line.status !== "unmatched" && line.status !== "partially_matched") {
        throw new Conflict(`The bank transaction is ${line.status}; only an unmatched or partially matched one can be matched (unmatch it first, or reclassify it).`);
      }
      const bank = activeBank(tx, scope, line.bankAccountId);
      const rest = line.amountCents - allocatedCents(tx, line.id);
      if (input.allocations !== undefined) {
        if (input.invoice_id !== undefined || input.expense_id !== undefined || input.amount !== undefined) {
          throw ValidationFailed.field("allocations", "Give either allocations, or invoice_id or expense_id with an amount; not both.");
        }
        allocateLine(tx, scope, bank, line, readAllocations(tx, scope, bank, line, input.allocations, rest), "allocation", MATCH_READERS);
        return showBankTransaction(tx, scope.org.id, id);
      }
      if ((input.invoice_id === undefined) === (input.expense_id === undefined)) {
        throw ValidationFailed.field("invoice_id", "Give exactly one of invoice_id and expense_id (or allocations).");
      }
      const bag = new FieldErrorBag();
      const target: Settled | null = input.invoice_id !== undefined ? findTarget(tx, scope, bag, "invoice", input.invoice_id) : findTarget(tx, scope, bag, "expense", input.expense_id!);
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
        const paid = handPayment(tx, scope.org.id, bank, target!, rest, line.bookingDate);
        if (!paid) throw ValidationFailed.field("amount", "Nothing is due on the document.");
        cents = rest;
      }
      allocateLine(tx, scope, bank, line, [{ target: target!, cents }], "manual", MATCH_READERS);
      return showBankTransaction(tx, scope.org.id, id);
    });
  },

  /**
   * Replaces whatever holds a line by `allocations`, in one transaction: its allocations are undone
   * (as unmatch), its booking reversed (as unbook; a transfer between own accounts is unbooked
   * first, 409), an ignore lifted; then the line is allocated anew, from suspense.
   */
  async reclassify(scope: Scope, id: string, input: BankTransactionReclassify) {
    return await unitOfWork(scope.db, (tx) => {
      const line = findInOrg(tx, bankTransactions, scope.org.id, id);
      const bank = activeBank(tx, scope, line.bankAccountId);
      if (line.status === "booked") {
        if (line.transferLineId || line.bookedAccountId === bank.accountId || isBankLedger(tx, scope, line.bookedAccountId)) {
          throw new Conflict("The bank transaction is booked as a transfer between own bank accounts; unbook it (POST …/unbook) first.");
        }
        unbookLine(tx, scope, line);
      } else if (line.status !== "unmatched") {
        unallocateLine(tx, scope, line, (a) => allocatedDocument(tx, scope, a), MATCH_READERS);
      }
      const fresh = findInOrg(tx, bankTransactions, scope.org.id, id);
      allocateLine(tx, scope, bank, fresh, readAllocations(tx, scope, bank, fresh, input.allocations, fresh.amountCents), "reclassify", MATCH_READERS);
      return showBankTransaction(tx, scope.org.id, id);
    });
  },

  /**
   * Undoes every allocation of a line (allocateLine's undo: payments it recorded are deleted, their
   * postings reversed; payments recorded by hand that it took over stay), or an ignore: the line
   * is unmatched, all of it in suspense.
   */
  async unmatch(scope: Scope, id: string) {
    return await unitOfWork(scope.db, (tx) => {
      const line = findInOrg(tx, bankTransactions, scope.org.id, id);
      if (line.status === "unmatched") throw new Conflict("The bank transaction is unmatched; only a matched, partially matched or ignored one can be unmatched.");
      if (line.status === "booked") throw new Conflict("The bank transaction is booked to an account; unbook it (POST …/unbook) to reverse its entry.");
      unallocateLine(tx, scope, line, (a) => allocatedDocument(tx, scope, a), MATCH_READERS);
      return showBankTransaction(tx, scope.org.id, id);
    });
  },

  /** Books an unmatched line to an account of the chart, with a VAT rate, or to another own bank account (a transfer): booking.ts. */
  async book(scope: Scope, id: string, input: BankTransactionBook) {
    return await unitOfWork(scope.db, (tx) => {
      const line = findInOrg(tx, bankTransactions, scope.org.id, id);
      activeBank(tx, scope, line.bankAccountId);
      bookLine(tx, scope, line, input);
      return showBankTransaction(tx, scope.org.id, id);
    });
  },

  /** Reverses a booked line's entry (both lines of a transfer): the line is unmatched again. */
  async unbook(scope: Scope, id: string) {
    return await unitOfWork(scope.db, (tx) => {
      unbookLine(tx, scope, findInOrg(tx, bankTransactions, scope.org.id, id));
      return showBankTransaction(tx, scope.org.id, id);
    });
  },

  /** Takes an unmatched line off the list of lines to look at: its money stays in suspense (nothing is posted). */
  async ignore(scope: Scope, id: string) {
    return await unitOfWork(scope.db, (tx) => {
      const line = findInOrg(tx, bankTransactions, scope.org.id, id);
      if (line.status !== "unmatched") throw new Conflict(`The bank transaction is ${line.status}; only an unmatched one can be ignored.`);
      updateInOrg(tx, bankTransactions, scope.org.id, id, { status: "ignored", updatedAt: nowIso() });
      recordChange(tx, scope, { action: "bank_transaction.ignored", resource: { type: "bank_transaction", id } });
      return showBankTransaction(tx, scope.org.id, id);
    });
  },
};

/**
 * One statement into its bank account: `imported` is null when the same statement was imported
 * before (nothing added). Refuses (409, 422) a statement id imported with other content, and an
 * opening balance that does not follow on from the account's last statement.
 */
function importOne(
  tx: Tx,
  scope: Scope,
  bank: BankAccountRow,
  { statement, sha256, fileSha256 }: FileStatement,
  now: string,
  field: (name: string) => string,
  single: boolean,
): { row: StatementRow; imported: number | null } {
  const before = tx.select().from(bankStatements).where(and(eq(bankStatements.bankAccountId, bank.id), eq(bankStatements.statementId, statement.statementId))).get();
  if (before) {
    if (before.sha256 !== sha256 && before.sha256 !== fileSha256) {
      throw new Conflict(`Statement ${statement.statementId} of ${bank.iban} was imported before (${before.id}) with other content; a statement is imported once.`);
    }
    return { row: before, imported: null };
  }
  const last = edgeStatement(tx, bank.id, "last");
  const first = isFirstStatement(tx, bank, statement.openingBalance.date, (message) => {
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
  tx.insert(bankStatements).values(row).run();
  recordChange(tx, scope, { action: "bank_statement.imported", resource: { type: "bank_statement", id: row.id } });
  if (first) postOpeningBalance(tx, scope, bank, statement.openingBalance, row.id);

  const known = new Set(
    statement.entries.length === 0
      ? []
      : tx
          .select({ ref: bankTransactions.entryRef })
          .from(bankTransactions)
          .where(and(eq(bankTransactions.bankAccountId, bank.id), inArray(bankTransactions.entryRef, statement.entries.map((e) => e.entryRef))))
          .all()
          .map((r) => r.ref),
  );
  let imported = 0;
  let openByDue: Map<number, ExpenseRow[]> | null = null;
  const openExpenses = () => (openByDue ??= openExpensesByDue(tx, scope.org.id, bank.currency));
  for (const entry of statement.entries) {
    if (known.has(entry.entryRef)) continue;
    known.add(entry.entryRef);
    imported++;
    importLine(tx, scope, bank, row.id, entry, now, openExpenses);
  }
  return { row, imported };
}

/** The document an allocation's payment belongs to. */
function allocatedDocument(tx: Tx, scope: Scope, a: AllocationRow): Settled | null {
  if (a.invoiceId) return { kind: "invoice", row: findInOrg(tx, invoices, scope.org.id, a.invoiceId) };
  if (a.expenseId) return { kind: "expense", row: findInOrg(tx, expenses, scope.org.id, a.expenseId) };
  return null;
}

/** Is this account some bank account's ledger account (a transfer's other side)? */
function isBankLedger(tx: Tx, scope: Scope, accountId: string | null): boolean {
  if (accountId === null) return false;
  return tx.select({ id: bankAccounts.id }).from(bankAccounts).where(inOrg(bankAccounts, scope.org.id, eq(bankAccounts.accountId, accountId))).get() !== undefined;
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
function readAllocations(tx: Tx, scope: Scope, bank: BankAccountRow, line: TransactionRow, inputs: AllocationInput[], rest: number): Allocation[] {
  const bag = new FieldErrorBag();
  const out: Allocation[] = [];
  const seen = new Set<string>();
  let sum = 0;
  inputs.forEach((a, i) => {
    const key = (name: string) => `allocations.${i}.${name}`;
    const cents = readMoney(bag, key("amount"), a.amount, { min: 1 });
    if (cents !== null) {
      sum += cents;
      if (sum > rest) bag.add(key("amount"), `The allocations add up to ${formatCents(sum)} so far, more than the line has unallocated (${formatCents(rest)}).`);
    }
    const named = [a.invoice_id, a.expense_id, a.account_id].filter((x) => x !== undefined).length;
    if (named !== 1) return void bag.add(key("invoice_id"), "Give exactly one of invoice_id, expense_id and account_id.");
    if (a.account_id === undefined) {
      if (a.vat_rate_id !== undefined && a.vat_rate_id !== null) bag.add(key("vat_rate_id"), "A VAT rate goes with an account's allocation only.");
      if (a.description !== undefined && a.description !== null) bag.add(key("description"), "A description goes with an account's allocation only.");
      const kind = a.invoice_id !== undefined ? "invoice" : "expense";
      const field = key(kind === "invoice" ? "invoice_id" : "expense_id");
      const docId = (a.invoice_id ?? a.expense_id)!;
      const target = findTarget(tx, scope, bag, kind, docId, field);
      if (!target) return;
      if (seen.has(docId)) return void bag.add(field, "The document is named twice; give it one allocation.");
      seen.add(docId);
      const noun = nounOf(target);
      if (directionOf(target) !== line.direction) {
        bag.add(field, `A ${line.direction} line (money ${line.direction === "credit" ? "in" : "out"}) cannot pay this ${noun}: its money goes ${directionOf(target) === "credit" ? "in" : "out"}.`);
      } else if (target.row.currency !== bank.currency) bag.add(field, `The ${noun} is in ${target.row.currency}; the bank account holds ${bank.currency}.`);
      else if (cents !== null && !handPayment(tx, scope.org.id, bank, target, cents, line.bookingDate)) {
        const open = target.kind === "invoice" ? (AWAITING_PAYMENT as readonly string[]).includes(target.row.status) : target.row.status === "approved";
        if (!open) bag.add(field, `The ${noun} is ${target.row.status}; only one awaiting payment can be paid.`);
        else if (cents > dueOf(target)) bag.add(key("amount"), `The amount must not be greater than the ${noun}'s amount due (${formatCents(Math.max(dueOf(target), 0))}).`);
      }
      if (cents !== null) out.push({ target, cents });
      return;
    }
    const field = key("account_id");
    const account = tx.select().from(accounts).where(inOrg(accounts, scope.org.id, eq(accounts.id, a.account_id))).get();
    if (!account) return void bag.add(field, "The selected account_id is invalid.");
    if (!account.isActive) bag.add(field, `The account ${account.code} ${account.name} is not active.`);
    else if (account.systemAccount === "receivables" || account.systemAccount === "payables") {
      bag.add(field, `The account ${account.code} ${account.name} holds what customers and suppliers owe: allocate to the invoice, credit note or expense instead.`);
    } else if (account.systemAccount === "suspense") bag.add(field, `The account ${account.code} ${account.name} is where the unallocated rest waits already.`);
    else if (isBankLedger(tx, scope, account.id) || account.systemAccount === "bank") {
      bag.add(field, `The account ${account.code} ${account.name} is a bank account's: book a transfer between own accounts with POST …/book.`);
    }
    let vat: { category: VatCategory; rateBp: number } | null = null;
    if (a.vat_rate_id !== undefined && a.vat_rate_id !== null) {
      const rate = tx.select().from(vatRates).where(inOrg(vatRates, scope.org.id, eq(vatRates.id, a.vat_rate_id))).get();
      if (!rate) bag.add(key("vat_rate_id"), "The selected vat_rate_id is invalid.");
      else vat = { category: rate.category, rateBp: rate.rateBp };
    }
    if (cents !== null) out.push({ target: { kind: "account", account, vatRateId: a.vat_rate_id ?? null, vat, description: a.description ?? null }, cents });
  });
  bag.throwIfAny();
  return out;
}

function findTarget(tx: Tx, scope: Scope, bag: FieldErrorBag, kind: "invoice" | "expense", id: string, field: string = `${kind}_id`): Settled | null {
  if (kind === "invoice") {
    const row = tx.select().from(invoices).where(inOrg(invoices, scope.org.id, eq(invoices.id, id))).get();
    if (!row) bag.add(field, "The selected invoice_id is invalid.");
    return row ? { kind, row } : null;
  }
  const row = tx.select().from(expenses).where(inOrg(expenses, scope.org.id, eq(expenses.id, id))).get();
  if (!row) bag.add(field, "The selected expense_id is invalid.");
  return row ? { kind, row } : null;
}

/** One new line of a statement: stored unmatched (bank_transaction.imported), then matched by reference or given a suggestion. */
function importLine(
  tx: Tx,
  scope: Scope,
  bank: BankAccountRow,
  statementId: string,
  entry: BankStatementEntry,
  now: string,
  openExpenses: () => Map<number, ExpenseRow[]>,
): void {
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
  tx.insert(bankTransactions).values(line).run();
  recordChange(tx, scope, {
    action: "bank_transaction.imported",
    resource: { type: "bank_transaction", id: line.id },
    event: "bank_transaction.imported",
    data: presentTransaction(line),
  });
  // a credit line pays an invoice, a debit line refunds a credit note: by the document's payment reference
  const invoice = invoicePaidBy(tx, scope.org.id, bank, line);
  if (invoice) return void allocateLine(tx, scope, bank, line, [{ target: { kind: "invoice", row: invoice }, cents: line.amountCents }], "import", MATCH_READERS);
  // an invoice and its interest notes in one transfer, as the reminder letter asks
  const withNotes = invoiceWithNotesPaidBy(tx, scope.org.id, bank, line);
  if (withNotes) {
    const allocations = withNotes.map((row) => ({ target: { kind: "invoice" as const, row }, cents: invoiceDueCents(row) }));
    return void allocateLine(tx, scope, bank, line, allocations, "import", MATCH_READERS);
  }
  if (line.direction === "debit") {
    // a payment run's transfer (its EndToEndId), else the supplier's payment reference or IBAN and amount
    const expense = expensePaidBy(tx, scope.org.id, bank, line, entry.endToEndId) ?? expensePaidByReference(line, openExpenses());
    if (expense) {
      forgetExpense(openExpenses(), expense);
      return void allocateLine(tx, scope, bank, line, [{ target: { kind: "expense", row: expense }, cents: line.amountCents }], "import", MATCH_READERS);
    }
  }
  if (bookTransferOnImport(tx, scope, bank, line)) return;
  // nothing holds the line: its money waits in suspense until it is matched, booked or allocated
  recordChange(tx, scope, {
    action: "bank_transaction.posted_to_suspense",
    resource: { type: "bank_transaction", id: line.id },
    ledger: [{ post: suspenseDraft(tx, scope.org.id, line, line.amountCents) }],
  });
  if (line.direction === "debit") {
    const suggestion = suggestedExpense(line, openExpenses());
    if (suggestion) updateInOrg(tx, bankTransactions, scope.org.id, line.id, { suggestedExpenseId: suggestion });
  }
}
