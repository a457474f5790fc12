/** CSV (RFC 4180) for reports and exports: comma-separated, CRLF, quoted where needed. */

/**
 * A text cell a spreadsheet would run as a formula (=, +, -, @ first) gets a leading apostrophe;
 * amounts are written as numbers and left alone.
 */
function cell(value: string | number | null): string {
  if (value === null) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text) && !/^-?\d+(\.\d+)?$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(header: string[], rows: (string | number | null)[][]): string {
  return [header, ...rows].map((row) => row.map(cell).join(",")).join("\r\n") + "\r\n";
}

/** A file to download (`content-disposition: attachment`), named after what it holds. */
export function download(filename: string, body: string, contentType: string): Response {
  return new Response(body, { headers: { "content-type": contentType, "content-disposition": `attachment; filename="${filename}"` } });
}

/** A CSV response for download. */
export const csvResponse = (filename: string, csv: string) => download(filename, csv, "text/csv; charset=utf-8");

/** Whether the client asked for CSV (`Accept: text/csv`) rather than JSON. */
export const wantsCsv = (accept: string | undefined) => /\btext\/csv\b/i.test(accept ?? "");
