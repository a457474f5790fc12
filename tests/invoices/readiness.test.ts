/**
 * Finalize checks what will be issued (issue 26 item 3): an invoice or credit note whose PDF or,
 * when it must be issued as one, e-invoice could not be produced is refused with every missing
 * field named and nothing changed; a draft's `readiness` and its GET /ubl say the same before;
 * after finalize the invoice shows the seller, buyer and payee its documents carry.
 *
 * The expected fields are those the Peppol BIS 3.0 / EN 16931 rules ask of the document as built
 * here (BR-6…BR-11 and art. 226 addresses, PEPPOL-EN16931-R010/R020 endpoints, BR-S-02 the
 * seller's VAT number with standard-rated lines, PEPPOL-EN16931-R003 a buyer or order reference).
 */
import { preferredChannel } from "../../server/invoices/deliveries.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { webhookDeliveries } from "../../db/schema.ts";
import { databaseSnapshot, SELLER_IDENTITY } from "../fixtures.ts";
import { rawSql } from "../raw-sql.ts";
import { createTestEnv, TEST_IBAN } from "../helpers.ts";
import { describe as describeValidation, validateUbl } from "../einvoicing/validate.ts";

const env = await createTestEnv();
afterAll(() => env.close());

type Org = { org: { id: string }; token: string };

const call = (org: Org) => async (method: string, path: string, body?: unknown) => env.api(method, path, body, org.token);
const okOf = (org: Org) => async (method: string, path: string, body?: unknown) => {
  const r = await env.api(method, path, body, org.token);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBeLessThan(300);
  return r.body?.data;
};

/** A customer's address, as Peppol wants it (street, city, postal code, country). */
const ADDRESS = { address: "Rue de l'Église 5", city: "Liège", postal_code: "4000", country: "BE" };
const PEPPOL_CUSTOMER_ID = "0208:0404795549";

async function standardRate(org: Org): Promise<string> {
  const rates = await okOf(org)("GET", "/api/v1/vat-rates");
  return rates.find((r: any) => r.rate === "21.00").id;
}

async function draftFor(org: Org, customerId: string, extra: Record<string, unknown> = {}) {
  return okOf(org)("POST", "/api/v1/invoices", {
    customer_id: customerId,
    issue_date: "2026-03-02",
    lines: [{ description: "Consulting", quantity: "8", unit_price: "95.00", unit_code: "HUR", vat_rate_id: await standardRate(org) }],
    ...extra,
  });
}

describe("a draft that its e-invoice could not carry", () => {
  let org: Org;
  let customer: any;
  let draft: any;
  beforeAll(async () => {
    // a new organisation knows only its name and country; the customer has a Peppol id, no address
    org = await env.newOrg("Readiness BV");
    customer = await okOf(org)("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", peppol_id: PEPPOL_CUSTOMER_ID });
    draft = await draftFor(org, customer.id);
  });

  const EXPECTED = [
    "buyer_reference",
    "customer.address",
    "customer.city",
    "organization.address",
    "organization.city",
    "organization.peppol_id",
    "organization.postal_code",
    "organization.vat_number",
  ];

  test("GET /invoices/{id} shows its readiness: not ready, an e-invoice required (the customer has a peppol_id), every problem by field", async () => {
    const shown = await okOf(org)("GET", `/api/v1/invoices/${draft.id}`);
    expect(shown.readiness.ready).toBe(false);
    expect(shown.readiness.einvoice_required).toBe(true);
    expect(Object.keys(shown.readiness.problems).sort()).toEqual(EXPECTED);
    expect(shown.readiness.problems.buyer_reference).toEqual(["Peppol needs a buyer reference or an order reference on the invoice (PEPPOL-EN16931-R003)."]);
    // not yet issued: nothing frozen
    expect(shown).toMatchObject({ seller: null, buyer: null, payee: null });
  });

  test("finalize: 422 naming every missing field, the same as the readiness; nothing changed, no number drawn", async () => {
    const before = await databaseSnapshot(env);
    const r = await call(org)("POST", `/api/v1/invoices/${draft.id}/finalize`);
    expect(r.status, r.text).toBe(422);
    expect(Object.keys(r.body.errors).sort()).toEqual(EXPECTED);
    const readiness = (await okOf(org)("GET", `/api/v1/invoices/${draft.id}`)).readiness;
    expect(r.body.errors).toEqual(readiness.problems);
    expect(await databaseSnapshot(env)).toBe(before);
    const still = await okOf(org)("GET", `/api/v1/invoices/${draft.id}`);
    expect(still.status).toBe("draft");
    expect(still.number).toStartWith("DRAFT-");
  });

  test("its GET /ubl answers the same 422 before finalize", async () => {
    const r = await call(org)("GET", `/api/v1/invoices/${draft.id}/ubl`);
    expect(r.status, r.text).toBe(422);
    expect(Object.keys(r.body.errors).sort()).toEqual(EXPECTED);
  });

  test("once the fields are filled in: ready, its GET /ubl a 409 (produced at finalize); finalize takes the first number of the series", async () => {
    await okOf(org)("PUT", "/api/v1/organization", SELLER_IDENTITY);
    await okOf(org)("PUT", `/api/v1/customers/${customer.id}`, ADDRESS);
    await okOf(org)("PUT", `/api/v1/invoices/${draft.id}`, { buyer_reference: "Dept. 42" });
    const shown = await okOf(org)("GET", `/api/v1/invoices/${draft.id}`);
    expect(shown.readiness).toEqual({ ready: true, einvoice_required: true, problems: {} });
    expect((await call(org)("GET", `/api/v1/invoices/${draft.id}/ubl`)).status).toBe(409);

    const issued = await okOf(org)("POST", `/api/v1/invoices/${draft.id}/finalize`);
    // the refused finalize drew no number: this is the first of the series
    expect(issued.number).toBe("INV-2026-00001");
    expect((await okOf(org)("GET", `/api/v1/invoices/${draft.id}`)).readiness).toBeNull();
  });

  test("after finalize the invoice shows the seller, buyer and payee as issued, and its UBL is a valid Peppol e-invoice", async () => {
    const shown = await okOf(org)("GET", `/api/v1/invoices/${draft.id}`);
    expect(shown.seller).toEqual({
      name: "Readiness BV",
      address: SELLER_IDENTITY.address,
      city: SELLER_IDENTITY.city,
      postal_code: SELLER_IDENTITY.postal_code,
      country: "BE",
      vat_number: SELLER_IDENTITY.vat_number,
      company_number: SELLER_IDENTITY.company_number,
      email: null,
      phone: null,
      peppol_id: SELLER_IDENTITY.peppol_id,
    });
    expect(shown.buyer).toEqual({
      name: "Brasserie Dupont SA",
      ...ADDRESS,
      vat_number: null,
      company_number: null,
      email: null,
      phone: null,
      peppol_id: PEPPOL_CUSTOMER_ID,
    });
    expect(shown.payee).toEqual({ iban: TEST_IBAN, bic: null, account_name: "Readiness BV" });

    const ubl = await call(org)("GET", `/api/v1/invoices/${draft.id}/ubl`);
    expect(ubl.status, ubl.text).toBe(200);
    const validation = await validateUbl(ubl.text);
    expect(validation.xsdErrors.concat(validation.fatal.map((f) => `${f.id}: ${f.text}`)), describeValidation(validation)).toEqual([]);
  }, 180_000);

  test("the readiness is on GET /invoices/{id} only: the list and the write answers leave it out", async () => {
    const another = await draftFor(org, customer.id);
    expect(Object.keys(another)).not.toContain("readiness");
    const list = (await call(org)("GET", "/api/v1/invoices")).body.data as any[];
    expect(list.length).toBe(2);
    for (const invoice of list) {
      expect(Object.keys(invoice)).not.toContain("readiness");
      expect(Object.keys(invoice)).toEqual(expect.arrayContaining(["seller", "buyer", "payee"]));
    }
  });

  test("the readiness is a computed view: the draft's events and webhook deliveries carry the invoice as its GET shows it, without readiness", async () => {
    const own = await env.newOrg("Readiness Events BV");
    const buyer = await okOf(own)("POST", "/api/v1/customers", { name: "Brasserie Dupont SA", country: "BE", peppol_id: PEPPOL_CUSTOMER_ID });
    const hook = await okOf(own)("POST", "/api/v1/webhooks", { url: "https://hooks.example.com/readiness", events: ["invoice.created", "invoice.updated"] });
    const created = await draftFor(own, buyer.id);
    await okOf(own)("PUT", `/api/v1/invoices/${created.id}`, { notes: "Second thoughts" });
    // the draft's GET shows it (not ready: the organisation has no address, no VAT number)
    const { readiness, ...shown } = await okOf(own)("GET", `/api/v1/invoices/${created.id}`);
    expect(readiness.ready).toBe(false);
    const events = (await okOf(own)("GET", `/api/v1/events?filter[type]=invoice.*`)) as any[];
    expect(events.map((e) => e.type)).toEqual(["invoice.created", "invoice.updated"]);
    for (const event of events) expect(Object.keys(event.data)).not.toContain("readiness");
    // the latest event is the resource as the API shows it, readiness apart
    expect(events[1].data).toEqual(shown);
    const deliveries = await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id));
    expect(deliveries.map((d) => d.event).sort()).toEqual(["invoice.created", "invoice.updated"]);
    for (const delivery of deliveries) expect(Object.keys(JSON.parse(delivery.payload).data)).not.toContain("readiness");
  });
});

describe("the issue's dead end: the JSON shows what the documents carry, and finalize refuses up front", () => {
  test("a customer given a peppol_id after finalize: the live customer shows it, the issued document's customer and buyer (what the UBL carries) do not, and the UBL's 422 says the same", async () => {
    const org = await env.newOrg("Dead End BV");
    await okOf(org)("PUT", "/api/v1/organization", SELLER_IDENTITY);
    const customer = await okOf(org)("POST", "/api/v1/customers", { name: "Late Peppol NV", ...ADDRESS });
    const draft = await draftFor(org, customer.id);
    // no Peppol id, the setting off: no e-invoice is required, the PDF lacks nothing
    expect((await okOf(org)("GET", `/api/v1/invoices/${draft.id}`)).readiness).toEqual({ ready: true, einvoice_required: false, problems: {} });
    await okOf(org)("POST", `/api/v1/invoices/${draft.id}/finalize`);

    await okOf(org)("PUT", `/api/v1/customers/${customer.id}`, { peppol_id: PEPPOL_CUSTOMER_ID });
    const shown = await okOf(org)("GET", `/api/v1/invoices/${draft.id}`);
    // the issued document embeds the customer as issued; customer.id links the live one, which has it
    expect(shown.customer.peppol_id).toBeNull();
    expect(shown.buyer.peppol_id).toBeNull();
    expect((await okOf(org)("GET", `/api/v1/customers/${shown.customer.id}`)).peppol_id).toBe(PEPPOL_CUSTOMER_ID);
    const ubl = await call(org)("GET", `/api/v1/invoices/${draft.id}/ubl`);
    expect(ubl.status).toBe(422);
    expect(Object.keys(ubl.body.errors).sort()).toEqual(["buyer_reference", "customer.peppol_id"]);
    // the message says that completing the customer now cannot help: the issued buyer is frozen
    expect(ubl.body.message).toContain(`${shown.number} was issued without what its e-invoice needs`);
    expect(ubl.body.message).toContain("Credit or cancel it and issue a new one.");

    // a new invoice to that customer cannot be finalized into the same dead end
    const next = await draftFor(org, customer.id);
    const refused = await call(org)("POST", `/api/v1/invoices/${next.id}/finalize`);
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["buyer_reference"]);
    await okOf(org)("PUT", `/api/v1/invoices/${next.id}`, { order_reference: "PO-7" });
    const issued = await okOf(org)("POST", `/api/v1/invoices/${next.id}/finalize`);
    expect(issued.buyer.peppol_id).toBe(PEPPOL_CUSTOMER_ID);
    expect((await call(org)("GET", `/api/v1/invoices/${next.id}/ubl`)).status).toBe(200);
  });
});

describe("einvoice_business_customers: every business customer gets an e-invoice", () => {
  test("off: a customer with a VAT number and no peppol_id is issued a PDF only; on: finalize checks its UBL; an individual is never", async () => {
    const org = await env.newOrg("Belgian Mandate BV");
    await okOf(org)("PUT", "/api/v1/organization", SELLER_IDENTITY);
    const business = await okOf(org)("POST", "/api/v1/customers", { name: "Business SA", ...ADDRESS, vat_number: "BE0404795549" });
    const individual = await okOf(org)("POST", "/api/v1/customers", { name: "Jan Peeters", ...ADDRESS });
    const toBusiness = await draftFor(org, business.id);
    const toIndividual = await draftFor(org, individual.id);
    const readiness = async (id: string) => (await okOf(org)("GET", `/api/v1/invoices/${id}`)).readiness;

    expect(await readiness(toBusiness.id)).toEqual({ ready: true, einvoice_required: false, problems: {} });
    await okOf(org)("PUT", "/api/v1/organization", { einvoice_business_customers: true });
    const business422 = await readiness(toBusiness.id);
    expect(business422.ready).toBe(false);
    expect(business422.einvoice_required).toBe(true);
    expect(Object.keys(business422.problems).sort()).toEqual(["buyer_reference", "customer.peppol_id"]);
    const refused = await call(org)("POST", `/api/v1/invoices/${toBusiness.id}/finalize`);
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual(business422.problems);

    expect(await readiness(toIndividual.id)).toEqual({ ready: true, einvoice_required: false, problems: {} });
    expect((await call(org)("POST", `/api/v1/invoices/${toIndividual.id}/finalize`)).status).toBe(200);

    await okOf(org)("PUT", `/api/v1/customers/${business.id}`, { peppol_id: PEPPOL_CUSTOMER_ID });
    await okOf(org)("PUT", `/api/v1/invoices/${toBusiness.id}`, { buyer_reference: "Dept. 42" });
    expect((await call(org)("POST", `/api/v1/invoices/${toBusiness.id}/finalize`)).status).toBe(200);
  });

  test("the mandate covers Belgian business customers only: a Dutch or German business without a peppol_id is issued a PDF, and preferred sends it by e-mail", async () => {
    const org = await env.newOrg("Mandate Abroad BV");
    await okOf(org)("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, einvoice_business_customers: true });
    const dutch = await okOf(org)("POST", "/api/v1/customers", { name: "Klant BV", ...ADDRESS, country: "NL", vat_number: "NL000099998B57", email: "ap@klant.example" });
    const german = await okOf(org)("POST", "/api/v1/customers", { name: "Kunde GmbH", ...ADDRESS, country: "DE", vat_number: "DE136695976", preferred_channel: "peppol", email: "ap@kunde.example" });
    // a Belgian VAT number on a customer abroad is not the Belgian mandate either: the rule reads both
    const belgianAbroad = await okOf(org)("POST", "/api/v1/customers", { name: "Filiale SARL", ...ADDRESS, country: "FR", vat_number: "BE0404795549" });
    for (const customer of [dutch, german, belgianAbroad]) {
      const draft = await draftFor(org, customer.id);
      expect((await okOf(org)("GET", `/api/v1/invoices/${draft.id}`)).readiness, customer.name).toEqual({ ready: true, einvoice_required: false, problems: {} });
      expect((await call(org)("POST", `/api/v1/invoices/${draft.id}/finalize`)).status, customer.name).toBe(200);
    }
    // preferred: Peppol only where the customer can be reached there
    expect(preferredChannel({ preferredChannel: "peppol", peppolId: null })).toBe("email");
    expect(preferredChannel({ preferredChannel: "peppol", peppolId: " " })).toBe("email");
    expect(preferredChannel({ preferredChannel: "peppol", peppolId: PEPPOL_CUSTOMER_ID })).toBe("peppol");
    expect(preferredChannel({ preferredChannel: "email", peppolId: PEPPOL_CUSTOMER_ID })).toBe("email");
    expect(preferredChannel({ preferredChannel: null, peppolId: PEPPOL_CUSTOMER_ID })).toBe("peppol");
    expect(preferredChannel({ preferredChannel: null, peppolId: null })).toBe("email");
  });
});

describe("credit notes and the PDF", () => {
  test("a credit note is checked at its finalize like an invoice: the seller's VAT number removed since is refused", async () => {
    const org = await env.newOrg("Credit Check BV");
    await okOf(org)("PUT", "/api/v1/organization", SELLER_IDENTITY);
    const customer = await okOf(org)("POST", "/api/v1/customers", { name: "Peppol NV", ...ADDRESS, peppol_id: PEPPOL_CUSTOMER_ID });
    const invoice = await draftFor(org, customer.id, { buyer_reference: "Dept. 42" });
    await okOf(org)("POST", `/api/v1/invoices/${invoice.id}/finalize`);
    await okOf(org)("PUT", "/api/v1/organization", { vat_number: null });
    const note = await okOf(org)("POST", `/api/v1/invoices/${invoice.id}/credit-note`);
    expect((await okOf(org)("GET", `/api/v1/invoices/${note.id}`)).readiness).toMatchObject({ ready: false, einvoice_required: true });
    const refused = await call(org)("POST", `/api/v1/invoices/${note.id}/finalize`);
    expect(refused.status, refused.text).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["organization.vat_number"]);
    await okOf(org)("PUT", "/api/v1/organization", { vat_number: SELLER_IDENTITY.vat_number });
    const issued = await okOf(org)("POST", `/api/v1/invoices/${note.id}/finalize`);
    expect(issued.number).toBe("CN-2026-00001");
  });

  test("the PDF is always checked: a customer without a name (written around the API) is refused, e-invoice or not", async () => {
    const org = await env.newOrg("Nameless BV");
    const customer = await okOf(org)("POST", "/api/v1/customers", { name: "To Be Blanked" });
    const draft = await draftFor(org, customer.id);
    await rawSql(env.db).run("UPDATE customers SET name = ' ' WHERE id = ?", customer.id);
    expect((await okOf(org)("GET", `/api/v1/invoices/${draft.id}`)).readiness).toEqual({
      ready: false,
      einvoice_required: false,
      problems: { "customer.name": ["The customer's name is required: the document is addressed to it."] },
    });
    const refused = await call(org)("POST", `/api/v1/invoices/${draft.id}/finalize`);
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.errors)).toEqual(["customer.name"]);
  });
});
