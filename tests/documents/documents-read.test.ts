/** readDocument (server/invoices/document.ts): the model the UBL and PDF renderers take, built through the API. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { bankAccounts } from "../../db/schema.ts";
import { bankAccountService } from "../../server/bank-accounts/service.ts";
import { loadDocument, readDocument } from "../../server/invoices/document.ts";
import { NotFound } from "../../server/lib/errors.ts";
import { snapshot } from "../../server/lib/scope.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv } from "../helpers.ts";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderPdf } from "../../server/documents/pdf.ts";
import { missingForUbl, renderUbl } from "../../server/documents/ubl.ts";
import { describe as describeValidation, validateUbl } from "../einvoicing/validate.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const ok = async (method: string, path: string, body?: unknown, token?: string) => {
  const r = await env.api(method, path, body, token);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBeLessThan(300);
  return r.body?.data;
};

let rates: Record<string, any>;
let customer: any;
beforeAll(async () => {
  await ok("PUT", "/api/v1/organization", {
    ...SELLER_IDENTITY,
    name: "Acme Consulting BV",
    email: "billing@acme.example",
    phone: "+32 9 123 45 67",
    language: "nl",
  });
  customer = await ok("POST", "/api/v1/customers", {
    name: "Brasserie Dupont SA",
    address: "Rue de l'Église 5",
    city: "Liège",
    postal_code: "4000",
    country: "BE",
    vat_number: "BE0404795549",
    email: "factures@dupont.example",
    peppol_id: "0208:0404795549",
    language: "fr",
  });
  const list = await ok("GET", "/api/v1/vat-rates");
  rates = Object.fromEntries(list.map((r: any) => [`${r.category}:${r.rate}`, r]));
});

describe("readDocument", () => {
  test("a finalized invoice: seller, buyer, payee, lines with categories, the VAT breakdown and totals", async () => {
    const inv = await ok("POST", "/api/v1/invoices", {
      customer_id: customer.id,
      issue_date: "2026-03-01",
      due_date: "2026-03-31",
      notes: "Merci !",
      buyer_reference: "Dept. 42",
      order_reference: "PO-7",
      lines: [
        { description: "Consulting", quantity: "10", unit_price: "95.50", unit_code: "HUR", vat_rate_id: rates["S:21.00"].id },
        { description: "Books", quantity: 3, unit_price: 12.99, vat_rate_id: rates["S:6.00"].id },
        { description: "More consulting", quantity: "1", unit_price: "100.00", unit_code: "HUR", vat_rate_id: rates["S:21.00"].id },
        { description: "Training (exempt)", quantity: "1", unit_price: "50.00", vat_rate_id: rates["E:0.00"].id },
        { description: "Fee without a rate", quantity: "1", unit_price: "25.00" },
      ],
    });
    const finalized = await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    const doc = await loadDocument(env.db, env.org.id, inv.id);
    const banks = await ok("GET", "/api/v1/bank-accounts");

    expect(doc).toMatchObject({
      type: "invoice",
      id: inv.id,
      number: finalized.number,
      status: "finalized",
      issueDate: "2026-03-01",
      dueDate: "2026-03-31",
      currency: "EUR",
      language: "fr",
      buyerReference: "Dept. 42",
      orderReference: "PO-7",
      paymentReference: finalized.payment_reference,
      credited: null,
      notes: "Merci !",
      seller: {
        name: "Acme Consulting BV",
        address: "Kerkstraat 1",
        city: "Gent",
        postalCode: "9000",
        country: "BE",
        vatNumber: "BE0123456749",
        companyNumber: "0123456749",
        email: "billing@acme.example",
        phone: "+32 9 123 45 67",
        peppolId: "0208:0123456749",
      },
      buyer: {
        name: "Brasserie Dupont SA",
        address: "Rue de l'Église 5",
        city: "Liège",
        postalCode: "4000",
        country: "BE",
        vatNumber: "BE0404795549",
        companyNumber: null,
        email: "factures@dupont.example",
        peppolId: "0208:0404795549",
      },
      payee: { iban: banks[0].iban, bic: null, accountName: "Acme Consulting BV" },
    });
    expect(doc.paymentReference).toMatch(/^\+\+\+/);
    expect(doc.lines.map((l) => [l.position, l.description, l.quantityCents, l.unitCode, l.unitPriceCents, l.amountCents, l.vatCategory, l.vatRateBp, l.vatCents])).toEqual([
      [1, "Consulting", 1000, "HUR", 9550, 95500, "S", 2100, 20055],
      [2, "Books", 300, "C62", 1299, 3897, "S", 600, 234],
      [3, "More consulting", 100, "HUR", 10000, 10000, "S", 2100, 2100],
      [4, "Training (exempt)", 100, "C62", 5000, 5000, "E", 0, 0],
      // no VAT rate: zero rated, so that every line has the category EN 16931 asks for
      [5, "Fee without a rate", 100, "C62", 2500, 2500, "Z", 0, 0],
    ]);
    expect(doc.vatGroups).toEqual([
      { category: "S", rateBp: 2100, taxableCents: 105500, vatCents: 22155, exemptionReasonCode: null, exemptionReason: null },
      { category: "S", rateBp: 600, taxableCents: 3897, vatCents: 234, exemptionReasonCode: null, exemptionReason: null },
      { category: "Z", rateBp: 0, taxableCents: 2500, vatCents: 0, exemptionReasonCode: null, exemptionReason: null },
      {
        category: "E",
        rateBp: 0,
        taxableCents: 5000,
        vatCents: 0,
        exemptionReasonCode: "VATEX-EU-132",
        exemptionReason: "Exempt based on article 132 of Council Directive 2006/112/EC",
      },
    ]);
    // the breakdown and the lines add up to the invoice's totals
    expect(doc.vatGroups.reduce((s, g) => s + g.taxableCents, 0)).toBe(doc.subtotalCents);
    expect(doc.vatGroups.reduce((s, g) => s + g.vatCents, 0)).toBe(doc.vatCents);
    expect([doc.subtotalCents, doc.vatCents, doc.totalCents, doc.paidCents, doc.dueCents]).toEqual([116897, 22389, 139286, 0, 139286]);
    expect(doc.totalCents).toBe(Math.round(Number(finalized.total) * 100));

    await ok("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "1000.00", payment_date: "2026-03-10" });
    expect(await loadDocument(env.db, env.org.id, inv.id)).toMatchObject({ status: "partially_paid", paidCents: 100000, dueCents: 39286 });
  });

  test("reverse charge, intra-EU and export: their categories with the exemption reasons", async () => {
    const inv = await ok("POST", "/api/v1/invoices", {
      customer_id: customer.id,
      issue_date: "2026-04-01",
      lines: [
        { description: "Services to an EU business", quantity: "1", unit_price: "100.00", vat_rate_id: rates["AE:0.00"].id },
        { description: "Goods to another EU country", quantity: "1", unit_price: "200.00", vat_rate_id: rates["K:0.00"].id },
        { description: "Goods shipped abroad", quantity: "1", unit_price: "300.00", vat_rate_id: rates["G:0.00"].id },
      ],
    });
    const doc = await loadDocument(env.db, env.org.id, inv.id);
    expect(doc.status).toBe("draft");
    expect(doc.paymentReference).toBeNull();
    expect(doc.vatGroups.map((g) => [g.category, g.taxableCents, g.exemptionReasonCode, g.exemptionReason])).toEqual([
      ["AE", 10000, "VATEX-EU-AE", "Reverse charge"],
      ["K", 20000, "VATEX-EU-IC", "Intra-Community supply"],
      ["G", 30000, "VATEX-EU-G", "Export outside the EU"],
    ]);
  });

  test("a credit note names the invoice it credits", async () => {
    const inv = await ok("POST", "/api/v1/invoices", {
      customer_id: customer.id,
      issue_date: "2026-05-01",
      // the customer has a Peppol id: finalize checks the e-invoice, which needs a buyer or order reference (PEPPOL-EN16931-R003)
      order_reference: "PO-9",
      lines: [{ description: "Consulting", quantity: "1", unit_price: "100.00", vat_rate_id: rates["S:21.00"].id }],
    });
    const issued = await ok("POST", `/api/v1/invoices/${inv.id}/finalize`);
    const note = await ok("POST", `/api/v1/invoices/${inv.id}/credit-note`);
    const finalNote = await ok("POST", `/api/v1/invoices/${note.id}/finalize`);
    const doc = await loadDocument(env.db, env.org.id, note.id);
    expect(doc).toMatchObject({ type: "credit_note", credited: { number: issued.number, issueDate: "2026-05-01" }, paymentReference: finalNote.payment_reference });
    expect(doc.totalCents).toBe(12100);
  });

  test("language: the customer's, else the organisation's; payee: the default account, else the first active one, else none", async () => {
    const org = await env.newOrg("Fallbacks GmbH", { country: "DE" });
    const plain = await ok("POST", "/api/v1/customers", { name: "Kunde ohne Sprache" }, org.token);
    const inv = await ok("POST", "/api/v1/invoices", { customer_id: plain.id, issue_date: "2026-03-01", lines: [{ description: "x", quantity: 1, unit_price: 1 }] }, org.token);
    expect((await loadDocument(env.db, org.org.id, inv.id)).language).toBe("en");
    await ok("PUT", "/api/v1/organization", { language: "de" }, org.token);
    expect((await loadDocument(env.db, org.org.id, inv.id)).language).toBe("de");

    const seeded = (await ok("GET", "/api/v1/bank-accounts", undefined, org.token))[0];
    expect((await loadDocument(env.db, org.org.id, inv.id)).payee?.iban).toBe(seeded.iban);
    const second = await bankAccountService.add({ db: env.db, org: org.org, actor: CLI_ACTOR }, { name: "Second", iban: "DE89 3704 0044 0532 0130 00" });
    await ok("PUT", "/api/v1/organization", { default_bank_account_id: second.id }, org.token);
    expect((await loadDocument(env.db, org.org.id, inv.id)).payee).toEqual({ iban: "DE89370400440532013000", bic: null, accountName: "Fallbacks GmbH" });
    // the default account closed: the first active one; none active: no payee
    await env.db.update(bankAccounts).set({ isActive: false }).where(eq(bankAccounts.id, second.id));
    expect((await loadDocument(env.db, org.org.id, inv.id)).payee?.iban).toBe(seeded.iban);
    await env.db.update(bankAccounts).set({ isActive: false }).where(eq(bankAccounts.organizationId, org.org.id));
    expect((await loadDocument(env.db, org.org.id, inv.id)).payee).toBeNull();
  });

  test("an organisation without a bank account of its own: finalize works, the documents carry no payment instructions (issue 26 item 2)", async () => {
    const org = await env.newOrg("Bankless BV", { iban: null });
    await ok("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, name: "Bankless BV" }, org.token);
    expect((await ok("GET", "/api/v1/organization", undefined, org.token)).payment_instructions).toBe(false);
    const buyer = await ok("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", address: "Rue de l'Église 5", city: "Liège", postal_code: "4000", country: "BE", vat_number: "BE0404795549", peppol_id: "0208:0404795549" }, org.token);
    const vat = (await ok("GET", "/api/v1/vat-rates", undefined, org.token)).find((r: any) => r.category === "S" && r.rate === "21.00");
    const inv = await ok("POST", "/api/v1/invoices", { customer_id: buyer.id, issue_date: "2026-03-01", due_date: "2026-03-31", buyer_reference: "Dept. 42", lines: [{ description: "Consulting", quantity: 2, unit_price: 100, unit_code: "HUR", vat_rate_id: vat.id }] }, org.token);
    await ok("POST", `/api/v1/invoices/${inv.id}/finalize`, undefined, org.token);
    const doc = await loadDocument(env.db, org.org.id, inv.id);
    expect(doc.payee).toBeNull();
    expect(doc.dueCents).toBeGreaterThan(0);

    // the UBL: no PaymentMeans at all, and still valid (XSD, EN 16931, Peppol BIS)
    expect(missingForUbl(doc)).toEqual({});
    const xml = renderUbl(doc);
    expect(xml).not.toContain("PaymentMeans");
    const v = await validateUbl(xml);
    expect(v.fatal.length + v.xsdErrors.length, describeValidation(v)).toBe(0);

    // the PDF: no IBAN, no QR code
    const dir = mkdtempSync(join(tmpdir(), "kontor-nobank-"));
    try {
      const file = join(dir, "doc.pdf");
      writeFileSync(file, await renderPdf(doc));
      const text = Bun.spawnSync(["pdftotext", "-enc", "UTF-8", file, "-"]).stdout.toString();
      expect(text).toContain("Bankless BV");
      expect(text).not.toContain("IBAN");
      expect(text).not.toContain("BE71");
      expect(Bun.spawnSync(["pdftoppm", "-r", "200", "-png", file, join(dir, "page")]).exitCode).toBe(0);
      for (const png of readdirSync(dir).filter((f) => f.endsWith(".png"))) {
        expect(Bun.spawnSync(["zbarimg", "--quiet", "--raw", join(dir, png)]).exitCode).not.toBe(0); // 4: no symbol found
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    // a payment without a bank account posts to 1110, the chart's bank account: the books balance
    await ok("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: (doc.totalCents / 100).toFixed(2), payment_date: "2026-03-10" }, org.token);
    const trial = await ok("GET", "/api/v1/reports/trial-balance?date=2026-03-31", undefined, org.token);
    expect(JSON.stringify(trial)).toContain("1110");
  }, 60_000);

  test("a BIC on the payee's bank account: GET /bank-accounts shows it, the document carries it to the UBL payee and the EPC QR code (issue 26 item 7)", async () => {
    const org = await env.newOrg("Bic Holder BV", { iban: null });
    await ok("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, name: "Bic Holder BV" }, org.token);
    const account = await bankAccountService.add({ db: env.db, org: org.org, actor: CLI_ACTOR }, { name: "Current account", iban: "BE68 5390 0754 7034", bic: "gkccbebb" });
    expect((await ok("GET", `/api/v1/bank-accounts/${account.id}`, undefined, org.token)).bic).toBe("GKCCBEBB");
    expect((await ok("GET", "/api/v1/bank-accounts", undefined, org.token)).map((a: any) => a.bic)).toEqual(["GKCCBEBB"]);
    // the API's validation: a wrong BIC is a 422 naming the field, nothing stored
    expect(() => bankAccountService.add({ db: env.db, org: org.org, actor: CLI_ACTOR }, { name: "Typo", iban: "NL91ABNA0417164300", bic: "ABNANL2" })).toThrow(/8 or 11 characters/);
    expect(await ok("GET", "/api/v1/bank-accounts", undefined, org.token)).toHaveLength(1);

    const buyer = await ok("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", address: "Rue de l'Église 5", city: "Liège", postal_code: "4000", country: "BE", vat_number: "BE0404795549", peppol_id: "0208:0404795549" }, org.token);
    const vat = (await ok("GET", "/api/v1/vat-rates", undefined, org.token)).find((r: any) => r.category === "S" && r.rate === "21.00");
    const inv = await ok("POST", "/api/v1/invoices", { customer_id: buyer.id, issue_date: "2026-03-01", due_date: "2026-03-31", buyer_reference: "Dept. 42", lines: [{ description: "Consulting", quantity: 2, unit_price: 100, unit_code: "HUR", vat_rate_id: vat.id }] }, org.token);
    await ok("POST", `/api/v1/invoices/${inv.id}/finalize`, undefined, org.token);
    const doc = await loadDocument(env.db, org.org.id, inv.id);
    expect(doc.payee).toEqual({ iban: "BE68539007547034", bic: "GKCCBEBB", accountName: "Bic Holder BV" });
    const xml = renderUbl(doc);
    expect(xml).toMatch(/<cac:PayeeFinancialAccount>\s*<cbc:ID>BE68539007547034<\/cbc:ID>\s*<cbc:Name>Bic Holder BV<\/cbc:Name>\s*<cac:FinancialInstitutionBranch>\s*<cbc:ID>GKCCBEBB<\/cbc:ID>/);
    const v = await validateUbl(xml);
    expect(v.fatal.length + v.xsdErrors.length, describeValidation(v)).toBe(0);
    // 2 × 100.00 + 21 % = 242.00, the BIC in the QR payload's fifth line
    const { epcPayload } = await import("../../server/documents/pdf.ts");
    expect(epcPayload(doc)?.split("\n").slice(4, 8)).toEqual(["GKCCBEBB", "Bic Holder BV", "BE68539007547034", "EUR242.00"]);
  }, 60_000);

  test("another organisation's invoice is not found; the read runs in the caller's transaction", async () => {
    const other = await env.newOrg("Other Reader");
    const otherCustomer = await ok("POST", "/api/v1/customers", { name: "Theirs" }, other.token);
    const theirs = await ok("POST", "/api/v1/invoices", { customer_id: otherCustomer.id, issue_date: "2026-03-01", lines: [{ description: "x", quantity: 1, unit_price: 1 }] }, other.token);
    expect(() => loadDocument(env.db, env.org.id, theirs.id)).toThrow(NotFound);
    expect(await (await snapshot(env.db, (tx) => readDocument(tx, other.org.id, theirs.id))).buyer.name).toBe("Theirs");
  });
});
