/**
 * The SEPA credit transfer file of a payment run: ISO 20022 pain.001.001.09 as the EPC SEPA Credit
 * Transfer implementation guidelines and Febelfin's for Belgian banks restrict it: one PmtInf,
 * PmtMtd TRF, SvcLvl SEPA, ChrgBr SLEV, EUR; texts in the SEPA Latin character set within the
 * guidelines' lengths; the debtor's and creditors' BIC optional (IBAN only).
 */
import { formatCents } from "../lib/money.ts";

export type CreditTransfer = {
  endToEndId: string;
  amountCents: number;
  creditorName: string;
  creditorIban: string;
  /** `+++ddd/dddd/ddddd+++`, compact `RF…`, or free text */
  reference: string | null;
};

export type CreditTransferFile = {
  messageId: string;
  createdAt: string;
  executionDate: string;
  debtorName: string;
  debtorIban: string;
  debtorBic: string | null;
  currency: string;
  transfers: CreditTransfer[];
};

const SPECIAL: Record<string, string> = { ß: "ss", Æ: "AE", æ: "ae", Ø: "O", ø: "o", Œ: "OE", œ: "oe", Ł: "L", ł: "l", Đ: "D", đ: "d", "&": "+" };

/**
 * A text in the SEPA Latin character set (a–z A–Z 0–9 / - ? : ( ) . , ' + space): accents
 * dropped, a few letters spelt out, anything else a space; cut to `max` characters.
 */
export function sepaText(text: string, max: number): string {
  const latin = [...text.normalize("NFD").replace(/\p{M}/gu, "")].map((c) => SPECIAL[c] ?? c).join("");
  return latin
    .replace(/[^A-Za-z0-9/\-?:().,'+ ]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, max)
    .trim();
}

/** A name (Nm, 1 to 70 characters): one written only in other scripts is NOTPROVIDED rather than an invalid empty element. */
const name = (text: string) => escape(sepaText(text, 70) || "NOTPROVIDED");

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** RmtInf: a Belgian structured communication (SCOR, issuer BBA, the 12 digits), an RF reference (SCOR, no issuer), else Ustrd ≤ 140. */
function remittance(reference: string | null): string {
  if (reference === null) return "";
  if (reference.startsWith("+++")) {
    const digits = reference.replace(/\D/g, "");
    return `<RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry><Issr>BBA</Issr></Tp><Ref>${digits}</Ref></CdtrRefInf></Strd></RmtInf>`;
  }
  if (/^RF\d{2}[A-Z0-9]{1,21}$/.test(reference)) {
    return `<RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp><Ref>${reference}</Ref></CdtrRefInf></Strd></RmtInf>`;
  }
  const text = sepaText(reference, 140);
  return text === "" ? "" : `<RmtInf><Ustrd>${escape(text)}</Ustrd></RmtInf>`;
}

export function pain001(file: CreditTransferFile): string {
  const count = file.transfers.length;
  const sum = formatCents(file.transfers.reduce((total, t) => total + t.amountCents, 0));
  const debtorName = name(file.debtorName);
  const debtorAgent = file.debtorBic ? `<BICFI>${file.debtorBic}</BICFI>` : "<Othr><Id>NOTPROVIDED</Id></Othr>";
  const transfers = file.transfers.map(
    (t) =>
      "<CdtTrfTxInf>" +
      `<PmtId><EndToEndId>${t.endToEndId}</EndToEndId></PmtId>` +
      `<Amt><InstdAmt Ccy="${file.currency}">${formatCents(t.amountCents)}</InstdAmt></Amt>` +
      `<Cdtr><Nm>${name(t.creditorName)}</Nm></Cdtr>` +
      `<CdtrAcct><Id><IBAN>${t.creditorIban}</IBAN></Id></CdtrAcct>` +
      remittance(t.reference) +
      "</CdtTrfTxInf>",
  );
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    '<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
    "<CstmrCdtTrfInitn>" +
    `<GrpHdr><MsgId>${file.messageId}</MsgId><CreDtTm>${file.createdAt.slice(0, 19)}</CreDtTm><NbOfTxs>${count}</NbOfTxs><CtrlSum>${sum}</CtrlSum>` +
    `<InitgPty><Nm>${debtorName}</Nm></InitgPty></GrpHdr>` +
    // BtchBookg false: each transfer is a statement line of its own, carrying its EndToEndId back
    `<PmtInf><PmtInfId>${file.messageId}</PmtInfId><PmtMtd>TRF</PmtMtd><BtchBookg>false</BtchBookg><NbOfTxs>${count}</NbOfTxs><CtrlSum>${sum}</CtrlSum>` +
    "<PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl></PmtTpInf>" +
    `<ReqdExctnDt><Dt>${file.executionDate}</Dt></ReqdExctnDt>` +
    `<Dbtr><Nm>${debtorName}</Nm></Dbtr>` +
    `<DbtrAcct><Id><IBAN>${file.debtorIban}</IBAN></Id></DbtrAcct>` +
    `<DbtrAgt><FinInstnId>${debtorAgent}</FinInstnId></DbtrAgt>` +
    "<ChrgBr>SLEV</ChrgBr>" +
    transfers.join("") +
    "</PmtInf></CstmrCdtTrfInitn></Document>\n"
  );
}
