/** CLI output: one JSON document with --json, aligned tables otherwise; errors on stderr. */
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

export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

function format(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (Array.isArray(value)) return value.join(",");
  if (typeof value === "boolean") return value ? "yes" : "no";
  return String(value);
}
