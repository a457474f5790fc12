/**
 * The memory an XML upload costs while it is parsed (docs/payables.md#size-memory-and-concurrency): the largest
 * accepted file (10 MiB) of three shapes, each parsed in a process of its own, its peak RSS
 * (VmHWM) above what the process held before. The budget is what docs/payables.md states; the
 * figures are printed for the record.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const PROBE = `
import { readFileSync } from "node:fs";
import { readEInvoiceXml } from ${JSON.stringify(join(import.meta.dir, "..", "..", "server", "inbound", "einvoice.ts"))};
const base = readFileSync(${JSON.stringify(join(import.meta.dir, "..", "einvoicing", "examples", "peppol", "base-example.xml"))}, "utf8");
const room = 10 * 1024 * 1024 - base.length - 200;
const pad = (inner) => base.replace("<cbc:IssueDate>", inner + "<cbc:IssueDate>");
const shape = process.env.SHAPE;
// as many elements as a document may have (MAX_XML_ELEMENTS, less the example's own), the rest of the file in one note
const most = 300_000 - 200;
const xml = shape === "one large text" ? pad("<cbc:Note>" + "A".repeat(room) + "</cbc:Note>")
  : shape === "small elements" ? pad("<cbc:Note>xxxxxxxxxxxxx</cbc:Note>".repeat(most))
  : pad("<cbc:Note/>".repeat(most) + "<cbc:Note>" + "A".repeat(room - 11 * most - 21) + "</cbc:Note>");
const bytes = new TextEncoder().encode(xml);
const kib = (field) => Number(new RegExp(field + ":\\\\s+(\\\\d+)").exec(readFileSync("/proc/self/status", "utf8"))[1]);
Bun.gc(true);
const before = kib("VmRSS");
const doc = readEInvoiceXml(bytes);
console.log(JSON.stringify({ bytes: bytes.length, number: doc.number, growthKiB: kib("VmHWM") - before }));
`;

const MIB = 1024 * 1024;
// the stated budget per parse: docs/payables.md#size-memory-and-concurrency (a file has at most 300,000 elements)
const BUDGET_MB: Record<string, number> = { "one large text": 40, "small elements": 100, "300,000 empty elements and a large text": 100 };

describe("an XML upload of 10 MiB parses within the stated memory budget", () => {
  for (const [shape, budget] of Object.entries(BUDGET_MB)) {
    test(`${shape}: peak RSS growth under ${budget} MB`, () => {
      const run = Bun.spawnSync([process.execPath, "-e", PROBE], { stdout: "pipe", stderr: "pipe", env: { ...process.env, SHAPE: shape } });
      expect(run.exitCode, run.stderr.toString()).toBe(0);
      const result = JSON.parse(run.stdout.toString()) as { bytes: number; number: string; growthKiB: number };
      expect(result.bytes).toBeGreaterThan(shape === "small elements" ? 9 * MIB : 10 * MIB - 1024);
      expect(result.number).toBe("Snippet1");
      const mb = result.growthKiB / 1024;
      console.log(`${shape} (${(result.bytes / MIB).toFixed(2)} MiB): parse peak +${mb.toFixed(0)} MB (${(mb / (result.bytes / MIB)).toFixed(1)}x the file)`);
      expect(mb).toBeLessThan(budget);
    }, 60_000);
  }
});
