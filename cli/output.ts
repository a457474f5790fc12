/**
 * CLI output: one JSON document with --json, aligned tables otherwise; errors on stderr.
 * Everything printed goes through here, and names, emails and the like are data others chose
 * (a token name can come from any API caller): control characters in them are printed escaped,
 * never sent raw to a terminal.
 */
export type Column<T> = [header: string, value: (row: T) => unknown];

export function printTable<T>(rows: T[], columns: Column<T>[]): void {
  const cells = rows.map((row) => columns.map(([, value]) => format(value(row))));
  const widths = columns.map(([header], i) => Math.max(header.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join("  ").trimEnd();
  console.log(line(columns.map(([h]) => h)));
  for (const row of cells) console.log(line(row));
  if (rows.length === 0) console.log("(none)");
}

export function printRecord(record: Record<string, unknown>): void {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  for (const [key, value] of Object.entries(record)) console.log(`${key.padEnd(width)}  ${format(value)}`);
}

/**
 * JSON.stringify escapes C0 controls; the others it leaves raw (DEL, C1 such as the one-byte
 * CSI, bidi overrides) can only stand inside strings, where `\uXXXX` means the same.
 */
export function printJson(value: unknown): void {
  console.log(jsonText(value));
}

/** The --json document of `value`, as printJson prints it. */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(UNSAFE_IN_JSON, (ch) => `\\u${hex(ch, 4)}`);
}

/** A message on stdout: our own line breaks are kept, every other control character escaped. */
export function printLine(text: string): void {
  console.log(terminalSafe(text, { keepNewlines: true }));
}

/** A message on stderr, on one line. */
export function printError(text: string): void {
  console.error(terminalSafe(text));
}

/**
 * C0 and C1 controls, DEL, and the bidirectional marks and overrides that reorder what a
 * terminal shows, so a name cannot move the cursor, recolour, retitle or disguise the output.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** `\x1b[31mevil` for ESC [31m evil: visible, and the same as a JavaScript or C string literal. */
export function terminalSafe(text: string, options: { keepNewlines?: boolean } = {}): string {
  return text.replace(UNSAFE, (ch) => {
    if (ch === "\n" && options.keepNewlines) return ch;
    return NAMED[ch] ?? (ch.charCodeAt(0) <= 0xff ? `\\x${hex(ch, 2)}` : `\\u${hex(ch, 4)}`);
  });
}

const hex = (ch: string, digits: number) => ch.charCodeAt(0).toString(16).padStart(digits, "0");

function format(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (Array.isArray(value)) return terminalSafe(value.join(","));
  if (typeof value === "boolean") return value ? "yes" : "no";
  return terminalSafe(String(value));
}
