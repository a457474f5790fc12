/**
 * Bank statements and reconciliation (issue 20). A statement file (CAMT.053 or CODA, or a ZIP of
 * them, read by server/inbound) becomes bank_transactions of the bank accounts its statements are
 * of (issue 27: banks put several accounts' and days' statements in one file); credit lines that carry an open
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
 * - The first statement of an account posts its opening balance (booking.ts); after that the bank
 *   account's ledger balance moves by the payments recorded against it (a match on import, a match
 *   by hand, record-payment) and the lines booked to an account.
 * - A credit line matches an invoice when its structured reference (or a valid reference in its
 *   free text) is the invoice's payment_reference, the invoice awaits payment in the account's
 *   currency, and the line is at most its amount due. A larger line is left unmatched, not split.
 * - Replaces, never doubles: before recording a payment for a match, a payment of that document
 *   of exactly the matched amount that no bank line holds yet (one recorded by hand) is taken
 *   over: the line links to it, and if it went through another bank account its posting is
 *   reversed and posted again through this one. Only when there is none is a payment recorded.
 */
import { createHash } from "node:crypto";
import { bookLine, bookTransferOnImport, edgeStatement, isFirstStatement, NOT_BOOKED, postOpeningBalance, unbookLine } from "./booking.ts";
import { expensePaidBy, expensePaidByReference, forgetExpense, invoicePaidBy, openExpensesByDue, suggestedExpense } from "./matching.ts";
import { bankTransactionList, presentStatement, presentTransaction, showBankTransaction } from "./read.ts";
import { and, eq, inArray } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { bankAccounts, bankStatements, bankTransactions, expenses, invoices } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { showExpense } from "../expenses/service.ts";
import type { DocumentUpload } from "../http/kernel.ts";
import type { BankStatement, BankStatementEntry } from "../inbound/bank-statement.ts";
import { readCamt053 } from "../inbound/camt053.ts";
import { readCoda } from "../inbound/coda.ts";
import { decodeCoda, decodeXml, looksLikeXml } from "../inbound/decode.ts";
import { InboundDocumentError, STATEMENT_FORMATS } from "../inbound/errors.ts";
import { looksLikeZip, readZip } from "../inbound/zip.ts";
import { showInvoice } from "../invoices/read.ts";
import { Conflict, FieldErrorBag, ValidationFailed } from "../lib/errors.ts";
import { listPage, type ListQuery } from "../lib/list.ts";
import { formatCents, readMoney } from "../lib/money.ts";
import { findInOrg, inOrg, snapshot, transaction, updateInOrg, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { handPayment, matchLine, unmatchLine, type MatchReaders } from "../settlement/bank-matches.ts";
import { directionOf, dueOf, NOT_MATCHED, type Settled } from "../settlement/payments.ts";
import type { BankTransactionBook, BankTransactionMatch } from "./model.ts";

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
    const members = readZip(upload.bytes);
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
  // statements imported before issue 27 were recognised by the file's hash; a one-statement file still is
  const fileSha256 = statements.length === 1 ? createHash("sha256").update(upload.bytes).digest("hex") : null;
  return statements.map((statement, index) => ({ file: null, index, statement, sha256: contentHash(statement), fileSha256 }));
}

/** Where in a ZIP member: `name.xml/Document/…`, `name.coda line 3`, or the member's name for the whole file. */
function memberPath(name: string, path: string): string {
  if (path === "/") return name;
  return path.startsWith("/") ? `${name}${path}` : `${name} ${path}`;
}

function statementsOf(bytes: Uint8Array, charset: string | null): BankStatement[] {
  if (looksLikeXml(bytes)) return readCamt053(decodeXml(bytes, charset));
  // a CODA file opens with its header record: record type 0, then four zeros and the creation date
  if (/^\uFEFF?0{5}\d{6}/.test(new TextDecoder("latin1").decode(bytes.subarray(0, 16)).replace(/^ï»¿/, ""))) return readCoda(decodeCoda(bytes, charset));
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
  importStatement(scope: Scope, bankAccountId: string, received: () => DocumentUpload) {
    // 404 before reading the file
    snapshot(scope.db, (tx) => findInOrg(tx, bankAccounts, scope.org.id, bankAccountId));
    const upload = received();
    const statements = readStatementFile(upload);
    const single = statements.length === 1;
    // a single statement keeps the field names it always had; several are numbered
    const field = (s: FileStatement, name: string) => (single ? name : `statements[${s.index}].${name}`);
    return transaction(scope.db, (tx) => {
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
    return listPage(scope, bankTransactionList, query, url, (rows) => rows.map(presentTransaction));
  },

  get(scope: Scope, id: string) {
    return snapshot(scope.db, (tx) => showBankTransaction(tx, scope.org.id, id));
  },

  /** Matches an unmatched line with an invoice, credit note or expense, for the line's amount or less. */
  match(scope: Scope, id: string, input: BankTransactionMatch) {
    return transaction(scope.db, (tx) => {
      const line = findInOrg(tx, bankTransactions, scope.org.id, id);
      if (line.status !== "unmatched") throw new Conflict(`The bank transaction is ${line.status}; only an unmatched one can be matched (unmatch it first).`);
      const bank = activeBank(tx, scope, line.bankAccountId);
      if ((input.invoice_id === undefined) === (input.expense_id === undefined)) {
        throw ValidationFailed.field("invoice_id", "Give exactly one of invoice_id and expense_id.");
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
        const asked = input.amount === undefined ? Math.min(line.amountCents, Math.max(dueOf(target), 0)) : readMoney(bag, "amount", input.amount, { min: 1 });
        if (asked !== null && asked > line.amountCents) bag.add("amount", `The amount must not be greater than the line's amount (${formatCents(line.amountCents)}).`);
        cents = asked ?? 0;
      }
      bag.throwIfAny();
      // a payment recorded by hand may have paid the document already (its amount due is then 0)
      if (cents === 0) {
        const paid = handPayment(tx, scope.org.id, bank, target!, line.amountCents, line.bookingDate);
        if (!paid) throw ValidationFailed.field("amount", "Nothing is due on the document.");
        cents = line.amountCents;
      }
      matchLine(tx, scope, bank, line, target!, cents, "manual", MATCH_READERS);
      return showBankTransaction(tx, scope.org.id, id);
    });
  },

  /**
   * Undoes a match: a payment the match recorded is deleted (its posting reversed); a payment
   * recorded by hand that the match took over stays. An ignored line becomes unmatched again.
   */
  unmatch(scope: Scope, id: string) {
    return transaction(scope.db, (tx) => {
      const line = findInOrg(tx, bankTransactions, scope.org.id, id);
      if (line.status === "unmatched") throw new Conflict("The bank transaction is unmatched; only a matched or ignored one can be unmatched.");
      if (line.status === "booked") throw new Conflict("The bank transaction is booked to an account; unbook it (POST …/unbook) to reverse its entry.");
      unmatchLine(tx, scope, line, (l) => matchedDocument(tx, scope, l), MATCH_READERS);
      return showBankTransaction(tx, scope.org.id, id);
    });
  },

  /** Books an unmatched line to an account of the chart, with a VAT rate, or to another own bank account (a transfer): booking.ts. */
  book(scope: Scope, id: string, input: BankTransactionBook) {
    return transaction(scope.db, (tx) => {
      const line = findInOrg(tx, bankTransactions, scope.org.id, id);
      activeBank(tx, scope, line.bankAccountId);
      bookLine(tx, scope, line, input);
      return showBankTransaction(tx, scope.org.id, id);
    });
  },

  /** Reverses a booked line's entry (both lines of a transfer): the line is unmatched again. */
  unbook(scope: Scope, id: string) {
    return transaction(scope.db, (tx) => {
      unbookLine(tx, scope, findInOrg(tx, bankTransactions, scope.org.id, id));
      return showBankTransaction(tx, scope.org.id, id);
    });
  },

  /** Marks an unmatched line as needing no document and no posting (a line another system books). */
  ignore(scope: Scope, id: string) {
    return transaction(scope.db, (tx) => {
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

/** The document a matched line's payment belongs to. */
function matchedDocument(tx: Tx, scope: Scope, line: TransactionRow): Settled | null {
  if (line.invoiceId) return { kind: "invoice", row: findInOrg(tx, invoices, scope.org.id, line.invoiceId) };
  if (line.expenseId) return { kind: "expense", row: findInOrg(tx, expenses, scope.org.id, line.expenseId) };
  return null;
}

function findTarget(tx: Tx, scope: Scope, bag: FieldErrorBag, kind: "invoice" | "expense", id: string): Settled | null {
  if (kind === "invoice") {
    const row = tx.select().from(invoices).where(inOrg(invoices, scope.org.id, eq(invoices.id, id))).get();
    if (!row) bag.add("invoice_id", "The selected invoice_id is invalid.");
    return row ? { kind, row } : null;
  }
  const row = tx.select().from(expenses).where(inOrg(expenses, scope.org.id, eq(expenses.id, id))).get();
  if (!row) bag.add("expense_id", "The selected expense_id is invalid.");
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
  if (invoice) return void matchLine(tx, scope, bank, line, { kind: "invoice", row: invoice }, line.amountCents, "import", MATCH_READERS);
  if (line.direction === "debit") {
    // a payment run's transfer (its EndToEndId), else the supplier's payment reference or IBAN and amount
    const expense = expensePaidBy(tx, scope.org.id, bank, line, entry.endToEndId) ?? expensePaidByReference(line, openExpenses());
    if (expense) {
      forgetExpense(openExpenses(), expense);
      return void matchLine(tx, scope, bank, line, { kind: "expense", row: expense }, line.amountCents, "import", MATCH_READERS);
    }
  }
  if (bookTransferOnImport(tx, scope, bank, line)) return;
  if (line.direction === "debit") {
    const suggestion = suggestedExpense(line, openExpenses());
    if (suggestion) updateInOrg(tx, bankTransactions, scope.org.id, line.id, { suggestedExpenseId: suggestion });
  }
}
