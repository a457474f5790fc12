/**
 * A French seller's CII (Factur-X's XML, GET /invoices/{id}/cii) carries the legal mentions French
 * law asks of every invoice as notes with their subject codes, PMD (late-payment penalties), PMT
 * (the €40 recovery indemnity) and AAB (the early-payment discount), and its billing mode in BT-23
 * (B1, S1 or M1): the French e-invoicing reform's rules (BR-FR-05, BR-FR-08), the Factur-X EN 16931
 * schematron and the CEN rules find no fatal assertion in it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestEnv } from "../helpers.ts";
import { describe as describeValidation, validateCii } from "../einvoicing/validate.ts";

const env = await createTestEnv();
afterAll(() => env.close());
// a French organisation from the start: its VAT rates are France's (BR-FR-16 knows no other)
const french = await env.newOrg("Atelier Durand", { country: "FR" });

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await env.api(method, path, body, french.token);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBeLessThan(300);
  return r.body?.data;
};

/** A French SAS, as docs/invoicing.md#france sets one up. */
export const FRENCH_SELLER = {
  name: "Atelier Durand SAS",
  country: "FR",
  address: "12 rue de la Paix",
  city: "Paris",
  postal_code: "75002",
  vat_number: "FR40303265045",
  company_number: "303265045",
  email: "factures@durand.example",
  legal_form: "SAS",
  share_capital: "10000.00",
  register_kind: "RCS",
  register_number: "303 265 045",
  register_place: "Paris",
  check_legal_mentions: true,
};

let customerId = "";
let rate = "";
beforeAll(async () => {
  await ok("PUT", "/api/v1/organization", FRENCH_SELLER);
  rate = (await ok("GET", "/api/v1/vat-rates")).find((r: { category: string }) => r.category === "S").id;
  customerId = (
    await ok("POST", "/api/v1/customers", {
      name: "Boulangerie Martin SARL",
      country: "FR",
      address: "3 place du Marché",
      city: "Lyon",
      postal_code: "69002",
      vat_number: "FR83404833048",
      company_number: "404833048",
      email: "compta@martin.example",
      einvoice_profile: "facturx",
    })
  ).id;
});

const issue = async (lines: { description: string; quantity: string; unit_price: string; unit_code?: string; supply_type?: string }[], extra: Record<string, unknown> = {}) => {
  const draft = await ok("POST", "/api/v1/invoices", { customer_id: customerId, issue_date: "2026-03-02", lines: lines.map((l) => ({ ...l, vat_rate_id: rate })), ...extra });
  return ok("POST", `/api/v1/invoices/${draft.id}/finalize`);
};

describe("a French seller's CII", () => {
  test("carries the notes PMD, PMT and AAB and the billing mode, and passes the French rules, Factur-X's and CEN's", async () => {
    const invoice = await issue([{ description: "Conseil", quantity: "2", unit_price: "150.00", unit_code: "HUR" }]);
    const cii = (await env.request("GET", `/api/v1/invoices/${invoice.id}/cii`, { token: french.token })).text;
    const result = await validateCii(cii, "en16931", { french: true });
    expect(result.fatal, describeValidation(result)).toEqual([]);
    expect(result.xsdErrors).toEqual([]);
    // the three mentions, once each (BR-FR-05, BR-FR-06), in the document's language
    const notes = [...cii.matchAll(/<ram:IncludedNote>\s*<ram:Content>([^<]*)<\/ram:Content>\s*<ram:SubjectCode>([A-Z]+)<\/ram:SubjectCode>/g)].map((m) => [m[2], m[1]]);
    expect(notes.map(([code]) => code)).toEqual(["PMD", "PMT", "AAB"]);
    expect(notes[1]![1]).toContain("40");
    expect(notes[2]![1]).toBe("No discount for early payment.");
    // services (hours) are S1: a simple invoice of services
    expect(cii).toMatch(/<ram:BusinessProcessSpecifiedDocumentContextParameter>\s*<ram:ID>S1<\/ram:ID>/);
  });

  test("goods are B1, goods and services M1, as each line's supply_type says; the discount terms given are the AAB note", async () => {
    await ok("PUT", "/api/v1/organization", { discount_terms: "2 % si paiement sous 8 jours", language: "fr" });
    try {
      // shelves sold by the piece are goods when the line says so
      const goods = await issue([
        { description: "Farine", quantity: "25", unit_price: "1.20", unit_code: "KGM", supply_type: "goods" },
        { description: "Étagère", quantity: "4", unit_price: "35.00", unit_code: "C62", supply_type: "goods" },
      ]);
      const goodsCii = (await env.request("GET", `/api/v1/invoices/${goods.id}/cii`, { token: french.token })).text;
      expect(goodsCii).toMatch(/<ram:BusinessProcessSpecifiedDocumentContextParameter>\s*<ram:ID>B1<\/ram:ID>/);
      expect(goodsCii).toContain("<ram:Content>Escompte pour paiement anticipé: 2 % si paiement sous 8 jours</ram:Content>");
      const mixed = await issue([
        { description: "Farine", quantity: "25", unit_price: "1.20", unit_code: "KGM", supply_type: "goods" },
        { description: "Livraison et conseil", quantity: "1", unit_price: "80.00", unit_code: "HUR" },
      ]);
      const mixedCii = (await env.request("GET", `/api/v1/invoices/${mixed.id}/cii`, { token: french.token })).text;
      expect(mixedCii).toMatch(/<ram:ID>M1<\/ram:ID>/);
      for (const xml of [goodsCii, mixedCii]) {
        const result = await validateCii(xml, "en16931", { french: true });
        expect(result.fatal, describeValidation(result)).toEqual([]);
      }
    } finally {
      await ok("PUT", "/api/v1/organization", { discount_terms: null, language: "en" });
    }
  });
});
