/**
 * One finalize refusal per fatal KoSIT XRechnung rule a user can trigger (the table in
 * docs/einvoicing.md#what-finalize-refuses-for-xrechnung): for a customer whose einvoice_profile is
 * xrechnung, a German seller's invoice lacking what the rule needs is refused with a 422 naming
 * the field the user fixes and the rule; once fixed through the API it is issued, and its
 * XRechnung UBL and CII pass KoSIT's rules (and the CEN rules under them) with no fatal assertion.
 * The payment terms' Skonto syntax (BR-DE-18) is checked against KoSIT's own rule, text by text.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { breaksSkontoSyntax } from "../../server/documents/en16931.ts";
import { createTestEnv, runCli } from "../helpers.ts";
import { describe as describeValidation, validateCii, validateUbl } from "./validate.ts";

const env = await createTestEnv();
afterAll(() => env.close());

/** A German seller with everything XRechnung needs of it. */
const SELLER = {
  address: "Marienplatz 1",
  city: "München",
  postal_code: "80331",
  vat_number: "DE129273398",
  email: "rechnung@muster.example",
  phone: "+49 89 1234567",
  contact_name: "Erika Mustermann",
} as const;
/** A German public buyer receiving XRechnung, with its Leitweg-ID. */
const BUYER = {
  name: "Stadt Augsburg",
  country: "DE",
  address: "Rathausplatz 1",
  city: "Augsburg",
  postal_code: "86150",
  vat_number: "DE811335517",
  email: "rechnung@augsburg.example",
  buyer_reference: "04011000-12345-67",
  einvoice_profile: "xrechnung",
} as const;

type Case = {
  rule: string;
  field: string;
  /** the VAT category of the invoice's line: S (standard), or K (intra-EU supply: it has a delivery address) */
  category?: "S" | "K";
  seller?: Partial<Record<keyof typeof SELLER, null>>;
  customer?: Partial<Record<keyof typeof BUYER, null>>;
  invoice?: Record<string, unknown>;
  /** the invoice's fix, when the case's invoice field is not simply given again */
  invoiceFix?: Record<string, unknown>;
  /** an organisation without a bank account */
  noBankAccount?: true;
};

const CASES: Case[] = [
  { rule: "BR-DE-1", field: "organization.bank_account", noBankAccount: true },
  { rule: "BR-DE-2", field: "organization.contact_name", seller: { contact_name: null, phone: null, email: null } },
  { rule: "BR-DE-3", field: "organization.city", seller: { city: null } },
  { rule: "BR-DE-4", field: "organization.postal_code", seller: { postal_code: null } },
  { rule: "BR-DE-5", field: "organization.contact_name", seller: { contact_name: null } },
  { rule: "BR-DE-6", field: "organization.phone", seller: { phone: null } },
  { rule: "BR-DE-7", field: "organization.email", seller: { email: null } },
  { rule: "BR-DE-8", field: "customer.city", customer: { city: null } },
  { rule: "BR-DE-9", field: "customer.postal_code", customer: { postal_code: null } },
  { rule: "BR-DE-10", field: "customer.city", category: "K", customer: { city: null } },
  { rule: "BR-DE-11", field: "customer.postal_code", category: "K", customer: { postal_code: null } },
  { rule: "BR-DE-15", field: "buyer_reference", invoice: { buyer_reference: null }, invoiceFix: { buyer_reference: BUYER.buyer_reference } },
  { rule: "BR-DE-16", field: "organization.vat_number", seller: { vat_number: null } },
  {
    rule: "BR-DE-18",
    field: "payment_terms",
    invoice: { payment_terms: "#2 % Skonto bei Zahlung binnen 10 Tagen\nZahlbar binnen 30 Tagen" },
    invoiceFix: { payment_terms: "#SKONTO#TAGE=10#PROZENT=2.00#\nZahlbar binnen 30 Tagen ohne Abzug" },
  },
];

/** A rule id as a whole word: BR-DE-1 is not BR-DE-10. */
const names = (messages: string[] | undefined, rule: string) => new RegExp(`\\b${rule}(?![-\\d])`).test((messages ?? []).join(" "));

async function issuedXRechnung(token: string, invoiceId: string) {
  const get = (path: string) => env.request("GET", path, { token });
  const ubl = await get(`/api/v1/invoices/${invoiceId}/ubl?profile=xrechnung`);
  const cii = await get(`/api/v1/invoices/${invoiceId}/cii?profile=xrechnung`);
  expect(ubl.status, ubl.text.slice(0, 300)).toBe(200);
  expect(cii.status, cii.text.slice(0, 300)).toBe(200);
  return { ubl: ubl.text, cii: cii.text };
}

async function expectKositValid({ ubl, cii }: { ubl: string; cii: string }) {
  const ublResult = await validateUbl(ubl, "xrechnung");
  expect(ublResult.fatal, describeValidation(ublResult)).toEqual([]);
  expect(ublResult.xsdErrors).toEqual([]);
  const ciiResult = await validateCii(cii, "xrechnung");
  expect(ciiResult.fatal, describeValidation(ciiResult)).toEqual([]);
  expect(ciiResult.xsdErrors).toEqual([]);
}

describe("finalize refuses what KoSIT's XRechnung rules would reject, one rule at a time", () => {
  for (const c of CASES) {
    test(`${c.rule}: a 422 naming ${c.field} and the rule; fixed, the XRechnung UBL and CII pass KoSIT`, async () => {
      const { org, token } = await env.newOrg(`Muster GmbH ${c.rule}`, { country: "DE", ...(c.noBankAccount ? { iban: null } : {}) });
      const ok = async (method: string, path: string, body?: unknown) => {
        const r = await env.api(method, path, body, token);
        expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBeLessThan(300);
        return r.body?.data;
      };
      await ok("PUT", "/api/v1/organization", { ...SELLER, ...c.seller });
      const customer = await ok("POST", "/api/v1/customers", { ...BUYER, ...c.customer });
      const category = c.category ?? "S";
      const rate = (await ok("GET", "/api/v1/vat-rates")).find((r: { category: string }) => r.category === category).id;
      const draft = await ok("POST", "/api/v1/invoices", {
        customer_id: customer.id,
        issue_date: "2026-03-02",
        lines: [{ description: "Beratung", quantity: "2", unit_price: "150.00", vat_rate_id: rate }],
        ...c.invoice,
      });

      const refused = await env.api("POST", `/api/v1/invoices/${draft.id}/finalize`, undefined, token);
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body.errors[c.field], JSON.stringify(refused.body.errors)).toBeDefined();
      expect(names(refused.body.errors[c.field], c.rule), JSON.stringify(refused.body.errors[c.field])).toBe(true);
      // the draft's readiness says the same before finalize is tried
      const readiness = (await ok("GET", `/api/v1/invoices/${draft.id}`)).readiness;
      expect(readiness).toMatchObject({ ready: false, einvoice_required: true });
      expect(names(readiness.problems[c.field], c.rule)).toBe(true);

      // the fix, through the API (a bank account through the CLI: the API does not add one)
      if (c.seller) await ok("PUT", "/api/v1/organization", Object.fromEntries(Object.keys(c.seller).map((k) => [k, SELLER[k as keyof typeof SELLER]])));
      if (c.customer) await ok("PUT", `/api/v1/customers/${customer.id}`, Object.fromEntries(Object.keys(c.customer).map((k) => [k, BUYER[k as keyof typeof BUYER]])));
      if (c.invoiceFix) await ok("PUT", `/api/v1/invoices/${draft.id}`, c.invoiceFix);
      if (c.noBankAccount) {
        const added = await runCli(["bank-account", "add", "--org", org.id, "--name", "Girokonto", "--iban", "DE89370400440532013000", "--default", "--db", env.config.dbPath]);
        expect(added.code, added.stderr).toBe(0);
      }

      const issued = await ok("POST", `/api/v1/invoices/${draft.id}/finalize`);
      const xml = await issuedXRechnung(token, issued.id);
      await expectKositValid(xml);
      if (c.rule === "BR-DE-18") {
        expect(xml.ubl).toContain("#SKONTO#TAGE=10#PROZENT=2.00#\nZahlbar binnen 30 Tagen ohne Abzug");
        expect(xml.cii).toContain("#SKONTO#TAGE=10#PROZENT=2.00#\nZahlbar binnen 30 Tagen ohne Abzug");
      }
      if (c.rule === "BR-DE-1") expect(xml.ubl).toContain("<cbc:ID>DE89370400440532013000</cbc:ID>");
    }, 60_000);
  }

  test("a credit note of an XRechnung customer's invoice is XRechnung too: it passes KoSIT", async () => {
    const { token } = await env.newOrg("Muster GmbH credit", { country: "DE" });
    const ok = async (method: string, path: string, body?: unknown) => {
      const r = await env.api(method, path, body, token);
      expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBeLessThan(300);
      return r.body?.data;
    };
    await ok("PUT", "/api/v1/organization", SELLER);
    const customer = await ok("POST", "/api/v1/customers", BUYER);
    const rate = (await ok("GET", "/api/v1/vat-rates")).find((r: { category: string }) => r.category === "S").id;
    const draft = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-02", lines: [{ description: "Beratung", quantity: "2", unit_price: "150.00", vat_rate_id: rate }] });
    const invoice = await ok("POST", `/api/v1/invoices/${draft.id}/finalize`);
    const creditDraft = await ok("POST", `/api/v1/invoices/${invoice.id}/credit-note`);
    const credit = await ok("POST", `/api/v1/invoices/${creditDraft.id}/finalize`);
    const xml = await issuedXRechnung(token, credit.id);
    expect(xml.ubl).toContain("<CreditNote ");
    await expectKositValid(xml);
  }, 60_000);
});

describe("BR-DE-18: payment terms as KoSIT reads them", () => {
  // each text: whether KoSIT's rule rejects it (worked out from the rule: every line starting with
  // "#" a Skonto line, and a line break after the last "#…#")
  const TERMS: [string, boolean][] = [
    ["Zahlbar binnen 30 Tagen", false],
    ["#SKONTO#TAGE=10#PROZENT=2.00#\nZahlbar binnen 30 Tagen", false],
    ["#SKONTO#TAGE=10#PROZENT=2.00#BASISBETRAG=100.00#\nRest netto", false],
    ["  #SKONTO#TAGE=10#PROZENT=2.00#  \nRest netto", false],
    ["Rechnung #12# bitte angeben\nZahlbar sofort", false],
    ["Zahlbar binnen 30 Tagen\n#SKONTO#TAGE=10#PROZENT=2.00#", true],
    ["#SKONTO#TAGE=10#PROZENT=2#\nZahlbar binnen 30 Tagen", true],
    ["#skonto#tage=10#prozent=2.00#\nZahlbar binnen 30 Tagen", true],
    ["#2 % Skonto binnen 10 Tagen", true],
    ["#SKONTO#TAGE=10#PROZENT=2.00#\nBitte Nr. #12# angeben", true],
  ];

  test("Kontor's check agrees with KoSIT's rule on each text, in the UBL and in the CII", async () => {
    const { token } = await env.newOrg("Muster GmbH Skonto", { country: "DE" });
    const ok = async (method: string, path: string, body?: unknown) => {
      const r = await env.api(method, path, body, token);
      expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBeLessThan(300);
      return r.body?.data;
    };
    await ok("PUT", "/api/v1/organization", SELLER);
    const customer = await ok("POST", "/api/v1/customers", BUYER);
    const rate = (await ok("GET", "/api/v1/vat-rates")).find((r: { category: string }) => r.category === "S").id;
    const draft = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-02", payment_terms: "PLACEHOLDER", lines: [{ description: "Beratung", quantity: "1", unit_price: "100.00", vat_rate_id: rate }] });
    const { ubl, cii } = await issuedXRechnung(token, (await ok("POST", `/api/v1/invoices/${draft.id}/finalize`)).id);
    expect(ubl).toContain("<cbc:Note>PLACEHOLDER</cbc:Note>");
    expect(cii).toContain("<ram:Description>PLACEHOLDER</ram:Description>");
    for (const [terms, rejected] of TERMS) {
      expect(breaksSkontoSyntax(terms), terms).toBe(rejected);
      const ublIds = (await validateUbl(ubl.replace("PLACEHOLDER", terms), "xrechnung")).fatal.map((a) => a.id);
      const ciiIds = (await validateCii(cii.replace("PLACEHOLDER", terms), "xrechnung")).fatal.map((a) => a.id);
      expect(ublIds.includes("BR-DE-18"), `UBL: ${JSON.stringify(terms)}`).toBe(rejected);
      expect(ciiIds.includes("BR-DE-18"), `CII: ${JSON.stringify(terms)}`).toBe(rejected);
    }
  }, 120_000);
});
