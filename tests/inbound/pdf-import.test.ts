/**
 * Hybrid PDFs in (issue 31 item 4): `embeddedInvoiceXml` finds the e-invoice a Factur-X, ZUGFeRD
 * or XRechnung PDF carries exactly as poppler's `pdfdetach` extracts it (sample files of the
 * Mustang project, fixtures/pdf/ATTRIBUTION.md), says when there is none, and refuses hostile
 * files (truncated, garbage, encrypted, too many objects, compressed streams that expand to
 * gigabytes, a name tree that loops) with an InboundDocumentError, quickly. POST
 * /api/v1/expenses/import takes such a PDF, reads its XML as it reads one sent alone, and keeps
 * the PDF, byte for byte, as the expense's document.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { PDFDocument } from "pdf-lib";
import { InboundDocumentError } from "../../server/inbound/errors.ts";
import { embeddedInvoiceXml, MAX_OBJECTS } from "../../server/inbound/pdf-attachments.ts";
import { createTestEnv } from "../helpers.ts";

const FIXTURES = join(import.meta.dir, "fixtures");
const sample = (name: string) => new Uint8Array(readFileSync(join(FIXTURES, "pdf", name)));
const dir = mkdtempSync(join(tmpdir(), "kontor-pdf-in-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The file name of the attachment in each sample, as `pdfdetach -list` shows it (null: none). */
const SAMPLES: Record<string, string | null> = {
  "EN16931_Einfach.pdf": "factur-x.xml",
  "zugferd_invoice.pdf": "ZUGFeRD-invoice.xml",
  "ZTESTZUGFERD_1_INVDSS_012015738820PDF-1.pdf": "zugferd-invoice.xml",
  "validXRechnung.pdf": "factur-x.xml",
  "MustangGnuaccountingBeispielRE-20190610_507blanko.pdf": null,
};

function run(cmd: string[]) {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode ?? -1, out: p.stdout.toString(), err: p.stderr.toString() };
}

/** What embeddedInvoiceXml refuses the file with, and how long it took; fails if it is anything but an InboundDocumentError. */
async function refusal(pdf: Uint8Array): Promise<{ message: string; ms: number }> {
  const started = performance.now();
  try {
    await embeddedInvoiceXml(pdf);
  } catch (error) {
    expect(error).toBeInstanceOf(InboundDocumentError);
    const e = error as InboundDocumentError;
    expect(e.path).toBe("body");
    return { message: e.errors!.body![0]!, ms: performance.now() - started };
  }
  throw new Error("expected the PDF to be refused");
}

// ---------------------------------------------------------------------------------------------
// hand-built PDFs: objects 1..n, a classic cross-reference table, /Root 1 0 R

const latin1 = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const stream = (dict: string, data: Uint8Array) => Buffer.concat([latin1(`<< ${dict} /Length ${data.length} >>\nstream\n`), data, latin1("\nendstream")]);

function pdfOf(objects: (string | Uint8Array)[]): Uint8Array {
  const parts: Uint8Array[] = [latin1("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")];
  let size = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(size);
    const bytes = Buffer.concat([latin1(`${i + 1} 0 obj\n`), typeof body === "string" ? latin1(body) : body, latin1("\nendobj\n")]);
    parts.push(bytes);
    size += bytes.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`)].join("");
  parts.push(latin1(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${size}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** A PDF with one page whose catalog names `stream` (object 5) as its embedded factur-x.xml. */
const withAttachment = (fileStream: Uint8Array, names = "/Names << /EmbeddedFiles << /Names [(factur-x.xml) 4 0 R] >> >>") =>
  pdfOf([
    `<< /Type /Catalog /Pages 2 0 R ${names} >>`,
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
    "<< /Type /Filespec /F (factur-x.xml) /UF (factur-x.xml) /EF << /F 5 0 R >> /AFRelationship /Alternative >>",
    fileStream,
  ]);

const zeros = (n: number) => new Uint8Array(n);

describe("embeddedInvoiceXml: the Mustang project's sample PDFs", () => {
  for (const [file, name] of Object.entries(SAMPLES)) {
    test(`${file}: ${name ?? "no embedded invoice"}, the bytes pdfdetach extracts`, async () => {
      const path = join(FIXTURES, "pdf", file);
      const listed = run(["pdfdetach", "-list", path]).out.split("\n").slice(1).filter(Boolean).map((l) => l.replace(/^\d+: /, ""));
      const found = await embeddedInvoiceXml(sample(file));
      if (name === null) {
        expect(listed).toEqual([]);
        expect(found).toBeNull();
        return;
      }
      expect(listed).toContain(name);
      const out = join(dir, `${file}.xml`);
      // by its number: -savefile does not find a name written as UTF-16 (zugferd_invoice.pdf's)
      expect(run(["pdfdetach", "-save", String(listed.indexOf(name) + 1), "-o", out, path]).code).toBe(0);
      expect(found!.name).toBe(name);
      expect(Buffer.compare(Buffer.from(found!.xml), readFileSync(out))).toBe(0);
    });
  }

  test("a PDF with both ZUGFeRD 1's and Factur-X's file: factur-x.xml is taken; names are matched in any case", async () => {
    const xml = latin1("<rsm:CrossIndustryInvoice/>");
    const pdf = await PDFDocument.create({ updateMetadata: false });
    pdf.addPage();
    await pdf.attach(latin1("<rsm:CrossIndustryDocument/>"), "ZUGFeRD-invoice.xml", { mimeType: "text/xml" });
    await pdf.attach(xml, "Factur-X.XML", { mimeType: "text/xml" });
    const found = await embeddedInvoiceXml(await pdf.save());
    expect(found!.name).toBe("Factur-X.XML");
    expect(Buffer.from(found!.xml).toString()).toBe("<rsm:CrossIndustryInvoice/>");
  });
});

describe("embeddedInvoiceXml: hostile and broken files are refused quickly, never a crash or a hang", () => {
  test("not a PDF: garbage, an empty file, the Mustang project's 15-byte 'PDF'", async () => {
    let seed = 42;
    const garbage = Uint8Array.from({ length: 50_000 }, () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) & 0xff);
    expect((await refusal(garbage)).message).toContain("not a PDF");
    expect((await refusal(new Uint8Array(0))).message).toContain("not a PDF");
    expect((await refusal(Buffer.concat([latin1("%PDF-1.7\n"), garbage]))).message).toMatch(/cannot be read|no document catalog/);
    expect((await refusal(sample("corrupt-factur-x-waytoosmall.pdf"))).message).toContain("no document catalog");
  });

  test("truncated copies of a Factur-X sample: refused, or the attachment read whole (never a part of it)", async () => {
    const whole = sample("EN16931_Einfach.pdf");
    const xml = (await embeddedInvoiceXml(whole))!.xml;
    for (const fraction of [0.05, 0.3, 0.6, 0.9, 0.999]) {
      const cut = whole.subarray(0, Math.floor(whole.length * fraction));
      const started = performance.now();
      try {
        const found = await embeddedInvoiceXml(cut);
        if (found) expect(Buffer.compare(Buffer.from(found.xml), Buffer.from(xml))).toBe(0);
      } catch (error) {
        expect(error).toBeInstanceOf(InboundDocumentError);
      }
      expect(performance.now() - started).toBeLessThan(3_000);
    }
  });

  test("an encrypted PDF (qpdf --encrypt): refused", async () => {
    const out = join(dir, "encrypted.pdf");
    expect(run(["qpdf", "--encrypt", "user", "owner", "256", "--", join(FIXTURES, "pdf", "EN16931_Einfach.pdf"), out]).code).toBe(0);
    expect((await refusal(new Uint8Array(readFileSync(out)))).message).toMatch(/encrypt/i);
  });

  test("more objects than an invoice has, written out or declared by an object or cross-reference stream: refused before they are built", async () => {
    const many = latin1(`%PDF-1.7\n${"1 0 obj null endobj\n".repeat(MAX_OBJECTS + 1)}`);
    const counted = await refusal(many);
    expect(counted.message).toContain(`more than the ${MAX_OBJECTS}`);
    expect(counted.ms).toBeLessThan(2_000);
    // a cross-reference stream of 15 bytes that declares a billion entries
    const xrefStream = pdfOf(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>", stream("/Type /XRef /Size 1000000000 /W [1 2 2] /Root 1 0 R", zeros(15))]);
    expect((await refusal(xrefStream)).message).toContain("cross-reference stream");
    const objectStream = pdfOf(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>", stream("/Type /ObjStm /N 1000000000 /First 4", latin1("9 0 null"))]);
    expect((await refusal(objectStream)).message).toContain("object stream");
    // object streams each within the limit, beyond it together: two of 6 MiB (one object and blanks, compressed to a few KiB)
    const sixMiB = deflateSync(Buffer.concat([latin1("9 0 null"), Buffer.alloc(6 * 1024 * 1024, " ")]));
    const several = pdfOf([
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [] /Count 0 >>",
      ...[0, 1].map(() => stream("/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", sixMiB)),
    ]);
    expect((await refusal(several)).message).toContain("object streams expand to more than");
    const pages = pdfOf(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 5000000 >>"]);
    expect((await refusal(pages)).message).toContain("5000000 pages");
  });

  test("objects written with any of PDF's six white-space characters (NUL, TAB, LF, FF, CR, SPACE) are counted, and refused beyond the limit", async () => {
    // ISO 32000-1 7.2.2: "12\0 0\0obj" is an object header as much as "12 0 obj" is; JavaScript's \s has no NUL
    for (const space of ["\0", "\t", "\n", "\f", "\r", " "]) {
      const header = `1${space}0${space}obj`;
      const many = latin1(`%PDF-1.7\n${`${header} null endobj${space}`.repeat(MAX_OBJECTS + 1)}`);
      const counted = await refusal(many);
      expect(counted.message, JSON.stringify(space)).toContain(`more than the ${MAX_OBJECTS}`);
      expect(counted.ms).toBeLessThan(2_000);
    }
    // mixed, and several white-space characters in a row
    const mixed = latin1(`%PDF-1.7\n${"7\0\r\n0\f \tobj<<>>endobj\0".repeat(MAX_OBJECTS + 1)}`);
    expect((await refusal(mixed)).message).toContain(`${MAX_OBJECTS + 1} objects`);
  });

  test("zip bombs: an attachment, an object stream and a doubly compressed stream that expand to 64 MiB are stopped at the limit", async () => {
    const bomb = deflateSync(zeros(64 * 1024 * 1024), { level: 9 });
    expect(bomb.length).toBeLessThan(100_000);
    const attachment = await refusal(withAttachment(stream("/Type /EmbeddedFile /Subtype /text#2Fxml /Filter /FlateDecode", bomb)));
    expect(attachment.message).toContain("factur-x.xml of the PDF expands to more than");
    expect(attachment.ms).toBeLessThan(5_000);
    const inObjectStream = await refusal(pdfOf(["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [] /Count 0 >>", stream("/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", bomb)]));
    expect(inObjectStream.message).toContain("An object stream of the PDF expands to more than");
    // the same 64 MiB behind two Flate filters, in a few hundred bytes
    const twice = deflateSync(bomb, { level: 9 });
    expect(twice.length).toBeLessThan(1_000);
    const chained = await refusal(withAttachment(stream("/Type /EmbeddedFile /Filter [/FlateDecode /FlateDecode]", twice)));
    expect(chained.message).toContain("expands to more than");
    expect(chained.ms).toBeLessThan(5_000);
  });

  test("a name tree whose node is its own kid, and a file specification without a stream", async () => {
    const started = performance.now();
    // object 6: a name-tree node listing itself as a kid
    const looped = pdfOf([
      "<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles 6 0 R >> >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
      "<< /Type /Filespec /F (FACTUR-X.xml) /EF << /F 5 0 R >> >>",
      stream("/Type /EmbeddedFile", latin1("<x/>")),
      "<< /Kids [6 0 R] /Names [(FACTUR-X.xml) 4 0 R] >>",
    ]);
    const found = await embeddedInvoiceXml(looped);
    expect(found!.name).toBe("FACTUR-X.xml");
    expect(Buffer.from(found!.xml).toString()).toBe("<x/>");
    expect(performance.now() - started).toBeLessThan(2_000);
    const noStream = pdfOf(["<< /Type /Catalog /Pages 2 0 R /AF [3 0 R] >>", "<< /Type /Pages /Kids [] /Count 0 >>", "<< /Type /Filespec /F (factur-x.xml) >>"]);
    expect((await refusal(noStream)).message).toContain("no file stream");
  });
});

// ---------------------------------------------------------------------------------------------

describe("POST /api/v1/expenses/import with a PDF", async () => {
  const env = await createTestEnv();
  afterAll(() => env.close());
  const importPdf = (bytes: Uint8Array) => env.request("POST", "/api/v1/expenses/import", { rawBody: bytes, headers: { "content-type": "application/pdf" } });


  test("an XRechnung UBL (KoSIT test suite 04.04a) attached to a PDF as xrechnung.xml: the expense has the XML's figures; the PDF is kept byte for byte", async () => {
    const ublXml = readFileSync(join(FIXTURES, "xrechnung", "04.04a-INVOICE_ubl.xml"));
    // the PDF is written by pdf-lib's own attach (names as UTF-16 strings), not by Kontor's Factur-X writer
    const pdf = await PDFDocument.create({ updateMetadata: false });
    pdf.addPage();
    await pdf.attach(ublXml, "xrechnung.xml", { mimeType: "text/xml" });
    const bytes = await pdf.save();

    const r = await importPdf(bytes);
    expect(r.status, r.text.slice(0, 400)).toBe(201);
    // figures read off the XML itself
    const text = ublXml.toString("utf8");
    const total = (tag: string) => new RegExp(`<cbc:${tag} currencyID="EUR">([^<]+)<`).exec(text)![1]!;
    const expense = r.body.data;
    expect(expense.supplier_invoice_number).toBe(/<cbc:ID>([^<]+)<\/cbc:ID>/.exec(text)![1]);
    expect(Number(expense.amount)).toBe(Number(total("TaxExclusiveAmount")));
    expect(Number(expense.vat_amount)).toBe(Number(/<cac:TaxTotal>\s*<cbc:TaxAmount currencyID="EUR">([^<]+)</.exec(text)![1]));
    expect(Number(expense.total)).toBe(Number(total("TaxInclusiveAmount")));
    // what is owed once approved: the PayableAmount (amount_due is 0.00 until then)
    expect(expense.amount_due).toBe("0.00");
    expect(Number((await env.api("POST", `/api/v1/expenses/${expense.id}/approve`)).body.data.amount_due)).toBe(Number(total("PayableAmount")));
    expect(expense.vendor).toBe("Test Gerüstbau GmbH");

    const original = await env.request("GET", `/api/v1/expenses/${expense.id}/document`);
    expect(original.status).toBe(200);
    expect(original.headers.get("content-type")).toBe("application/pdf");
    expect(Buffer.compare(Buffer.from(original.bytes), Buffer.from(bytes))).toBe(0);

    // the same rules as a UBL sent alone: the same document again is a 409 naming the expense
    const again = await importPdf(bytes);
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(expense.id);
    const asXml = await env.request("POST", "/api/v1/expenses/import", { rawBody: ublXml.toString("utf8"), headers: { "content-type": "application/xml" } });
    expect(asXml.status).toBe(409);
  });

  test("a PDF without an embedded e-invoice, a broken PDF, garbage sent as a PDF: 422 naming body, nothing stored", async () => {
    const before = (await env.api("GET", "/api/v1/expenses")).body.data.length;
    const blank = await importPdf(sample("MustangGnuaccountingBeispielRE-20190610_507blanko.pdf"));
    expect(blank.status).toBe(422);
    expect(blank.body.errors.body[0]).toContain("The PDF carries no embedded e-invoice");
    expect(blank.body.errors.body[0]).toContain("factur-x.xml");
    const broken = await importPdf(sample("corrupt-factur-x-waytoosmall.pdf"));
    expect(broken.status).toBe(422);
    expect(Object.keys(broken.body.errors)).toEqual(["body"]);
    const garbage = await importPdf(latin1("this is no PDF"));
    expect(garbage.status).toBe(422);
    expect(garbage.body.errors.body[0]).toContain("not a PDF");
    expect((await env.api("GET", "/api/v1/expenses")).body.data.length).toBe(before);
  });

  test("a ZUGFeRD 1 PDF: its XML reaches the e-invoice reader, which names what it cannot read", async () => {
    const r = await importPdf(sample("zugferd_invoice.pdf"));
    expect(r.status).toBe(422);
    // the reader's refusal is about the XML's root, not about the PDF
    expect(Object.keys(r.body.errors)[0]).toMatch(/^\/CrossIndustry/);
  });

  test("a Factur-X EN 16931 PDF (Mustang EN16931_Einfach): an expense with the figures of its factur-x.xml", async () => {
    const bytes = sample("EN16931_Einfach.pdf");
    const xml = Buffer.from((await embeddedInvoiceXml(bytes))!.xml).toString("utf8");
    const amount = (tag: string) => new RegExp(`<ram:${tag}(?: [^>]*)?>([^<]+)<`).exec(xml)![1]!;
    const r = await importPdf(bytes);
    expect(r.status, r.text.slice(0, 400)).toBe(201);
    expect(Number(r.body.data.amount)).toBe(Number(amount("TaxBasisTotalAmount")));
    expect(Number(r.body.data.vat_amount)).toBe(Number(amount("TaxTotalAmount")));
    expect(Number(r.body.data.total)).toBe(Number(amount("GrandTotalAmount")));
    expect(Number((await env.api("POST", `/api/v1/expenses/${r.body.data.id}/approve`)).body.data.amount_due)).toBe(Number(amount("DuePayableAmount")));
    const original = await env.request("GET", `/api/v1/expenses/${r.body.data.id}/document`);
    expect(Buffer.compare(Buffer.from(original.bytes), Buffer.from(bytes))).toBe(0);
  });
});
