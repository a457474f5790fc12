/**
 * Prices a shop can reproduce (issue 26 item 6): VAT-inclusive prices (`prices_include_vat`),
 * line discounts (percent or amount) and document allowances and charges (EN 16931 BG-20, BG-21,
 * BG-27), through the API: the figures as the rule of docs/invoicing.md gives them by hand, the
 * refusals, the UBL through the UBL 2.1 XSD and the CEN and Peppol rules, the PDF read back with
 * pdftotext. The pure arithmetic (total = Σ gross to the cent, over random invoices) is in
 * tests/invoices/totals.test.ts, which runs in a second.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv } from "../helpers.ts";
import { describe as describeValidation, loadRules, validateUbl } from "../einvoicing/validate.ts";

const env = await createTestEnv();
const scratch = mkdtempSync(join(tmpdir(), "kontor-pricing-"));
afterAll(() => {
  env.close();
  rmSync(scratch, { recursive: true, force: true });
});

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await env.api(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 500)}`).toBeLessThan(300);
  return r.body?.data;
};
const raw = (path: string) => env.app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${env.token}` } }));

let rates: Record<string, any>;
let customer: any;
beforeAll(async () => {
  await ok("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, email: "shop@acme.example" });
  customer = await ok("POST", "/api/v1/customers", {
    name: "Brasserie Dupont SA",
    address: "Rue de l'Église 5",
    city: "Liège",
    postal_code: "4000",
    country: "BE",
    vat_number: "BE0404795549",
    peppol_id: "0208:0404795549",
    language: "en",
  });
  rates = Object.fromEntries((await ok("GET", "/api/v1/vat-rates")).map((r: any) => [`${r.category}:${r.rate}`, r]));
  await loadRules();
}, 180_000);

const draft = (body: Record<string, unknown>) =>
  ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-01", buyer_reference: "Shop order 1001", ...body });

async function expectValidUbl(id: string): Promise<string> {
  const r = await raw(`/api/v1/invoices/${id}/ubl`);
  const xml = await r.text();
  expect(r.status, xml.slice(0, 500)).toBe(200);
  const v = await validateUbl(xml);
  expect(describeValidation(v)).toBe("");
  expect(v.fatal).toEqual([]);
  expect(v.xsdErrors).toEqual([]);
  return xml;
}

async function pdfText(id: string): Promise<string> {
  const r = await raw(`/api/v1/invoices/${id}/pdf`);
  expect(r.status).toBe(200);
  const file = join(scratch, `${id}.pdf`);
  writeFileSync(file, new Uint8Array(await r.arrayBuffer()));
  return Bun.spawnSync(["pdftotext", "-layout", file, "-"]).stdout.toString();
}

describe("VAT-inclusive prices", () => {
  test("€9.99 × 3 at 21 % is 29.97: VAT 5.20, net 24.77 (docs/invoicing.md); its UBL carries net amounts and passes", async () => {
    const inv = await draft({ prices_include_vat: true, lines: [{ description: "Mug", quantity: 3, unit_price: "9.99", vat_rate_id: rates["S:21.00"].id }] });
    // by hand: G = 29.97; VAT = 29.97 × 21 / 121 = 5.2012… → 5.20; net = 29.97 − 5.20 = 24.77
    expect(inv.prices_include_vat).toBe(true);
    expect(inv.total).toBe("29.97");
    expect(inv.vat_amount).toBe("5.20");
    expect(inv.subtotal).toBe("24.77");
    expect(inv.line_total).toBe("24.77");
    expect(inv.allowance_total).toBe("0.00");
    expect(inv.charge_total).toBe("0.00");
    expect(inv.lines[0]).toMatchObject({ unit_price: "9.99", amount: "24.77", vat_amount: "5.20", discount_percent: null, discount_amount: "0.00", discount_reason: null });
    const fin = await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    expect(fin.total).toBe("29.97");
    const xml = await expectValidUbl(inv.id);
    expect(xml).toContain('<cbc:TaxInclusiveAmount currencyID="EUR">29.97</cbc:TaxInclusiveAmount>');
    expect(xml).toContain('<cbc:TaxAmount currencyID="EUR">5.20</cbc:TaxAmount>');
    // 24.77 / 3 with three decimals: 3 × 8.257 = 24.771, within the half cent R120 needs
    expect(xml).toContain('<cbc:PriceAmount currencyID="EUR">8.257</cbc:PriceAmount>');
    // the PDF shows the prices and the line as given (gross), says so, and the net subtotal
    const text = await pdfText(inv.id);
    expect(text).toContain("Prices and line amounts include VAT.");
    expect(text).toMatch(/9\.99\s+21\s*%\s+29\.97/);
    expect(text).toContain("€24.77");
    expect(text).toContain("€29.97");
    // the shop's customer pays 29.97 and the invoice is paid
    const paid = await ok("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "29.97", payment_date: "2026-03-02" });
    expect(paid.status).toBe("paid");
    expect(paid.amount_due).toBe("0.00");
  }, 60_000);

  test("three lines of 9.99 at 21 % and two at 6 %: each rate's VAT once, the net shared by largest remainder; the UBL passes", async () => {
    const lines = [
      ...[1, 2, 3].map((n) => ({ description: `Mug ${n}`, quantity: 1, unit_price: "9.99", vat_rate_id: rates["S:21.00"].id })),
      { description: "Book", quantity: 2, unit_price: "12.95", vat_rate_id: rates["S:6.00"].id },
      { description: "Magazine", quantity: 1, unit_price: "4.50", vat_rate_id: rates["S:6.00"].id },
    ];
    const inv = await draft({ prices_include_vat: true, lines });
    // 21 %: G = 29.97, VAT 5.20, net 24.77; each line's exact share 8.2562 → 8.25 + one cent to the first two (equal remainders, in line order)
    // 6 %: G = 25.90 + 4.50 = 30.40; VAT = 30.40 × 6 / 106 = 1.7207… → 1.72; net 28.68; shares 24.4339 → 24.43 and 4.2452 → 4.24, one cent left to the larger remainder (4.2452)
    expect(inv.lines.map((l: any) => [l.amount, l.vat_amount])).toEqual([
      ["8.26", "1.73"],
      ["8.26", "1.73"],
      ["8.25", "1.74"],
      ["24.43", "1.47"],
      ["4.25", "0.25"],
    ]);
    expect(inv.subtotal).toBe("53.45");
    expect(inv.vat_amount).toBe("6.92");
    expect(inv.total).toBe("60.37");
    await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    await expectValidUbl(inv.id);
  }, 60_000);

  test("the organisation's prices_include_vat is a new invoice's default; an invoice's own value wins", async () => {
    expect((await ok("PUT", "/api/v1/organization", { prices_include_vat: true })).prices_include_vat).toBe(true);
    const inv = await draft({ lines: [{ description: "Mug", quantity: 3, unit_price: "9.99", vat_rate_id: rates["S:21.00"].id }] });
    expect(inv.prices_include_vat).toBe(true);
    expect(inv.total).toBe("29.97");
    const net = await draft({ prices_include_vat: false, lines: [{ description: "Mug", quantity: 3, unit_price: "9.99", vat_rate_id: rates["S:21.00"].id }] });
    expect(net.total).toBe("36.26"); // 29.97 + 6.29 (29.97 × 21 % = 6.2937)
    await ok("PUT", "/api/v1/organization", { prices_include_vat: false });
  });

  test("switching a draft to gross prices prices its stored lines again", async () => {
    const inv = await draft({ lines: [{ description: "Mug", quantity: 3, unit_price: "9.99", vat_rate_id: rates["S:21.00"].id }] });
    expect(inv.total).toBe("36.26");
    const gross = await ok("PUT", `/api/v1/invoices/${inv.id}`, { prices_include_vat: true });
    expect([gross.prices_include_vat, gross.total, gross.vat_amount, gross.subtotal]).toEqual([true, "29.97", "5.20", "24.77"]);
  });
});

describe("line discounts", () => {
  test("percent and amount, net prices: amount = round(qty × price) − discount, VAT per line; the UBL carries them as line allowances and passes", async () => {
    const inv = await draft({
      lines: [
        { description: "Consulting", quantity: "10", unit_price: "95.50", unit_code: "HUR", vat_rate_id: rates["S:21.00"].id, discount_percent: "12.5", discount_reason: "Loyalty" },
        { description: "Books", quantity: 3, unit_price: 12.99, vat_rate_id: rates["S:6.00"].id, discount_amount: "5.00" },
      ],
    });
    // line 1: 955.00 − 12.5 % (119.375 → 119.38) = 835.62; VAT 21 % = 175.4802 → 175.48
    // line 2: 38.97 − 5.00 = 33.97; VAT 6 % = 2.0382 → 2.04
    expect(inv.lines[0]).toMatchObject({ amount: "835.62", vat_amount: "175.48", discount_percent: "12.50", discount_amount: "119.38", discount_reason: "Loyalty" });
    expect(inv.lines[1]).toMatchObject({ amount: "33.97", vat_amount: "2.04", discount_percent: null, discount_amount: "5.00", discount_reason: null });
    expect([inv.line_total, inv.subtotal, inv.vat_amount, inv.total]).toEqual(["869.59", "869.59", "177.52", "1047.11"]);
    await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    const xml = await expectValidUbl(inv.id);
    expect(xml).toContain("<cbc:MultiplierFactorNumeric>12.5</cbc:MultiplierFactorNumeric>");
    expect(xml).toContain('<cbc:BaseAmount currencyID="EUR">955.00</cbc:BaseAmount>');
    expect(xml).toContain('<cbc:Amount currencyID="EUR">119.38</cbc:Amount>');
    expect(xml).toContain("<cbc:AllowanceChargeReason>Loyalty</cbc:AllowanceChargeReason>");
    const text = await pdfText(inv.id);
    expect(text).toContain("Loyalty");
    expect(text).toMatch(/Discount 12[.,]5\s*%/);
    expect(text).toContain("119.38");
  }, 60_000);

  test("discounts with gross prices: the gross line less its discount; the UBL's net discount and price pass R120", async () => {
    const inv = await draft({
      prices_include_vat: true,
      lines: [
        { description: "Mug", quantity: 3, unit_price: "9.99", vat_rate_id: rates["S:21.00"].id, discount_percent: 10, discount_reason: "3 for 2 weekend" },
        { description: "Tea", quantity: 7, unit_price: "3.49", vat_rate_id: rates["S:6.00"].id, discount_amount: "1.43" },
      ],
    });
    // 21 %: 29.97 − 3.00 (2.997) = 26.97; VAT 26.97 × 21/121 = 4.6807 → 4.68; net 22.29
    // 6 %: 24.43 − 1.43 = 23.00; VAT 23.00 × 6/106 = 1.3019 → 1.30; net 21.70
    expect(inv.lines.map((l: any) => [l.discount_amount, l.amount, l.vat_amount])).toEqual([
      ["3.00", "22.29", "4.68"],
      ["1.43", "21.70", "1.30"],
    ]);
    expect(inv.total).toBe("49.97");
    await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    await expectValidUbl(inv.id);
  }, 60_000);

  test("awkward gross lines: a large quantity at a small price, a third off, a free line; the UBL still passes R120 and R040", async () => {
    const inv = await draft({
      prices_include_vat: true,
      lines: [
        { description: "Screws", quantity: "12345.67", unit_price: "0.07", unit_code: "C62", vat_rate_id: rates["S:21.00"].id, discount_percent: "33.33" },
        { description: "Sample", quantity: 1, unit_price: "4.99", vat_rate_id: rates["S:21.00"].id, discount_percent: 100, discount_reason: "Free sample" },
        { description: "Leaflet", quantity: "0.01", unit_price: "0.01", vat_rate_id: rates["S:6.00"].id },
      ],
      allowances_charges: [{ type: "allowance", percent: "2.5", reason: "Cash", vat_rate_id: rates["S:21.00"].id }],
    });
    // 12345.67 × 0.07 = 864.1969 → 864.20; a third: 288.037… → 288.04; 576.16 gross. The free line: 0.00.
    // allowance: 2.5 % of the 21 % lines (576.16 + 0.00) = 14.404 → 14.40. 21 %: G = 561.76; the leaflet: 0.0001 → 0.00
    expect(inv.lines.map((l: any) => l.discount_amount)).toEqual(["288.04", "4.99", "0.00"]);
    expect(inv.total).toBe("561.76");
    await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    await expectValidUbl(inv.id);
  }, 60_000);

  test("refusals: both kinds, out of range, more than the line, a reason without a discount", async () => {
    const base = { description: "x", quantity: 2, unit_price: "5.00" };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, discount_percent: 10, discount_amount: "1.00" }, "lines.0.discount_amount"],
      [{ ...base, discount_percent: "100.01" }, "lines.0.discount_percent"],
      [{ ...base, discount_percent: 0 }, "lines.0.discount_percent"],
      [{ ...base, discount_percent: "10.005" }, "lines.0.discount_percent"],
      [{ ...base, discount_amount: "10.01" }, "lines.0.discount_amount"],
      [{ ...base, discount_reason: "why" }, "lines.0.discount_reason"],
    ];
    for (const [line, field] of cases) {
      const r = await env.api("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-01", lines: [line] });
      expect(r.status, JSON.stringify(line)).toBe(422);
      expect(Object.keys(r.body.errors)).toContain(field);
    }
    // 100 % is a free line
    const free = await draft({ lines: [{ ...base, discount_percent: 100, discount_reason: "Sample" }] });
    expect([free.lines[0].amount, free.total]).toEqual(["0.00", "0.00"]);
  });
});

describe("document allowances and charges", () => {
  test("net prices: a 5 % allowance of the 21 % lines and a freight charge; totals per EN 16931; the UBL passes", async () => {
    const inv = await draft({
      lines: [
        { description: "Consulting", quantity: 10, unit_price: "95.50", vat_rate_id: rates["S:21.00"].id },
        { description: "Books", quantity: 3, unit_price: "12.99", vat_rate_id: rates["S:6.00"].id },
      ],
      allowances_charges: [
        { type: "allowance", percent: 5, reason: "Early customer", reason_code: "95", vat_rate_id: rates["S:21.00"].id },
        { type: "charge", amount: "15.00", reason: "Freight", reason_code: "FC", vat_rate_id: rates["S:21.00"].id },
      ],
    });
    // lines: 955.00 (VAT 200.55) + 38.97 (VAT 2.3382 → 2.34) = 993.97
    // allowance: 5 % of the 21 % lines, 955.00 → 47.75, VAT 10.0275 → 10.03; charge 15.00, VAT 3.15
    // subtotal = 993.97 − 47.75 + 15.00 = 961.22; VAT = 200.55 + 2.34 − 10.03 + 3.15 = 196.01; total 1157.23
    expect([inv.line_total, inv.allowance_total, inv.charge_total, inv.subtotal, inv.vat_amount, inv.total]).toEqual([
      "993.97",
      "47.75",
      "15.00",
      "961.22",
      "196.01",
      "1157.23",
    ]);
    expect(inv.allowances_charges).toHaveLength(2);
    expect(inv.allowances_charges[0]).toMatchObject({
      type: "allowance",
      amount: "47.75",
      percent: "5.00",
      base_amount: "955.00",
      net_amount: "47.75",
      vat_amount: "10.03",
      reason: "Early customer",
      reason_code: "95",
      vat_rate_id: rates["S:21.00"].id,
      vat_rate: "21.00",
    });
    expect(inv.allowances_charges[1]).toMatchObject({ type: "charge", amount: "15.00", percent: null, base_amount: null, net_amount: "15.00", vat_amount: "3.15", reason_code: "FC" });
    await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    const xml = await expectValidUbl(inv.id);
    expect(xml).toContain('<cbc:AllowanceTotalAmount currencyID="EUR">47.75</cbc:AllowanceTotalAmount>');
    expect(xml).toContain('<cbc:ChargeTotalAmount currencyID="EUR">15.00</cbc:ChargeTotalAmount>');
    expect(xml).toContain('<cbc:TaxExclusiveAmount currencyID="EUR">961.22</cbc:TaxExclusiveAmount>');
    expect(xml).toContain('<cbc:LineExtensionAmount currencyID="EUR">993.97</cbc:LineExtensionAmount>');
    // the 21 % group: 955.00 − 47.75 + 15.00 = 922.25 (BR-S-08)
    expect(xml).toContain('<cbc:TaxableAmount currencyID="EUR">922.25</cbc:TaxableAmount>');
    const text = await pdfText(inv.id);
    expect(text).toContain("Early customer");
    expect(text).toContain("Freight");
    expect(text).toContain("47.75");
    expect(text).toContain("993.97");
    expect(text).toContain("1,157.23");
  }, 60_000);

  test("gross prices: a gross allowance and charge enter their rate's gross sum; total = Σ gross; the UBL passes", async () => {
    const inv = await draft({
      prices_include_vat: true,
      lines: [
        { description: "Mug", quantity: 3, unit_price: "9.99", vat_rate_id: rates["S:21.00"].id },
        { description: "Book", quantity: 1, unit_price: "20.00", vat_rate_id: rates["S:6.00"].id },
      ],
      allowances_charges: [
        { type: "allowance", amount: "2.00", reason: "Voucher", vat_rate_id: rates["S:21.00"].id },
        { type: "charge", amount: "4.95", reason_code: "FC", vat_rate_id: rates["S:21.00"].id },
      ],
    });
    // 21 %: G = 29.97 − 2.00 + 4.95 = 32.92; VAT = 32.92 × 21/121 = 5.7134 → 5.71; net 27.21
    //   exact shares (× 100/121, in cents): 2476.86, −165.29, 409.09; floors 2476, −166, 409 = 2719;
    //   the two cents left go to the largest remainders, .86 (the line) and .71 (the allowance): 2477, −165, 409
    // 6 %: G = 20.00; VAT = 1.1320 → 1.13; net 18.87
    expect(inv.lines.map((l: any) => l.amount)).toEqual(["24.77", "18.87"]);
    expect(inv.allowances_charges.map((ac: any) => [ac.amount, ac.net_amount, ac.vat_amount])).toEqual([
      ["2.00", "1.65", "0.35"],
      ["4.95", "4.09", "0.86"],
    ]);
    expect([inv.line_total, inv.allowance_total, inv.charge_total, inv.subtotal, inv.vat_amount, inv.total]).toEqual([
      "43.64",
      "1.65",
      "4.09",
      "46.08",
      "6.84",
      "52.92",
    ]);
    await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    await expectValidUbl(inv.id);
  }, 60_000);

  test("refusals: no reason nor code, a code off its list, amount and percent, base without percent, more allowance than lines", async () => {
    const line = { description: "x", quantity: 1, unit_price: "10.00", vat_rate_id: rates["S:21.00"].id };
    const cases: [Record<string, unknown>, string][] = [
      [{ type: "allowance", amount: "1.00" }, "allowances_charges.0.reason"],
      [{ type: "allowance", amount: "1.00", reason_code: "FC" }, "allowances_charges.0.reason_code"],
      [{ type: "charge", amount: "1.00", reason_code: "95" }, "allowances_charges.0.reason_code"],
      [{ type: "allowance", amount: "1.00", percent: 5, reason: "x" }, "allowances_charges.0.amount"],
      [{ type: "allowance", reason: "x" }, "allowances_charges.0.amount"],
      [{ type: "allowance", amount: "1.00", base_amount: "10.00", reason: "x" }, "allowances_charges.0.base_amount"],
      [{ type: "allowance", amount: "10.01", reason: "x", vat_rate_id: rates["S:21.00"].id }, "allowances_charges.0.amount"],
      [{ type: "allowance", percent: 5, reason: "x", vat_rate_id: rates["S:6.00"].id }, "allowances_charges.0.base_amount"],
      [{ type: "allowance", percent: "100.5", base_amount: "10.00", reason: "x" }, "allowances_charges.0.percent"],
    ];
    for (const [ac, field] of cases) {
      const r = await env.api("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-01", lines: [line], allowances_charges: [ac] });
      expect(r.status, JSON.stringify(ac)).toBe(422);
      expect(Object.keys(r.body.errors), JSON.stringify(r.body.errors)).toContain(field);
    }
    const unknown = await env.api("POST", "/api/v1/invoices", {
      customer_id: customer.id,
      issue_date: "2026-03-01",
      lines: [line],
      allowances_charges: [{ type: "rebate", amount: "1.00", reason: "x" }],
    });
    expect(unknown.status).toBe(422);
    // nothing half-stored
    const list = await ok("GET", "/api/v1/invoices?per_page=100");
    expect(list.every((i: any) => i.lines.length > 0)).toBe(true);
  });

  test("an update without allowances_charges keeps them and prices them with the new lines; with [] it removes them", async () => {
    const inv = await draft({
      lines: [{ description: "x", quantity: 1, unit_price: "100.00", vat_rate_id: rates["S:21.00"].id }],
      allowances_charges: [{ type: "charge", amount: "10.00", reason: "Handling", vat_rate_id: rates["S:21.00"].id }],
    });
    expect(inv.total).toBe("133.10");
    const more = await ok("PUT", `/api/v1/invoices/${inv.id}`, { lines: [{ description: "x", quantity: 2, unit_price: "100.00", vat_rate_id: rates["S:21.00"].id }] });
    expect([more.charge_total, more.subtotal, more.total]).toEqual(["10.00", "210.00", "254.10"]);
    // kept allowances are checked against the new lines too
    const over = await env.api("PUT", `/api/v1/invoices/${inv.id}`, {
      lines: [{ description: "x", quantity: 1, unit_price: "1.00", vat_rate_id: rates["S:21.00"].id }],
      allowances_charges: [{ type: "allowance", amount: "5.00", reason: "Rebate", vat_rate_id: rates["S:21.00"].id }],
    });
    expect(over.status).toBe(422);
    const withAllowance = await ok("PUT", `/api/v1/invoices/${inv.id}`, {
      allowances_charges: [{ type: "allowance", amount: "50.00", reason: "Rebate", vat_rate_id: rates["S:21.00"].id }],
    });
    expect(withAllowance.allowance_total).toBe("50.00");
    const fewer = await env.api("PUT", `/api/v1/invoices/${inv.id}`, { lines: [{ description: "x", quantity: 1, unit_price: "10.00", vat_rate_id: rates["S:21.00"].id }] });
    expect(fewer.status).toBe(422);
    expect(Object.keys(fewer.body.errors)).toEqual(["allowances_charges.0.amount"]);
    expect((await ok("GET", `/api/v1/invoices/${inv.id}`)).total).toBe("181.50"); // unchanged: 200.00 − 50.00 = 150.00, + 21 %
    const none = await ok("PUT", `/api/v1/invoices/${inv.id}`, { allowances_charges: [] });
    expect([none.allowances_charges, none.charge_total, none.total]).toEqual([[], "0.00", "242.00"]);
  });
});

describe("the books", () => {
  test("the ledger posts the net of each rate (lines less allowances plus charges) as sales, and the VAT report shows it", async () => {
    const { token } = await env.newOrg("Pricing books", { country: "BE", currency: "EUR" });
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await env.api(method, path, body, token);
      expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBeLessThan(300);
      return r.body.data;
    };
    const own = Object.fromEntries((await call("GET", "/api/v1/vat-rates")).map((r: any) => [`${r.category}:${r.rate}`, r]));
    const buyer = await call("POST", "/api/v1/customers", { name: "Buyer", country: "BE" });
    const inv = await call("POST", "/api/v1/invoices", {
      customer_id: buyer.id,
      issue_date: "2026-02-10",
      prices_include_vat: true,
      lines: [
        { description: "Mug", quantity: 3, unit_price: "9.99", vat_rate_id: own["S:21.00"].id },
        { description: "Book", quantity: 1, unit_price: "20.00", vat_rate_id: own["S:6.00"].id },
      ],
      allowances_charges: [
        { type: "allowance", amount: "2.00", reason: "Voucher", vat_rate_id: own["S:21.00"].id },
        { type: "charge", amount: "4.95", reason_code: "FC", vat_rate_id: own["S:21.00"].id },
      ],
    });
    await call("POST", `/api/v1/invoices/${inv.id}/finalize`);
    const report = await call("GET", "/api/v1/reports/vat?from=2026-02-01&to=2026-02-28");
    // as computed above (gross prices with an allowance and a charge): 21 % net 27.21, VAT 5.71; 6 % net 18.87, VAT 1.13
    expect(report.sales.map((r: any) => [r.category, r.rate, r.base, r.vat])).toEqual([
      ["S", "21.00", "27.21", "5.71"],
      ["S", "6.00", "18.87", "1.13"],
    ]);
    expect(report.total_sales_vat).toBe("6.84");
    const trial = (await call("GET", "/api/v1/reports/trial-balance?date=2026-02-28")).accounts as { code: string; debit: string; credit: string }[];
    const credit = (code: string) => trial.find((a) => a.code === code)?.credit;
    expect(trial.find((a) => a.code === "1200")?.debit).toBe("52.92");
    expect(credit("2200")).toBe("6.84");
  });
});

describe("credit notes", () => {
  test("a credit note of a discounted invoice with an allowance copies them, credits exactly its total, and its UBL passes", async () => {
    const inv = await draft({
      prices_include_vat: true,
      lines: [
        { description: "Mug", quantity: 3, unit_price: "9.99", vat_rate_id: rates["S:21.00"].id, discount_percent: 10, discount_reason: "Weekend" },
        { description: "Book", quantity: 2, unit_price: "12.95", vat_rate_id: rates["S:6.00"].id, discount_amount: "0.95" },
      ],
      allowances_charges: [{ type: "allowance", amount: "1.50", reason: "Voucher", vat_rate_id: rates["S:21.00"].id }],
    });
    await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    const note = await ok("POST", `/api/v1/invoices/${inv.id}/credit-note`);
    expect([note.total, note.subtotal, note.vat_amount, note.allowance_total]).toEqual([inv.total, inv.subtotal, inv.vat_amount, inv.allowance_total]);
    expect(note.lines.map((l: any) => [l.discount_amount, l.amount])).toEqual(inv.lines.map((l: any) => [l.discount_amount, l.amount]));
    await ok("POST", `/api/v1/invoices/${note.id}/finalize`);
    const xml = await expectValidUbl(note.id);
    expect(xml).toContain("<CreditNote");
  }, 60_000);
});

describe("credit notes with lines given", () => {
  test("a partial credit note of a VAT-inclusive invoice is priced VAT-inclusive too: crediting one mug of three gives back 9.99", async () => {
    const inv = await draft({ prices_include_vat: true, lines: [{ description: "Mug", quantity: 3, unit_price: "9.99", vat_rate_id: rates["S:21.00"].id }] });
    await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    const note = await ok("POST", `/api/v1/invoices/${inv.id}/credit-note`, {
      lines: [{ description: "Mug, returned", quantity: 1, unit_price: "9.99", vat_rate_id: rates["S:21.00"].id }],
    });
    // 9.99 × 21 / 121 = 1.7338 → 1.73; net 8.26
    expect([note.prices_include_vat, note.total, note.vat_amount, note.subtotal]).toEqual([true, "9.99", "1.73", "8.26"]);
    await ok("POST", `/api/v1/invoices/${note.id}/finalize`);
    await expectValidUbl(note.id);
  }, 60_000);
});

describe("other VAT categories", () => {
  test("an exempt line with an exempt allowance, beside a standard-rated line: the allowance's group carries its exemption reason; the UBL passes", async () => {
    const inv = await draft({
      lines: [
        { description: "Training (exempt)", quantity: 2, unit_price: "250.00", vat_rate_id: rates["E:0.00"].id },
        { description: "Course book", quantity: 2, unit_price: "30.00", vat_rate_id: rates["S:6.00"].id, discount_amount: "6.00", discount_reason: "Second copy half price" },
      ],
      allowances_charges: [{ type: "allowance", percent: 10, reason_code: "100", vat_rate_id: rates["E:0.00"].id }],
    });
    // exempt: 500.00 − 10 % (50.00) = 450.00, no VAT; 6 %: 60.00 − 6.00 = 54.00, VAT 3.24
    expect([inv.subtotal, inv.vat_amount, inv.total]).toEqual(["504.00", "3.24", "507.24"]);
    await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    const xml = await expectValidUbl(inv.id);
    expect(xml).toContain('<cbc:TaxableAmount currencyID="EUR">450.00</cbc:TaxableAmount>');
    expect(xml).toContain("<cbc:TaxExemptionReasonCode>VATEX-EU-132</cbc:TaxExemptionReasonCode>");
  }, 60_000);
});
