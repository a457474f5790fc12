/**
 * The accountant's quarter: a quarter of activity of a Belgian consultancy written out by hand,
 * every grid of its VAT return computed here from the shared grid rules (vat-return-grids.md:
 * sales by category, buyer and goods or services; purchases by account, reverse charge received;
 * credit notes apart; 71/72 from XX and YY), compared to GET /vat-returns/2026-Q1; the Intervat
 * XML validated against the FPS Finance schema; filing, a late document, the refusals, the CLI.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestEnv, runCli } from "../helpers.ts";
import { rawSql } from "../raw-sql.ts";
import { validateIntervat } from "../fixtures/intervat/validate.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const { org, token } = await env.newOrg("Quarter BV", { country: "BE" });
const api = async (method: string, path: string, body?: unknown, expected = [200, 201]) => {
  const r = await env.api(method, path, body, token);
  if (!expected.includes(r.status)) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.body?.data;
};

let rates: Record<string, string> = {};
const ids: Record<string, string> = {};

async function customer(name: string, country: string, vat: string | null) {
  return (await api("POST", "/api/v1/customers", { name, country, vat_number: vat, address: "Street 1", city: "City", postal_code: "1000", email: "buyer@example.test" })).id;
}

type Line = { description?: string; quantity?: string; unit_price: string; rate: string; supply_type?: "goods" | "services" };
const lineOf = (l: Line) => ({ description: l.description ?? "Line", quantity: l.quantity ?? "1", unit_price: l.unit_price, vat_rate_id: rates[l.rate], ...(l.supply_type && { supply_type: l.supply_type }) });

async function invoice(customerId: string, date: string, lines: Line[]) {
  const inv = await api("POST", "/api/v1/invoices", { customer_id: customerId, issue_date: date, lines: lines.map(lineOf) });
  return (await api("POST", `/api/v1/invoices/${inv.id}/finalize`)).id as string;
}

async function creditNote(invoiceId: string, date: string, lines: Line[]) {
  const note = await api("POST", `/api/v1/invoices/${invoiceId}/credit-note`, { lines: lines.map(lineOf) });
  await api("PUT", `/api/v1/invoices/${note.id}`, { issue_date: date });
  return (await api("POST", `/api/v1/invoices/${note.id}/finalize`)).id as string;
}

async function expense(input: Record<string, unknown>, supplier?: { country: string; vat_number: string }) {
  const e = await api("POST", "/api/v1/expenses", input);
  if (supplier) await api("PUT", `/api/v1/suppliers/${e.supplier_id}`, supplier);
  return (await api("POST", `/api/v1/expenses/${e.id}/approve`)).id as string;
}

beforeAll(async () => {
  await api("PUT", "/api/v1/organization", {
    vat_number: "BE0477472701",
    address: "Voorbeeldstraat 1",
    city: "Gent",
    postal_code: "9000",
    email: "boekhouding@example.be",
    phone: "+32 9 000 00 00",
  });
  const list = (await api("GET", "/api/v1/vat-rates")) as { id: string; name: string; rate: string; category: string }[];
  const find = (category: string, rate: string) => list.find((r) => r.category === category && r.rate === rate)!.id;
  rates = { s21: find("S", "21.00"), s12: find("S", "12.00"), s6: find("S", "6.00"), ae: find("AE", "0.00"), k: find("K", "0.00"), g: find("G", "0.00") };

  const be = await customer("Klant NV", "BE", "BE0123456749");
  const consumer = await customer("Jan Peeters", "BE", null);
  const nl = await customer("Klant BV", "NL", "NL806753742B01");
  const de = await customer("Kunde GmbH", "DE", "DE814060619");
  const us = await customer("Client Inc", "US", null);

  // --- sales, in date order
  // 1. Belgian company: services at 21 % (2 × 1,000.00) and goods at 6 % (10 × 50.00)
  ids.be = await invoice(be, "2026-01-05", [
    { quantity: "2", unit_price: "1000.00", rate: "s21" },
    { quantity: "10", unit_price: "50.00", rate: "s6", supply_type: "goods" },
  ]);
  // 2. a consumer at 12 %
  ids.consumer = await invoice(consumer, "2026-01-08", [{ unit_price: "300.00", rate: "s12" }]);
  // 3. Dutch company: B2B services, reverse charged (AE)
  ids.nl = await invoice(nl, "2026-01-12", [{ unit_price: "4000.00", rate: "ae" }]);
  // 4. German company: K goods (the default of a K line) and K services said so
  ids.de = await invoice(de, "2026-01-20", [
    { unit_price: "2500.00", rate: "k" },
    { unit_price: "1000.00", rate: "k", supply_type: "services" },
  ]);
  // 5. outside the EU: an export (G) and services (AE)
  ids.us = await invoice(us, "2026-02-02", [
    { unit_price: "1500.00", rate: "g", supply_type: "goods" },
    { unit_price: "800.00", rate: "ae" },
  ]);
  // 6. Belgian co-contractor (AE to a Belgian buyer)
  ids.cocontractor = await invoice(be, "2026-02-10", [{ unit_price: "1200.00", rate: "ae" }]);
  // credit notes on each kind
  await creditNote(ids.be, "2026-02-20", [{ unit_price: "1000.00", rate: "s21" }]);
  await creditNote(ids.nl, "2026-02-21", [{ unit_price: "500.00", rate: "ae" }]);
  await creditNote(ids.de, "2026-02-22", [{ unit_price: "300.00", rate: "k" }]);
  await creditNote(ids.us, "2026-02-23", [{ unit_price: "200.00", rate: "g", supply_type: "goods" }]);
  await creditNote(ids.cocontractor, "2026-02-24", [{ unit_price: "100.00", rate: "ae" }]);

  // --- purchases
  // an investment: a category mapped to a fixed-asset account (added under 1600 Fixed assets as an accountant would)
  const chart = (await api("GET", "/api/v1/accounts?per_page=100")) as { id: string; code: string }[];
  await api("POST", "/api/v1/accounts", { code: "1610", name: "Equipment", type: "asset", parent_id: chart.find((a) => a.code === "1600")!.id });
  const accounts = (await api("GET", "/api/v1/accounts?per_page=100")) as { id: string; code: string }[];
  await api("PUT", "/api/v1/expense-categories/laptops", { account_id: accounts.find((a) => a.code === "1610")!.id });

  // P1 goods for resale (6100, PCMN 604) from a Belgian supplier: 1,000.00 + 21 %
  await expense({ category: "goods", amount: "1000.00", vat_amount: "210.00", vat_rate_id: rates.s21, date: "2026-01-15", vendor: "Groothandel NV" }, { country: "BE", vat_number: "BE0417497106" });
  // P2 services (rent, 6200): 800.00 + 21 %
  await expense({ category: "rent", amount: "800.00", vat_amount: "168.00", vat_rate_id: rates.s21, date: "2026-01-31", vendor: "Verhuur BV" });
  // P3 an investment: 2,000.00 + 21 %
  await expense({ category: "laptops", amount: "2000.00", vat_amount: "420.00", vat_rate_id: rates.s21, date: "2026-02-05", vendor: "Computers BV" });
  // P4 intra-EU acquisition of goods (K) from Germany: 3,000.00, VAT self-assessed at the standard 21 %
  await expense({ category: "goods", amount: "3000.00", vat_rate_id: rates.k, date: "2026-02-12", vendor: "Lieferant GmbH" }, { country: "DE", vat_number: "DE811363057" });
  // P5 services from the Netherlands (AE): 1,000.00, self-assessed at the 21 % rate it names
  await expense({ category: "software", amount: "1000.00", vat_rate_id: rates.ae, self_assessed_vat_rate_id: rates.s21, date: "2026-03-02", vendor: "Dutch Consult BV" }, { country: "NL", vat_number: "NL006375054B01" });
  // P6 domestic co-contractor (AE from a Belgian supplier): 2,000.00 of renovation, self-assessed at 6 %
  await expense({ category: "office", amount: "2000.00", vat_rate_id: rates.ae, self_assessed_vat_rate_id: rates.s6, date: "2026-03-10", vendor: "Bouw NV" }, { country: "BE", vat_number: "BE0897290877" });

  // P7 a credit note received: a Belgian supplier (another Kontor organisation) credits 200.00 + 21 %, imported as its UBL
  const supplier = await env.newOrg("Groothandel Twee NV", { country: "BE" });
  const sapi = async (method: string, path: string, body?: unknown) => {
    const r = await env.api(method, path, body, supplier.token);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.body.data;
  };
  await sapi("PUT", "/api/v1/organization", { vat_number: "BE0417497106", peppol_id: "0208:0417497106", address: "Kaai 2", city: "Antwerpen", postal_code: "2000", email: "sales@example.be" });
  const us2 = await sapi("POST", "/api/v1/customers", { name: "Quarter BV", country: "BE", vat_number: "BE0477472701", address: "Voorbeeldstraat 1", city: "Gent", postal_code: "9000", peppol_id: "0208:0477472701" });
  const sRate = ((await sapi("GET", "/api/v1/vat-rates")) as { id: string; rate: string; category: string }[]).find((r) => r.category === "S" && r.rate === "21.00")!.id;
  const sold = await sapi("POST", "/api/v1/invoices", { customer_id: us2.id, issue_date: "2026-03-01", buyer_reference: "Q1", lines: [{ description: "Stock", quantity: "1", unit_price: "600.00", vat_rate_id: sRate }] });
  await sapi("POST", `/api/v1/invoices/${sold.id}/finalize`);
  const cn = await sapi("POST", `/api/v1/invoices/${sold.id}/credit-note`, { lines: [{ description: "Returned stock", quantity: "1", unit_price: "200.00", vat_rate_id: sRate }] });
  await sapi("PUT", `/api/v1/invoices/${cn.id}`, { issue_date: "2026-03-15" });
  await sapi("POST", `/api/v1/invoices/${cn.id}/finalize`);
  const ubl = await env.request("GET", `/api/v1/invoices/${cn.id}/ubl`, { token: supplier.token });
  expect(ubl.status).toBe(200);
  const imported = await env.request("POST", "/api/v1/expenses/import?category=goods", { rawBody: ubl.text, token, headers: { "content-type": "application/xml" } });
  expect(imported.status).toBe(201);
  expect(imported.body.data).toMatchObject({ document_type: "credit_note", amount: "200.00", vat_amount: "42.00" });
  await api("POST", `/api/v1/expenses/${imported.body.data.id}/approve`);
});

describe("the quarter's return, grid by grid", () => {
  test("every grid as computed by hand from vat-return-grids.md", async () => {
    const q1 = await api("GET", "/api/v1/vat-returns/2026-Q1");
    // Part II, outgoing (bases, excl. VAT); credit notes are not netted: they go to 48 / 49
    const g01 = 10 * 50; // invoice 1's goods at 6 %
    const g02 = 300; // the consumer at 12 %
    const g03 = 2 * 1000; // invoice 1's services at 21 %
    const g44 = 4000 + 1000; // AE services to NL + K services to DE (code S)
    const g45 = 1200; // AE to a Belgian co-contractor
    const g46 = 2500; // K goods to DE (code L)
    const g47 = 1500 + 800; // export (G) + AE services to a US buyer
    const g48 = 500 + 300; // credit notes on 44 (NL) and 46 (DE)
    const g49 = 1000 + 200 + 100; // credit notes on 03, 47 and 45 (the schema's 48 names only 44 and 46)
    const g54 = 0.06 * g01 + 0.12 * g02 + 0.21 * g03; // 30 + 36 + 420 = 486
    const g64 = 0.21 * 1000; // the VAT of the credit note on invoice 1
    // Part III, incoming: 81–83 by account (credit notes received deducted), 86–88 a second classification
    const g81 = 1000 + 3000 - 200; // goods for resale, the intra-EU goods, less the credit note received
    const g82 = 800 + 1000 + 2000; // rent, Dutch services, the co-contractor's work
    const g83 = 2000; // the laptops (a fixed asset)
    const g85 = 200; // credit note received, not on 86/88
    const g86 = 3000;
    const g87 = 2000;
    const g88 = 1000;
    const g55 = 0.21 * g86 + 0.21 * g88; // 630 + 210 self-assessed on 86 + 88
    const g56 = 0.06 * g87; // 120 at the 6 % the expense names
    const g59 = 210 + 168 + 420 + g55 + g56; // every deductible VAT, self-assessed included
    const g63 = 0.21 * 200; // VAT of the credit note received
    // Part VI: XX = 54 + 55 + 56 + 57 + 61 + 63, YY = 59 + 62 + 64
    const xx = g54 + g55 + g56 + 0 + 0 + g63;
    const yy = g59 + 0 + g64;
    expect(xx).toBeCloseTo(1488, 6);
    expect(yy).toBeCloseTo(1968, 6);
    const money = (n: number) => n.toFixed(2);
    expect(q1.grids).toEqual({
      "01": money(g01), "02": money(g02), "03": money(g03), "44": money(g44), "45": money(g45), "46": money(g46), "47": money(g47), "48": money(g48), "49": money(g49),
      "54": money(g54), "55": money(g55), "56": money(g56), "59": money(g59), "63": money(g63), "64": money(g64),
      "72": money(yy - xx),
      "81": money(g81), "82": money(g82), "83": money(g83), "85": money(g85), "86": money(g86), "87": money(g87), "88": money(g88),
    });
    // every plausibility check holds, no rule was stretched
    expect(q1.warnings).toEqual([]);
    expect(q1).toMatchObject({ period: "2026-Q1", from: "2026-01-01", to: "2026-03-31", vat_period: "quarterly", filed: false, filed_at: null, can_file: true });
    // the sources: the buyer as issued, the intra-Community listing codes
    expect(q1.sources["44"].map((s: { party: { country: string }; intra_code: string; amount: string }) => [s.party.country, s.intra_code, s.amount])).toEqual([
      ["NL", "S", "4000.00"],
      ["DE", "S", "1000.00"],
    ]);
    expect(q1.sources["46"].map((s: { party: { vat_number: string }; intra_code: string }) => [s.party.vat_number, s.intra_code])).toEqual([["DE814060619", "L"]]);
    expect(q1.sources["48"].map((s: { intra_code: string; amount: string }) => [s.intra_code, s.amount])).toEqual([["S", "500.00"], ["L", "300.00"]]);
    expect(q1.sources["81"].map((s: { amount: string }) => s.amount)).toEqual(["1000.00", "3000.00", "-200.00"]);
  });

  test("supply_type on invoice lines: as given, else goods at a K rate and services otherwise", async () => {
    const types = async (id: string) => ((await api("GET", `/api/v1/invoices/${id}`)).lines as { supply_type: string }[]).map((l) => l.supply_type);
    expect(await types(ids.de)).toEqual(["goods", "services"]);
    expect(await types(ids.nl)).toEqual(["services"]);
    expect(await types(ids.be)).toEqual(["services", "goods"]);
    const refused = await env.api("POST", "/api/v1/invoices", { customer_id: (await api("GET", `/api/v1/invoices/${ids.nl}`)).customer_id, lines: [{ description: "x", quantity: "1", unit_price: "1.00", supply_type: "both" }] }, token);
    expect(refused.status).toBe(422);
  });

  test("the ledger's VAT accounts hold what the grids say: VAT payable 54 + 55 + 56 − 64, VAT receivable 59 − 63", async () => {
    const tb = await api("GET", "/api/v1/reports/trial-balance?date=2026-03-31");
    const balance = (code: string) => tb.accounts.find((a: { code: string }) => a.code === code);
    // 486 + 840 + 120 − 210 = 1,236.00 owed; 1,758 − 42 = 1,716.00 to deduct
    expect(balance("2200")).toMatchObject({ credit: "1236.00" });
    expect(balance("1400")).toMatchObject({ debit: "1716.00" });
  });

  test("the VAT report's Belgian grids come from the same table", async () => {
    const report = await api("GET", "/api/v1/reports/vat?from=2026-01-01&to=2026-03-31");
    const q1 = await api("GET", "/api/v1/vat-returns/2026-Q1");
    expect(report.belgian_return.grids).toEqual(q1.grids);
  });

  test("the Intervat XML validates against NewTVA-in_v0_9.xsd and says what the grids say", async () => {
    const r = await env.request("GET", "/api/v1/vat-returns/2026-Q1/xml", { token });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("application/xml");
    const result = await validateIntervat(r.text, "NewTVA-in_v0_9.xsd");
    expect(result.output).toContain("validates");
    expect(result.ok).toBe(true);
    expect(r.text).toContain("<VATNumber>0477472701</VATNumber>");
    expect(r.text).toContain("<ns2:Quarter>1</ns2:Quarter>");
    // grid numbers as integers, amounts with two decimals, only the grids with an amount
    expect(r.text).toContain('<ns2:Amount GridNumber="1">500.00</ns2:Amount>');
    expect(r.text).toContain('<ns2:Amount GridNumber="72">480.00</ns2:Amount>');
    expect(r.text).not.toContain('GridNumber="71"');
    expect(r.text).not.toContain('GridNumber="0"');
    expect(r.text).toContain("<ns2:ClientListingNihil>NO</ns2:ClientListingNihil>");
    expect(r.text).toContain('<ns2:Ask Restitution="NO" Payment="NO"/>');
    const asked = await env.request("GET", "/api/v1/vat-returns/2026-Q1/xml?ask_restitution=true", { token });
    expect(asked.text).toContain('<ns2:Ask Restitution="YES" Payment="NO"/>');
  });

  test("the year's last period says ClientListingNihil YES when no Belgian VAT-registered customer passes 250.00", async () => {
    // 2025 has no sales at all
    const r = await env.request("GET", "/api/v1/vat-returns/2025-Q4/xml", { token });
    expect(r.status).toBe(200);
    expect(r.text).toContain("<ns2:ClientListingNihil>YES</ns2:ClientListingNihil>");
    expect(r.text).toContain('<ns2:Amount GridNumber="71">0.00</ns2:Amount>');
    expect((await validateIntervat(r.text, "NewTVA-in_v0_9.xsd")).ok).toBe(true);
  });
});

describe("filing", () => {
  test("the refusals: malformed, of the other kind, not ended, no Belgian VAT number: 422 naming the field", async () => {
    const field = async (path: string, name: string, t = token) => {
      const r = await env.api("GET", path, undefined, t);
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual([name]);
    };
    await field("/api/v1/vat-returns/2026-Q5", "period");
    await field("/api/v1/vat-returns/2026-13", "period");
    await field("/api/v1/vat-returns/2026-02", "period");
    await field("/api/v1/vat-returns/2999-Q1", "period");
    await field("/api/v1/vat-returns/2026-Q1/xml", "vat_number", (await env.newOrg("No VAT number BV", { country: "BE" })).token);
    expect((await env.api("POST", "/api/v1/vat-returns/2999-Q1/file", undefined, token)).status).toBe(422);
    // a monthly filer names months
    const monthly = await env.newOrg("Monthly BV", { country: "BE" });
    await env.api("PUT", "/api/v1/organization", { vat_period: "monthly", vat_number: "BE0123456749" }, monthly.token);
    expect((await env.api("GET", "/api/v1/organization", undefined, monthly.token)).body.data.vat_period).toBe("monthly");
    await field("/api/v1/vat-returns/2026-Q1", "period", monthly.token);
    expect((await env.api("GET", "/api/v1/vat-returns/2026-02", undefined, monthly.token)).status).toBe(200);
  });

  test("filing keeps the grids and the XML byte for byte; a second filing is a 409; an event and an audit entry", async () => {
    const before = await env.request("GET", "/api/v1/vat-returns/2026-Q1/xml", { token });
    const filed = await env.api("POST", "/api/v1/vat-returns/2026-Q1/file", undefined, token);
    expect(filed.status).toBe(201);
    expect(filed.headers.get("location")).toBe("/api/v1/vat-returns/2026-Q1");
    expect(filed.body.data).toMatchObject({ filed: true, can_file: false, grids: { "72": "480.00" } });
    const after = await env.request("GET", "/api/v1/vat-returns/2026-Q1/xml", { token });
    expect(after.bytes).toEqual(before.bytes);
    const stored = (await rawSql(env.db).get<{ xml: string }>("SELECT xml FROM vat_returns WHERE organization_id = ?", org.id))!;
    expect(stored.xml).toBe(before.text);
    expect((await env.api("POST", "/api/v1/vat-returns/2026-Q1/file", undefined, token)).status).toBe(409);
    const events = (await env.api("GET", "/api/v1/events?per_page=100", undefined, token)).body.data as { type: string }[];
    expect(events.some((e) => e.type === "vat_return.filed")).toBe(true);
    const audit = (await env.api("GET", "/api/v1/audit-log?filter[action]=vat_return.filed", undefined, token)).body.data;
    expect(audit).toHaveLength(1);
  });

  test("a document dated in the filed quarter and approved after the filing is reported in the next open quarter, and named there", async () => {
    const q1Before = await api("GET", "/api/v1/vat-returns/2026-Q1");
    const xmlBefore = (await env.request("GET", "/api/v1/vat-returns/2026-Q1/xml", { token })).text;
    // 500.00 + 105.00 of rent dated 15 February, approved now
    await expense({ category: "rent", amount: "500.00", vat_amount: "105.00", vat_rate_id: rates.s21, date: "2026-02-15", vendor: "Late Verhuur BV" });
    const q1 = await api("GET", "/api/v1/vat-returns/2026-Q1");
    expect(q1.grids).toEqual(q1Before.grids);
    expect((await env.request("GET", "/api/v1/vat-returns/2026-Q1/xml", { token })).text).toBe(xmlBefore);
    const q2 = await api("GET", "/api/v1/vat-returns/2026-Q2");
    expect(q2.grids).toEqual({ "59": "105.00", "72": "105.00", "82": "500.00" });
    expect(q2.warnings).toHaveLength(1);
    expect(q2.warnings[0]).toContain("dated 2026-02-15 in the filed period 2026-Q1");
    expect(q2.warnings[0]).toContain("reported in 2026-Q2");
    expect(q2.sources["82"][0]).toMatchObject({ date: "2026-02-15", party: { name: "Late Verhuur BV" } });
  });

  test("the CLI: kontor org create and set --vat-period", async () => {
    const db = env.config.dbPath;
    expect((await runCli(["org", "create", "--name", "Maandelijks BV", "--vat-period", "monthly", "--db", db])).code).toBe(0);
    const shown = await runCli(["org", "set", "Maandelijks BV", "--email", "btw@example.be", "--db", db, "--json"]);
    expect(JSON.parse(shown.stdout).vat_period).toBe("monthly");
    const set = await runCli(["org", "set", "Maandelijks BV", "--vat-period", "quarterly", "--db", db, "--json"]);
    expect(JSON.parse(set.stdout).vat_period).toBe("quarterly");
    expect((await runCli(["org", "create", "--name", "Wekelijks BV", "--vat-period", "weekly", "--db", db])).code).toBe(2);
  });

  test("the CLI: show, xml and file, --json too", async () => {
    const db = env.config.dbPath;
    const show = await runCli(["vat-return", "show", "2026-Q1", "--org", org.id, "--db", db, "--json"]);
    expect(show.code).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({ period: "2026-Q1", filed: true, grids: { "72": "480.00" } });
    const xml = await runCli(["vat-return", "xml", "2026-Q1", "--org", "Quarter BV", "--db", db]);
    expect(xml.code).toBe(0);
    expect(xml.stdout).toBe((await env.request("GET", "/api/v1/vat-returns/2026-Q1/xml", { token })).text);
    const q2 = await runCli(["vat-return", "file", "2026-Q2", "--org", org.id, "--db", db]);
    expect(q2.code).toBe(0);
    expect(q2.stdout).toContain("VAT return 2026-Q2");
    expect(q2.stdout).toContain("72");
    const again = await runCli(["vat-return", "file", "2026-Q2", "--org", org.id, "--db", db]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("was filed on");
    const bad = await runCli(["vat-return", "show", "2026-05", "--org", org.id, "--db", db]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("quarterly");
  });
});
