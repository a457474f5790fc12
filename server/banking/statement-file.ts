/**
 * Reading an uploaded statement file (CAMT.053, CODA, or a ZIP of them) into its statements, each
 * with what identifies its content (the hash that recognises the same statement imported again).
 * The readers are server/inbound's; this says which one a file is for.
 */
import { createHash } from "node:crypto";
import type { DocumentUpload } from "../http/kernel.ts";
import type { BankStatement } from "../inbound/bank-statement.ts";
import { decodeCoda, decodeXml, looksLikeXml, looksLikeZip } from "../inbound/decode.ts";
import { InboundDocumentError, STATEMENT_FORMATS } from "../inbound/errors.ts";

/**
 * The statement readers (camt.053, CODA, ZIP), loaded by the first import (synchronously: the
 * import is one transaction): an HTTP thread that never imports a statement never loads them.
 */
const statementReaders = () => ({
  camt053: require("../inbound/camt053.ts") as typeof import("../inbound/camt053.ts"),
  coda: require("../inbound/coda.ts") as typeof import("../inbound/coda.ts"),
  zip: require("../inbound/zip.ts") as typeof import("../inbound/zip.ts"),
});


/** A statement of an uploaded file, with the ZIP member it came from and what identifies its content. */
export type FileStatement = { file: string | null; index: number; statement: BankStatement; sha256: string; fileSha256: string | null };

/** The statements of an upload: XML is camt.053, a ZIP archive holds statement files, text that starts like a CODA header is CODA. */
export function readStatementFile(upload: DocumentUpload): FileStatement[] {
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
