/**
 * PDFs of the costliest shapes for pdf-lib's parser at Kontor's limits, each 10 MiB (the import's
 * limit: what a shape leaves of it is one stream of data, which pdf-lib copies), built for the
 * memory test (pdf-memory.test.ts) and the bench (bench/imports-memory.ts). `over` puts one more
 * of the shape's part in the file (one more value, name, reference, entry or byte), beyond its limit.
 *
 * `bun tests/inbound/pdf-shapes.ts <shape> [over]` parses one in this process and prints, as JSON,
 * the file's size, the outcome, the time and the parse's peak RSS growth (VmHWM above the RSS before).
 */
import { readFileSync } from "node:fs";
import {
  MAX_DISTINCT_NAMES,
  MAX_DISTINCT_REFS,
  MAX_NAME_BYTES,
  MAX_OBJECTS,
  MAX_STRING_BYTES,
  MAX_STRING_TOTAL,
  MAX_TOKENS,
  MAX_XREF_ENTRIES,
} from "../../server/inbound/pdf-attachments.ts";

export const PDF_BYTES = 10 * 1024 * 1024;

export const SHAPES = [
  "objects of small arrays",
  "one array of numbers",
  "long strings",
  "distinct long names",
  "distinct references",
  "cross-reference entries",
  "every limit at once",
] as const;
export type Shape = (typeof SHAPES)[number];

// values and names: the catalog's dictionary 6 (itself, two keys, /Catalog as a value and a name, a
// reference), the page tree's 8, the trailer's 4 (two keys, two values), the filling stream's 3
const HEAD = "%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n";
const TAIL = "trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n0\n%%EOF\n";
const FIXED_TOKENS = 6 + 8 + 4 + 3;
/** The names the fixed parts have: Type Catalog Pages Kids Count Size Root Length. */
const FIXED_NAMES = 8;
/** The references they have: 1 0 R, 2 0 R. */
const FIXED_REFS = 2;

const numbers = (n: number) => "0 ".repeat(Math.max(0, n));
const xrefTable = (entries: number) => `xref\n0 ${entries}\n${"0000000000 00000 n \n".repeat(entries)}`;
/** Distinct names of `bytes` bytes each (the slash not counted), the number in base 36 padded with A. */
const names = (n: number, bytes = MAX_NAME_BYTES) => Array.from({ length: n }, (_, i) => `/${i.toString(36).padStart(bytes, "A")}`).join(" ");
/** Strings of the longest length (a literal string's parentheses count), the rest of the total in one more. */
function strings(over: number): string {
  const longest = Math.floor(MAX_STRING_TOTAL / MAX_STRING_BYTES);
  const rest = MAX_STRING_TOTAL - longest * MAX_STRING_BYTES + over;
  return `${`(${"A".repeat(MAX_STRING_BYTES - 2)})`.repeat(longest)} (${"A".repeat(rest - 2)})`;
}
const references = (n: number) => Array.from({ length: n }, (_, i) => `${i + 100} 0 R`).join(" ");

function body(shape: Shape, over: number): { objects: string[]; xref?: string } {
  switch (shape) {
    case "one array of numbers":
      return { objects: [`[${numbers(MAX_TOKENS - FIXED_TOKENS - 1 + over)}]`] };
    case "objects of small arrays": {
      // as many objects as the limit allows (the two of HEAD and the filling stream's among them), each an array, the values spread over them
      const n = MAX_OBJECTS - 3;
      const values = MAX_TOKENS - FIXED_TOKENS - n + over;
      return { objects: Array.from({ length: n }, (_, i) => `[${numbers(Math.floor(values / n) + (i < values % n ? 1 : 0))}]`) };
    }
    case "long strings":
      return { objects: [`[${strings(over)}]`] };
    case "distinct long names":
      return { objects: [`[${names(MAX_DISTINCT_NAMES - FIXED_NAMES + over)}]`] };
    case "distinct references":
      return { objects: [`[${references(MAX_DISTINCT_REFS - FIXED_REFS + over)}]`] };
    case "cross-reference entries":
      return { objects: [], xref: xrefTable(MAX_XREF_ENTRIES + over) };
    case "every limit at once": {
      // the most objects, entries, names, references and string bytes, the other values numbers spread over the objects
      const nameCount = MAX_DISTINCT_NAMES - FIXED_NAMES;
      const refCount = MAX_DISTINCT_REFS - FIXED_REFS;
      const stringCount = Math.floor(MAX_STRING_TOTAL / MAX_STRING_BYTES) + 1;
      const n = MAX_OBJECTS - 3;
      const values = MAX_TOKENS - FIXED_TOKENS - n - 2 * nameCount - refCount - stringCount + over;
      const first = `${names(nameCount)} ${references(refCount)} ${strings(0)}`;
      return {
        objects: Array.from({ length: n }, (_, i) => `[${i === 0 ? first : ""} ${numbers(Math.floor(values / n) + (i < values % n ? 1 : 0))}]`),
        xref: xrefTable(MAX_XREF_ENTRIES),
      };
    }
  }
}

/** A PDF of `shape` at the limits (`over` 1: one beyond), filled to 10 MiB with one stream of data. */
export function pdfOfShape(shape: Shape, over = 0): Uint8Array {
  const { objects, xref = "" } = body(shape, over);
  const written = objects.map((o, i) => `${i + 3} 0 obj\n${o}\nendobj\n`).join("");
  const fillingHead = `${objects.length + 3} 0 obj\n<< /Length 0000000000 >>\nstream\n`;
  const fillingTail = "\nendstream\nendobj\n";
  const room = PDF_BYTES - HEAD.length - written.length - fillingHead.length - fillingTail.length - xref.length - TAIL.length;
  if (room < 0) throw new Error(`${shape}: ${-room} bytes too many`);
  const filling = `${fillingHead.replace("0000000000", String(room).padStart(10, "0"))}${"x".repeat(room)}${fillingTail}`;
  return new TextEncoder().encode(HEAD + written + filling + xref + TAIL);
}

const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync("/proc/self/status", "utf8"))![1]);

export type ShapeResult = { bytes: number; outcome: string; ms: number; growthKiB: number };

/** Parses a PDF of `shape` in this process: run it in a process of its own for a clean figure. */
export async function parseShape(shape: Shape, over = 0): Promise<ShapeResult> {
  const { embeddedInvoiceXml } = await import("../../server/inbound/pdf-attachments.ts");
  const pdf = pdfOfShape(shape, over);
  Bun.gc(true);
  const before = kib("VmRSS");
  const started = performance.now();
  let outcome = "no embedded XML";
  try {
    if (await embeddedInvoiceXml(pdf)) outcome = "XML found";
  } catch (error) {
    outcome = `refused: ${(error as Error).message}`;
  }
  return { bytes: pdf.length, outcome, ms: Math.round(performance.now() - started), growthKiB: kib("VmHWM") - before };
}

/** The same in a child process: its peak is this parse's alone. */
export function parseShapeAlone(shape: Shape, over = 0): ShapeResult {
  const run = Bun.spawnSync([process.execPath, import.meta.path, shape, String(over)], { stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(run.stderr.toString());
  return JSON.parse(run.stdout.toString()) as ShapeResult;
}

if (import.meta.main) {
  const [shape, over] = process.argv.slice(2);
  if (!SHAPES.includes(shape as Shape)) throw new Error(`a shape: ${SHAPES.join(", ")}`);
  console.log(JSON.stringify(await parseShape(shape as Shape, Number(over ?? 0))));
}
