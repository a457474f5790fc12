/**
 * The memory a PDF upload costs while pdf-lib parses it (docs/payables.md#size-memory-and-concurrency):
 * the costliest shapes at Kontor's limits, 10 MiB each (pdf-shapes.ts), each parsed in a process of
 * its own, peak RSS (VmHWM) growth under the stated budget; one more value, name, reference, entry
 * or byte than a limit allows is refused, by POST /expenses/import as a 422 naming body that says
 * which limit.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { MAX_NAME_BYTES, MAX_NUMBER_CHARS, MAX_STRING_BYTES } from "../../server/inbound/pdf-attachments.ts";
import { createTestEnv } from "../helpers.ts";
import { parseShape, parseShapeAlone, pdfOfShape, PDF_BYTES, SHAPES } from "./pdf-shapes.ts";

// the stated budget per parse: docs/payables.md#size-memory-and-concurrency
const BUDGET_MB = 100;

/** What each shape beyond its limit is refused with. */
const BEYOND: Record<(typeof SHAPES)[number], RegExp> = {
  "objects of small arrays": /more than 200000 values and names outside its streams/,
  "one array of numbers": /more than 200000 values and names outside its streams/,
  "long strings": /more than 262144 bytes of strings outside its streams/,
  "distinct long names": /more than 2000 different names/,
  "distinct references": /references to more than 12000 different objects/,
  "cross-reference entries": /cross-reference tables have more than 24000 entries/,
  "every limit at once": /more than 200000 values and names/,
};

describe("a PDF of 10 MiB at every limit parses within the stated memory budget", () => {
  for (const shape of SHAPES) {
    test(`${shape}: read (no embedded XML), peak RSS growth under ${BUDGET_MB} MB`, () => {
      const result = parseShapeAlone(shape);
      expect(result.bytes).toBe(PDF_BYTES);
      expect(result.outcome).toBe("no embedded XML");
      const mb = result.growthKiB / 1024;
      console.log(`${shape}: parse peak +${mb.toFixed(0)} MB, ${result.ms} ms`);
      expect(mb).toBeLessThan(BUDGET_MB);
    }, 60_000);
  }
});

describe("one beyond a limit: refused, saying which", () => {
  for (const shape of SHAPES) {
    test(shape, async () => {
      const result = await parseShape(shape, 1);
      expect(result.outcome).toMatch(BEYOND[shape]);
    }, 30_000);
  }

  const { embeddedInvoiceXml } = require("../../server/inbound/pdf-attachments.ts") as typeof import("../../server/inbound/pdf-attachments.ts");
  const tiny = (object: string) => new TextEncoder().encode(`%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n3 0 obj\n${object}\nendobj\ntrailer\n<< /Size 4 /Root 1 0 R >>\n%%EOF\n`);
  const refusal = async (object: string) => {
    try {
      await embeddedInvoiceXml(tiny(object));
    } catch (error) {
      return (error as Error).message;
    }
    return "accepted";
  };

  test("a name, a string, a number one byte too long; the longest of each is read", async () => {
    expect(await refusal(`/${"A".repeat(MAX_NAME_BYTES)}`)).toBe("accepted");
    expect(await refusal(`/${"A".repeat(MAX_NAME_BYTES + 1)}`)).toContain(`name longer than ${MAX_NAME_BYTES} bytes`);
    expect(await refusal(`(${"A".repeat(MAX_STRING_BYTES - 2)})`)).toBe("accepted");
    expect(await refusal(`(${"A".repeat(MAX_STRING_BYTES - 1)})`)).toContain(`string longer than ${MAX_STRING_BYTES} bytes`);
    // a parenthesis escaped or balanced inside is part of the string
    expect(await refusal(`(${"A".repeat(MAX_STRING_BYTES - 6)}\\)(x))`)).toContain(`string longer than ${MAX_STRING_BYTES} bytes`);
    expect(await refusal(`<${"A".repeat(MAX_STRING_BYTES + 1)}>`)).toContain(`string longer than ${MAX_STRING_BYTES} bytes`);
    expect(await refusal(`[${"1".repeat(MAX_NUMBER_CHARS)}]`)).toBe("accepted");
    expect(await refusal(`[${"1".repeat(MAX_NUMBER_CHARS + 1)}]`)).toContain(`number longer than ${MAX_NUMBER_CHARS} characters`);
  });

  test("values hidden where pdf-lib resumes after junk (inside a string, after a comment) are counted all the same", async () => {
    // pdf-lib skips junk between objects byte by byte and resumes at any "N G obj": a count of the bytes before parsing that skipped strings or comments would miss these
    const hidden = (open: string, close: string) =>
      new TextEncoder().encode(`%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n${open} 3 0 obj [${"0 ".repeat(200_001)}] endobj ${close}\ntrailer\n<< /Size 4 /Root 1 0 R >>\n%%EOF\n`);
    for (const [open, close] of [["(", ")"], ["x %", ""], ["<< >> stream", "endstream"]]) {
      const message = await embeddedInvoiceXml(hidden(open!, close!)).then(() => "accepted", (error: Error) => error.message);
      expect(message, open).toContain("more than 200000 values and names");
    }
  });
});

describe("POST /api/v1/expenses/import with a PDF beyond a limit", async () => {
  const env = await createTestEnv();
  afterAll(() => env.close());

  test("422 naming body, saying which limit; nothing stored", async () => {
    const r = await env.request("POST", "/api/v1/expenses/import", { rawBody: pdfOfShape("distinct references", 1), headers: { "content-type": "application/pdf" } });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(["body"]);
    expect(r.body.errors.body[0]).toContain("references to more than 12000 different objects");
    expect((await env.api("GET", "/api/v1/expenses")).body.data).toEqual([]);
  });
});
