/**
 * Reads the members of a ZIP archive (PKWARE APPNOTE 6.3: the central directory, stored or
 * deflated members), as banks and accounting software hand out a batch of statements. Written
 * here rather than taken from a library: node:zlib's inflateRawSync with maxOutputLength stops a
 * member at the size limit, so a zip bomb is refused before it is inflated beyond it, whatever
 * sizes the archive claims.
 */
import { inflateRawSync } from "node:zlib";
import { InboundDocumentError } from "./errors.ts";

export const MAX_ZIP_MEMBERS = 100;
export const MAX_ZIP_UNCOMPRESSED_BYTES = 50 * 1024 * 1024;

export type ZipMember = { name: string; bytes: Uint8Array };


/** The archive's files (directories left out), in the central directory's order. */
export function readZip(bytes: Uint8Array): ZipMember[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const broken = (why: string) => new InboundDocumentError("/", `The ZIP archive cannot be read: ${why}.`);
  // the end of central directory record: 22 bytes, then a comment of at most 65535
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 65535); at--) {
    if (view.getUint32(at, true) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) throw broken("it has no end of central directory record (cut short?)");
  const count = view.getUint16(end + 10, true);
  const directorySize = view.getUint32(end + 12, true);
  let at = view.getUint32(end + 16, true);
  if (count === 0xffff || at === 0xffffffff) throw broken("ZIP64 archives are not read");
  if (at + directorySize > end) throw broken("its central directory lies outside the file");

  const entries: { name: string; method: number; compressed: number; size: number; offset: number; flags: number }[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || view.getUint32(at, true) !== 0x02014b50) throw broken(`central directory entry ${i + 1} is damaged`);
    const nameLength = view.getUint16(at + 28, true);
    const name = new TextDecoder("utf-8").decode(bytes.subarray(at + 46, at + 46 + nameLength));
    entries.push({
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      compressed: view.getUint32(at + 20, true),
      size: view.getUint32(at + 24, true),
      offset: view.getUint32(at + 42, true),
      name,
    });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  const files = entries.filter((e) => !e.name.endsWith("/"));
  if (files.length > MAX_ZIP_MEMBERS) {
    throw new InboundDocumentError("/", `The ZIP archive holds ${files.length} files; Kontor imports at most ${MAX_ZIP_MEMBERS} statement files per archive. Split it.`);
  }
  const tooLarge = () =>
    new InboundDocumentError("/", `The ZIP archive's files come to more than ${MAX_ZIP_UNCOMPRESSED_BYTES / 1024 / 1024} MB uncompressed, the most Kontor reads from one archive. Split it.`);
  // the sizes the archive claims; the real sizes are held to the limit while inflating below
  if (files.reduce((sum, e) => sum + e.size, 0) > MAX_ZIP_UNCOMPRESSED_BYTES) throw tooLarge();

  let budget = MAX_ZIP_UNCOMPRESSED_BYTES;
  return files.map((entry) => {
    if (entry.flags & 1) throw new InboundDocumentError(entry.name, "The file is encrypted in the ZIP archive; Kontor reads unencrypted archives.");
    const local = entry.offset;
    if (local + 30 > bytes.length || view.getUint32(local, true) !== 0x04034b50) throw broken(`the file ${entry.name} is damaged`);
    const start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = bytes.subarray(start, start + entry.compressed);
    if (start + entry.compressed > bytes.length) throw broken(`the file ${entry.name} is cut short`);
    let content: Uint8Array;
    if (entry.method === 0) content = data;
    else if (entry.method === 8) {
      try {
        content = inflateRawSync(data, { maxOutputLength: budget + 1 });
      } catch (error) {
        if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge();
        throw broken(`the file ${entry.name} does not inflate`);
      }
    } else throw new InboundDocumentError(entry.name, `The file is compressed with method ${entry.method}; Kontor reads stored and deflated files.`);
    budget -= content.length;
    if (budget < 0) throw tooLarge();
    return { name: entry.name, bytes: content };
  });
}
