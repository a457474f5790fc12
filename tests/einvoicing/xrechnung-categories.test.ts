/**
 * XRechnung for every VAT category (S, Z, E, AE, K, G, O): each issued invoice's XRechnung UBL and
 * CII pass KoSIT's XRechnung rules (and the CEN rules under them) with no fatal assertion. An
 * intra-EU supply (K) states its delivery address with the buyer's city and post code
 * (BR-DE-10, BR-DE-11), not the country alone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { vatRates } from "../../db/schema.ts";
import { newId, nowIso } from "../../server/lib/time.ts";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv } from "../helpers.ts";
import { describe as describeValidation, validateCii, validateUbl } from "./validate.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await env.api(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBeLessThan(300);
  return r.body?.data;
};

const BUYER = {
  address: "Marienplatz 8",
  city: "München",
  postal_code: "80331",
  email: "rechnung@muenchen.example",
  buyer_reference: "991-01234-56",
  einvoice_profile: "xrechnung",
};
const rates = new Map<string, string>();
const customers = new Map<string, string>();

beforeAll(async () => {
  await ok("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, email: "billing@acme.example", phone: "+32 2 123 45 67", contact_name: "Anna Peeters" });
  for (const r of await ok("GET", "/api/v1/vat-rates")) if (!rates.has(r.category)) rates.set(r.category, r.id);
  // Kontor seeds no rate outside the scope of VAT, and the API's rates are read-only: one written as a
  // migration or an operator would
  const outside = newId();
  await env.db.insert(vatRates).values({ id: outside, organizationId: env.org.id, name: "Not subject", rateBp: 0, isDefault: false, category: "O", exemptionReasonCode: "VATEX-EU-O", createdAt: nowIso() });
  rates.set("O", outside);
  customers.set("DE", (await ok("POST", "/api/v1/customers", { name: "Landeshauptstadt München", country: "DE", vat_number: "DE129273398", ...BUYER })).id);
  customers.set("CH", (await ok("POST", "/api/v1/customers", { name: "Stadt Zürich", country: "CH", ...BUYER, city: "Zürich", postal_code: "8001", address: "Stadthausquai 17" })).id);
});

describe("XRechnung for every VAT category", () => {
  for (const category of ["S", "Z", "E", "AE", "K", "G", "O"]) {
    test(`${category}: the UBL and the CII pass KoSIT's XRechnung rules`, async () => {
      const draft = await ok("POST", "/api/v1/invoices", {
        customer_id: customers.get(category === "G" ? "CH" : "DE"),
        issue_date: "2026-03-02",
        lines: [{ description: "Beratung", quantity: "2", unit_price: "150.00", vat_rate_id: rates.get(category) }],
      });
      const issued = await ok("POST", `/api/v1/invoices/${draft.id}/finalize`);
      const ubl = (await env.request("GET", `/api/v1/invoices/${issued.id}/ubl?profile=xrechnung`)).text;
      const cii = (await env.request("GET", `/api/v1/invoices/${issued.id}/cii?profile=xrechnung`)).text;
      const ublResult = await validateUbl(ubl, "xrechnung");
      expect(ublResult.fatal, describeValidation(ublResult)).toEqual([]);
      expect(ublResult.xsdErrors).toEqual([]);
      const ciiResult = await validateCii(cii, "xrechnung");
      expect(ciiResult.fatal, describeValidation(ciiResult)).toEqual([]);
      expect(ciiResult.xsdErrors).toEqual([]);
      if (category === "K") {
        // the delivery address: the buyer's, with its city and post code (BR-DE-10, BR-DE-11)
        expect(ubl).toMatch(/<cac:DeliveryLocation>\s*<cac:Address>\s*<cbc:StreetName>Marienplatz 8<\/cbc:StreetName>\s*<cbc:CityName>München<\/cbc:CityName>\s*<cbc:PostalZone>80331<\/cbc:PostalZone>/);
        expect(cii).toMatch(/<ram:ShipToTradeParty>\s*<ram:PostalTradeAddress>\s*<ram:PostcodeCode>80331<\/ram:PostcodeCode>\s*<ram:LineOne>Marienplatz 8<\/ram:LineOne>\s*<ram:CityName>München<\/ram:CityName>/);
      }
    });
  }
});
