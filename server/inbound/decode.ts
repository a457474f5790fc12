/**
 * Bytes of an uploaded document as text, for the readers (which take strings). An XML file says
 * its encoding in its declaration (default UTF-8, a BOM wins); a CODA file carries none and is
 * usually latin-1 (Belgian banks' software): UTF-8 when the bytes are valid UTF-8, else latin-1,
 * unless the Content-Type names a charset.
 */
import { InboundDocumentError } from "./errors.ts";

/** The largest statement or e-invoice file taken (the JSON bodies' 1 MiB is too small for a month of CAMT). */
export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

/** The text of an XML document (the bytes themselves are what is archived). */
export function decodeXml(bytes: Uint8Array, charset: string | null): string {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 200));
  const declared = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head.replace(/^\uFEFF|^ï»¿/, ""))?.[1];
  const encoding = head.startsWith("ï»¿") ? "utf-8" : (declared ?? charset ?? "utf-8").toLowerCase();
  return decode(bytes, encoding, "/");
}

/** The text of a CODA file. */
export function decodeCoda(bytes: Uint8Array, charset: string | null): string {
  if (charset) return decode(bytes, charset, "CODA");
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("latin1").decode(bytes);
  }
}

/** Whether the bytes open with a PDF header (what an upload sent as XML is told apart by). */
export function looksLikePdf(bytes: Uint8Array): boolean {
  return new TextDecoder("latin1").decode(bytes.subarray(0, 5)) === "%PDF-";
}

/** Whether the bytes start with a ZIP local file header (or are an empty archive). */
export function looksLikeZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6));
}

/** Whether a file's first non-blank character opens an XML element or declaration. */
export function looksLikeXml(bytes: Uint8Array): boolean {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 64)).replace(/^ï»¿/, "").trimStart();
  return head.startsWith("<");
}

function decode(bytes: Uint8Array, encoding: string, path: string): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(encoding as ConstructorParameters<typeof TextDecoder>[0], { fatal: true });
  } catch {
    throw new InboundDocumentError(path, `The document's encoding '${encoding}' is not one Kontor reads.`);
  }
  try {
    return decoder.decode(bytes);
  } catch {
    throw new InboundDocumentError(path, `The document is not valid ${encoding.toUpperCase()} text.`);
  }
}
