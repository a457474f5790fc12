/**
 * A German seller's Leistungsdatum (§14 (4) Nr. 6 UStG, docs/invoicing.md#germany): an invoice
 * with neither a delivery date (BT-72) nor a service period (BG-14) gets its issue date at
 * finalize, which the XML carries as BT-72 (UBL cac:Delivery/cbc:ActualDeliveryDate, CII
 * ram:ActualDeliverySupplyChainEvent) so KoSIT's BR-DE-TMP-32 no longer warns, and the PDF says
 * that the date of supply is the invoice date, in the document's language.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestEnv } from "../helpers.ts";
import { describe as describeValidation, validateCii, validateUbl } from "../einvoicing/validate.ts";

const env = await createTestEnv();
const dir = mkdtempSync(join(tmpdir(), "kontor-leistungsdatum-"));
afterAll(() => {
  env.close();
  rmSync(dir, { recursive: true, force: true });
});
const german = await env.newOrg("Muster GmbH", { country: "DE" });

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await env.api(method, path, body, german.token);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBeLessThan(300);
  return r.body?.data;
};
const get = (path: string) => env.request("GET", path, { token: german.token });

let customerId = "";
let rate = "";
beforeAll(async () => {
  await ok("PUT", "/api/v1/organization", {
    address: "Marienplatz 1",
    city: "München",
    postal_code: "80331",
    vat_number: "DE129273398",
    email: "rechnung@muster.example",
    phone: "+49 89 1234567",
    contact_name: "Erika Mustermann",
    language: "de",
  });
  rate = (await ok("GET", "/api/v1/vat-rates")).find((r: { category: string }) => r.category === "S").id;
  customerId = (
    await ok("POST", "/api/v1/customers", {
      name: "Stadt Augsburg",
      country: "DE",
      address: "Rathausplatz 1",
      city: "Augsburg",
      postal_code: "86150",
      vat_number: "DE811335517",
      email: "rechnung@augsburg.example",
      buyer_reference: "04011000-12345-67",
      einvoice_profile: "xrechnung",
    })
  ).id;
});

const issue = async (extra: Record<string, unknown> = {}) => {
  const draft = await ok("POST", "/api/v1/invoices", {
    customer_id: customerId,
    issue_date: "2026-03-02",
    lines: [{ description: "Beratung", quantity: "2", unit_price: "150.00", vat_rate_id: rate }],
    ...extra,
  });
  return ok("POST", `/api/v1/invoices/${draft.id}/finalize`);
};

/** The XRechnung UBL and CII pass KoSIT's rules: no fatal assertion, no schema error. */
async function expectKositValid(ubl: string, cii: string) {
  const ublResult = await validateUbl(ubl, "xrechnung");
  expect(ublResult.fatal, describeValidation(ublResult)).toEqual([]);
  expect(ublResult.xsdErrors).toEqual([]);
  const ciiResult = await validateCii(cii, "xrechnung");
  expect(ciiResult.fatal, describeValidation(ciiResult)).toEqual([]);
  expect(ciiResult.xsdErrors).toEqual([]);
}

const pdfText = (bytes: Uint8Array, name: string) => {
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, bytes);
  return Bun.spawnSync(["pdftotext", "-enc", "UTF-8", file, "-"]).stdout.toString().replace(/\s+/g, " ");
};

describe("a German seller's Leistungsdatum", () => {
  test("without a date of supply nor a period, finalize takes the issue date: BT-72 in the XML, no BR-DE-TMP-32, the sentence on the PDF", async () => {
    const invoice = await issue();
    expect(invoice.delivery_date).toBe("2026-03-02");
    const ubl = (await get(`/api/v1/invoices/${invoice.id}/ubl?profile=xrechnung`)).text;
    expect(ubl).toMatch(/<cac:Delivery>\s*<cbc:ActualDeliveryDate>2026-03-02<\/cbc:ActualDeliveryDate>\s*<\/cac:Delivery>/);
    const ublResult = await validateUbl(ubl, "xrechnung");
    expect(ublResult.fatal, describeValidation(ublResult)).toEqual([]);
    expect(ublResult.warnings.map((w) => w.id)).not.toContain("BR-DE-TMP-32");
    const cii = (await get(`/api/v1/invoices/${invoice.id}/cii?profile=xrechnung`)).text;
    expect(cii).toMatch(/<ram:ActualDeliverySupplyChainEvent>\s*<ram:OccurrenceDateTime>\s*<udt:DateTimeString format="102">20260302<\/udt:DateTimeString>/);
    const ciiResult = await validateCii(cii, "xrechnung");
    expect(ciiResult.fatal, describeValidation(ciiResult)).toEqual([]);
    expect(pdfText((await get(`/api/v1/invoices/${invoice.id}/pdf`)).bytes, "de")).toContain("Leistungsdatum entspricht dem Rechnungsdatum.");
  });

  test("in English, the PDF says the date of supply is the invoice date", async () => {
    await ok("PUT", "/api/v1/organization", { language: "en" });
    try {
      const invoice = await issue();
      expect(pdfText((await get(`/api/v1/invoices/${invoice.id}/pdf`)).bytes, "en")).toContain("Date of supply: the invoice date.");
    } finally {
      await ok("PUT", "/api/v1/organization", { language: "de" });
    }
  });

  test("a date of supply given is kept, and printed as a date", async () => {
    const invoice = await issue({ delivery_date: "2026-02-20" });
    expect(invoice.delivery_date).toBe("2026-02-20");
    const ubl = (await get(`/api/v1/invoices/${invoice.id}/ubl?profile=xrechnung`)).text;
    expect(ubl).toContain("<cbc:ActualDeliveryDate>2026-02-20</cbc:ActualDeliveryDate>");
    await expectKositValid(ubl, (await get(`/api/v1/invoices/${invoice.id}/cii?profile=xrechnung`)).text);
    const text = pdfText((await get(`/api/v1/invoices/${invoice.id}/pdf`)).bytes, "given");
    expect(text).toContain("Leistungsdatum");
    expect(text).toContain("20.02.2026");
    expect(text).not.toContain("entspricht dem Rechnungsdatum");
  });

  test("a service period is the Leistungszeitraum: no date of supply is added", async () => {
    const invoice = await issue({ service_period_start: "2026-02-01", service_period_end: "2026-02-28" });
    expect(invoice.delivery_date).toBeNull();
    const ubl = (await get(`/api/v1/invoices/${invoice.id}/ubl?profile=xrechnung`)).text;
    expect(ubl).not.toContain("ActualDeliveryDate");
    expect((await validateUbl(ubl, "xrechnung")).warnings.map((w) => w.id)).not.toContain("BR-DE-TMP-32");
    await expectKositValid(ubl, (await get(`/api/v1/invoices/${invoice.id}/cii?profile=xrechnung`)).text);
  });

  test("a seller elsewhere gets no date of supply it did not give", async () => {
    const { token } = await env.newOrg("Belgian BV", { country: "BE" });
    const customer = (await env.api("POST", "/api/v1/customers", { name: "Klant", country: "BE" }, token)).body.data;
    const draft = (await env.api("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-02", lines: [{ description: "Werk", quantity: "1", unit_price: "10.00" }] }, token)).body.data;
    const issued = (await env.api("POST", `/api/v1/invoices/${draft.id}/finalize`, undefined, token)).body.data;
    expect(issued.delivery_date).toBeNull();
  });
});
