/**
 * XRechnung through the API (issue 31 item 3): a customer's default buyer_reference (the
 * Leitweg-ID) and einvoice_profile, the organisation's contact_name, finalize checking XRechnung's
 * needs for such a customer, ?profile=xrechnung on /ubl and /cii, and the seller's contact frozen
 * with the document.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv } from "../helpers.ts";
import { describe as describeValidation, validateCii, validateUbl } from "./validate.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await env.api(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBeLessThan(300);
  return r.body?.data;
};

let customer: any;
let rate: string;
beforeAll(async () => {
  await ok("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, email: "billing@acme.example", phone: "+32 2 123 45 67", contact_name: null });
  customer = await ok("POST", "/api/v1/customers", {
    name: "Landeshauptstadt München",
    address: "Marienplatz 8",
    city: "München",
    postal_code: "80331",
    country: "DE",
    email: "rechnung@muenchen.example",
    buyer_reference: "991-01234-56",
    einvoice_profile: "xrechnung",
  });
  rate = (await ok("GET", "/api/v1/vat-rates")).find((r: any) => r.rate === "21.00").id;
});

const draft = (over: Record<string, unknown> = {}) =>
  ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-02", lines: [{ description: "Beratung", quantity: 2, unit_price: "150.00", vat_rate_id: rate }], ...over });

describe("XRechnung through the API", () => {
  test("a customer shows its buyer_reference and einvoice_profile; a new invoice takes the buyer reference unless it gives one", async () => {
    expect(customer).toMatchObject({ buyer_reference: "991-01234-56", einvoice_profile: "xrechnung" });
    expect((await draft()).buyer_reference).toBe("991-01234-56");
    expect((await draft({ buyer_reference: "Other" })).buyer_reference).toBe("Other");
    expect((await draft({ buyer_reference: null })).buyer_reference).toBeNull();
    const bad = await env.api("PUT", `/api/v1/customers/${customer.id}`, { einvoice_profile: "edifact" });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toContain("einvoice_profile");
    // an update that leaves it out keeps it
    expect((await ok("PUT", `/api/v1/customers/${customer.id}`, { phone: "+49 89 1" })).einvoice_profile).toBe("xrechnung");
  });

  test("finalize checks what XRechnung needs for such a customer; the files carry the Leitweg-ID and the frozen seller contact", async () => {
    const inv = await draft();
    const refused = await env.api("POST", `/api/v1/invoices/${inv.id}/finalize`);
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toContain("organization.contact_name");
    expect((await ok("GET", `/api/v1/invoices/${inv.id}`)).readiness).toMatchObject({ ready: false, einvoice_required: true });

    expect((await ok("PUT", "/api/v1/organization", { contact_name: "Anna Peeters" })).contact_name).toBe("Anna Peeters");
    const issued = await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    await ok("PUT", "/api/v1/organization", { contact_name: "Someone Else" });

    const cii = await env.api("GET", `/api/v1/invoices/${issued.id}/cii?profile=xrechnung`);
    expect(cii.status, cii.text).toBe(200);
    expect(cii.text).toContain("<ram:BuyerReference>991-01234-56</ram:BuyerReference>");
    expect(cii.text).toContain("<ram:PersonName>Anna Peeters</ram:PersonName>");
    expect(cii.text).toContain("urn:xeinkauf.de:kosit:xrechnung_3.0");
    const ubl = await env.api("GET", `/api/v1/invoices/${issued.id}/ubl?profile=xrechnung`);
    expect(ubl.status, ubl.text).toBe(200);
    expect(ubl.text).toContain("<cbc:Name>Anna Peeters</cbc:Name>");
    // both pass KoSIT's XRechnung rules
    for (const result of [await validateCii(cii.text, "xrechnung"), await validateUbl(ubl.text, "xrechnung")]) {
      expect(result.fatal, describeValidation(result)).toEqual([]);
      expect(result.xsdErrors).toEqual([]);
    }
    // plain EN 16931 CII needs no Peppol id; the Peppol UBL does (the customer has none)
    expect((await env.api("GET", `/api/v1/invoices/${issued.id}/cii`)).text).toContain("<ram:ID>urn:cen.eu:en16931:2017</ram:ID>");
    const peppol = await env.api("GET", `/api/v1/invoices/${issued.id}/ubl`);
    expect(peppol.status).toBe(422);
    expect(Object.keys(peppol.body.errors)).toContain("customer.peppol_id");
    expect((await env.api("GET", `/api/v1/invoices/${issued.id}/cii?profile=peppol`)).status).toBe(422);
  });

  test("a draft's XRechnung CII is the 422 of what it lacks, or a 409", async () => {
    const inv = await draft({ buyer_reference: null });
    const lacking = await env.api("GET", `/api/v1/invoices/${inv.id}/cii?profile=xrechnung`);
    expect(lacking.status).toBe(422);
    expect(Object.keys(lacking.body.errors)).toEqual(["buyer_reference"]);
    expect((await env.api("GET", `/api/v1/invoices/${(await draft()).id}/cii?profile=xrechnung`)).status).toBe(409);
  });
});
