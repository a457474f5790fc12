/**
 * What a bank statement file says, whatever its format (ISO 20022 CAMT.053 or Belgian CODA):
 * the model that ./camt053.ts and ./coda.ts both return (a list: a file may hold several
 * statements, of several accounts or days), and the checks they share.
 */
import { createHash } from "node:crypto";
import { canonicalPaymentReference } from "../documents/payment-reference.ts";
import { formatCents } from "../lib/money.ts";
import { InboundDocumentError } from "./errors.ts";

export type StatementBalance = {
  /** Signed: negative when the account is overdrawn (debit balance). */
  cents: number;
  /** YYYY-MM-DD */
  date: string;
};

export type BankStatementEntry = {
  /** Unique within the account: the bank's reference (AcctSvcrRef, NtryRef, CODA bank reference), else a hash of the entry and its index. */
  entryRef: string;
  /** YYYY-MM-DD */
  bookingDate: string;
  /** YYYY-MM-DD */
  valueDate: string;
  /** Always positive; `direction` gives the sign. */
  amountCents: number;
  direction: "credit" | "debit";
  counterpartyName: string | null;
  counterpartyIban: string | null;
  /** Unstructured remittance information, joined with a space. */
  communication: string | null;
  /**
   * The structured payment reference: a valid Belgian one as `+++ddd/dddd/ddddd+++`, a valid
   * ISO 11649 one as compact `RF…`, anything else as the bank gave it (it will match nothing).
   */
  structuredReference: string | null;
  /** CAMT TxDtls/Refs/EndToEndId as the payer set it (absent when none, or NOTPROVIDED): a payment run's credit transfer comes back with it. */
  endToEndId?: string;
};

export type BankStatement = {
  format: "camt.053" | "coda";
  /** CAMT Stmt/Id; CODA "<year of the new balance>-<CODA sequence number>" */
  statementId: string;
  iban: string;
  currency: string;
  openingBalance: StatementBalance;
  closingBalance: StatementBalance;
  entries: BankStatementEntry[];
};

/** Opening + credits − debits must be the closing balance, or the file is incomplete or wrong. */
export function checkBalances(statement: BankStatement, path: string): void {
  const credits = statement.entries.filter((e) => e.direction === "credit").reduce((sum, e) => sum + e.amountCents, 0);
  const debits = statement.entries.filter((e) => e.direction === "debit").reduce((sum, e) => sum + e.amountCents, 0);
  const expected = statement.openingBalance.cents + credits - debits;
  if (expected !== statement.closingBalance.cents) {
    throw new InboundDocumentError(
      path,
      `The closing balance ${formatCents(statement.closingBalance.cents)} is not the opening balance ${formatCents(statement.openingBalance.cents)} + credits ${formatCents(credits)} − debits ${formatCents(debits)} = ${formatCents(expected)}: a difference of ${formatCents(statement.closingBalance.cents - expected)}.`,
    );
  }
}


/** See BankStatementEntry.structuredReference: a valid reference in Kontor's form, else the text as the bank sent it. */
export function normalizeStructuredReference(text: string): string | null {
  const trimmed = text.trim();
  return trimmed === "" ? null : (canonicalPaymentReference(trimmed) ?? trimmed);
}

/** The stable id of an entry the bank gave no reference to: its content and its place in the file. */
export function entryHash(parts: (string | number | null)[], index: number): string {
  const hash = createHash("sha256").update(JSON.stringify([...parts, index])).digest("hex");
  return `sha256:${hash.slice(0, 32)}`;
}
