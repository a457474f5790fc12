/**
 * GET /invoices/{id}/ubl and /pdf through the API (issue 18): the e-invoice of a real invoice
 * passes the UBL 2.1 schema, the CEN EN 16931 rules and the Peppol BIS 3.0 rules; the PDF reads
 * back (pdftotext) with its number, totals, IBAN and reference; drafts, missing data and the
 * webhook links.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv } from "../helpers.ts";
import { describe as describeValidation, validateUbl } from "../einvoicing/validate.ts";

const env = await createTestEnv({ KONTOR_WEBHOOK_ALLOW_PRIVATE: "true" });
const scratch = mkdtempSync(join(tmpdir(), "kontor-documents-"));
afterAll(() => {
  env.close();
  rmSync(scratch, { recursive: true, force: true });
});

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await env.api(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBeLessThan(300);
  return r.body?.data;
};
const raw = (path: string) => env.app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${env.token}` } }));

let rates: Record<string, any>;
let customer: any;
beforeAll(async () => {
  await ok("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, email: "billing@acme.example", language: "nl" });
  customer = await ok("POST", "/api/v1/customers", {
    name: "Brasserie Dupont SA",
    address: "Rue de l'Église 5",
    city: "Liège",
    postal_code: "4000",
    country: "BE",
    vat_number: "BE0404795549",
    peppol_id: "0208:0404795549",
    language: "fr",
  });
  rates = Object.fromEntries((await ok("GET", "/api/v1/vat-rates")).map((r: any) => [`${r.category}:${r.rate}`, r]));
}, 120_000);

async function finalizedInvoice(over: Record<string, unknown> = {}) {
  const inv = await ok("POST", "/api/v1/invoices", {
    customer_id: customer.id,
    issue_date: "2026-03-01",
    buyer_reference: "Dept. 42",
    lines: [
      { description: "Conseil € — équipe", quantity: "10", unit_price: "95.50", unit_code: "HUR", vat_rate_id: rates["S:21.00"].id },
      { description: "Livres", quantity: 3, unit_price: 12.99, vat_rate_id: rates["S:6.00"].id },
    ],
    ...over,
  });
  return ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
}

describe("GET /invoices/{id}/ubl", () => {
  test("a finalized invoice and its credit note pass the UBL 2.1 schema, EN 16931 and Peppol BIS 3.0", async () => {
    const inv = await finalizedInvoice();
    const r = await raw(`/api/v1/invoices/${inv.id}/ubl`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toStartWith("application/xml");
    const xml = await r.text();
    expect(xml).toContain(`<cbc:ID>${inv.number}</cbc:ID>`);
    expect(xml).toContain(inv.payment_reference);
    const validation = await validateUbl(xml);
    expect(validation.fatal, describeValidation(validation)).toEqual([]);
    expect(validation.xsdErrors).toEqual([]);

    const credit = await ok("POST", `/api/v1/invoices/${inv.id}/credit-note`);
    await ok("POST", `/api/v1/invoices/${credit.id}/finalize`);
    const note = await (await raw(`/api/v1/invoices/${credit.id}/ubl`)).text();
    expect(note).toContain("<CreditNote");
    expect(note).toContain(inv.number); // the invoice it credits
    const noteValidation = await validateUbl(note);
    expect(noteValidation.fatal, describeValidation(noteValidation)).toEqual([]);
    expect(noteValidation.xsdErrors).toEqual([]);
  }, 120_000);

  test("a customer's company_number is the buyer's legal registration (BT-47), and the e-invoice still passes", async () => {
    // Brasserie Dupont's enterprise number, the digits of its VAT number BE0404795549
    const registered = await ok("POST", "/api/v1/customers", {
      name: "Brasserie Dupont SA",
      address: "Rue de l'Église 5",
      city: "Liège",
      postal_code: "4000",
      country: "BE",
      vat_number: "BE0404795549",
      company_number: "0404.795.549",
      peppol_id: "0208:0404795549",
    });
    const inv = await finalizedInvoice({ customer_id: registered.id });
    const xml = await (await raw(`/api/v1/invoices/${inv.id}/ubl`)).text();
    const buyer = xml.slice(xml.indexOf("<cac:AccountingCustomerParty>"), xml.indexOf("</cac:AccountingCustomerParty>"));
    expect(buyer).toMatch(/<cac:PartyLegalEntity>\s*<cbc:RegistrationName>Brasserie Dupont SA<\/cbc:RegistrationName>\s*<cbc:CompanyID schemeID="0208">0404795549<\/cbc:CompanyID>/);
    const validation = await validateUbl(xml);
    expect(validation.fatal, describeValidation(validation)).toEqual([]);
    expect(validation.xsdErrors).toEqual([]);
  }, 120_000);

  test("a draft is checked as it would be issued: a 422 naming what its e-invoice lacks, else a 409; after finalize, what EN 16931 needs and Kontor lacks is a 422 naming it", async () => {
    const line = { description: "x", quantity: "1", unit_price: "1.00" };
    const lacking = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-01", lines: [line] });
    const refused = await env.api("GET", `/api/v1/invoices/${lacking.id}/ubl`);
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["buyer_reference"]);
    const draft = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-01", buyer_reference: "Dept. 42", lines: [line] });
    const conflict = await env.api("GET", `/api/v1/invoices/${draft.id}/ubl`);
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toContain("draft");

    const anonymous = await ok("POST", "/api/v1/customers", { name: "No Address Ltd" });
    const inv = await finalizedInvoice({ customer_id: anonymous.id, buyer_reference: null });
    const missing = await env.api("GET", `/api/v1/invoices/${inv.id}/ubl`);
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors)).toContain("customer.peppol_id");
  });

  test("needs invoicing.view", async () => {
    const inv = await finalizedInvoice();
    const r = await env.api("GET", `/api/v1/invoices/${inv.id}/ubl`, undefined, await env.orgToken(["contacts.view"]));
    expect(r.status).toBe(403);
  });
});

describe("GET /invoices/{id}/pdf", () => {
  test("reads back with its number, totals, IBAN and payment reference; the same bytes twice", async () => {
    const inv = await finalizedInvoice();
    const r = await raw(`/api/v1/invoices/${inv.id}/pdf`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/pdf");
    const bytes = new Uint8Array(await r.arrayBuffer());
    const again = new Uint8Array(await (await raw(`/api/v1/invoices/${inv.id}/pdf`)).arrayBuffer());
    expect(Buffer.from(again).equals(Buffer.from(bytes))).toBe(true);
    const file = join(scratch, `${inv.id}.pdf`);
    writeFileSync(file, bytes);
    const text = Bun.spawnSync(["pdftotext", "-layout", file, "-"]).stdout.toString();
    expect(text).toContain(inv.number);
    expect(text).toContain(inv.payment_reference);
    expect(text).toContain("Liège");
    const iban = (await ok("GET", "/api/v1/bank-accounts"))[0].iban as string;
    expect(text.replace(/\s/g, "")).toContain(iban.replace(/\s/g, ""));
    // totals in the customer's language (fr): 1 193,89 € or 1.193,89 €
    expect(text.replace(/[\s.\u202f\u00a0]/g, "")).toContain(inv.total.replace(".", ","));
  });

  test("a draft renders, marked as a draft", async () => {
    const draft = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-01", lines: [{ description: "x", quantity: "1", unit_price: "1.00" }] });
    const r = await raw(`/api/v1/invoices/${draft.id}/pdf`);
    expect(r.status).toBe(200);
    const file = join(scratch, `${draft.id}.pdf`);
    writeFileSync(file, new Uint8Array(await r.arrayBuffer()));
    // -raw reads in drawing order: the diagonal mark comes first, in the customer's language
    expect(Bun.spawnSync(["pdftotext", "-raw", file, "-"]).stdout.toString().replace(/\s+/g, "")).toStartWith("BROUILLON");
  });
});

describe("the PDF of a credit note and of the invoice it credits, through the API (issue 26 item 7)", () => {
  const pdfText = async (id: string) => {
    const r = await raw(`/api/v1/invoices/${id}/pdf`);
    expect(r.status).toBe(200);
    const file = join(scratch, `${id}.pdf`);
    writeFileSync(file, new Uint8Array(await r.arrayBuffer()));
    return Bun.spawnSync(["pdftotext", "-enc", "UTF-8", file, "-"]).stdout.toString().replace(/[\s\u00a0]+/g, " ");
  };
  // one line, 100.00 + 21 % = 121.00, to the customer whose language is French
  const oneLine = () => ({ lines: [{ description: "Conseil", quantity: "1", unit_price: "100.00", vat_rate_id: rates["S:21.00"].id }] });

  test("an open invoice credited in full: the credit note set off against it, nothing to refund; the invoice credited, nothing due", async () => {
    const inv = await finalizedInvoice(oneLine());
    const credit = await ok("POST", `/api/v1/invoices/${inv.id}/credit-note`);
    const note = await ok("POST", `/api/v1/invoices/${credit.id}/finalize`);
    expect(note.total).toBe("121.00");
    const noteText = await pdfText(credit.id);
    expect(noteText).toContain(`Note de crédit relative à la facture ${inv.number}`);
    expect(noteText).toContain(`Imputé sur la facture ${inv.number} -121,00 €`);
    expect(noteText).toContain("Montant à rembourser 0,00 €");
    expect(noteText).not.toContain("Montant dû");
    const invoiceText = await pdfText(inv.id);
    expect(invoiceText).toContain("Crédité -121,00 €");
    expect(invoiceText).toContain("Montant dû 0,00 €");
    expect(invoiceText).toContain("Aucun montant n’est dû.");
  });

  test("a paid invoice credited: the whole credit note is to be refunded", async () => {
    const inv = await finalizedInvoice(oneLine());
    await ok("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "121.00", payment_date: "2026-03-02" });
    const credit = await ok("POST", `/api/v1/invoices/${inv.id}/credit-note`);
    await ok("POST", `/api/v1/invoices/${credit.id}/finalize`);
    const noteText = await pdfText(credit.id);
    expect(noteText).toContain("Montant crédité 121,00 €");
    expect(noteText).not.toContain("Imputé sur la facture");
    expect(noteText).toContain("Montant à rembourser 121,00 €");
  });

  test("a cancelled invoice: no amount due, no payment block", async () => {
    const inv = await finalizedInvoice(oneLine());
    await ok("POST", `/api/v1/invoices/${inv.id}/cancel`);
    const text = await pdfText(inv.id);
    expect(text).toContain("Cette facture a été annulée : aucun paiement n’est dû.");
    expect(text).not.toContain("Montant dû");
    expect(text).not.toContain("IBAN");
  });
});

describe("Content-Disposition: the document's number as the file name (issue 26 item 7)", () => {
  test("PDF and UBL of an invoice and its credit note, a draft's provisional number, a client's number with characters a file name cannot hold", async () => {
    const inv = await finalizedInvoice();
    expect(inv.number).toMatch(/^INV-\d{4}-\d{5}$/);
    const disposition = async (path: string) => {
      const r = await raw(path);
      expect(r.status, path).toBe(200);
      return r.headers.get("content-disposition");
    };
    expect(await disposition(`/api/v1/invoices/${inv.id}/pdf`)).toBe(`attachment; filename="${inv.number}.pdf"`);
    expect(await disposition(`/api/v1/invoices/${inv.id}/ubl`)).toBe(`attachment; filename="${inv.number}.xml"`);

    const credit = await ok("POST", `/api/v1/invoices/${inv.id}/credit-note`);
    expect(credit.number).toMatch(/^DRAFT-/);
    expect(await disposition(`/api/v1/invoices/${credit.id}/pdf`)).toBe(`attachment; filename="${credit.number}.pdf"`);
    const note = await ok("POST", `/api/v1/invoices/${credit.id}/finalize`);
    expect(note.number).toMatch(/^CN-\d{4}-\d{5}$/);
    expect(await disposition(`/api/v1/invoices/${credit.id}/pdf`)).toBe(`attachment; filename="${note.number}.pdf"`);
    expect(await disposition(`/api/v1/invoices/${credit.id}/ubl`)).toBe(`attachment; filename="${note.number}.xml"`);

    // a slash and a quote become _, the accent stays in filename* (RFC 8187) and is _ in the plain name
    const own = await ok("POST", "/api/v1/invoices", { number: 'Ré-2026/7 "b"', customer_id: customer.id, issue_date: "2026-03-01", lines: [{ description: "x", quantity: "1", unit_price: "1.00" }] });
    expect(await disposition(`/api/v1/invoices/${own.id}/pdf`)).toBe(`attachment; filename="R_-2026_7_b_.pdf"; filename*=UTF-8''R%C3%A9-2026_7_b_.pdf`);

    // the OpenAPI document names the header on both
    const spec = (await env.app.handle(new Request("http://localhost/docs/openapi.json"))).json() as Promise<any>;
    const paths = (await spec).paths;
    for (const path of ["/api/v1/invoices/{id}/pdf", "/api/v1/invoices/{id}/ubl"]) {
      expect(paths[path].get.responses["200"].headers["Content-Disposition"]).toEqual({ $ref: "#/components/headers/Content-Disposition" });
    }
  }, 60_000);
});

describe("an issued document says what it said", () => {
  test("renaming the customer or editing the organisation afterwards changes neither its PDF nor its UBL; a draft follows", async () => {
    const buyer = await ok("POST", "/api/v1/customers", { name: "Frozen NV", address: "Dorp 1", city: "Aalst", postal_code: "9300", country: "BE", peppol_id: "0208:0404795549" });
    const inv = await finalizedInvoice({ customer_id: buyer.id });
    const draft = await ok("POST", "/api/v1/invoices", { customer_id: buyer.id, issue_date: "2026-03-01", lines: [{ description: "x", quantity: "1", unit_price: "1.00" }] });
    const bytes = async (path: string) => Buffer.from(await (await raw(path)).arrayBuffer());
    const pdf = await bytes(`/api/v1/invoices/${inv.id}/pdf`);
    const ubl = await bytes(`/api/v1/invoices/${inv.id}/ubl`);
    const draftPdf = await bytes(`/api/v1/invoices/${draft.id}/pdf`);

    await ok("PUT", `/api/v1/customers/${buyer.id}`, { name: "Renamed NV", language: "de" });
    await ok("PUT", "/api/v1/organization", { address: "Nieuwe Straat 99", email: "new@acme.example" });
    try {
      expect((await bytes(`/api/v1/invoices/${inv.id}/pdf`)).equals(pdf)).toBe(true);
      expect((await bytes(`/api/v1/invoices/${inv.id}/ubl`)).equals(ubl)).toBe(true);
      expect((await bytes(`/api/v1/invoices/${draft.id}/pdf`)).equals(draftPdf)).toBe(false);
    } finally {
      await ok("PUT", "/api/v1/organization", { address: SELLER_IDENTITY.address, email: "billing@acme.example" });
    }
  });
});

describe("invoice.finalized deliveries", () => {
  test("carry the URLs of the PDF and the e-invoice", async () => {
    const hook = await ok("POST", "/api/v1/webhooks", { url: "http://127.0.0.1:9/hook", events: ["invoice.finalized"] });
    const inv = await finalizedInvoice();
    const [delivery] = (await env.api("GET", `/api/v1/webhooks/${hook.id}/deliveries`)).body.data;
    const shown = await ok("GET", `/api/v1/webhooks/${hook.id}/deliveries/${delivery.id}`);
    expect(shown.payload.data.id).toBe(inv.id);
    expect(shown.payload.links).toEqual({ pdf: `/api/v1/invoices/${inv.id}/pdf`, ubl: `/api/v1/invoices/${inv.id}/ubl` });
  });
});
