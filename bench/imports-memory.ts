/**
 * What the largest accepted files cost in memory (docs/payables.md#size-memory-and-concurrency),
 * printed for the record: run `bun bench/imports-memory.ts`.
 *
 * 1. A real `kontor serve` (a fresh database, four HTTP threads) takes four parallel uploads of a
 *    10 MiB e-invoice of the worst shape (as many elements as a document may have) on POST /expenses/import; its
 *    peak RSS (VmHWM) is printed, with the answers. Two parse at once, the other two wait
 *    (KONTOR_IMPORT_CONCURRENCY).
 * 2. A 10 MiB PDF of each costliest shape at the PDF limits, parsed alone in a process of its
 *    own: the peak RSS growth of reading it (pdf-lib builds an object per token). `--pdf-only`
 *    runs this part alone.
 *
 * Not a test: on a shared machine the figures vary by tens of MB from run to run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_XML_ELEMENTS } from "../server/inbound/xml.ts";
import { parseShapeAlone, SHAPES } from "../tests/inbound/pdf-shapes.ts";
import { startFreshServer } from "./fresh-server.ts";

const ROOT = join(import.meta.dir, "..");
const MIB = 1024 * 1024;
const kib = (pid: number | "self", field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]);

/**
 * A 10 MiB UBL invoice of the worst shape the import accepts: the Peppol example with as many
 * elements as a document may have (MAX_XML_ELEMENTS), each added one a note with a text of its
 * own, the texts as long as the 10 MiB allow (a string per element: costlier than empty
 * elements or one large text, tests/inbound/xml-memory.test.ts); `number` its own BT-1.
 */
export function worstXml(number: string): Uint8Array {
  const base = readFileSync(join(ROOT, "tests/einvoicing/examples/peppol/base-example.xml"), "utf8").replace("<cbc:ID>Snippet1</cbc:ID>", `<cbc:ID>${number}</cbc:ID>`);
  const own = (base.match(/<[^/!?][^>]*>/g) ?? []).length;
  const notes = MAX_XML_ELEMENTS - own;
  const textLength = Math.floor((10 * MIB - base.length) / notes) - "<cbc:Note></cbc:Note>".length;
  const note = `<cbc:Note>${"A".repeat(textLength)}</cbc:Note>`;
  const xml = base.replace("<cbc:IssueDate>", `${note.repeat(notes)}<cbc:IssueDate>`);
  return new TextEncoder().encode(xml);
}

/** Time enough for the HTTP threads of a fresh server to listen beside the first. */
const THREADS_START_MS = 3000;

async function parallelUploads(uploads: number, threads = 4) {
  const server = await startFreshServer({ KONTOR_HTTP_THREADS: String(threads) }, { worker: false });
  try {
    // the server prints its address once its first thread listens, before the others do: until
    // they listen, every connection lands on the first thread
    await Bun.sleep(THREADS_START_MS);
    const files = Array.from({ length: uploads }, (_, i) => worstXml(`MEM-${i + 1}`));
    const before = kib(server.pid, "VmRSS");
    const startHwm = kib(server.pid, "VmHWM");
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, kib(server.pid, "VmRSS"));
    }, 20);
    const started = performance.now();
    const answers = await Promise.all(
      files.map(async (body) => {
        const response = await fetch(`${server.url}/api/v1/expenses/import?category=Office`, {
          method: "POST",
          headers: { Authorization: `Bearer ${server.token}`, "Content-Type": "application/xml" },
          body,
        });
        const text = await response.text();
        return `${response.status}${response.ok ? "" : ` ${text.slice(0, 160)}`} after ${((performance.now() - started) / 1000).toFixed(1)} s`;
      }),
    );
    clearInterval(sampler);
    const hwm = kib(server.pid, "VmHWM");
    console.log(`${uploads} parallel uploads of ${(files[0]!.length / MIB).toFixed(2)} MiB (${MAX_XML_ELEMENTS} elements each) on kontor serve with ${threads} HTTP threads:`);
    for (const answer of answers) console.log(`  ${answer}`);
    console.log(`  VmHWM before the uploads (the threads' start alone): ${(startHwm / 1024).toFixed(0)} MB`);
    console.log(`  RSS before: ${(before / 1024).toFixed(0)} MB; peak sampled: ${(peak / 1024).toFixed(0)} MB; VmHWM (the process's peak): ${(hwm / 1024).toFixed(0)} MB`);
    return hwm / 1024;
  } finally {
    await server.stop();
  }
}

/** Each PDF shape at Kontor's limits (tests/inbound/pdf-shapes.ts), parsed alone in a process of its own. */
function worstPdfs() {
  for (const shape of SHAPES) {
    const r = parseShapeAlone(shape);
    console.log(`PDF of ${(r.bytes / MIB).toFixed(2)} MiB, ${shape}: ${r.outcome}; ${r.ms} ms; parse peak +${(r.growthKiB / 1024).toFixed(0)} MB`);
  }
}

if (import.meta.main) {
  if (process.argv.includes("--pdf-only")) {
    worstPdfs();
    process.exit(0);
  }
  const only = process.argv.indexOf("--uploads-only");
  if (only !== -1) {
    await parallelUploads(Number(process.argv[only + 1] ?? 4), Number(process.argv[only + 2] ?? 4));
    process.exit(0);
  }
  await parallelUploads(4);
  worstPdfs();
}
