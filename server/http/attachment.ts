/**
 * `Content-Disposition: attachment` with a file name (RFC 6266): a plain `filename` every client
 * reads, in safe ASCII, and `filename*` (RFC 8187, UTF-8) beside it when the name has characters
 * the plain one had to replace, e.g. a client's own invoice number "Ré-2026/7".
 */

/** Letters, digits, `.`, `_` and `-`; anything else (a slash, a quote, a space, a control character) becomes `_`. */
function safeName(name: string): string {
  const safe = name
    .normalize("NFC")
    .replace(/[^\p{L}\p{N}._-]+/gu, "_")
    // no hidden file (".x"), no "..": a file name, never a path
    .replace(/^[._]+/, "")
    .slice(0, 120);
  return safe === "" ? "document" : safe;
}

/** `attachment; filename="INV-2026-00001.pdf"`, with `filename*` when the name is not all ASCII. */
export function attachment(baseName: string, extension: string): string {
  const unicode = `${safeName(baseName)}.${extension}`;
  const ascii = unicode.replace(/[^\x20-\x7e]/g, "_");
  if (ascii === unicode) return `attachment; filename="${ascii}"`;
  // RFC 8187's attr-char: what encodeURIComponent leaves, less ' ( ) * ! (which it leaves too)
  const encoded = encodeURIComponent(unicode).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
