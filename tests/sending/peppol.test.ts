/**
 * Peppol through an access point (issue 29 item 3), against a fake Recommand on 127.0.0.1 that
 * checks every request against Recommand's own API description (tests/sending/recommand-api.json,
 * transcribed from its source): configured through the real CLI, sending with each answer
 * classified, and a supplier's invoice received into a pending expense, once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { expenses, organizations } from "../../db/schema.ts";
import { ValidationFailed } from "../../server/lib/errors.ts";
import { loadSecretBox, SecretBox, SecretUnreadable } from "../../server/lib/secret-box.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import type { Outgoing } from "../../server/sending/channel.ts";
import { PEPPOL_DOCUMENT_TYPES } from "../../server/sending/peppol/access-point.ts";
import { sendOverPeppol, type PeppolOutgoing } from "../../server/sending/peppol/channel.ts";
import { pollPeppolInbox } from "../../server/sending/peppol/inbox.ts";
import { RecommandAccessPoint } from "../../server/sending/peppol/recommand.ts";
import { accessPointFor, setPeppolAccessPoint } from "../../server/sending/peppol/settings.ts";
import { NO_ACCESS_POINT, peppolSetupProblems } from "../../server/invoices/deliveries.ts";
import { createTestEnv, runCli, type TestEnv } from "../helpers.ts";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { startDeliveryWorker } from "../../server/sending/worker.ts";
import { startFakeRecommand, type FakeRecommand } from "./recommand-fake.ts";
import { describe as describeValidation, validateUbl } from "../einvoicing/validate.ts";
import { firstRow } from "../../db/client.ts";
import { rawSql } from "../raw-sql.ts";

const CREDENTIALS = { apiKey: "key_7Hq2", apiSecret: "secret_Zx81-do-not-store-in-plaintext", companyId: "c_01KONTOR" };
const EXAMPLE = join(import.meta.dir, "..", "einvoicing", "examples", "peppol", "base-example.xml");
const BUYER = "0208:0987654321";

let env: TestEnv;
let fake: FakeRecommand;
let deps: { db: TestEnv["db"]; secrets: ReturnType<typeof loadSecretBox>; timeoutMs: number };

beforeAll(async () => {
  env = await createTestEnv();
  fake = startFakeRecommand(CREDENTIALS);
  // the server's key file, as the CLI and the server find it beside the database
  deps = { db: env.db, secrets: loadSecretBox(env.config), timeoutMs: 500 };
});
afterAll(async () => {
  fake.stop();
  await env.close();
});

const outgoing = (over: Partial<PeppolOutgoing> = {}): PeppolOutgoing => {
  const base: Outgoing = {
    organizationId: env.org.id,
    deliveryId: "00000000-0000-7000-8000-000000000001",
    subject: "invoice",
    documentType: "invoice",
    number: "INV-2026-00001",
    language: "en",
    pdf: { filename: "INV-2026-00001.pdf", contentType: "application/pdf", content: new Uint8Array([37, 80, 68, 70]) },
    einvoice: null,
  };
  return { ...base, ubl: "<Invoice>the UBL as issued</Invoice>", profile: "peppol", recipientPeppolId: BUYER, senderPeppolId: "0208:0123456749", ...over };
};

describe("the access point configured through the CLI", () => {
  test("kontor org set stores the credentials sealed; the API shows the provider, never the secrets", async () => {
    const r = await runCli([
      "org", "set", "Acme",
      "--peppol-provider", "recommand",
      "--peppol-api-key", CREDENTIALS.apiKey,
      "--peppol-api-secret", CREDENTIALS.apiSecret,
      "--peppol-company-id", CREDENTIALS.companyId,
      "--peppol-base-url", fake.baseUrl,
      "--peppol-id", "0208:0123456749",
      "--db", env.config.dbPath, "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const shown = JSON.parse(r.stdout);
    expect(shown.peppol_provider).toBe("recommand");
    expect(shown.peppol_id).toBe("0208:0123456749");
    expect(r.stdout).not.toContain(CREDENTIALS.apiSecret);

    const row = (await rawSql(env.db).get<{ peppol_provider: string; peppol_credentials: string }>("SELECT peppol_provider, peppol_credentials FROM organizations WHERE id = ?", env.org.id))!;
    expect(row.peppol_provider).toBe("recommand");
    expect(row.peppol_credentials.startsWith("enc:v1:")).toBe(true);
    for (const value of Object.values(CREDENTIALS)) expect(row.peppol_credentials).not.toContain(value);
    // what the CLI sealed opens with the server's key to what was given
    expect(JSON.parse(deps.secrets.open(row.peppol_credentials, `peppol:${env.org.id}`))).toEqual({ ...CREDENTIALS, baseUrl: fake.baseUrl });

    const org = await env.api("GET", "/api/v1/organization");
    expect(org.status).toBe(200);
    expect(org.body.data.peppol_provider).toBe("recommand");
    expect(org.text).not.toContain(CREDENTIALS.apiSecret);
    expect(org.text).not.toContain(CREDENTIALS.apiKey);
  });

  test("a provider without its credentials, or credentials over plain http to another machine, are refused; none removes it", async () => {
    const other = await env.newOrg("Peppol-less");
    const scope = { db: env.db, org: other.org, actor: CLI_ACTOR };
    const refusal = async (input: Parameters<typeof setPeppolAccessPoint>[2]) => {
      try {
        await setPeppolAccessPoint(scope, deps.secrets, input);
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationFailed);
        return Object.keys((error as ValidationFailed).errors!).sort();
      }
      throw new Error("not refused");
    };
    expect(await refusal({ provider: "recommand", apiKey: "k" })).toEqual(["peppol_api_secret", "peppol_company_id"]);
    expect(await refusal({ provider: "recommand", apiKey: "k", apiSecret: "s", companyId: "c", baseUrl: "http://ap.example.com/api/v1" })).toEqual(["peppol_base_url"]);
    expect(await refusal({ provider: "storecove" })).toEqual(["peppol_provider"]);
    expect(await env.db.select().from(expenses).where(eq(expenses.organizationId, other.org.id))).toEqual([]);
    expect((await setPeppolAccessPoint(scope, deps.secrets, { provider: "recommand", apiKey: "k", apiSecret: "s", companyId: "c" })).peppol_provider).toBe("recommand");
    // the same provider again: only what is given changes
    await setPeppolAccessPoint(scope, deps.secrets, { apiSecret: "s2" });
    expect((await accessPointFor(env.db, deps.secrets, other.org.id) as RecommandAccessPoint).credentials).toEqual({ apiKey: "k", apiSecret: "s2", companyId: "c", baseUrl: "https://app.recommand.eu/api/v1" });
    // credentials sealed with another server's key: the access point cannot be used, and is set anew whole
    await rawSql(env.db).run("UPDATE organizations SET peppol_credentials = ? WHERE id = ?", new SecretBox(new Uint8Array(32).fill(7)).seal("{}", `peppol:${other.org.id}`), other.org.id);
    await expect(accessPointFor(env.db, deps.secrets, other.org.id)).rejects.toThrow(SecretUnreadable);
    const unreadable = await sendOverPeppol(deps, outgoing({ organizationId: other.org.id }));
    expect(unreadable.outcome).toBe("failed");
    expect((unreadable as { detail: string }).detail).toContain("credentials cannot be read");
    expect(await refusal({ apiKey: "k" })).toEqual(["peppol_api_secret", "peppol_company_id"]);
    await setPeppolAccessPoint(scope, deps.secrets, { apiKey: "k", apiSecret: "s3", companyId: "c" });
    expect((await accessPointFor(env.db, deps.secrets, other.org.id) as RecommandAccessPoint).credentials.apiSecret).toBe("s3");
    expect((await setPeppolAccessPoint(scope, deps.secrets, { provider: "none" })).peppol_provider).toBeNull();
    expect(await accessPointFor(env.db, deps.secrets, other.org.id)).toBeNull();
  });
});

describe("sending over Peppol", () => {
  test("the send route's organisation check: no access point or no own peppol_id is a problem on channel", async () => {
    const orgRow = async (id: string) => (await firstRow(env.db.select().from(organizations).where(eq(organizations.id, id))))!;
    expect(peppolSetupProblems(await orgRow(env.org.id))).toEqual({});
    const bare = await env.newOrg("Bare");
    const problems = peppolSetupProblems(await orgRow(bare.org.id));
    expect(Object.keys(problems)).toEqual(["channel"]);
    expect(problems.channel).toContain("no Peppol access point");
    expect(problems.channel).toContain("peppol_id");
  });

  test("accepted: the provider's document id is the reference; the request is the UBL as given, to the buyer as issued", async () => {
    const result = await sendOverPeppol(deps, outgoing());
    expect(result).toEqual({ outcome: "accepted", detail: "Recommand document doc_1; Peppol message msg-doc_1", providerReference: "doc_1" });
    const sent = fake.requests.at(-1)!;
    expect(sent.operationId).toBe("sendDocument");
    expect(sent.params.companyId).toBe(CREDENTIALS.companyId);
    expect(sent.body).toEqual({
      recipient: BUYER,
      documentType: "xml",
      document: "<Invoice>the UBL as issued</Invoice>",
      // Peppol BIS Billing 3.0, as its specification names the invoice and credit note types
      doctypeId: "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1",
      processId: "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0",
    });
    const credit = await sendOverPeppol(deps, outgoing({ documentType: "credit_note", ubl: "<CreditNote/>" }));
    expect(credit.outcome).toBe("accepted");
    expect(fake.requests.at(-1)!.body.doctypeId).toBe(
      "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2::CreditNote##urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0::2.1",
    );
    // its status, read back
    const accessPoint = (await accessPointFor(env.db, deps.secrets, env.org.id))!;
    expect(await accessPoint.status("doc_1")).toEqual({ state: "delivered", detail: "Peppol message msg-doc_1" });
  });

  test("503 then accepted: retry, then accepted", async () => {
    fake.script.sendDocument.push({ status: 503, body: "upstream unavailable" });
    const first = await sendOverPeppol(deps, outgoing());
    expect(first.outcome).toBe("retry");
    expect((first as { detail: string }).detail).toContain("HTTP 503");
    const second = await sendOverPeppol(deps, outgoing());
    expect(second.outcome).toBe("accepted");
  });

  test("400 with the provider's errors: failed at once, with its message", async () => {
    fake.script.sendDocument.push({
      status: 400,
      body: { success: false, errors: { root: ["Document validation failed. Please ensure your document complies with EN16931 and PEPPOL BIS 3.0 requirements."], "cbc:EndpointID": ["PEPPOL-EN16931-R020: Seller electronic address MUST be provided"] } },
    });
    const result = await sendOverPeppol(deps, outgoing());
    expect(result.outcome).toBe("failed");
    expect((result as { detail: string }).detail).toContain("HTTP 400: Document validation failed.");
    expect((result as { detail: string }).detail).toContain("cbc:EndpointID: PEPPOL-EN16931-R020: Seller electronic address MUST be provided");
  });

  test("the classification: 429, 5xx, a timeout and a refused connection are retried; other 4xx fail", async () => {
    const cases: [number, "retry" | "failed"][] = [[429, "retry"], [500, "retry"], [502, "retry"], [401, "failed"], [404, "failed"], [422, "failed"]];
    for (const [status, outcome] of cases) {
      fake.script.sendDocument.push({ status, body: { success: false, errors: { root: [`scripted ${status}`] } } });
      const result = await sendOverPeppol(deps, outgoing());
      expect([status, result.outcome]).toEqual([status, outcome]);
      expect((result as { detail: string }).detail).toContain(`HTTP ${status}`);
    }
    fake.script.sendDocument.push({ status: 200, body: { success: true, sentOverPeppol: true, sentOverEmail: false, emailRecipients: [], teamId: "t", companyId: "c", id: "late", peppolMessageId: null, envelopeId: null }, delayMs: 1500 });
    const slow = await sendOverPeppol(deps, outgoing());
    expect(slow).toEqual({ outcome: "retry", detail: `POST /api/v1/${CREDENTIALS.companyId}/send timed out` });

    // nothing listens on a port just released
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = closed.port;
    await closed.stop(true);
    const unreachable = new RecommandAccessPoint({ ...CREDENTIALS, baseUrl: `http://127.0.0.1:${port}/api/v1` }, 500);
    const refused = await unreachable.send({ sender: "0208:0123456749", recipient: BUYER, documentType: "invoice", ubl: "<Invoice/>" });
    expect(refused.outcome).toBe("retry");
  });

  test("no access point, or a reminder: failed with a clear detail, nothing sent", async () => {
    const before = fake.requests.length;
    const bare = await env.newOrg("No access point");
    expect(await sendOverPeppol(deps, outgoing({ organizationId: bare.org.id }))).toEqual({ outcome: "failed", detail: NO_ACCESS_POINT });
    const reminder = await sendOverPeppol(deps, outgoing({ subject: "reminder", documentType: "reminder" }));
    expect(reminder.outcome).toBe("failed");
    expect(fake.requests.length).toBe(before);
  });

  test("whether a participant can receive a document type", async () => {
    fake.registered.add(`${BUYER} ${PEPPOL_DOCUMENT_TYPES.invoice}`);
    const accessPoint = (await accessPointFor(env.db, deps.secrets, env.org.id))!;
    expect(await accessPoint.canReceive(BUYER, "invoice")).toBe(true);
    expect(await accessPoint.canReceive(BUYER, "credit_note")).toBe(false);
    expect(await accessPoint.canReceive("0208:0000000097", "invoice")).toBe(false);
  });
});

describe("POST /invoices/{id}/send over Peppol, through the delivery worker", () => {
  // a participant id with valid 0208 check digits, as customers must have
  const ISSUED_BUYER = "0208:0404795549";
  test("202, then the worker hands the invoice's own UBL to the access point, addressed to the buyer as issued; the invoice is sent", async () => {
    const ok = async (method: string, path: string, body?: unknown) => {
      const r = await env.api(method, path, body);
      expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBeLessThan(300);
      return r.body.data;
    };
    await ok("PUT", "/api/v1/organization", SELLER_IDENTITY);
    const rate = (await ok("GET", "/api/v1/vat-rates")).find((r: any) => r.rate === "21.00").id;
    const customer = await ok("POST", "/api/v1/customers", { name: "Buyer NV", address: "Markt 1", city: "Brugge", postal_code: "8000", country: "BE", vat_number: "BE0404795549", peppol_id: ISSUED_BUYER });
    const draft = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-02", buyer_reference: "PO-1", lines: [{ description: "Audit", quantity: "1", unit_price: "500.00", vat_rate_id: rate }] });
    const invoice = await ok("POST", `/api/v1/invoices/${draft.id}/finalize`);
    const queued = await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "preferred" });
    expect(queued.status, queued.text).toBe(202);
    expect(queued.body.data).toMatchObject({ channel: "peppol", recipients: { peppol_id: ISSUED_BUYER }, status: "pending" });
    const worker = startDeliveryWorker(env.db, { ...env.config, deliveryTimeoutMs: 5000 }, { secrets: deps.secrets, log: () => {} });
    try {
      let delivery: any;
      for (const until = Date.now() + 15_000; Date.now() < until; await Bun.sleep(50)) {
        delivery = (await ok("GET", `/api/v1/invoices/${invoice.id}/deliveries`))[0];
        if (delivery.status !== "pending") break;
      }
      expect(delivery.status, JSON.stringify(delivery)).toBe("accepted");
      expect(delivery.provider_reference).toMatch(/^doc_/);
    } finally {
      await worker.stop();
    }
    const sent = fake.requests.filter((r) => r.operationId === "sendDocument").at(-1)!;
    expect(sent.body.recipient).toBe(ISSUED_BUYER);
    expect(sent.body.document).toBe((await env.request("GET", `/api/v1/invoices/${invoice.id}/ubl`)).text);
    expect((await ok("GET", `/api/v1/invoices/${invoice.id}`)).status).toBe("sent");
  });
  test("an XRechnung customer receives XRechnung over Peppol too, under XRechnung's document type, as by e-mail", async () => {
    const ok = async (method: string, path: string, body?: unknown) => {
      const r = await env.api(method, path, body);
      expect(r.status, `${method} ${path}: ${r.text.slice(0, 300)}`).toBeLessThan(300);
      return r.body.data;
    };
    await ok("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, contact_name: "Jan Peeters", phone: "+32 9 123 45 67", email: "billing@acme.test" });
    const rate = (await ok("GET", "/api/v1/vat-rates")).find((r: any) => r.rate === "21.00").id;
    const customer = await ok("POST", "/api/v1/customers", {
      name: "Stadt Musterstadt", address: "Rathausplatz 1", city: "Musterstadt", postal_code: "12345", country: "DE",
      einvoice_profile: "xrechnung", peppol_id: ISSUED_BUYER, email: "rechnung@musterstadt.test",
    });
    const draft = await ok("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-02", buyer_reference: "04011000-12345-34", lines: [{ description: "Audit", quantity: "1", unit_price: "500.00", vat_rate_id: rate }] });
    const invoice = await ok("POST", `/api/v1/invoices/${draft.id}/finalize`);
    const queued = await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "peppol" });
    expect(queued.status, queued.text).toBe(202);
    const worker = startDeliveryWorker(env.db, { ...env.config, deliveryTimeoutMs: 5000 }, { secrets: deps.secrets, log: () => {} });
    try {
      let delivery: any;
      for (const until = Date.now() + 15_000; Date.now() < until; await Bun.sleep(50)) {
        delivery = (await ok("GET", `/api/v1/invoices/${invoice.id}/deliveries`))[0];
        if (delivery.status !== "pending") break;
      }
      expect(delivery.status, JSON.stringify(delivery)).toBe("accepted");
    } finally {
      await worker.stop();
    }
    const sent = fake.requests.filter((r) => r.operationId === "sendDocument").at(-1)!;
    expect(sent.body.document).toBe((await env.request("GET", `/api/v1/invoices/${invoice.id}/ubl?profile=xrechnung`)).text);
    expect(sent.body.document).toContain("<cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0</cbc:CustomizationID>");
    // the Peppol document type identifier: the UBL root, then its CustomizationID and syntax version
    expect(sent.body.doctypeId).toBe("urn:oasis:names:specification:ubl:schema:xsd:Invoice-2::Invoice##urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0::2.1");
    // what went over Peppol passes KoSIT's XRechnung rules
    const validation = await validateUbl(sent.body.document, "xrechnung");
    expect(validation.fatal, describeValidation(validation)).toEqual([]);
    expect(validation.xsdErrors).toEqual([]);
  });
});

describe("receiving over Peppol", () => {
  test("a supplier's invoice in the inbox becomes a pending expense with its original, once, and is acknowledged", async () => {
    const xml = readFileSync(EXAMPLE, "utf8");
    fake.documents.set("doc_in_1", { id: "doc_in_1", direction: "incoming", senderId: "0088:9482348239847239874", receiverId: "0208:0123456749", docTypeId: PEPPOL_DOCUMENT_TYPES.invoice, xml, readAt: null, sentOverPeppol: true });
    // the acknowledgement fails the first time: imported, but still in the inbox (a crash between the two is the same)
    fake.script.markAsRead.push({ status: 503, body: "try later" });

    const first = await pollPeppolInbox(deps);
    expect(first.errors).toEqual([]);
    expect(first.documents).toHaveLength(1);
    const [polled] = first.documents;
    expect(polled!.outcome).toBe("imported");
    expect(polled!.kind).toBe("expense");
    expect(polled!.detail).toContain("HTTP 503");
    expect(fake.documents.get("doc_in_1")!.readAt).toBeNull();

    // the expense, as the API shows it: the figures are the example's own (TaxExclusiveAmount, TaxAmount, cbc:ID)
    const expense = await env.api("GET", `/api/v1/expenses/${polled!.id}`);
    expect(expense.status).toBe(200);
    expect(expense.body.data ?? expense.body).toMatchObject({ status: "pending", amount: "1325.00", vat_amount: "331.25", supplier_invoice_number: "Snippet1", document_type: "invoice" });
    expect(xml).toContain('<cbc:TaxExclusiveAmount currencyID="EUR">1325</cbc:TaxExclusiveAmount>');
    expect(xml).toContain('<cbc:TaxAmount currencyID="EUR">331.25</cbc:TaxAmount>');
    const original = await env.request("GET", `/api/v1/expenses/${polled!.id}/document`);
    expect(original.status).toBe(200);
    expect(original.text).toBe(xml);

    // the next poll, through the CLI as an operator runs it: found again, a duplicate, acknowledged now
    const second = await runCli(["peppol", "poll", "--db", env.config.dbPath, "--json"]);
    expect(second.code, second.stderr).toBe(0);
    const secondResult = JSON.parse(second.stdout);
    expect(secondResult.documents).toEqual([
      expect.objectContaining({ organization_id: env.org.id, provider_document_id: "doc_in_1", outcome: "duplicate", id: null }),
    ]);
    expect(fake.documents.get("doc_in_1")!.readAt).not.toBeNull();

    const third = await pollPeppolInbox(deps);
    expect(third.documents).toEqual([]);
    const imported = await env.db.select({ id: expenses.id }).from(expenses).where(eq(expenses.supplierInvoiceNumber, "Snippet1"));
    expect(imported).toEqual([{ id: polled!.id! }]);
  });

  test("a document the import refuses stays in the inbox, reported, and the others are still taken", async () => {
    fake.documents.set("doc_in_2", { id: "doc_in_2", direction: "incoming", senderId: "0088:1", receiverId: "0208:0123456749", docTypeId: PEPPOL_DOCUMENT_TYPES.invoice, xml: "<Order/>", readAt: null, sentOverPeppol: true });
    const result = await pollPeppolInbox(deps, env.org.id);
    expect(result.documents).toEqual([expect.objectContaining({ provider_document_id: "doc_in_2", outcome: "refused" })]);
    expect(fake.documents.get("doc_in_2")!.readAt).toBeNull();
    fake.documents.delete("doc_in_2");
  });

  test("a document with a text longer than the API takes (a 1 MiB seller name) is refused with the element and business term, and stays in the inbox", async () => {
    const xml = readFileSync(EXAMPLE, "utf8").replace("SupplierOfficialName Ltd", "n".repeat(1024 * 1024));
    fake.documents.set("doc_long", { id: "doc_long", direction: "incoming", senderId: "0088:1", receiverId: "0208:0123456749", docTypeId: PEPPOL_DOCUMENT_TYPES.invoice, xml, readAt: null, sentOverPeppol: true });
    const result = await pollPeppolInbox(deps, env.org.id);
    expect(result.documents).toEqual([expect.objectContaining({ provider_document_id: "doc_long", outcome: "refused", id: null })]);
    const detail = result.documents[0]!.detail!;
    expect(detail).toStartWith("/Invoice/cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName: ");
    expect(detail).toContain(`(BT-27) is ${1024 * 1024} characters long`);
    expect(fake.documents.get("doc_long")!.readAt).toBeNull();
    fake.documents.delete("doc_long");
  });

  test("a received document of 11 MiB is refused unread beyond 10 MiB, with the reason, and stays in the inbox", async () => {
    // a valid invoice whose note pads it to 11 MiB: only its size is wrong
    const xml = readFileSync(EXAMPLE, "utf8").replace("<cbc:IssueDate>", `<cbc:Note>${"x".repeat(11 * 1024 * 1024)}</cbc:Note><cbc:IssueDate>`);
    expect(xml.length).toBeGreaterThan(11 * 1024 * 1024);
    fake.documents.set("doc_big", { id: "doc_big", direction: "incoming", senderId: "0088:1", receiverId: "0208:0123456749", docTypeId: PEPPOL_DOCUMENT_TYPES.invoice, xml, readAt: null, sentOverPeppol: true });
    const result = await pollPeppolInbox(deps, env.org.id);
    expect(result.documents).toEqual([
      expect.objectContaining({ provider_document_id: "doc_big", outcome: "refused", detail: expect.stringContaining(`larger than ${10 * 1024 * 1024} bytes`) }),
    ]);
    expect(fake.documents.get("doc_big")!.readAt).toBeNull();
    fake.documents.delete("doc_big");
  });

  test("an inbox answer of 11 MiB is refused while it is read (by its Content-Length, or counted when it has none)", async () => {
    // 30,000 waiting documents make an inbox answer of over 11 MiB
    for (let i = 0; i < 30_000; i++) {
      fake.documents.set(`doc_many_${i}`, { id: `doc_many_${i}`, direction: "incoming", senderId: "0088:1", receiverId: "0208:0123456749", docTypeId: PEPPOL_DOCUMENT_TYPES.invoice, xml: "<Invoice/>", readAt: null, sentOverPeppol: true });
    }
    try {
      const result = await pollPeppolInbox(deps, env.org.id);
      expect(result.documents).toEqual([]);
      expect(result.errors).toEqual([{ organization_id: env.org.id, detail: expect.stringContaining(`larger than ${10 * 1024 * 1024} bytes`) }]);
    } finally {
      for (let i = 0; i < 30_000; i++) fake.documents.delete(`doc_many_${i}`);
    }
    // a provider (or a proxy) streaming without a length and without end: counted and cut at 10 MiB (a
    // reader without a limit would run into the timeout instead, holding all it had read)
    let sent = 0;
    const streaming = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(
          new ReadableStream({
            async pull(controller) {
              if (sent >= 1024 * 1024 * 1024) return controller.close();
              const chunk = new TextEncoder().encode(sent === 0 ? '{"success":true,"documents":["' : "x".repeat(64 * 1024));
              sent += chunk.byteLength;
              controller.enqueue(chunk);
            },
          }),
          { headers: { "content-type": "application/json" } },
        ),
    });
    try {
      const accessPoint = new RecommandAccessPoint({ ...CREDENTIALS, baseUrl: `http://127.0.0.1:${streaming.port}/api/v1` }, 5_000);
      const refused = await accessPoint.inbox().then(
        () => null,
        (error: Error) => error,
      );
      expect(refused?.message).toContain(`larger than ${10 * 1024 * 1024} bytes`);
    } finally {
      await streaming.stop(true);
    }
  });

  test("the fake refuses what the description does not allow (so the check above can fail)", async () => {
    const authorization = `Basic ${Buffer.from(`${CREDENTIALS.apiKey}:${CREDENTIALS.apiSecret}`).toString("base64")}`;
    const attempts: [string, RequestInit][] = [
      // documentType is required; "ubl" is no key of the send body
      [`${fake.baseUrl}/${CREDENTIALS.companyId}/send`, { method: "POST", headers: { authorization, "content-type": "application/json" }, body: JSON.stringify({ recipient: BUYER, ubl: "<Invoice/>" }) }],
      // not Basic
      [`${fake.baseUrl}/inbox`, { headers: { authorization: "Bearer abc" } }],
      // no such route
      [`${fake.baseUrl}/documents/doc_1/acknowledge`, { method: "POST", headers: { authorization, "content-type": "application/json" }, body: "{}" }],
    ];
    const before = fake.violations.length;
    for (const [url, init] of attempts) expect((await fetch(url, init)).status).toBe(400);
    expect(fake.violations.splice(before)).toHaveLength(attempts.length);
  });

  test("every request Kontor made matched Recommand's description", () => {
    expect(fake.violations).toEqual([]);
    expect(new Set(fake.requests.map((r) => r.operationId))).toEqual(new Set(["sendDocument", "getDocument", "getInbox", "markAsRead", "verifyDocumentSupport"]));
  });
});
