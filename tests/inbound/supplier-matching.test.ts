/**
 * An imported e-invoice's seller is matched by VAT number, then legal
 * registration (BT-30), then Peppol participant id (an EndpointID with an EAS scheme), then name;
 * never by an e-mail endpoint (schemeID "EM") and never onto a supplier whose VAT number or
 * registration contradicts the document's. Files: two sellers of the XRechnung test suite that
 * share the endpoint EM:seller@email.de (fixtures/xrechnung/README.md), and the Peppol base
 * example. Every expected value is read off the files.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTestEnv } from "../helpers.ts";
import { plansOf } from "../query-plan.ts";
import { sqliteOnly } from "../raw-sql.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const fixture = (name: string) => readFileSync(join(import.meta.dir, "fixtures", "xrechnung", name), "utf8");
const MEIER = fixture("04.01a-INVOICE_ubl.xml");
const GERUESTBAU = fixture("04.04a-INVOICE_ubl.xml");
const PEPPOL_BASE = readFileSync(join(import.meta.dir, "..", "einvoicing", "examples", "peppol", "base-example.xml"), "utf8");

const importXml = (xml: string, token: string) =>
  env.request("POST", "/api/v1/expenses/import", { rawBody: xml, token, headers: { "content-type": "application/xml" } });
const supplier = async (id: string, token: string) => (await env.request("GET", `/api/v1/suppliers/${id}`, { token })).body.data;
const suppliersOf = async (token: string) => (await env.request("GET", "/api/v1/suppliers?per_page=100", { token })).body.data as { id: string; name: string; peppol_id: string | null }[];

describe("suppliers matched, never merged", () => {
  test("two sellers sharing an e-mail endpoint are two suppliers; vendor and supplier agree; no EM peppol_id", async () => {
    const { token } = await env.newOrg("Shared endpoint", { country: "BE", currency: "EUR" });
    const meier = await importXml(MEIER, token);
    expect(meier.status, meier.text).toBe(201);
    const geruestbau = await importXml(GERUESTBAU, token);
    expect(geruestbau.status, geruestbau.text).toBe(201);
    expect(geruestbau.body.data.supplier_id).not.toBe(meier.body.data.supplier_id);
    expect(meier.body.data).toMatchObject({ vendor: "M. Meier Handwerk GbR", supplier_invoice_number: "12345" });
    expect(geruestbau.body.data).toMatchObject({ vendor: "Test Gerüstbau GmbH", supplier_invoice_number: "17794" });
    const meierSupplier = await supplier(meier.body.data.supplier_id, token);
    const geruestbauSupplier = await supplier(geruestbau.body.data.supplier_id, token);
    expect(meierSupplier).toMatchObject({ name: "M. Meier Handwerk GbR", company_number: "1122334455", peppol_id: null });
    // "DE/12/345/67890" is a German tax number, not a VAT number: kept in the document, not on the supplier
    expect(meierSupplier.vat_number).toBeNull();
    expect(geruestbauSupplier).toMatchObject({ name: "Test Gerüstbau GmbH", vat_number: "DE814060619", company_number: null, peppol_id: null });
    const all = await suppliersOf(token);
    expect(all.map((s) => s.name).sort()).toEqual(["M. Meier Handwerk GbR", "Test Gerüstbau GmbH"]);
    expect(all.every((s) => s.peppol_id === null)).toBe(true);
  });

  test("the same invoice number from two sellers imports twice; from one seller, once", async () => {
    const { token } = await env.newOrg("Same number", { country: "BE", currency: "EUR" });
    expect((await importXml(MEIER, token)).status).toBe(201);
    // the Gerüstbau invoice renumbered to Meier's 12345: another seller's document
    const renumbered = GERUESTBAU.replace("<cbc:ID>17794</cbc:ID>", "<cbc:ID>12345</cbc:ID>");
    expect(renumbered).not.toBe(GERUESTBAU);
    const second = await importXml(renumbered, token);
    expect(second.status, second.text).toBe(201);
    expect(second.body.data).toMatchObject({ vendor: "Test Gerüstbau GmbH", supplier_invoice_number: "12345" });
    const again = await importXml(renumbered, token);
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(second.body.data.id);
  });

  test("matched by legal registration: a supplier with the document's company number and no VAT number", async () => {
    const { token } = await env.newOrg("By registration", { country: "BE", currency: "EUR" });
    const created = await env.request("POST", "/api/v1/suppliers", { token, body: { name: "Meier (our name for them)", company_number: "11 2233 4455" } });
    expect(created.status, created.text).toBe(201);
    const r = await importXml(MEIER, token);
    expect(r.status, r.text).toBe(201);
    expect(r.body.data.supplier_id).toBe(created.body.data.id);
  });

  test("matched by Peppol participant id (EAS scheme 0088)", async () => {
    const { token } = await env.newOrg("By Peppol id", { country: "BE", currency: "EUR" });
    // the base example's EndpointID: schemeID 0088, 9482348239847239874
    const created = await env.request("POST", "/api/v1/suppliers", { token, body: { name: "Supplier by endpoint", peppol_id: "0088:9482348239847239874" } });
    expect(created.status, created.text).toBe(201);
    const r = await importXml(PEPPOL_BASE, token);
    expect(r.status, r.text).toBe(201);
    expect(r.body.data.supplier_id).toBe(created.body.data.id);
  });

  test("a supplier whose VAT number contradicts the document's is not matched, whatever else they share", async () => {
    const { token } = await env.newOrg("Contradicting VAT", { country: "BE", currency: "EUR" });
    // same name, registration and Peppol id as the base example's seller, another VAT number (Gerüstbau's)
    const other = await env.request("POST", "/api/v1/suppliers", {
      token,
      body: { name: "SupplierOfficialName Ltd", vat_number: "DE814060619", company_number: "GB983294", peppol_id: "0088:9482348239847239874" },
    });
    expect(other.status, other.text).toBe(201);
    const r = await importXml(PEPPOL_BASE, token);
    expect(r.status, r.text).toBe(201);
    expect(r.body.data.supplier_id).not.toBe(other.body.data.id);
    expect(await supplier(r.body.data.supplier_id, token)).toMatchObject({
      name: "SupplierOfficialName Ltd",
      vat_number: "GB1232434",
      company_number: "GB983294",
      peppol_id: "0088:9482348239847239874",
    });
    // the new supplier, with the document's VAT number, is the one the next document matches
    const credit = readFileSync(join(import.meta.dir, "..", "einvoicing", "examples", "peppol", "base-creditnote-correction.xml"), "utf8");
    const c = await importXml(credit, token);
    expect(c.status, c.text).toBe(201);
    expect(c.body.data.supplier_id).toBe(r.body.data.supplier_id);
  });
});

describe("the registration a new supplier keeps", () => {
  test("a Belgian seller's enterprise number is kept when its check digits hold, else left in the document only", async () => {
    // the CEN credit note's seller: Belgian address, VAT BE0000000196, registration 0000000196 (97 − 1 mod 97 = 96)
    const creditNote = readFileSync(join(import.meta.dir, "..", "einvoicing", "examples", "cen", "ubl-tc434-creditnote1.xml"), "utf8");
    const valid = await env.newOrg("Registration kept", { country: "BE", currency: "EUR" });
    const kept = await importXml(creditNote, valid.token);
    expect(kept.status, kept.text).toBe(201);
    expect(await supplier(kept.body.data.supplier_id, valid.token)).toMatchObject({ vat_number: "BE0000000196", company_number: "0000000196", peppol_id: "0201:0000000196" });
    const typo = await env.newOrg("Registration typo", { country: "BE", currency: "EUR" });
    const mistyped = creditNote.replace("<cbc:CompanyID>0000000196</cbc:CompanyID>", "<cbc:CompanyID>0000000197</cbc:CompanyID>");
    expect(mistyped).not.toBe(creditNote);
    const dropped = await importXml(mistyped, typo.token);
    expect(dropped.status, dropped.text).toBe(201);
    expect((await supplier(dropped.body.data.supplier_id, typo.token)).company_number).toBeNull();
  });
});

describe("the lookups are index probes", () => {
  sqliteOnly.test("the candidates are found by one probe per identifier, then judged by their identifiers and ids: no scan, no sort step beyond the candidates", async () => {
    const { token } = await env.newOrg("Plans", { country: "BE", currency: "EUR" });
    expect((await importXml(PEPPOL_BASE, token)).status).toBe(201);
    const credit = readFileSync(join(import.meta.dir, "..", "einvoicing", "examples", "peppol", "base-creditnote-correction.xml"), "utf8");
    const plans = (await plansOf(env, () => importXml(credit, token))).filter((p) => /from "supplier_identifiers"/i.test(p.sql) && /select/i.test(p.sql));
    // the candidates (VAT number, registration, Peppol id, name: one probe each), then the candidates' identifiers
    expect(plans.length).toBeGreaterThanOrEqual(2);
    const plan = plans.map((p) => p.plan.join("\n")).join("\n");
    expect(plan).toContain("supplier_identifiers_org_value");
    expect(plan).toContain("supplier_identifiers_supplier");
    for (const p of plans) expect(p.plan.join("\n")).not.toMatch(/\bSCAN\b/);
  });
});

describe("company_number on customers and suppliers", () => {
  test("given, shown, updated, cleared; a Belgian one is an enterprise number (mod 97)", async () => {
    const { token } = await env.newOrg("Company numbers");
    for (const kind of ["customers", "suppliers"]) {
      const made = await env.request("POST", `/api/v1/${kind}`, { token, body: { name: "Acme BV", country: "BE", company_number: "0403.170.701" } });
      expect(made.status, made.text).toBe(201);
      expect(made.body.data.company_number).toBe("0403.170.701");
      const bad = await env.request("PUT", `/api/v1/${kind}/${made.body.data.id}`, { token, body: { company_number: "0403.170.702" } });
      expect(bad.status).toBe(422);
      expect(bad.body.errors.company_number[0]).toContain("check digits");
      const short = await env.request("POST", `/api/v1/${kind}`, { token, body: { name: "Short BV", country: "BE", company_number: "12345" } });
      expect(short.status).toBe(422);
      expect(Object.keys(short.body.errors)).toEqual(["company_number"]);
      // a German registration has no one form: taken as given
      const moved = await env.request("PUT", `/api/v1/${kind}/${made.body.data.id}`, { token, body: { country: "DE", company_number: "HRB 12345" } });
      expect(moved.status, moved.text).toBe(200);
      expect(moved.body.data.company_number).toBe("HRB 12345");
      // back to Belgium with the German registration: refused
      expect((await env.request("PUT", `/api/v1/${kind}/${made.body.data.id}`, { token, body: { country: "BE" } })).status).toBe(422);
      const cleared = await env.request("PUT", `/api/v1/${kind}/${made.body.data.id}`, { token, body: { company_number: null } });
      expect(cleared.body.data.company_number).toBeNull();
      const long = await env.request("POST", `/api/v1/${kind}`, { token, body: { name: "Long", company_number: "x".repeat(51) } });
      expect(long.status).toBe(422);
    }
  });
});
