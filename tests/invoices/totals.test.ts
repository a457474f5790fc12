/**
 * Invoice arithmetic (server/invoices/totals.ts) and the net and VAT shares of its items
 * (`itemShares`, server/documents/vat-breakdown.ts), pure and in a second: figures worked out by
 * hand from the rule of docs/invoicing.md#prices-discounts-allowances-and-charges (amounts
 * half-up; with gross prices VAT per rate = G × r / (100 + r) rounded half-up once, the rate's
 * net shared out by largest remainder, ties to the earlier item), then the same rules over random
 * invoices (total = Σ gross to the cent).
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { netLinePrice } from "../../server/documents/en16931.ts";
import { itemShares } from "../../server/documents/vat-breakdown.ts";
import { FULL_PERCENT_BP, lineGross, percentOf, priceInvoice, priceLine, totalsOf } from "../../server/invoices/totals.ts";

describe("a line", () => {
  test("percentOf: base × percent, rounded half-up", () => {
    expect(FULL_PERCENT_BP).toBe(10_000);
    // 19.99 × 12.5 % = 2.49875 → 2.50; 0.10 × 5 % = 0.005 → 0.01 (half-up); 0.10 × 4.99 % = 0.00499 → 0.00
    expect(percentOf(1999, 1250)).toBe(250);
    expect(percentOf(10, 500)).toBe(1);
    expect(percentOf(10, 499)).toBe(0);
    expect(percentOf(12_345, 10_000)).toBe(12_345);
  });

  test("lineGross: quantity × unit price half-up, less the discount (a percentage of it, or the amount given)", () => {
    // 2.5 × 19.99 = 49.975 → 49.98
    expect(lineGross({ quantityCents: 250, unitPriceCents: 1999, vatRateBp: 2100 })).toEqual({ grossCents: 4998, discountCents: 0, priceCents: 4998 });
    // 10 % of 49.98 = 4.998 → 5.00
    expect(lineGross({ quantityCents: 250, unitPriceCents: 1999, vatRateBp: 2100, discountPercentBp: 1000 })).toEqual({ grossCents: 4998, discountCents: 500, priceCents: 4498 });
    expect(lineGross({ quantityCents: 250, unitPriceCents: 1999, vatRateBp: 2100, discountPercentBp: null, discountAmountCents: 300 })).toEqual({
      grossCents: 4998,
      discountCents: 300,
      priceCents: 4698,
    });
    // a percentage, when given, is the discount
    expect(lineGross({ quantityCents: 100, unitPriceCents: 1000, vatRateBp: 0, discountPercentBp: 2000, discountAmountCents: 1 }).discountCents).toBe(200);
  });

  test("priceLine at net prices: the price after discount, its VAT half-up", () => {
    // 44.98 × 21 % = 9.4458 → 9.45
    expect(priceLine({ quantityCents: 250, unitPriceCents: 1999, vatRateBp: 2100, discountPercentBp: 1000, position: 7 })).toEqual({
      quantityCents: 250,
      unitPriceCents: 1999,
      vatRateBp: 2100,
      discountPercentBp: 1000,
      position: 7,
      grossCents: 4998,
      discountCents: 500,
      amountCents: 4498,
      vatCents: 945,
    });
  });

  test("totalsOf: the sums of priced lines", () => {
    expect(totalsOf([])).toEqual({ subtotalCents: 0, vatCents: 0, totalCents: 0 });
    expect(totalsOf([{ amountCents: 1000, vatCents: 210 }, { amountCents: -300, vatCents: -18 }])).toEqual({ subtotalCents: 700, vatCents: 192, totalCents: 892 });
  });
});

describe("the invoice", () => {
  const lines = [
    { quantityCents: 200, unitPriceCents: 1000, vatRateBp: 2100, id: "a" },
    { quantityCents: 100, unitPriceCents: 500, vatRateBp: 600, id: "b" },
  ];
  const acs = [
    { isCharge: false, amountCents: 300, vatRateBp: 2100, reason: "loyalty" },
    { isCharge: true, amountCents: 100, vatRateBp: 600, reason: "delivery" },
  ];

  test("net prices: each item's VAT half-up; subtotal = lines − allowances + charges; total = subtotal + VAT", () => {
    const r = priceInvoice(false, lines, acs);
    // 20.00 at 21 % → 4.20; 5.00 at 6 % → 0.30; allowance 3.00 at 21 % → 0.63; charge 1.00 at 6 % → 0.06
    expect(r.lines.map((l) => [l.id, l.grossCents, l.discountCents, l.amountCents, l.vatCents])).toEqual([
      ["a", 2000, 0, 2000, 420],
      ["b", 500, 0, 500, 30],
    ]);
    expect(r.allowanceCharges).toEqual([
      { isCharge: false, amountCents: 300, vatRateBp: 2100, reason: "loyalty", netCents: 300, vatCents: 63 },
      { isCharge: true, amountCents: 100, vatRateBp: 600, reason: "delivery", netCents: 100, vatCents: 6 },
    ]);
    // 25.00 − 3.00 + 1.00 = 23.00; VAT 4.20 + 0.30 − 0.63 + 0.06 = 3.93
    expect(r.totals).toEqual({ subtotalCents: 2300, vatCents: 393, totalCents: 2693, lineTotalCents: 2500, allowanceCents: 300, chargeCents: 100 });
  });

  test("gross prices: €9.99 × 3 at 21 % less a €2.97 allowance is €27.00, VAT from the rate's gross sum once", () => {
    const r = priceInvoice(true, [{ quantityCents: 300, unitPriceCents: 999, vatRateBp: 2100 }], [{ isCharge: false, amountCents: 297, vatRateBp: 2100 }]);
    // G = 29.97 − 2.97 = 27.00; VAT = 27.00 × 21 / 121 = 4.6859… → 4.69; net 22.31.
    // exact shares: 29.97 × 100/121 = 24.768… (floor 24.76, remainder .859), −2.97 × 100/121 = −2.454… (floor −2.46,
    // remainder .545): the missing cent goes to the line (larger remainder): 24.77 and −2.46
    expect(r.lines.map((l) => [l.amountCents, l.vatCents])).toEqual([[2477, 520]]);
    expect(r.allowanceCharges.map((a) => [a.netCents, a.vatCents])).toEqual([[246, 51]]);
    expect(r.totals).toEqual({ subtotalCents: 2231, vatCents: 469, totalCents: 2700, lineTotalCents: 2477, allowanceCents: 246, chargeCents: 0 });
  });

  test("gross prices with a charge and two rates: each rate on its own", () => {
    const r = priceInvoice(true, lines, acs);
    // 21 %: G = 20.00 − 3.00 = 17.00, VAT = 17 × 21/121 = 2.950… → 2.95, net 14.05
    //   20.00 → 16.528… (floor 16.52, rem .892), −3.00 → −2.479… (floor −2.48, rem .521): 16.53 and −2.48
    // 6 %: G = 5.00 + 1.00 = 6.00, VAT = 6 × 6/106 = 0.3396… → 0.34, net 5.66
    //   5.00 → 4.716… (floor 4.71, rem .698), 1.00 → 0.943… (floor 0.94, rem .339): 4.72 and 0.94
    expect(r.lines.map((l) => [l.amountCents, l.vatCents])).toEqual([
      [1653, 347],
      [472, 28],
    ]);
    expect(r.allowanceCharges.map((a) => [a.netCents, a.vatCents])).toEqual([
      [248, 52],
      [94, 6],
    ]);
    // subtotal 16.53 + 4.72 − 2.48 + 0.94 = 19.71; VAT 2.95 + 0.34 = 3.29; total 23.00 = Σ gross
    expect(r.totals).toEqual({ subtotalCents: 1971, vatCents: 329, totalCents: 2300, lineTotalCents: 2125, allowanceCents: 248, chargeCents: 94 });
  });

  test("no allowances or charges: the lines' sums", () => {
    const r = priceInvoice(false, lines, []);
    expect(r.allowanceCharges).toEqual([]);
    expect(r.totals).toEqual({ subtotalCents: 2500, vatCents: 450, totalCents: 2950, lineTotalCents: 2500, allowanceCents: 0, chargeCents: 0 });
  });
});

describe("itemShares", () => {
  test("net prices: the amount as given, VAT half-up per item and symmetric for allowances", () => {
    // 10.50 × 21 % = 2.205 → 2.21, the allowance's −2.21 (not −2.20); 0.02 × 21 % = 0.0042 → 0.00
    expect(itemShares(false, [{ cents: 1050, rateBp: 2100 }, { cents: -1050, rateBp: 2100 }, { cents: 2, rateBp: 2100 }, { cents: 0, rateBp: 600 }])).toEqual([
      { amountCents: 1050, vatCents: 221 },
      { amountCents: -1050, vatCents: -221 },
      { amountCents: 2, vatCents: 0 },
      { amountCents: 0, vatCents: 0 },
    ]);
  });

  test("gross prices: VAT = G × r / (100 + r) half-up, the net shared by largest remainder, ties to the earlier item", () => {
    expect(itemShares(true, [])).toEqual([]);
    // 29.97 at 21 %: VAT 5.2012… → 5.20, net 24.77
    expect(itemShares(true, [{ cents: 2997, rateBp: 2100 }])).toEqual([{ amountCents: 2477, vatCents: 520 }]);
    // a credit: −29.97 → VAT −5.20, net −24.77 (the same figures, negated)
    expect(itemShares(true, [{ cents: -2997, rateBp: 2100 }])).toEqual([{ amountCents: -2477, vatCents: -520 }]);
    // 20 %: 0.03 × 20/120 = 0.005 exactly → 0.01 (half-up), net 0.02; −0.03 → −0.01
    expect(itemShares(true, [{ cents: 3, rateBp: 2000 }])).toEqual([{ amountCents: 2, vatCents: 1 }]);
    expect(itemShares(true, [{ cents: -3, rateBp: 2000 }])).toEqual([{ amountCents: -2, vatCents: -1 }]);
    // three times 10.00 at 21 %: G 30.00, VAT 5.2066… → 5.21, net 24.79; each 8.264… (floor 8.26, equal remainders):
    // the one missing cent to the first
    expect(itemShares(true, [{ cents: 1000, rateBp: 2100 }, { cents: 1000, rateBp: 2100 }, { cents: 1000, rateBp: 2100 }])).toEqual([
      { amountCents: 827, vatCents: 173 },
      { amountCents: 826, vatCents: 174 },
      { amountCents: 826, vatCents: 174 },
    ]);
    // 10.01 then 10.00 at 21 %: G 20.01, VAT 3.4728… → 3.47, net 16.54; 10.01 → 8.2727… (rem .27),
    // 10.00 → 8.2644… (rem .64): the missing cent to the second, the larger remainder
    expect(itemShares(true, [{ cents: 1001, rateBp: 2100 }, { cents: 1000, rateBp: 2100 }])).toEqual([
      { amountCents: 827, vatCents: 174 },
      { amountCents: 827, vatCents: 173 },
    ]);
    // two cents missing over three items: 0.01 at 21 % thrice, G 0.03, VAT 0.0052 → 0.01, net 0.02; each 0.00826 (floor 0)
    expect(itemShares(true, [{ cents: 1, rateBp: 2100 }, { cents: 1, rateBp: 2100 }, { cents: 1, rateBp: 2100 }])).toEqual([
      { amountCents: 1, vatCents: 0 },
      { amountCents: 1, vatCents: 0 },
      { amountCents: 0, vatCents: 1 },
    ]);
  });

  test("gross prices: rates apart, each item back in its place", () => {
    // 21 %: 100.00 and −10.00 (an allowance): G 90.00, VAT 15.619… → 15.62, net 74.38; 100.00 → 82.644… (rem .64),
    //   −10.00 → −8.264… = −8.27 + .735… (rem .74): the missing cent to the allowance: 82.64 and −8.26
    // 6 %: 10.60 → VAT 0.60, net 10.00 exactly
    expect(
      itemShares(true, [
        { cents: 10_000, rateBp: 2100 },
        { cents: 1060, rateBp: 600 },
        { cents: -1000, rateBp: 2100 },
      ]),
    ).toEqual([
      { amountCents: 8264, vatCents: 1736 },
      { amountCents: 1000, vatCents: 60 },
      { amountCents: -826, vatCents: -174 },
    ]);
    // 0 %: all of it net
    expect(itemShares(true, [{ cents: 1234, rateBp: 0 }])).toEqual([{ amountCents: 1234, vatCents: 0 }]);
  });
});

describe("the arithmetic (totals.ts, itemShares)", () => {
  const rateBps = [2100, 1200, 600, 0, 2000, 1900, 700, 550];
  const grossLine = fc.record({
    quantityCents: fc.integer({ min: 1, max: 100_000 }),
    unitPriceCents: fc.integer({ min: 0, max: 500_000 }),
    vatRateBp: fc.constantFrom(...rateBps),
    discountPercentBp: fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: null }),
  });

  test("property: with gross prices the total is Σ gross (lines less discounts, less allowances, plus charges) to the cent; nets and VATs add up", () => {
    fc.assert(
      fc.property(
        fc.array(grossLine, { minLength: 1, maxLength: 30 }),
        fc.array(fc.record({ isCharge: fc.boolean(), amountCents: fc.integer({ min: 1, max: 5_000 }), vatRateBp: fc.constantFrom(...rateBps) }), { maxLength: 4 }),
        (lines, acs) => {
          const r = priceInvoice(true, lines, acs);
          const grossLines = lines.reduce((sum, l) => {
            const g = Math.floor((l.quantityCents * l.unitPriceCents + 50) / 100);
            const d = l.discountPercentBp ? Math.floor((g * l.discountPercentBp + 5000) / 10000) : 0;
            return sum + g - d;
          }, 0);
          const grossAcs = acs.reduce((sum, ac) => sum + (ac.isCharge ? ac.amountCents : -ac.amountCents), 0);
          expect(r.totals.totalCents).toBe(grossLines + grossAcs);
          expect(r.totals.subtotalCents + r.totals.vatCents).toBe(r.totals.totalCents);
          expect(r.lines.reduce((s, l) => s + l.amountCents, 0)).toBe(r.totals.lineTotalCents);
          // per rate: VAT = round(G × r / (100 + r)) once
          for (const rate of new Set([...lines.map((l) => l.vatRateBp), ...acs.map((a) => a.vatRateBp)])) {
            const items = [
              ...r.lines.filter((l) => l.vatRateBp === rate).map((l) => ({ net: l.amountCents, vat: l.vatCents })),
              ...r.allowanceCharges.filter((a) => a.vatRateBp === rate).map((a) => ({ net: a.isCharge ? a.netCents : -a.netCents, vat: a.isCharge ? a.vatCents : -a.vatCents })),
            ];
            const g = items.reduce((s, i) => s + i.net + i.vat, 0);
            const vat = items.reduce((s, i) => s + i.vat, 0);
            if (g >= 0) expect(vat).toBe(Math.floor((g * rate * 2 + (10_000 + rate)) / (2 * (10_000 + rate))));
          }
          // a line's share is within a cent of its exact share, and never negative
          for (const l of r.lines) {
            const exact = ((l.grossCents - l.discountCents) * 10_000) / (10_000 + l.vatRateBp);
            expect(Math.abs(l.amountCents - exact)).toBeLessThan(1);
            expect(l.amountCents).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  test("property: the UBL's net price of a gross line keeps quantity × price within half a cent of its net amount before discount (PEPPOL-EN16931-R120)", () => {
    fc.assert(
      fc.property(grossLine, fc.integer({ min: 0, max: 10_000_000 }), (line, amountCents) => {
        const doc = {
          position: 1,
          description: "x",
          quantityCents: line.quantityCents,
          unitCode: "C62",
          unitPriceCents: line.unitPriceCents,
          amountCents,
          vatCategory: "S" as const,
          vatRateBp: line.vatRateBp,
          vatCents: 0,
          discount: line.discountPercentBp ? { cents: 1 + (amountCents % 997), percentBp: line.discountPercentBp, reason: null } : null,
        };
        const net = netLinePrice(doc, true);
        // exact decimal arithmetic: price × 10^d as an integer, quantity in hundredths
        const [whole, fraction = ""] = net.price.split(".");
        const scaledPrice = BigInt(whole! + fraction);
        const product = scaledPrice * BigInt(line.quantityCents); // × 10^(d + 2) currency units
        const target = BigInt(net.baseCents) * 10n ** BigInt(fraction.length); // net base, × 10^(d + 2)
        const diff = product > target ? product - target : target - product;
        expect(diff * 2n <= 10n ** BigInt(fraction.length)).toBe(true); // ≤ half a cent
        expect(net.baseCents - net.discountCents).toBe(amountCents);
      }),
      { numRuns: 3000 },
    );
  });

  test("property: with net prices, each item's VAT is its amount × rate rounded half-up", () => {
    fc.assert(
      fc.property(fc.array(fc.record({ cents: fc.integer({ min: -1_000_000, max: 1_000_000 }), rateBp: fc.constantFrom(...rateBps) }), { maxLength: 20 }), (items) => {
        const shares = itemShares(false, items);
        shares.forEach((s, i) => {
          expect(s.amountCents).toBe(items[i]!.cents);
          expect(Math.abs(s.vatCents)).toBe(Math.floor((Math.abs(items[i]!.cents) * items[i]!.rateBp * 2 + 10_000) / 20_000));
        });
      }),
    );
  });
});
