/**
 * Reads an ISO 20022 CAMT.053 bank-to-customer statement file into its BankStatements, one per
 * Stmt (banks put one per account or per day in a file). Versions camt.053.001.02 (the one
 * Belgian and most European banks send) to .001.13: every path below is the same in all of them,
 * except that from .08 on the related parties are a Party40Choice (Dbtr/Pty/Nm instead of
 * Dbtr/Nm), read in both forms; what the versions add or change otherwise (entry status as a
 * choice, BICFI for BIC, new optional elements) is not read. Entries' amounts and balances must be
 * exact cents in the account's currency, and each statement's balances must add up.
 *
 * Paths read (camt.053.001.02 names): Stmt/Id, Acct/Id/IBAN, Acct/Ccy, Bal (OPBD or PRCD, CLBD) with
 * Amt/@Ccy, CdtDbtInd and Dt/Dt; Ntry/Amt, CdtDbtInd, BookgDt, ValDt, AcctSvcrRef, NtryRef and
 * NtryDtls/TxDtls: RltdPties (Dbtr or Cdtr, whichever is the other side), RmtInf/Ustrd,
 * RmtInf/Strd/CdtrRefInf/Ref and Refs/EndToEndId (a payment run's transfer coming back).
 */
import { InboundDocumentError, STATEMENT_FORMATS } from "./errors.ts";
import { exactCents, parseDecimal } from "./decimal.ts";
import { isValidDate } from "../lib/time.ts";
import {
  type BankStatement,
  type BankStatementEntry,
  type StatementBalance,
  checkBalances,
  entryHash,
  normalizeStructuredReference,
} from "./bank-statement.ts";
import { validIban } from "../lib/iban.ts";
import { Lookup, parseXml, type XmlElement } from "./xml.ts";
import { checkStatementLength } from "./import-limits.ts";

const CAMT053_VERSIONS = ["02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13"] as const;
const namespaceOf = (version: string) => `urn:iso:std:iso:20022:tech:xsd:camt.053.001.${version}`;

/** The statements of a camt.053 file, in the file's order. */
export function readCamt053(xml: string): BankStatement[] {
  const root = parseXml(xml);
  const version = CAMT053_VERSIONS.find((v) => root.ns === namespaceOf(v));
  if (root.name !== "Document" || version === undefined) {
    const what = root.ns ? `{${root.ns}}${root.name}` : `${root.name} (in no namespace)`;
    throw new InboundDocumentError(`/${root.name}`, `The root element is ${what}, not a camt.053 Document (camt.053.001.02 to .13). ${STATEMENT_FORMATS}`);
  }
  const camt = new Lookup({ "": root.ns });

  const statements = camt.all(root, "BkToCstmrStmt/Stmt");
  if (statements.length === 0) throw new InboundDocumentError("/Document/BkToCstmrStmt/Stmt", "The file has no statement (Stmt).");
  // a single statement keeps the paths it always had; several are numbered
  return statements.map((stmt, index) => readStmt(camt, stmt, statements.length === 1 ? "Stmt" : `Stmt[${index + 1}]`));
}

function readStmt(camt: Lookup, stmt: XmlElement, stmtPath: string): BankStatement {
  const at = (path: string) => `/Document/BkToCstmrStmt/${stmtPath}/${path}`;

  const statementId = camt.text(stmt, "Id");
  if (statementId === null) throw new InboundDocumentError(at("Id"), "The statement has no Id.");
  checkStatementLength(statementId, at("Id"), "statement_id");
  const ibanText = camt.text(stmt, "Acct/Id/IBAN");
  if (ibanText === null) throw new InboundDocumentError(at("Acct/Id/IBAN"), "The statement's account has no IBAN (Acct/Id/IBAN); only IBAN accounts are read.");
  const iban = validIban(ibanText);
  if (iban === null) throw new InboundDocumentError(at("Acct/Id/IBAN"), `'${ibanText}' is not a valid IBAN.`);

  const balances = camt.all(stmt, "Bal");
  const balanceOf = (codes: string[]) => balances.find((b) => codes.includes(camt.text(b, "Tp/CdOrPrtry/Cd") ?? ""));
  const opening = balanceOf(["OPBD"]) ?? balanceOf(["PRCD"]);
  const closing = balanceOf(["CLBD"]);
  if (!opening) throw new InboundDocumentError(at("Bal"), "The statement has no opening balance (Bal of type OPBD or PRCD).");
  if (!closing) throw new InboundDocumentError(at("Bal"), "The statement has no closing booked balance (Bal of type CLBD).");
  // the account's currency; Acct/Ccy is optional, the opening balance always has one
  const currency = camt.text(stmt, "Acct/Ccy") ?? camt.one(opening, "Amt")?.attrs.Ccy?.trim() ?? "";
  if (!/^[A-Z]{3}$/.test(currency)) throw new InboundDocumentError(at("Acct/Ccy"), "The statement does not say the account's currency.");

  const signedAmount = (el: XmlElement, path: string): { cents: number; direction: "credit" | "debit" } => {
    const amount = camt.one(el, "Amt");
    const text = amount?.text.trim() ?? "";
    const d = parseDecimal(text);
    const cents = d === null ? null : exactCents(d);
    if (cents === null || cents < 0) throw new InboundDocumentError(`${path}/Amt`, `'${text}' is not an amount in cents.`);
    const amountCurrency = amount?.attrs.Ccy?.trim();
    if (amountCurrency !== currency) throw new InboundDocumentError(`${path}/Amt`, `The amount is in ${amountCurrency ?? "no currency"}, not in the account's currency ${currency}.`);
    const indicator = camt.text(el, "CdtDbtInd");
    if (indicator !== "CRDT" && indicator !== "DBIT") throw new InboundDocumentError(`${path}/CdtDbtInd`, `CdtDbtInd must be CRDT or DBIT, not '${indicator ?? ""}'.`);
    return { cents, direction: indicator === "CRDT" ? "credit" : "debit" };
  };
  const dateOf = (el: XmlElement, path: string): string | null => {
    // ISODate in Dt, or the date part of an ISODateTime in DtTm
    const text = camt.text(el, `${path}/Dt`) ?? camt.text(el, `${path}/DtTm`)?.slice(0, 10) ?? null;
    if (text !== null && !isValidDate(text)) throw new InboundDocumentError(at(path), `'${text}' is not a date between 1900 and 2999.`);
    return text;
  };
  const balance = (el: XmlElement, index: number): StatementBalance => {
    const path = at(`Bal[${index + 1}]`);
    const { cents, direction } = signedAmount(el, path);
    const date = dateOf(el, "Dt");
    if (date === null) throw new InboundDocumentError(`${path}/Dt`, "The balance has no date.");
    return { cents: direction === "credit" ? cents : -cents, date };
  };

  const seenRefs = new Set<string>();
  const entries = camt.all(stmt, "Ntry").map((ntry, index): BankStatementEntry => {
    const path = at(`Ntry[${index + 1}]`);
    const { cents, direction } = signedAmount(ntry, path);
    const bookingDate = dateOf(ntry, "BookgDt");
    if (bookingDate === null) throw new InboundDocumentError(`${path}/BookgDt`, "The entry has no booking date.");
    const valueDate = dateOf(ntry, "ValDt") ?? bookingDate;
    // a batch entry has several TxDtls: parties and references from the first, texts from all
    const details = camt.all(ntry, "NtryDtls/TxDtls");
    const first = details[0] ?? null;
    const otherSide = direction === "credit" ? "Dbtr" : "Cdtr";
    const counterpartyName = first && (camt.text(first, `RltdPties/${otherSide}/Nm`) ?? camt.text(first, `RltdPties/${otherSide}/Pty/Nm`));
    const counterpartyIbanText = first && camt.text(first, `RltdPties/${otherSide}Acct/Id/IBAN`);
    const ustrd = details.flatMap((tx) => camt.all(tx, "RmtInf/Ustrd").map((u) => u.text.trim())).filter((t) => t !== "");
    const reference = details.map((tx) => camt.text(tx, "RmtInf/Strd/CdtrRefInf/Ref")).find((r) => r !== null) ?? null;
    const endToEndId = first && camt.text(first, "Refs/EndToEndId");
    const communication = ustrd.length > 0 ? ustrd.join(" ") : null;
    // every text kept within the limit of the bank line's field it becomes (import-limits.ts)
    const tx = `${path}/NtryDtls/TxDtls[1]`;
    const nameElement = first && camt.text(first, `RltdPties/${otherSide}/Nm`) !== null ? `RltdPties/${otherSide}/Nm` : `RltdPties/${otherSide}/Pty/Nm`;
    checkStatementLength(counterpartyName, `${tx}/${nameElement}`, "counterparty_name");
    checkStatementLength(communication, `${path}/NtryDtls/TxDtls/RmtInf/Ustrd`, "communication");
    checkStatementLength(reference, `${path}/NtryDtls/TxDtls/RmtInf/Strd/CdtrRefInf/Ref`, "structured_reference");
    checkStatementLength(endToEndId, `${tx}/Refs/EndToEndId`, "end_to_end_id");
    const bankRef = camt.text(ntry, "AcctSvcrRef");
    checkStatementLength(bankRef, `${path}/AcctSvcrRef`, "entry_ref");
    const ntryRef = bankRef === null ? camt.text(ntry, "NtryRef") : null;
    checkStatementLength(ntryRef, `${path}/NtryRef`, "entry_ref");
    const entryRef =
      bankRef ??
      ntryRef ??
      entryHash([bookingDate, valueDate, direction, cents, counterpartyName, counterpartyIbanText, communication, reference], index);
    if (seenRefs.has(entryRef)) throw new InboundDocumentError(`${path}/AcctSvcrRef`, `Two entries have the reference '${entryRef}'.`);
    seenRefs.add(entryRef);
    return {
      entryRef,
      bookingDate,
      valueDate,
      amountCents: cents,
      direction,
      counterpartyName: counterpartyName ?? null,
      // an unreadable account number is left out rather than refusing the whole statement
      counterpartyIban: counterpartyIbanText ? validIban(counterpartyIbanText) : null,
      communication,
      structuredReference: reference === null ? null : normalizeStructuredReference(reference),
      ...(endToEndId && endToEndId !== "NOTPROVIDED" ? { endToEndId } : {}),
    };
  });

  const statement: BankStatement = {
    format: "camt.053",
    statementId,
    iban,
    currency,
    openingBalance: balance(opening, balances.indexOf(opening)),
    closingBalance: balance(closing, balances.indexOf(closing)),
    entries,
  };
  checkBalances(statement, at("Bal"));
  return statement;
}
