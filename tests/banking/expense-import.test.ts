/**
 * Supplier e-invoices (issue 20, part 1): POST /api/v1/expenses/import with a UBL 2.1 Invoice or
 * CreditNote. Every EN 16931 / Peppol example imports with its totals; the supplier is matched
 * by VAT number, Peppol id, then name; the original comes back byte for byte; the same document
 * twice is a 409; what is not an EN 16931 invoice is a 422 saying why; approval posts per rate.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { journalEntries, journalLines, suppliers } from "../../db/schema.ts";
import { createTestEnv } from "../helpers.ts";
import { firstRow } from "../../db/client.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const EXAMPLES = join(import.meta.dir, "..", "einvoicing", "examples");
const exampleBytes = (name: string) => readFileSync(join(EXAMPLES, name));

async function importXml(body: string | Uint8Array, token?: string, query = "", contentType = "application/xml") {
  return env.request("POST", `/api/v1/expenses/import${query}`, {
    rawBody: body as string,
    token,
    headers: { "content-type": contentType },
  });
}

// [amount, vat_amount, document_type] as each file's LegalMonetaryTotal and TaxTotal say
const EXPECTED: Record<string, [string, string, "invoice" | "credit_note", string]> = {
  "cen/guide-example1.xml": ["229.60", "20.73", "invoice", "EUR"],
  "cen/ubl-tc434-example1.xml": ["229.60", "20.73", "invoice", "EUR"],
  "cen/ubl-tc434-example2.xml": ["1436.50", "365.28", "invoice", "NOK"],
  "cen/ubl-tc434-example5.xml": ["4000.00", "675.00", "invoice", "DKK"],
  "cen/ubl-tc434-creditnote1.xml": ["100.11", "0.00", "credit_note", "EUR"],
  "peppol/base-example.xml": ["1325.00", "331.25", "invoice", "EUR"],
  "peppol/sales-order-example.xml": ["1325.00", "331.25", "invoice", "EUR"],
  "peppol/base-creditnote-correction.xml": ["1325.00", "331.25", "credit_note", "EUR"],
  // a corrective invoice with negative totals: a credit note in all but name
  "peppol/base-negative-inv-correction.xml": ["1325.00", "331.25", "credit_note", "EUR"],
  "peppol/Allowance-example.xml": ["5900.00", "1225.00", "invoice", "EUR"],
  "peppol/Vat-category-S.xml": ["7000.00", "1550.00", "invoice", "EUR"],
  "peppol/vat-category-E.xml": ["1200.00", "0.00", "invoice", "GBP"],
  "peppol/vat-category-O.xml": ["3200.00", "0.00", "invoice", "SEK"],
  "peppol/vat-category-Z.xml": ["1200.00", "0.00", "invoice", "GBP"],
};

describe("every example imports with the right totals", () => {
  test("the table covers every example file", () => {
    const files = ["cen", "peppol"].flatMap((dir) => readdirSync(join(EXAMPLES, dir)).map((f) => `${dir}/${f}`));
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [file, [amount, vat, documentType, currency]] of Object.entries(EXPECTED)) {
    test(file, async () => {
      // one organisation per file: several examples are the same supplier's "Snippet1"
      const { token } = await env.newOrg(`Import ${file}`, { country: "BE", currency: "EUR" });
      const bytes = exampleBytes(file);
      const r = await importXml(bytes, token);
      expect(r.status, r.text).toBe(201);
      expect(r.headers.get("location")).toBe(`/api/v1/expenses/${r.body.data.id}`);
      expect(r.body.data).toMatchObject({ amount, vat_amount: vat, document_type: documentType, currency, status: "pending", category: "Purchases" });
      expect(r.body.data.supplier_invoice_number).toBeString();
      expect(r.body.data.document_url).toBe(`/api/v1/expenses/${r.body.data.id}/document`);
      const original = await env.request("GET", `/api/v1/expenses/${r.body.data.id}/document`, { token });
      expect(original.status).toBe(200);
      expect(original.headers.get("content-type")).toStartWith("application/xml");
      const served = new Uint8Array(await (await env.app.handle(new Request(`http://localhost/api/v1/expenses/${r.body.data.id}/document`, { headers: { authorization: `Bearer ${token}` } }))).arrayBuffer());
      expect(Buffer.compare(Buffer.from(served), bytes)).toBe(0);
    });
  }
});

describe("the supplier, the 409 and the refusals", () => {
  test("created with the document's name, VAT number, Peppol id and address; then matched by VAT number", async () => {
    const { token, org } = await env.newOrg("Supplier matching");
    const first = await importXml(exampleBytes("peppol/base-example.xml"), token);
    expect(first.status).toBe(201);
    const supplier = (await firstRow(env.db.select().from(suppliers).where(eq(suppliers.id, first.body.data.supplier_id))))!;
    expect(supplier).toMatchObject({ organizationId: org.id, name: "SupplierOfficialName Ltd", vatNumber: "GB1232434", peppolId: "0088:9482348239847239874", city: "London", country: "GB" });
    // renamed by hand: the VAT number still finds it
    await env.db.update(suppliers).set({ name: "Renamed Ltd", vatNumber: "gb 123.2434" }).where(eq(suppliers.id, supplier.id));
    const credit = await importXml(exampleBytes("peppol/base-creditnote-correction.xml"), token);
    expect(credit.status, credit.text).toBe(201);
    expect(credit.body.data.supplier_id).toBe(supplier.id);
  });

  test("the same supplier invoice twice is a 409 naming the expense", async () => {
    const { token } = await env.newOrg("Twice");
    const first = await importXml(exampleBytes("cen/guide-example1.xml"), token);
    const second = await importXml(exampleBytes("cen/guide-example1.xml"), token);
    expect(second.status).toBe(409);
    expect(second.body.message).toContain(first.body.data.id);
  });

  test("not an EN 16931 invoice, not well-formed, totals that do not reconcile: 422 saying why", async () => {
    const xml = exampleBytes("peppol/base-example.xml").toString("utf8");
    const cases: [string, RegExp][] = [
      ["<Order xmlns='urn:oasis:names:specification:ubl:schema:xsd:Order-2'/>", /not a UBL 2.1 Invoice or CreditNote/],
      ["<Invoice", /./],
      [xml.replace(/<cbc:PayableAmount currencyID="EUR">1656.25</, '<cbc:PayableAmount currencyID="EUR">1656.26<'), /PayableAmount/],
      [xml.replace(/urn:cen.eu:en16931:2017[^<]*/, "urn:example:not-en16931"), /not EN 16931/],
    ];
    for (const [body, message] of cases) {
      const r = await importXml(body);
      expect(r.status, body.slice(0, 60)).toBe(422);
      expect(r.body.message).toMatch(message);
    }
  });

  test("only XML is taken: JSON is a 415; an empty body a 422; other routes still refuse XML", async () => {
    expect((await importXml("{}", undefined, "", "application/json")).status).toBe(415);
    expect((await importXml("")).status).toBe(422);
    const r = await env.request("POST", "/api/v1/expenses", { rawBody: "<x/>", headers: { "content-type": "application/xml" } });
    expect(r.status).toBe(415);
  });

  test("expenses.create is needed; another organisation's document is a 404", async () => {
    const viewer = await env.orgToken(["expenses.view"]);
    expect((await importXml(exampleBytes("peppol/vat-category-Z.xml"), viewer)).status).toBe(403);
    const mine = await importXml(exampleBytes("peppol/vat-category-Z.xml"));
    const other = await env.newOrg("Other org");
    expect((await env.request("GET", `/api/v1/expenses/${mine.body.data.id}/document`, { token: other.token })).status).toBe(404);
    const byHand = await env.api("POST", "/api/v1/expenses", { category: "Travel", amount: "1.00", date: "2026-01-01" });
    expect(byHand.body.data.document_url).toBeNull();
    expect((await env.request("GET", `/api/v1/expenses/${byHand.body.data.id}/document`)).status).toBe(404);
  });
});

describe("approval posts per VAT rate", () => {
  test("two rates: one base and VAT pair each; payables the total", async () => {
    const { token, org } = await env.newOrg("Rates");
    const r = await importXml(exampleBytes("peppol/Vat-category-S.xml"), token, "?category=Office");
    expect(r.body.data.category).toBe("Office");
    expect((await env.request("POST", `/api/v1/expenses/${r.body.data.id}/approve`, { token })).status).toBe(200);
    const entry = (await firstRow(env.db.select().from(journalEntries).where(and(eq(journalEntries.organizationId, org.id), eq(journalEntries.sourceId, r.body.data.id)))))!;
    const lines = await env.db.select().from(journalLines).where(eq(journalLines.entryId, entry.id));
    const tagged = lines.filter((l) => l.vatSide === "purchases").map((l) => [l.vatRole, l.vatCategory, l.vatRateBp, l.debitCents]);
    expect(tagged.sort()).toEqual(
      [
        ["base", "S", 2500, 500000],
        ["vat", "S", 2500, 125000],
        ["base", "S", 1500, 200000],
        ["vat", "S", 1500, 30000],
      ].sort() as any,
    );
    expect(lines.reduce((s, l) => s + l.debitCents - l.creditCents, 0)).toBe(0);
    expect(lines.find((l) => l.vatSide === null)!.creditCents).toBe(855000);
  });

  test("a supplier's credit note posts the reverse: payables debited", async () => {
    const { token, org } = await env.newOrg("Credit");
    const r = await importXml(exampleBytes("peppol/base-creditnote-correction.xml"), token);
    expect((await env.request("POST", `/api/v1/expenses/${r.body.data.id}/approve`, { token })).status).toBe(200);
    const entry = (await firstRow(env.db.select().from(journalEntries).where(and(eq(journalEntries.organizationId, org.id), eq(journalEntries.sourceId, r.body.data.id)))))!;
    const lines = await env.db.select().from(journalLines).where(eq(journalLines.entryId, entry.id));
    expect(lines.find((l) => l.vatSide === null)!.debitCents).toBe(165625);
    expect(lines.filter((l) => l.vatSide === "purchases").every((l) => l.creditCents > 0 && l.vatNote)).toBe(true);
  });
});
