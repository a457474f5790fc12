/**
 * Reads a Belgian CODA 2.x statement (Febelfin "Coded statement of account", fixed records of 128
 * characters) into a BankStatement.
 *
 * Layout: Febelfin, *Standard CODA 2.6*, annex I (record layouts) and annex III (structured
 * communications, type 101 = the 12 digits of a Belgian structured communication, 100 = an
 * ISO 11649 reference), https://www.febelfin.be (standard-coda-2.6-en.pdf). Offsets checked
 * against two public parsers of it: Odoo's l10n_be_coda
 * (l10n_be_coda/wizard/account_bank_statement_import_coda.py, Noviat/Odoo S.A.) and
 * RobinMalfait/coda-parser (src/index.ts), and against the sample files of
 * wimverstuyf/php-coda-parser (tests/Samples). Positions below are 0-based `slice` offsets;
 * the standard counts from 1.
 *
 * Read: record 0 (version 2), 1 (account, currency, old balance), 2.1/2.2/2.3 (movements),
 * 8 (new balance), 9 (trailer: record count and sums, checked). Records 3 (information) and 4
 * (free communication) are skipped. Only movements of detail number 0000 are entries: the
 * details of a globalised amount (detail 0001…) are parts of it, as the trailer's sums count.
 * A file may hold several statements (of several accounts or days), each from its header record
 * (0) to its trailer (9), with one record 1 each. The caller decodes the
 * bytes (CODA is usually Latin-1) before calling.
 */
import { formatCents } from "../lib/money.ts";
import { type BankStatement, type BankStatementEntry, type StatementBalance, checkBalances, entryHash, normalizeStructuredReference } from "./bank-statement.ts";
import { validIban } from "../lib/iban.ts";
import { isValidDate } from "../lib/time.ts";
import { InboundDocumentError } from "./errors.ts";
import { checkStatementLength } from "./import-limits.ts";

const RECORD_LENGTH = 128;

type Movement = {
  line: number;
  sequence: string;
  /** 0000 for a movement; 0001… for the details of a globalised one */
  detail: string;
  bankReference: string;
  direction: "credit" | "debit";
  amountCents: number;
  valueDate: string | null;
  bookingDate: string;
  structured: boolean;
  structuredType: string;
  /** free or structured communication text, record 2.1 then 2.2 then 2.3 */
  communication: string;
  /** record 2.2, positions 64–98: the client's (end-to-end) reference of a transfer it initiated */
  clientReference: string;
  counterpartyAccount: string;
  counterpartyName: string;
};

/** The statements of a CODA file, in the file's order: each runs from a header record (0) to its trailer (9). */
export function readCoda(text: string): BankStatement[] {
  const records = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  while (records.length > 0 && records[records.length - 1]!.trim() === "") records.pop();
  if (records.length === 0) throw new InboundDocumentError("line 1", "The CODA file is empty.");
  // a bank sends one statement per account and day, often all in one file
  const starts = records.flatMap((record, index) => (index > 0 && record[0] === "0" ? [index] : []));
  return [0, ...starts].map((start, i) => readStatement(records.slice(start, starts[i] ?? records.length), start));
}

/** One statement's records; `firstIndex` is the 0-based line of its first record in the file. */
function readStatement(records: string[], firstIndex: number): BankStatement {

  let header = false;
  let iban: string | null = null;
  let currency: string | null = null;
  let opening: StatementBalance | null = null;
  let closing: StatementBalance | null = null;
  let codaSequence = "";
  let trailer: { records: number; debitCents: number; creditCents: number; line: number } | null = null;
  let countedRecords = 0;
  const movements: Movement[] = [];
  let current: Movement | null = null;

  for (const [index, raw] of records.entries()) {
    const line = firstIndex + index + 1;
    const where = `line ${line}`;
    if (raw.length > RECORD_LENGTH) throw new InboundDocumentError(where, `A CODA record has ${RECORD_LENGTH} characters; line ${line} has ${raw.length}.`);
    // trailing blanks are often stripped by editors and mail programs; they carry nothing
    const record = raw.padEnd(RECORD_LENGTH, " ");
    const type = record[0]!;
    if (!header && type !== "0") throw new InboundDocumentError(where, "A CODA file starts with a header record (0).");
    if (trailer !== null) throw new InboundDocumentError(where, "A record follows the trailer record (9); the next statement must start with a header record (0).");
    if ("1238".includes(type)) countedRecords++;

    switch (type) {
      case "0": {
        header = true;
        // pos. 128: version code, 2 for CODA 2.x
        if (record[127] !== "2") throw new InboundDocumentError(where, `Only CODA version 2 is read; this file says version '${record[127]}'.`);
        break;
      }
      case "1": {
        if (opening !== null) throw new InboundDocumentError(where, "The statement has more than one old balance record (1); each account's statement starts with its own header record (0).");
        ({ iban, currency } = account(record, where));
        opening = balance(record[42]!, record.slice(43, 58), record.slice(58, 64), where);
        codaSequence = record.slice(125, 128);
        break;
      }
      case "2": {
        const article = record[1];
        if (article === "1") {
          current = movement(record, line);
          movements.push(current);
          break;
        }
        if (current === null || record.slice(2, 6) !== current.sequence || record.slice(6, 10) !== current.detail) {
          throw new InboundDocumentError(where, `Movement record 2.${article} does not follow the 2.1 record of its movement.`);
        }
        if (article === "2") {
          current.communication += record.slice(10, 63);
          current.clientReference = record.slice(63, 98).trim();
        }
        else if (article === "3") {
          current.counterpartyAccount = record.slice(10, 47).trim();
          current.counterpartyName = record.slice(47, 82).trim();
          current.communication += record.slice(82, 125);
        } else throw new InboundDocumentError(where, `Unknown movement record 2.${article}.`);
        break;
      }
      case "3":
      case "4":
        break;
      case "8": {
        closing = balance(record[41]!, record.slice(42, 57), record.slice(57, 63), where);
        break;
      }
      case "9": {
        trailer = {
          records: digits(record.slice(16, 22), where, "record count"),
          debitCents: amountCents(record.slice(22, 37), where),
          creditCents: amountCents(record.slice(37, 52), where),
          line,
        };
        break;
      }
      default:
        throw new InboundDocumentError(where, `Unknown CODA record type '${type}'.`);
    }
  }

  if (iban === null || currency === null || opening === null) throw new InboundDocumentError(`line ${firstIndex + 2}`, "The statement has no old balance record (1).");
  if (closing === null) throw new InboundDocumentError(`line ${firstIndex + records.length}`, "The statement has no new balance record (8).");
  if (trailer === null) throw new InboundDocumentError(`line ${firstIndex + records.length}`, "The file has no trailer record (9); it may be cut short.");
  const { records: trailerRecords, debitCents, creditCents, line: trailerLine } = trailer;

  const entryMovements = movements.filter((m) => m.detail === "0000");
  const sum = (direction: Movement["direction"]) => entryMovements.filter((m) => m.direction === direction).reduce((s, m) => s + m.amountCents, 0);
  if (trailerRecords !== countedRecords) {
    throw new InboundDocumentError(`line ${trailerLine}`, `The trailer counts ${trailerRecords} records of types 1, 2, 3 and 8; the file has ${countedRecords}.`);
  }
  if (debitCents !== sum("debit") || creditCents !== sum("credit")) {
    throw new InboundDocumentError(
      `line ${trailerLine}`,
      `The trailer's sums (debit ${formatCents(debitCents)}, credit ${formatCents(creditCents)}) are not those of the movements (debit ${formatCents(sum("debit"))}, credit ${formatCents(sum("credit"))}).`,
    );
  }

  const seenRefs = new Set<string>();
  const entries = entryMovements.map((m, index): BankStatementEntry => {
    // records 2.2 and 2.3 may repeat: the communication they add up to is held to the bank line's limit
    const communicationText = collapse(m.communication);
    checkStatementLength(communicationText, `line ${m.line} (the communication of records 2.1 to 2.3)`, "communication");
    let structuredReference: string | null = null;
    let communication: string | null = null;
    if (m.structured) {
      // annex III: 101/102 carry the 12 digits of a Belgian structured communication, 100 an RF reference
      if (m.structuredType === "101" || m.structuredType === "102") structuredReference = normalizeStructuredReference(m.communication.slice(0, 12));
      else if (m.structuredType === "100") structuredReference = normalizeStructuredReference(m.communication.slice(0, 25));
      else communication = communicationText || null;
    } else communication = communicationText || null;
    const counterpartyIban = counterpartyIbanOf(m.counterpartyAccount);
    const counterpartyName = m.counterpartyName || null;
    const valueDate = m.valueDate ?? m.bookingDate;
    const entryRef = m.bankReference || entryHash([m.bookingDate, valueDate, m.direction, m.amountCents, counterpartyName, counterpartyIban, communication, structuredReference], index);
    if (seenRefs.has(entryRef)) throw new InboundDocumentError(`line ${m.line}`, `Two movements have the bank reference '${entryRef}'.`);
    seenRefs.add(entryRef);
    const endToEndId = m.clientReference && m.clientReference !== "NOTPROVIDED" ? { endToEndId: m.clientReference } : {};
    return { entryRef, bookingDate: m.bookingDate, valueDate, amountCents: m.amountCents, direction: m.direction, counterpartyName, counterpartyIban, communication, structuredReference, ...endToEndId };
  });

  const statement: BankStatement = {
    format: "coda",
    // the CODA sequence number starts again at 001 each year
    statementId: `${closing.date.slice(0, 4)}-${codaSequence}`,
    iban,
    currency,
    openingBalance: opening,
    closingBalance: closing,
    entries,
  };
  checkBalances(statement, `line ${firstIndex + 1}`);
  return statement;
}

/** Record 1, pos. 2: the account structure; pos. 6–42: the account number and currency (standard 7.5). */
function account(record: string, where: string): { iban: string; currency: string } {
  const structure = record[1];
  let ibanText: string;
  let currency: string;
  if (structure === "2" || structure === "3") {
    // 2: IBAN of a Belgian account (31 + 3 blanks + currency); 3: IBAN of a foreign account (34 + currency)
    ibanText = record.slice(5, structure === "2" ? 36 : 39).trim();
    currency = record.slice(39, 42);
  } else if (structure === "0") {
    // a Belgian account number (BBAN, 12 digits), blank, currency
    ibanText = belgianIbanOf(record.slice(5, 17)) ?? record.slice(5, 17);
    currency = record.slice(18, 21);
  } else {
    throw new InboundDocumentError(where, "The account is a foreign account without an IBAN (structure 1); only IBAN accounts are read.");
  }
  const iban = validIban(ibanText);
  if (iban === null) throw new InboundDocumentError(where, `'${ibanText.trim()}' is not a valid IBAN.`);
  if (!/^[A-Z]{3}$/.test(currency)) throw new InboundDocumentError(where, `'${currency}' is not a currency code.`);
  return { iban, currency };
}

/** BE + check digits + the 12-digit Belgian account number (the IBAN check of "BE00" + BBAN). */
function belgianIbanOf(bban: string): string | null {
  if (!/^\d{12}$/.test(bban)) return null;
  const remainder = Number(BigInt(`${bban}111400`) % 97n);
  return `BE${String(98 - remainder).padStart(2, "0")}${bban}`;
}

function counterpartyIbanOf(field: string): string | null {
  if (field === "" || /^0+$/.test(field)) return null;
  const [number = ""] = field.split(/\s+/);
  return validIban(number) ?? (belgianIbanOf(number) && validIban(belgianIbanOf(number)!));
}

function movement(record: string, line: number): Movement {
  const where = `line ${line}`;
  const sign = record[31];
  if (sign !== "0" && sign !== "1") throw new InboundDocumentError(where, `The movement sign must be 0 (credit) or 1 (debit), not '${sign}'.`);
  const valueDateText = record.slice(47, 53);
  return {
    line,
    sequence: record.slice(2, 6),
    detail: record.slice(6, 10),
    bankReference: record.slice(10, 31).trim(),
    direction: sign === "0" ? "credit" : "debit",
    amountCents: amountCents(record.slice(32, 47), where),
    valueDate: valueDateText === "000000" ? null : date(valueDateText, where),
    bookingDate: date(record.slice(115, 121), where),
    structured: record[61] === "1",
    structuredType: record.slice(62, 65),
    communication: record[61] === "1" ? record.slice(65, 115) : record.slice(62, 115),
    counterpartyAccount: "",
    counterpartyName: "",
    clientReference: "",
  };
}

function balance(sign: string, amount: string, dateText: string, where: string): StatementBalance {
  if (sign !== "0" && sign !== "1") throw new InboundDocumentError(where, `The balance sign must be 0 (credit) or 1 (debit), not '${sign}'.`);
  const cents = amountCents(amount, where);
  return { cents: sign === "0" ? cents : -cents, date: date(dateText, where) };
}

/** 15 digits, 12 + 3 decimals. The third decimal must be 0: Kontor keeps cents. */
function amountCents(field: string, where: string): number {
  const mills = digits(field, where, "amount");
  if (mills % 10 !== 0) throw new InboundDocumentError(where, `The amount ${field} has a non-zero third decimal; amounts are kept in cents.`);
  return mills / 10;
}

function digits(field: string, where: string, what: string): number {
  if (!/^\d+$/.test(field)) throw new InboundDocumentError(where, `The ${what} '${field}' is not a number.`);
  return Number(field);
}

/** DDMMYY, 20YY: CODA 2 is of this century. */
function date(field: string, where: string): string {
  const text = `20${field.slice(4, 6)}-${field.slice(2, 4)}-${field.slice(0, 2)}`;
  if (!/^\d{6}$/.test(field) || !isValidDate(text)) throw new InboundDocumentError(where, `'${field}' is not a date (DDMMYY).`);
  return text;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
