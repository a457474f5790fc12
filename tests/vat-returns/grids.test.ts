/**
 * The grid table (server/vat-returns/grids.ts), row by row against the shared grid rules
 * (vat-return-grids.md): each expected grid is the rule's, written here from that file, not read
 * from the table.
 */
import { describe, expect, test } from "bun:test";
import type { VatCategory } from "../../db/values.ts";
import { defaultSupplyType, plausibility, purchaseGrids, regionOf, saleGrids, withBalance, type ChartKind, type Region } from "../../server/vat-returns/grids.ts";

describe("sales (part II)", () => {
  // [category, rate bp, buyer, supply] → [grid of an invoice, grid of a credit note, listing code]
  const rows: [VatCategory, number, Region, "goods" | "services", string | null, string | null, string | null][] = [
    // 01/02/03: domestic supplies at 6, 12, 21 %, VAT in 54
    ["S", 600, "BE", "goods", "01", "49", null],
    ["S", 1200, "BE", "services", "02", "49", null],
    ["S", 2100, "BE", "services", "03", "49", null],
    // Belgian VAT charged to a consumer elsewhere in the EU is still a domestic supply at 21 %
    ["S", 2100, "EU", "services", "03", "49", null],
    // 00: 0 % rated supplies
    ["Z", 0, "BE", "goods", "00", "49", null],
    // 44: services to a taxable customer in another member state (art. 21 §2), listing code S
    ["AE", 0, "EU", "services", "44", "48", "S"],
    ["K", 0, "EU", "services", "44", "48", "S"],
    // 45: the Belgian co-contractor owes the VAT
    ["AE", 0, "BE", "services", "45", "49", null],
    ["AE", 0, "BE", "goods", "45", "49", null],
    // 46: exempt intra-Community supplies of goods, listing code L
    ["K", 0, "EU", "goods", "46", "48", "L"],
    ["AE", 0, "EU", "goods", "46", "48", "L"],
    // 47: exports, services to non-EU customers, other supplies abroad, art. 44 exemptions (verify)
    ["G", 0, "non-EU", "goods", "47", "49", null],
    ["AE", 0, "non-EU", "services", "47", "49", null],
    ["E", 0, "BE", "services", "47", "49", null],
    // outside the scope of VAT (interest notes): not on the return
    ["O", 0, "BE", "services", null, null, null],
  ];
  for (const [category, rateBp, buyer, supply, grid, noteGrid, code] of rows) {
    test(`${category} ${rateBp / 100} % to ${buyer}, ${supply}: ${grid ?? "outside"} (a credit note: ${noteGrid ?? "outside"})`, () => {
      const sale = saleGrids({ category, rateBp, buyer, supply }, false);
      const note = saleGrids({ category, rateBp, buyer, supply }, true);
      expect<string | null>(sale?.base ?? null).toBe(grid);
      expect<string | null>(note?.base ?? null).toBe(noteGrid);
      expect<string | null>(sale?.intraCode ?? null).toBe(code);
      if (grid !== null) {
        // VAT of a sale in 54, of a credit note issued in 64
        expect<string>(sale!.vat).toBe("54");
        expect<string>(note!.vat).toBe("64");
      }
    });
  }

  test("a line without supply_type: goods at a K rate, services otherwise; a party without a country is Belgian", () => {
    expect(defaultSupplyType("K")).toBe("goods");
    expect(defaultSupplyType("AE")).toBe("services");
    expect(defaultSupplyType("S")).toBe("services");
    expect([regionOf("BE"), regionOf("nl"), regionOf("US"), regionOf(null), regionOf("GR")]).toEqual(["BE", "EU", "non-EU", "BE", "EU"]);
  });

  test("a standard rate the return has no grid for goes to 00 with a warning", () => {
    const sale = saleGrids({ category: "S", rateBp: 900, buyer: "BE", supply: "services" }, false)!;
    expect(sale.base).toBe("00");
    expect(sale.rule.warning).toBeDefined();
  });
});

describe("purchases (part III)", () => {
  // [chart, account code, type, category, supplier] → [81–83, second grid, self-assessed VAT due in]
  const rows: [ChartKind, string, string, VatCategory, Region, string, string | null, string | null][] = [
    // 81: goods for resale, raw materials, consumables (PCMN 600–609; the generic chart's 6100, PCMN 604)
    ["be", "604", "expense", "S", "BE", "81", null, null],
    ["be", "6010", "expense", "S", "BE", "81", null, null],
    ["generic", "6100", "expense", "S", "BE", "81", null, null],
    // 82: services and sundry goods (PCMN 61–64; the generic chart's 6200–6900)
    ["be", "6100", "expense", "S", "BE", "82", null, null],
    ["be", "613310", "expense", "S", "BE", "82", null, null],
    ["generic", "6200", "expense", "S", "BE", "82", null, null],
    ["generic", "6900", "expense", "S", "BE", "82", null, null],
    // 83: investment goods (class 2, an asset account)
    ["be", "240000", "asset", "S", "BE", "83", null, null],
    ["generic", "1600", "asset", "S", "BE", "83", null, null],
    ["generic", "1610", "asset", "S", "BE", "83", null, null],
    // 86: intra-Community acquisition of goods, VAT due in 55
    ["generic", "6100", "expense", "K", "EU", "81", "86", "55"],
    ["be", "604", "expense", "K", "EU", "81", "86", "55"],
    // bank charges (PCMN 657200, the be chart's own account for them): services, without a warning
    ["be", "657200", "expense", "S", "BE", "82", null, null],
    // a fixed asset bought in another member state is an acquisition of goods
    ["be", "240000", "asset", "K", "EU", "83", "86", "55"],
    // 88: intra-Community services received (art. 21 §2), VAT due in 55
    ["generic", "6400", "expense", "K", "EU", "82", "88", "55"],
    ["generic", "6400", "expense", "AE", "EU", "82", "88", "55"],
    // 87: domestic reverse charge received and services from outside the EU, VAT due in 56
    ["generic", "6400", "expense", "AE", "BE", "82", "87", "56"],
    ["generic", "6400", "expense", "AE", "non-EU", "82", "87", "56"],
  ];
  for (const [chart, code, type, category, supplier, nature, second, due] of rows) {
    test(`${chart} ${code} (${type}) at ${category} from ${supplier}: ${nature}${second ? ` and ${second}, VAT due in ${due}` : ""}`, () => {
      const g = purchaseGrids({ account: { code, type }, chart, category, supplier }, false);
      expect<string>(g.nature.grid).toBe(nature);
      expect<string | null>(g.second).toBe(second);
      expect<string | null>(g.reverse?.due ?? null).toBe(due);
      expect(g.nature.warning).toBeUndefined();
      // deductible VAT (self-assessed included) in 59
      expect(g.vat).toBe("59");
      // a credit note received: 84 on what was 86/88, else 85; its VAT in 63
      const note = purchaseGrids({ account: { code, type }, chart, category, supplier }, true);
      expect(note.second).toBe(second === "86" || second === "88" ? "84" : "85");
      expect(note.vat).toBe("63");
    });
  }

  test("an asset that is no fixed asset (cash, receivables, an asset with a system role) is not 83: 82 with a warning", () => {
    for (const [chart, code, systemAccount] of [["generic", "1300", null], ["generic", "1500", null], ["generic", "1200", "receivables"], ["be", "400000", "receivables"], ["be", "570000", null], ["be", "240000", "bank"]] as const) {
      const g = purchaseGrids({ account: { code, type: "asset", systemAccount }, chart, category: "S", supplier: "BE" }, false);
      expect<string>(g.nature.grid).toBe("82");
      expect(g.nature.warning).toBeDefined();
    }
  });

  test("an account the table has no rule for is reported in 82 with a warning", () => {
    const g = purchaseGrids({ account: { code: "4900", type: "revenue" }, chart: "generic", category: "S", supplier: "BE" }, false);
    expect(g.nature.grid).toBe("82");
    expect(g.nature.warning).toBeDefined();
  });
});

describe("the balance (part VI) and the checks", () => {
  test("71 = XX − YY when XX ≥ YY (XX = 54 + 55 + 56 + 57 + 61 + 63, YY = 59 + 62 + 64), else 72 = YY − XX; 71 = 0 when equal", () => {
    // XX = 100 + 20 + 30 + 40 + 50 + 60 = 300; YY = 70 + 80 + 90 = 240
    expect(withBalance({ "54": 100, "55": 20, "56": 30, "57": 40, "61": 50, "63": 60, "59": 70, "62": 80, "64": 90 })).toMatchObject({ "71": 60 });
    expect(withBalance({ "54": 100, "59": 150 })).toEqual({ "54": 100, "59": 150, "72": 50 });
    expect(withBalance({})).toEqual({ "71": 0 });
  });

  test("the checks compute in integers: 21 % of 1,452,797,322,899.50 is 305,087,437,808.895, so 305,087,437,808.90 half-up", () => {
    // 145279732289950 × 2100 / 10000 = 30508743780889.5 exactly; in floating point it rounds down to ...889
    expect(plausibility({ "49": 145279732289950, "64": 30508743780890, "72": 30508743780890 })).toEqual([]);
  });

  test("the plausibility checks: warnings, but a negative grid blocks", () => {
    const ok = { "03": 100_000, "54": 21_000, "86": 10_000, "55": 2_100, "81": 10_000, "59": 2_100, "71": 21_000 };
    expect(plausibility(ok)).toEqual([]);
    // 1: 54 ≠ 21 % of 03
    expect(plausibility({ ...ok, "54": 20_000 }).map((c) => [c.check, c.blocking])).toEqual([[1, false]]);
    // 2: 55 > 21 % of 86; 7: 86 without 55
    expect(plausibility({ ...ok, "55": 5_000 }).map((c) => c.check)).toEqual([2]);
    expect(plausibility({ ...ok, "55": 0 }).map((c) => c.check)).toEqual([7]);
    // 4: 59 > 50 % of 81
    expect(plausibility({ ...ok, "59": 6_000 }).map((c) => c.check)).toEqual([4]);
    // 5 and 6: credit notes' VAT against their bases
    expect(plausibility({ ...ok, "63": 100 }).map((c) => c.check)).toEqual([5]);
    expect(plausibility({ ...ok, "64": 100 }).map((c) => c.check)).toEqual([6]);
    // 0: a negative grid
    expect(plausibility({ ...ok, "81": -100, "59": 0 }).filter((c) => c.blocking).map((c) => c.check)).toEqual([0]);
  });
});
