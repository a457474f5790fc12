/**
 * Supplier e-invoices in UN/CEFACT CII (issue 31 item 4): official CII files (the CEN examples, the
 * KoSIT XRechnung test suite, Mustang's Factur-X XML; tests/inbound/fixtures/cii/README.md) read
 * into the same reader model as a UBL document, and imported as expenses by the same rules. Every
 * expected figure is read off the file here with a few regular expressions (not by Kontor's
 * reader); a Kontor invoice's own CII, imported into another organisation, gives back its figures.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readEInvoiceXml } from "../../server/inbound/einvoice.ts";
import { InboundDocumentError } from "../../server/inbound/errors.ts";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const FILES: Record<string, string> = {
  "01.01a-INVOICE_uncefact.xml": "fixtures/cii",
  "01.04a-INVOICE_uncefact.xml": "fixtures/cii",
  "01.18a-INVOICE_uncefact.xml": "fixtures/cii",
  "01.20a-INVOICE_uncefact.xml": "fixtures/cii",
  "01.21a-INVOICE_uncefact.xml": "fixtures/cii",
  "02.01a-INVOICE_uncefact.xml": "fixtures/cii",
  "03.06a-INVOICE_uncefact.xml": "fixtures/cii",
  "mustang-factur-x.xml": "fixtures/cii",
  "mustang-Factur-X_basic.xml": "fixtures/cii",
  "CII_example1.xml": "../einvoicing/examples/cen-cii",
  "CII_example5.xml": "../einvoicing/examples/cen-cii",
  "XRechnung-O.xml": "../einvoicing/examples/cen-cii",
};
const bytesOf = (name: string) => readFileSync(join(import.meta.dir, FILES[name]!, name));

/** The first element `tag`'s text (after `after`, when given), by plain text search. */
function textOf(xml: string, tag: string, after = ""): string | null {
  const from = after ? xml.indexOf(after) : 0;
  if (from < 0) return null;
  const m = new RegExp(`<ram:${tag}(?:\\s[^>]*)?>\\s*([^<]*?)\\s*</ram:${tag}>`).exec(xml.slice(from));
  return m ? m[1]! : null;
}
/** "1055.53" → 105553, "12" → 1200, "-100.0" → -10000: decimal text to cents by string arithmetic. */
function cents(text: string | null): number {
  if (text === null) return 0;
  const [whole, fraction = ""] = text.replace(/^-/, "").split(".");
  const value = Number(whole) * 100 + Number((fraction + "00").slice(0, 2));
  return text.startsWith("-") ? -value : value;
}
const yyyymmdd = (text: string | null) => (text ? `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}` : null);

describe("readEInvoiceXml: official CII files give the figures they state", () => {
  for (const name of Object.keys(FILES)) {
    test(name, () => {
      const xml = bytesOf(name).toString("utf8");
      const doc = readEInvoiceXml(bytesOf(name));
      expect(doc.syntax).toBe("cii");
      expect(doc.type).toBe("invoice");
      expect(doc.number).toBe(textOf(xml, "ID", "<rsm:ExchangedDocument>")!);
      expect(doc.currency).toBe(textOf(xml, "InvoiceCurrencyCode")!);
      expect(doc.subtotalCents).toBe(cents(textOf(xml, "TaxBasisTotalAmount")));
      expect(doc.vatCents).toBe(cents(textOf(xml, "TaxTotalAmount")));
      expect(doc.totalCents).toBe(cents(textOf(xml, "GrandTotalAmount")));
      expect(doc.prepaidCents).toBe(cents(textOf(xml, "TotalPrepaidAmount")));
      expect(doc.payableCents).toBe(cents(textOf(xml, "DuePayableAmount")));
      expect(doc.supplier.name).toBe(textOf(xml, "Name", "<ram:SellerTradeParty>")!);
      expect(doc.supplier.iban).toBe(textOf(xml, "IBANID")?.replace(/\s+/g, "") ?? null);
      const due = /<ram:DueDateDateTime>\s*<udt:DateTimeString format="102">(\d{8})</.exec(xml)?.[1] ?? null;
      expect(doc.dueDate).toBe(yyyymmdd(due));
      const categories = [...xml.slice(xml.indexOf("<ram:ApplicableHeaderTradeSettlement>")).matchAll(/<ram:ApplicableTradeTax>[\s\S]*?<ram:CategoryCode>(\w+)</g)].map((m) => m[1]);
      expect(doc.vatBreakdown.map((b) => b.category)).toEqual(categories);
    });
  }

  test("a UBL file still reads as UBL through the same entry point", () => {
    const ubl = readEInvoiceXml(readFileSync(join(import.meta.dir, "fixtures/xrechnung/04.01a-INVOICE_ubl.xml")));
    expect(ubl.syntax).toBe("ubl");
    expect(ubl.number).toBe("12345");
  });

  test("refusals name the CII element: totals that do not add up, a non-EN 16931 guideline, a bad date", () => {
    const xml = bytesOf("01.01a-INVOICE_uncefact.xml").toString("utf8");
    const refusal = (text: string) => {
      try {
        readEInvoiceXml(text);
      } catch (error) {
        expect(error).toBeInstanceOf(InboundDocumentError);
        return error as InboundDocumentError;
      }
      throw new Error("accepted");
    };
    const grand = textOf(xml, "GrandTotalAmount")!;
    const wrong = refusal(xml.replace(`<ram:GrandTotalAmount>${grand}</ram:GrandTotalAmount>`, "<ram:GrandTotalAmount>1.00</ram:GrandTotalAmount>"));
    expect(wrong.path).toBe("/rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:GrandTotalAmount");
    expect(wrong.message).toStartWith("GrandTotalAmount 1.00 is not TaxBasisTotalAmount");
    const guideline = refusal(xml.replace(/(<ram:GuidelineSpecifiedDocumentContextParameter>\s*<ram:ID>)[^<]*/, "$1urn:factur-x.eu:1p0:minimum"));
    expect(guideline.message).toContain("Factur-X / ZUGFeRD MINIMUM profile file ('urn:factur-x.eu:1p0:minimum', BT-24)");
    const date = refusal(xml.replace(/(<ram:IssueDateTime>\s*<udt:DateTimeString format="102">)\d{8}/, "$120180230"));
    expect(date.message).toBe("'20180230' is not a date in format 102 (YYYYMMDD) between 1900 and 2999.");
  });
});

describe("POST /expenses/import with CII", () => {
  const importXml = (body: Buffer | string, token: string) =>
    env.request("POST", "/api/v1/expenses/import", { rawBody: typeof body === "string" ? body : body.toString("utf8"), token, headers: { "content-type": "application/xml" } });

  test("an XRechnung CII becomes a pending expense with its figures, kept byte for byte, imported once", async () => {
    const { token } = await env.newOrg("CII Importer", { country: "BE", currency: "EUR" });
    const bytes = bytesOf("mustang-factur-x.xml");
    const xml = bytes.toString("utf8");
    const r = await importXml(bytes, token);
    expect(r.status, r.text).toBe(201);
    const expense = r.body.data;
    // 496.00 net, 75.04 VAT (7 % and 19 %), 571.04 due by 2020-12-12, as the file says
    expect(expense).toMatchObject({
      status: "pending",
      amount: textOf(xml, "TaxBasisTotalAmount"),
      vat_amount: textOf(xml, "TaxTotalAmount"),
      currency: "EUR",
      supplier_invoice_number: "RE-20201121/508",
      payee_iban: "DE88200800000970375700",
      due_date: "2020-12-12",
      vendor: "Bei Spiel GmbH",
    });
    const original = await env.app.handle(new Request(`http://localhost/api/v1/expenses/${expense.id}/document`, { headers: { authorization: `Bearer ${token}` } }));
    expect(Buffer.from(await original.arrayBuffer()).equals(bytes)).toBe(true);
    const again = await importXml(bytes, token);
    expect(again.status).toBe(409);
    expect(again.body.message).toContain(expense.id);
  });

  test("Kontor's own CII (GET /invoices/{id}/cii), imported into another organisation, gives back the invoice's figures", async () => {
    const seller = await env.newOrg("CII Seller", { country: "BE", currency: "EUR" });
    const buyer = await env.newOrg("CII Buyer", { country: "BE", currency: "EUR" });
    const call = async (method: string, path: string, body?: unknown) => {
      const r = await env.request(method, path, { body, token: seller.token });
      expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBeLessThan(300);
      return r.body?.data;
    };
    await call("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, email: "billing@acme.example" });
    const customer = await call("POST", "/api/v1/customers", { name: "CII Buyer", address: "Rue Haute 1", city: "Bruxelles", postal_code: "1000", country: "BE", vat_number: "BE0404795549" });
    const rates = Object.fromEntries((await call("GET", "/api/v1/vat-rates")).map((r: any) => [r.rate, r.id]));
    const draft = await call("POST", "/api/v1/invoices", {
      customer_id: customer.id,
      issue_date: "2026-03-02",
      buyer_reference: "PO 77",
      lines: [
        { description: "Conseil", quantity: "7.5", unit_price: "95.50", unit_code: "HUR", vat_rate_id: rates["21.00"] },
        { description: "Livres", quantity: 3, unit_price: "12.99", vat_rate_id: rates["6.00"] },
      ],
    });
    const invoice = await call("POST", `/api/v1/invoices/${draft.id}/finalize`);
    const cii = await env.request("GET", `/api/v1/invoices/${invoice.id}/cii`, { token: seller.token });
    expect(cii.status, cii.text).toBe(200);
    expect(cii.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    expect(cii.headers.get("content-disposition")).toBe(`attachment; filename="${invoice.number}.xml"`);
    const r = await importXml(cii.text, buyer.token);
    expect(r.status, r.text).toBe(201);
    expect(r.body.data).toMatchObject({
      amount: invoice.subtotal,
      vat_amount: invoice.vat_amount,
      supplier_invoice_number: invoice.number,
      due_date: invoice.due_date,
      date: invoice.issue_date,
      payment_reference: invoice.payment_reference,
    });
    // worked out by hand: 7.5 × 95.50 = 716.25 at 21 % (150.41) and 3 × 12.99 = 38.97 at 6 % (2.34)
    expect([invoice.subtotal, invoice.vat_amount]).toEqual(["755.22", "152.75"]);
    expect(readEInvoiceXml(cii.text).vatBreakdown).toEqual([
      { category: "S", rateBp: 2100, baseCents: 71_625, vatCents: 15_041 },
      { category: "S", rateBp: 600, baseCents: 3_897, vatCents: 234 },
    ]);
  });
});
