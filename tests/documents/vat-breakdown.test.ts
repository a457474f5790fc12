/**
 * One VAT breakdown (server/documents/vat-breakdown.ts) for the issued document's `vatGroups` and
 * the ledger's invoice posting: the pure function, the same figures as the SQL GROUP BY the
 * posting ran before, and an invoice's document and journal entry agreeing group for group.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, asc, eq, isNull } from "drizzle-orm";
import fc from "fast-check";
import { journalEntries, journalLines } from "../../db/schema.ts";
import { VAT_CATEGORIES, type VatCategory } from "../../server/documents/model.ts";
import { documentVatGroups, vatBreakdown, type VatBreakdownLine } from "../../server/documents/vat-breakdown.ts";
import { loadDocument } from "../../server/invoices/document.ts";
import { priceLine, totalsOf } from "../../server/invoices/totals.ts";
import { vatCents } from "../../server/lib/money.ts";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv } from "../helpers.ts";
import { firstRow } from "../../db/client.ts";

const line = (vatCategory: VatCategory, vatRateBp: number, amountCents: number, vat = vatCents(amountCents, vatRateBp)): VatBreakdownLine => ({
  vatCategory,
  vatRateBp,
  amountCents,
  vatCents: vat,
});

describe("vatBreakdown", () => {
  test("one group per category and rate, in the order of VAT_CATEGORIES, higher rates first", () => {
    const groups = vatBreakdown([line("E", 0, 5000), line("S", 600, 3897), line("S", 2100, 95500), line("Z", 0, 2500), line("S", 2100, 10000), line("AE", 0, 100)]);
    expect(groups).toEqual([
      { category: "S", rateBp: 2100, taxableCents: 105500, vatCents: 20055 + 2100 },
      { category: "S", rateBp: 600, taxableCents: 3897, vatCents: 234 },
      { category: "Z", rateBp: 0, taxableCents: 2500, vatCents: 0 },
      { category: "E", rateBp: 0, taxableCents: 5000, vatCents: 0 },
      { category: "AE", rateBp: 0, taxableCents: 100, vatCents: 0 },
    ]);
    expect(vatBreakdown([])).toEqual([]);
  });

  test("a group's VAT is the sum of its lines' VAT, rounded per line as the invoice's vat_cents is, not base × rate rounded once", () => {
    // three lines of 0.02 at 21 %: 0.0042 each, rounded to 0.00; the group's base × rate is 0.0126 → 0.01
    const lines = [line("S", 2100, 2), line("S", 2100, 2), line("S", 2100, 2)];
    expect(lines.map((l) => l.vatCents)).toEqual([0, 0, 0]);
    expect(vatBreakdown(lines)).toEqual([{ category: "S", rateBp: 2100, taxableCents: 6, vatCents: 0 }]);
    expect(totalsOf(lines)).toEqual({ subtotalCents: 6, vatCents: 0, totalCents: 6 });
    expect(vatCents(6, 2100)).toBe(1);
    // credit lines (negative amounts) are summed the same way
    expect(vatBreakdown([line("S", 2100, -10000), line("S", 2100, 2500)])).toEqual([{ category: "S", rateBp: 2100, taxableCents: -7500, vatCents: -2100 + 525 }]);
  });

  test("property: the groups add up to the invoice totals of invoices/totals.ts (BR-CO-14), and equal the SQL GROUP BY the posting ran before", () => {
    const sqlite = new Database(":memory:");
    sqlite.run("CREATE TABLE l (category TEXT, rate_bp INTEGER NOT NULL, amount INTEGER NOT NULL, vat INTEGER NOT NULL)");
    const insert = sqlite.prepare("INSERT INTO l VALUES (?, ?, ?, ?)");
    // the posting's former query: coalesce(vat_rates.category, 'Z'), grouped by category and rate, ordered by 1, 2 DESC
    const grouped = sqlite.prepare<{ category: VatCategory; rateBp: number; taxableCents: number; vatCents: number }, []>(
      `SELECT coalesce(category, 'Z') AS category, rate_bp AS rateBp, sum(amount) AS taxableCents, sum(vat) AS vatCents FROM l GROUP BY 1, rate_bp ORDER BY 1, 2 DESC`,
    );
    const journalOrder = (a: { category: string; rateBp: number }, b: { category: string; rateBp: number }) =>
      (a.category < b.category ? -1 : a.category > b.category ? 1 : 0) || b.rateBp - a.rateBp;
    const rawLine = fc.record({
      // null: a line without a VAT rate (Z, as on the document)
      category: fc.option(fc.constantFrom(...VAT_CATEGORIES), { nil: null }),
      rateBp: fc.constantFrom(0, 600, 1200, 2100, 550, 1),
      quantityCents: fc.integer({ min: -100_000, max: 100_000 }),
      unitPriceCents: fc.integer({ min: 0, max: 10_000_000 }),
    });
    fc.assert(
      fc.property(fc.array(rawLine, { maxLength: 30 }), (raw) => {
        const priced = raw.map((r) => ({ category: r.category, ...priceLine({ quantityCents: r.quantityCents, unitPriceCents: r.unitPriceCents, vatRateBp: r.rateBp }) }));
        const lines = priced.map((p) => line(p.category ?? "Z", p.vatRateBp, p.amountCents, p.vatCents));
        const groups = vatBreakdown(lines);
        const totals = totalsOf(priced);
        expect(groups.reduce((s, g) => s + g.taxableCents, 0)).toBe(totals.subtotalCents);
        expect(groups.reduce((s, g) => s + g.vatCents, 0)).toBe(totals.vatCents);

        sqlite.run("DELETE FROM l");
        for (const p of priced) insert.run(p.category, p.vatRateBp, p.amountCents, p.vatCents);
        expect([...groups].sort(journalOrder)).toEqual(grouped.all());
      }),
      { numRuns: 300 },
    );
    sqlite.close();
  });
});

describe("documentVatGroups", () => {
  test("a group's exemption reason: the first of its lines' rates that names one, else the category's default", () => {
    const groups = documentVatGroups([
      { ...line("E", 0, 100), exemptionReasonCode: null },
      { ...line("E", 0, 200), exemptionReasonCode: "VATEX-EU-143" },
      { ...line("E", 0, 300), exemptionReasonCode: "VATEX-EU-148" },
      line("AE", 0, 400),
      { ...line("K", 0, 500), exemptionReasonCode: "" },
      line("S", 2100, 1000),
    ]);
    expect(groups.map((g) => [g.category, g.taxableCents, g.exemptionReasonCode, g.exemptionReason])).toEqual([
      ["S", 1000, null, null],
      ["E", 600, "VATEX-EU-143", "Exempt based on article 143 of Council Directive 2006/112/EC"],
      ["AE", 400, "VATEX-EU-AE", "Reverse charge"],
      ["K", 500, "VATEX-EU-IC", "Intra-Community supply"],
    ]);
  });

  test("each exempt category's default reason (EN 16931 BR-G-10, BR-E-10, BR-O-10), and the code of a line of the group's own rate only", () => {
    const groups = documentVatGroups([line("G", 0, 100), line("E", 0, 200), line("O", 0, 300)]);
    expect(groups.map((g) => [g.category, g.exemptionReasonCode, g.exemptionReason])).toEqual([
      ["E", "VATEX-EU-132", "Exempt based on article 132 of Council Directive 2006/112/EC"],
      ["G", "VATEX-EU-G", "Export outside the EU"],
      ["O", "VATEX-EU-O", "Not subject to VAT"],
    ]);
    // two groups of one category at two rates: the code named by a line at 6 % is not the 21 % group's
    const split = documentVatGroups([line("S", 2100, 1000), { ...line("S", 600, 1000), exemptionReasonCode: "VATEX-EU-143" }]);
    expect(split.map((g) => [g.rateBp, g.exemptionReasonCode])).toEqual([
      [2100, null],
      [600, "VATEX-EU-143"],
    ]);
  });
});

describe("an invoice's document and its journal entry", async () => {
  const env = await createTestEnv();
  afterAll(() => env.close());
  const ok = async (method: string, path: string, body?: unknown) => {
    const r = await env.api(method, path, body);
    expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBeLessThan(300);
    return r.body?.data;
  };
  let rates: Record<string, any>;
  let customer: any;
  beforeAll(async () => {
    await ok("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, name: "Breakdown BV" });
    customer = await ok("POST", "/api/v1/customers", { name: "Buyer NV", country: "BE" });
    rates = Object.fromEntries((await ok("GET", "/api/v1/vat-rates")).map((r: any) => [`${r.category}:${r.rate}`, r]));
  });

  /**
   * The sales and VAT payable lines of the entry the invoice's finalize posted, as groups in the
   * order of their lines (a line of 0.00 is not written: a group without VAT has no VAT line).
   */
  const postedGroups = async (invoiceId: string) => {
    const entry = (await firstRow(env.db
      .select()
      .from(journalEntries)
      .where(and(eq(journalEntries.sourceType, "invoice"), eq(journalEntries.sourceId, invoiceId), isNull(journalEntries.reversesEntryId)))))!;
    const groups = new Map<string, { category: VatCategory | null; rateBp: number | null; taxableCents: number; vatCents: number }>();
    for (const l of (await env.db.select().from(journalLines).where(eq(journalLines.entryId, entry.id)).orderBy(asc(journalLines.lineNo)))) {
      if (!l.vatRole) continue;
      const key = `${l.vatCategory} ${l.vatRateBp}`;
      const group = groups.get(key) ?? groups.set(key, { category: l.vatCategory, rateBp: l.vatRateBp, taxableCents: 0, vatCents: 0 }).get(key)!;
      group[l.vatRole === "base" ? "taxableCents" : "vatCents"] += l.creditCents - l.debitCents;
    }
    return [...groups.values()];
  };

  test("the same groups, the journal's in the order of their category codes, per-line rounding in both", async () => {
    const inv = await ok("POST", "/api/v1/invoices", {
      customer_id: customer.id,
      issue_date: "2026-03-01",
      lines: [
        { description: "Training (exempt)", quantity: "1", unit_price: "50.00", vat_rate_id: rates["E:0.00"].id },
        { description: "Screw", quantity: "1", unit_price: "0.02", vat_rate_id: rates["S:21.00"].id },
        { description: "Screw", quantity: "1", unit_price: "0.02", vat_rate_id: rates["S:21.00"].id },
        { description: "Screw", quantity: "1", unit_price: "0.02", vat_rate_id: rates["S:21.00"].id },
        { description: "Books", quantity: 3, unit_price: 12.99, vat_rate_id: rates["S:6.00"].id },
        { description: "Fee without a rate", quantity: "1", unit_price: "25.00" },
        { description: "Services to an EU business", quantity: "1", unit_price: "100.00", vat_rate_id: rates["AE:0.00"].id },
      ],
    });
    await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    const doc = await loadDocument(env.db, env.org.id, inv.id);
    const shown = doc.vatGroups.map(({ category, rateBp, taxableCents, vatCents }) => ({ category, rateBp, taxableCents, vatCents }));
    expect(shown).toEqual([
      { category: "S", rateBp: 2100, taxableCents: 6, vatCents: 0 },
      { category: "S", rateBp: 600, taxableCents: 3897, vatCents: 234 },
      { category: "Z", rateBp: 0, taxableCents: 2500, vatCents: 0 },
      { category: "E", rateBp: 0, taxableCents: 5000, vatCents: 0 },
      { category: "AE", rateBp: 0, taxableCents: 10000, vatCents: 0 },
    ]);
    expect(doc.vatCents).toBe(234);
    expect(await postedGroups(inv.id)).toEqual([
      { category: "AE", rateBp: 0, taxableCents: 10000, vatCents: 0 },
      { category: "E", rateBp: 0, taxableCents: 5000, vatCents: 0 },
      { category: "S", rateBp: 2100, taxableCents: 6, vatCents: 0 },
      { category: "S", rateBp: 600, taxableCents: 3897, vatCents: 234 },
      { category: "Z", rateBp: 0, taxableCents: 2500, vatCents: 0 },
    ]);
  });

  test("a credit note posts its groups mirrored, the same figures as its document", async () => {
    const inv = await ok("POST", "/api/v1/invoices", {
      customer_id: customer.id,
      issue_date: "2026-04-01",
      lines: [
        { description: "Consulting", quantity: "3", unit_price: "33.33", vat_rate_id: rates["S:21.00"].id },
        { description: "Books", quantity: "1", unit_price: "9.99", vat_rate_id: rates["S:6.00"].id },
      ],
    });
    await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    const note = await ok("POST", `/api/v1/invoices/${inv.id}/credit-note`);
    await ok("POST", `/api/v1/invoices/${note.id}/finalize`);
    const doc = await loadDocument(env.db, env.org.id, note.id);
    const mirrored = (await postedGroups(note.id)).map((g) => ({ ...g, taxableCents: -g.taxableCents, vatCents: -g.vatCents }));
    expect(mirrored).toEqual(doc.vatGroups.map(({ category, rateBp, taxableCents, vatCents }) => ({ category, rateBp, taxableCents, vatCents })));
  });
});
