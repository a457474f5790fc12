/**
 * Sending by e-mail (issue 29): a real SMTP server on 127.0.0.1 (smtp-server), Kontor's real
 * delivery worker, and what arrived parsed as a mail client would (mailparser): recipients,
 * subject and body in the customer's language, the PDF's text (pdftotext) and the UBL through
 * the CEN and Peppol rules. The server answers 4xx then 250 (retried, delivered once) and 550
 * (failed at once, with its answer in the attempt). The crash test kills a real `kontor worker`
 * between the server's acceptance and the record: one duplicate at most, none lost.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { eq } from "drizzle-orm";
import { organizations } from "../../db/schema.ts";
import { loadSecretBox } from "../../server/lib/secret-box.ts";
import { setOrganizationSmtp } from "../../server/orgs/service.ts";
import type { OutboxWorker } from "../../server/outbox/worker.ts";
import { startDeliveryWorker } from "../../server/sending/worker.ts";
import { describe as describeValidation, validateUbl } from "../einvoicing/validate.ts";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv, databaseEnv, runCli } from "../helpers.ts";
import { startSmtp, type TestSmtp } from "./smtp.ts";
import { embeddedInvoiceXml } from "../../server/inbound/pdf-attachments.ts";
import { firstRow } from "../../db/client.ts";

const smtp: TestSmtp = await startSmtp();
// the server's transport (KONTOR_SMTP_URL, KONTOR_MAIL_FROM), as the API's send checks it
const env = await createTestEnv({ KONTOR_SMTP_URL: smtp.url, KONTOR_MAIL_FROM: "invoices@kontor.test" });
let worker: OutboxWorker;
const secrets = loadSecretBox(env.config);

beforeAll(async () => {
  // a short backoff, so that a retry comes within the test
  worker = startDeliveryWorker(
    env.db,
    { ...env.config, deliveryBackoffMs: [100], deliveryMaxAttempts: 3, deliveryTimeoutMs: 5000 },
    { secrets, log: () => {} },
  );
});
afterAll(async () => {
  await worker.stop();
  await smtp.close();
  env.close();
});

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await env.api(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBeLessThan(300);
  return r.body?.data ?? r.body;
};

let rate21: string;
const ADDRESS = { address: "Veldstraat 10", city: "Gent", postal_code: "9000", country: "BE" };

async function issuedInvoice(customer: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const c = await ok("POST", "/api/v1/customers", { ...ADDRESS, ...customer });
  const draft = await ok("POST", "/api/v1/invoices", {
    customer_id: c.id,
    issue_date: "2026-03-02",
    due_date: "2026-04-01",
    buyer_reference: "PO-77",
    lines: [{ description: "Consulting", quantity: "8", unit_price: "95.00", unit_code: "HUR", vat_rate_id: rate21 }],
    ...extra,
  });
  return { customer: c, invoice: await ok("POST", `/api/v1/invoices/${draft.id}/finalize`) };
}

/** Polls the deliveries of an invoice until the newest is no longer pending. */
async function settled(invoiceId: string, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const list = await ok("GET", `/api/v1/invoices/${invoiceId}/deliveries`);
    if (list[0] && list[0].status !== "pending") return list[0];
    if (Date.now() > until) throw new Error(`delivery still pending: ${JSON.stringify(list[0])}`);
    await Bun.sleep(50);
  }
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "kontor-mail-"));
  writeFileSync(join(dir, "a.pdf"), bytes);
  const proc = Bun.spawn(["pdftotext", "-layout", join(dir, "a.pdf"), "-"], { stdout: "pipe" });
  return new Response(proc.stdout).text();
}

beforeAll(async () => {
  await ok("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, email: "billing@acme.test", mail_sender_name: "Acme Billing", mail_reply_to: "accounts@acme.test" });
  rate21 = (await ok("GET", "/api/v1/vat-rates")).find((r: any) => r.rate === "21.00").id;
});

describe("an invoice sent by e-mail", () => {
  let invoice: any;
  let delivery: any;
  beforeAll(async () => {
    ({ invoice } = await issuedInvoice({ name: "Brouwerij Het Anker", email: "boekhouding@anker.test", language: "nl", vat_number: "BE0404795549", peppol_id: "0208:0404795549" }));
    const r = await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "email", cc: ["zaakvoerder@anker.test"], message: "Zoals besproken." });
    expect(r.status, r.text).toBe(202);
    delivery = r.body.data;
  });

  test("202 with the queued delivery: nothing was sent on the request, the invoice is still finalized", async () => {
    expect(delivery).toMatchObject({ invoice_id: invoice.id, channel: "email", status: "pending", recipients: { to: ["boekhouding@anker.test"], cc: ["zaakvoerder@anker.test"] } });
    expect(delivery.attempts).toEqual([]);
  });

  test("the message arrives: recipients, sender, Dutch subject and body naming the total, due date and payment reference", async () => {
    const [mail] = await smtp.received(1);
    expect(mail!.to).toMatchObject({ value: [{ address: "boekhouding@anker.test" }] });
    expect(mail!.cc).toMatchObject({ value: [{ address: "zaakvoerder@anker.test" }] });
    expect(mail!.from!.value[0]).toEqual({ address: "invoices@kontor.test", name: "Acme Billing" });
    expect(mail!.replyTo!.value[0]!.address).toBe("accounts@acme.test");
    expect(mail!.subject).toBe(`Factuur ${invoice.number} van Acme`);
    const text = mail!.text!;
    expect(text.startsWith("Zoals besproken.")).toBe(true);
    // 8 × 95.00 = 760.00, VAT 21 % = 159.60, total 919.60, written the Dutch way
    expect(text).toMatch(/Totaal: \S*\s?919,60/);
    expect(text).toContain(invoice.payment_reference);
    expect(text).toContain("uiterlijk op 01/04/2026");
  });

  test("attached: the PDF (its text names the number and total) and, issued as an e-invoice, the UBL that passes the CEN and Peppol rules", async () => {
    const mail = smtp.messages[0]!;
    const names = mail.attachments.map((a) => a.filename).sort();
    expect(names).toEqual([`${invoice.number}.pdf`, `${invoice.number}.xml`]);
    const pdf = mail.attachments.find((a) => a.filename!.endsWith(".pdf"))!;
    expect(pdf.contentType).toBe("application/pdf");
    const text = await pdfText(pdf.content);
    expect(text).toContain(invoice.number);
    expect(text).toMatch(/919,60/);
    const ubl = mail.attachments.find((a) => a.filename!.endsWith(".xml"))!.content.toString("utf8");
    const validation = await validateUbl(ubl);
    expect(validation.fatal, describeValidation(validation)).toEqual([]);
    expect(ubl).toContain(`<cbc:ID>${invoice.number}</cbc:ID>`);
  });

  test("the delivery is accepted with one attempt carrying the server's answer; the invoice is sent; invoice.sent is in the events feed", async () => {
    const done = await settled(invoice.id);
    expect(done.status).toBe("accepted");
    expect(done.attempts).toHaveLength(1);
    expect(done.attempts[0]).toMatchObject({ outcome: "accepted" });
    expect(done.attempts[0].detail).toContain("250");
    expect(done.provider_reference).toBe(smtp.messages[0]!.messageId);
    const shown = await ok("GET", `/api/v1/invoices/${invoice.id}`);
    expect(shown.status).toBe("sent");
    expect(shown.sent_at).not.toBeNull();
    const events = await env.api("GET", `/api/v1/events?filter[type]=invoice.sent`);
    expect(events.body.data.map((e: any) => e.data.id)).toContain(invoice.id);
  });

  test("a resend from sent is allowed and arrives again; the status stays sent", async () => {
    const before = smtp.messages.length;
    const r = await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "preferred", to: ["archief@anker.test"] });
    // preferred: the customer has a peppol_id, so Peppol; `to` is for e-mail
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toContain("to");
    const again = await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "email", to: ["archief@anker.test"] });
    expect(again.status).toBe(202);
    await smtp.received(before + 1);
    expect((await settled(invoice.id)).status).toBe("accepted");
    expect((await ok("GET", `/api/v1/invoices/${invoice.id}`)).status).toBe("sent");
  });
});

describe("any issued document is sent, whatever its settlement, as it was issued", () => {
  test("a paid invoice: resent by e-mail with the PDF and UBL it was issued with (total 919.60 due, no payment shown); it stays paid, sent_at set", async () => {
    const { invoice } = await issuedInvoice({ name: "Paid Up BV", email: "ap@paidup.test", language: "nl", vat_number: "BE0404795549", peppol_id: "0208:0404795549" });
    await ok("POST", `/api/v1/invoices/${invoice.id}/record-payment`, { amount: "919.60", payment_date: "2026-03-20" });
    expect((await ok("GET", `/api/v1/invoices/${invoice.id}`)).status).toBe("paid");
    const before = smtp.messages.length;
    const r = await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "email" });
    expect(r.status, r.text).toBe(202);
    const mail = (await smtp.received(before + 1)).at(-1)!;
    expect(mail.to).toMatchObject({ value: [{ address: "ap@paidup.test" }] });
    const text = await pdfText(mail.attachments.find((a) => a.filename === `${invoice.number}.pdf`)!.content);
    // as issued: 8 × 95.00 + 21 % = 919.60 to pay, and no line for the payment recorded since
    expect(text).toMatch(/Te betalen\s+€?\s?919,60/);
    expect(text).not.toMatch(/Betaald/);
    const ubl = mail.attachments.find((a) => a.filename === `${invoice.number}.xml`)!.content.toString("utf8");
    expect(ubl).toContain(`<cbc:PayableAmount currencyID="EUR">919.60</cbc:PayableAmount>`);
    expect(ubl).not.toContain("PrepaidAmount");
    expect((await settled(invoice.id)).status).toBe("accepted");
    const shown = await ok("GET", `/api/v1/invoices/${invoice.id}`);
    expect(shown.status).toBe("paid");
    expect(shown.sent_at).not.toBeNull();
  });

  test("a credit note that settled its invoice (paid at its finalize) is sent by e-mail; marked sent by hand it keeps its status", async () => {
    const { invoice } = await issuedInvoice({ name: "Credited SPRL", email: "compta@credited.test", language: "fr" });
    const draft = await ok("POST", `/api/v1/invoices/${invoice.id}/credit-note`);
    const note = await ok("POST", `/api/v1/invoices/${draft.id}/finalize`);
    expect(note.status).toBe("paid");
    const before = smtp.messages.length;
    const r = await env.api("POST", `/api/v1/invoices/${note.id}/send`, { channel: "email" });
    expect(r.status, r.text).toBe(202);
    const mail = (await smtp.received(before + 1)).at(-1)!;
    expect(mail.attachments.map((a) => a.filename)).toEqual([`${note.number}.pdf`]);
    expect((await settled(note.id)).status).toBe("accepted");
    const marked = await env.api("POST", `/api/v1/invoices/${note.id}/send`);
    expect(marked.status, marked.text).toBe(200);
    expect(marked.body.data.status).toBe("paid");
    expect(marked.body.data.sent_at).not.toBeNull();
    // a cancelled document asks nothing and is not sent
    const { invoice: other } = await issuedInvoice({ name: "Cancelled NV", email: "x@cancelled.test" });
    await ok("POST", `/api/v1/invoices/${other.id}/cancel`);
    const refused = await env.api("POST", `/api/v1/invoices/${other.id}/send`, { channel: "email" });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain("cancelled");
  });
});

describe("what the SMTP server answers", () => {
  test("4xx then 250: retried, delivered once; the first attempt keeps the server's 451", async () => {
    const { invoice } = await issuedInvoice({ name: "Retry BV", email: "retry@example.test" });
    const before = smtp.messages.length;
    smtp.refuseNext([451]);
    expect((await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "email" })).status).toBe(202);
    const done = await settled(invoice.id);
    expect(done.status).toBe("accepted");
    expect(done.attempts.map((a: any) => a.outcome)).toEqual(["retry", "accepted"]);
    expect(done.attempts[0].detail).toContain("451");
    expect(smtp.messages.length).toBe(before + 1);
    expect(smtp.messages.at(-1)!.to).toMatchObject({ value: [{ address: "retry@example.test" }] });
  });

  test("550 unknown recipient: failed at once with the server's answer, invoice.delivery_failed, the invoice stays finalized", async () => {
    const { invoice } = await issuedInvoice({ name: "Gone NV", email: "unknown.person@example.test" });
    const before = smtp.messages.length;
    expect((await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "email" })).status).toBe(202);
    const done = await settled(invoice.id);
    expect(done.status).toBe("failed");
    expect(done.attempts).toHaveLength(1);
    expect(done.attempts[0].outcome).toBe("failed");
    expect(done.last_error).toContain("550");
    expect(done.last_error).toContain("User unknown");
    expect(smtp.messages.length).toBe(before);
    expect((await ok("GET", `/api/v1/invoices/${invoice.id}`)).status).toBe("finalized");
    const events = await env.api("GET", `/api/v1/events?filter[type]=invoice.delivery_failed`);
    expect(events.body.data.map((e: any) => e.data.id)).toContain(invoice.id);
  });

  test("an organisation's own SMTP URL with credentials on a server without STARTTLS: refused before AUTH, failed with that said; the URL is stored sealed", async () => {
    const plain = await startSmtp({ hideSTARTTLS: true, authOptional: false, onAuth: (_auth, _session, cb) => cb(null, { user: "x" }) });
    try {
      const other = await env.newOrg("Own Relay BV");
      const orgOk = async (method: string, path: string, body?: unknown) => {
        const r = await env.api(method, path, body, other.token);
        expect(r.status, r.text).toBeLessThan(300);
        return r.body.data;
      };
      await orgOk("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, email: "billing@own.test" });
      await setOrganizationSmtp(env.db, other.org, `smtp://mailer:s3cret@127.0.0.1:${plain.port}`, secrets);
      const stored = (await firstRow(env.db.select({ smtpUrl: organizations.smtpUrl }).from(organizations).where(eq(organizations.id, other.org.id))))!.smtpUrl!;
      expect(stored).not.toContain("s3cret");
      expect((await orgOk("GET", "/api/v1/organization")).own_smtp).toBe(true);
      const rate = (await orgOk("GET", "/api/v1/vat-rates")).find((r: any) => r.rate === "21.00").id;
      const c = await orgOk("POST", "/api/v1/customers", { ...ADDRESS, name: "Client", email: "client@example.test" });
      const d = await orgOk("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2026-03-02", lines: [{ description: "Work", quantity: "1", unit_price: "10.00", vat_rate_id: rate }] });
      const inv = await orgOk("POST", `/api/v1/invoices/${d.id}/finalize`);
      expect((await env.api("POST", `/api/v1/invoices/${inv.id}/send`, { channel: "email" }, other.token)).status).toBe(202);
      const until = Date.now() + 15_000;
      let done: any;
      while (Date.now() < until) {
        done = (await env.api("GET", `/api/v1/invoices/${inv.id}/deliveries`, undefined, other.token)).body.data[0];
        if (done.status !== "pending") break;
        await Bun.sleep(50);
      }
      expect(done.status).toBe("failed");
      expect(done.last_error).toContain("STARTTLS");
      expect(plain.messages).toHaveLength(0);
    } finally {
      await plain.close();
    }
  });
});

describe("which SMTP server sends, and as whom (docs/sending.md#e-mail)", () => {
  test("an organisation's own relay is used even when the server has one: the message reaches it alone, from KONTOR_MAIL_FROM", async () => {
    const relay = await startSmtp();
    try {
      const own = await env.newOrg("Own Relay Too BV");
      const call = async (method: string, path: string, body?: unknown) => env.api(method, path, body, own.token);
      await call("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, email: "billing@ownrelay.test" });
      await setOrganizationSmtp(env.db, own.org, relay.url, secrets);
      const rate = (await call("GET", "/api/v1/vat-rates")).body.data.find((r: any) => r.rate === "21.00").id;
      const c = (await call("POST", "/api/v1/customers", { ...ADDRESS, name: "Client", email: "own-relay@example.test" })).body.data;
      const d = (await call("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2026-03-02", lines: [{ description: "Work", quantity: "1", unit_price: "10.00", vat_rate_id: rate }] })).body.data;
      const invoice = (await call("POST", `/api/v1/invoices/${d.id}/finalize`)).body.data;
      const before = smtp.messages.length;
      expect((await call("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "email" })).status).toBe(202);
      const [mail] = await relay.received(1);
      // the server has KONTOR_MAIL_FROM: it is the sender on every relay; replies go to the organisation
      expect(mail!.from!.value[0]!.address).toBe("invoices@kontor.test");
      expect(mail!.replyTo!.value[0]!.address).toBe("billing@ownrelay.test");
      const until = Date.now() + 15_000;
      let delivery: any;
      do {
        delivery = (await call("GET", `/api/v1/invoices/${invoice.id}/deliveries`)).body.data[0];
        if (delivery.status !== "pending") break;
        await Bun.sleep(50);
      } while (Date.now() < until);
      expect(delivery.status).toBe("accepted");
      // nothing reached the server's own SMTP server for this recipient
      expect(smtp.messages.slice(before).filter((m) => JSON.stringify(m.to).includes("own-relay@example.test"))).toHaveLength(0);
    } finally {
      await relay.close();
    }
  });
});

describe("the e-invoice an e-mail carries follows the customer's einvoice_profile (issue 31)", () => {
  test("facturx: one attachment, the Factur-X PDF whose factur-x.xml is GET /cii byte for byte", async () => {
    const { invoice } = await issuedInvoice({ name: "Société Factur-X SAS", email: "compta@fx.test", einvoice_profile: "facturx" });
    const before = smtp.messages.length;
    expect((await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "email" })).status).toBe(202);
    await smtp.received(before + 1);
    const mail = smtp.messages.at(-1)!;
    expect(mail.attachments.map((a) => a.filename)).toEqual([`${invoice.number}.pdf`]);
    const embedded = await embeddedInvoiceXml(new Uint8Array(mail.attachments[0]!.content));
    expect(embedded?.name).toBe("factur-x.xml");
    expect(new TextDecoder().decode(embedded!.xml)).toBe((await env.request("GET", `/api/v1/invoices/${invoice.id}/cii`)).text);
  });

  test("xrechnung: the XRechnung UBL beside the PDF", async () => {
    await ok("PUT", "/api/v1/organization", { contact_name: "Jan Peeters", phone: "+32 9 123 45 67" });
    const { invoice } = await issuedInvoice(
      { name: "Stadt Musterstadt", email: "rechnung@musterstadt.test", einvoice_profile: "xrechnung", address: "Rathausplatz 1", city: "Musterstadt", postal_code: "12345", country: "DE" },
      { buyer_reference: "04011000-12345-34" },
    );
    const before = smtp.messages.length;
    expect((await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "email" })).status).toBe(202);
    await smtp.received(before + 1);
    const mail = smtp.messages.at(-1)!;
    expect(mail.attachments.map((a) => a.filename).sort()).toEqual([`${invoice.number}.pdf`, `${invoice.number}.xml`]);
    const xml = mail.attachments.find((a) => a.filename!.endsWith(".xml"))!.content.toString("utf8");
    expect(xml).toContain("urn:xeinkauf.de:kosit:xrechnung_3.0");
    expect(xml).toBe((await env.request("GET", `/api/v1/invoices/${invoice.id}/ubl?profile=xrechnung`)).text);
    // and passes KoSIT's XRechnung rules
    const validation = await validateUbl(xml, "xrechnung");
    expect(validation.fatal, describeValidation(validation)).toEqual([]);
    expect(validation.xsdErrors).toEqual([]);
  });
});

describe("what a send refuses at once (nothing queued)", () => {
  let invoice: any;
  beforeAll(async () => {
    ({ invoice } = await issuedInvoice({ name: "No Mail SRL" }));
  });

  test("e-mail with no address to send to: 422 naming `to`", async () => {
    const r = await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "email" });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(["to"]);
    expect(await ok("GET", `/api/v1/invoices/${invoice.id}/deliveries`)).toEqual([]);
  });

  test("Peppol to a buyer issued without a peppol_id: 422 naming `channel`", async () => {
    const r = await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "peppol" });
    expect(r.status).toBe(422);
    expect(r.body.errors.channel[0]).toContain("peppol_id");
  });

  test("`preferred` without a peppol_id is e-mail; malformed addresses and unknown fields are 422s", async () => {
    expect((await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "preferred" })).body.errors).toHaveProperty("to");
    expect((await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "email", to: ["not an address"] })).status).toBe(422);
    expect((await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "fax" })).status).toBe(422);
    const stray = await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { to: ["a@example.test"] });
    expect(stray.body.errors, stray.text).toHaveProperty("to");
  });

  test("without a channel, `{}` or `manual`: marked sent as before (200 with the invoice); a draft is a 409", async () => {
    const r = await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, {});
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.status).toBe("sent");
    const { invoice: other } = await issuedInvoice({ name: "Manual NV" });
    const manual = await env.request("POST", `/api/v1/invoices/${other.id}/send`, { body: { channel: "manual" } });
    expect(manual.body.data.status).toBe("sent");
    const c = await ok("POST", "/api/v1/customers", { name: "Draft Co", email: "d@example.test" });
    const draft = await ok("POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2026-03-02", lines: [{ description: "x", quantity: "1", unit_price: "1.00" }] });
    const refused = await env.api("POST", `/api/v1/invoices/${draft.id}/send`, { channel: "email" });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain("draft");
  });
});

describe("send at finalize", () => {
  test("an organisation that sends at finalize queues the delivery in the finalize; one the channel cannot take is finalized, its delivery failed and said", async () => {
    await ok("PUT", "/api/v1/organization", { send_on_finalize: "preferred" });
    try {
      const before = smtp.messages.length;
      const { invoice } = await issuedInvoice({ name: "Auto NV", email: "auto@example.test" });
      await smtp.received(before + 1);
      expect(smtp.messages.at(-1)!.subject).toBe(`Invoice ${invoice.number} from Acme`);
      expect((await settled(invoice.id)).status).toBe("accepted");
      const { invoice: unreachable } = await issuedInvoice({ name: "No Address NV" });
      expect(unreachable.status).toBe("finalized");
      const [failed] = await ok("GET", `/api/v1/invoices/${unreachable.id}/deliveries`);
      expect(failed.status).toBe("failed");
      expect(failed.last_error).toContain("e-mail address");
    } finally {
      await ok("PUT", "/api/v1/organization", { send_on_finalize: null });
    }
  });
});

describe("a worker killed between the SMTP server's acceptance and the delivery's record", () => {
  test("the next worker sends it again once the lease runs out: one duplicate (same Message-ID), none lost, the invoice sent", async () => {
    const { invoice } = await issuedInvoice({ name: "Crash GmbH", email: "crash@example.test", language: "de" });
    // the in-process worker must not take this one: stop it, queue, and let real processes race
    await worker.stop();
    expect((await env.api("POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "email" })).status).toBe(202);
    const before = smtp.messages.length;
    const processEnv = {
      ...databaseEnv(env.config.dbPath),
      KONTOR_SMTP_URL: smtp.url,
      KONTOR_MAIL_FROM: "invoices@kontor.test",
      // the channel's limit, which sizes the lease (twice it): what the next worker waits for
      KONTOR_DELIVERY_TIMEOUT_MS: "1500",
    };
    const spawnWorker = (extra: Record<string, string>) =>
      Bun.spawn(["bun", join(import.meta.dir, "../../cli/main.ts"), "worker"], { env: { ...process.env, KONTOR_ENV: "test", ...processEnv, ...extra }, stdout: "ignore", stderr: "ignore" });
    const first = spawnWorker({ KONTOR_TEST_DELIVERY_PAUSE_MS: "20000" });
    await smtp.received(before + 1, 20_000);
    first.kill("SIGKILL");
    await first.exited;
    const [row] = await ok("GET", `/api/v1/invoices/${invoice.id}/deliveries`);
    expect(row.status).toBe("pending");
    expect(row.attempts).toEqual([]);
    const second = spawnWorker({});
    try {
      const done = await settled(invoice.id, 20_000);
      expect(done.status).toBe("accepted");
      expect(done.attempts.map((a: any) => a.outcome)).toEqual(["accepted"]);
    } finally {
      second.kill("SIGTERM");
      await second.exited;
    }
    const copies = smtp.messages.slice(before);
    expect(copies).toHaveLength(2);
    expect(copies[0]!.messageId).toBe(copies[1]!.messageId!);
    expect(copies[0]!.subject).toBe(`Rechnung ${invoice.number} von Acme`);
    expect((await ok("GET", `/api/v1/invoices/${invoice.id}`)).status).toBe("sent");
  }, 60_000);
});

describe("kontor org set", () => {
  test("--smtp-url is checked, stored sealed, and cleared with an empty value; the API shows only own_smtp", async () => {
    const bad = await runCli(["org", "set", env.org.id, "--smtp-url", "http://mail.example.com"], { KONTOR_DB: env.config.dbPath });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("smtp://");
    const set = await runCli(["org", "set", env.org.id, "--smtp-url", "smtps://u:pw@mail.example.com", "--json"], { KONTOR_DB: env.config.dbPath });
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout).own_smtp).toBe(true);
    expect(set.stdout).not.toContain("pw@");
    const stored = (await firstRow(env.db.select({ smtpUrl: organizations.smtpUrl }).from(organizations).where(eq(organizations.id, env.org.id))))!.smtpUrl!;
    expect(stored).not.toContain("mail.example.com");
    const cleared = await runCli(["org", "set", env.org.id, "--smtp-url", "", "--json"], { KONTOR_DB: env.config.dbPath });
    expect(JSON.parse(cleared.stdout).own_smtp).toBe(false);
  });
});

describe("an organisation's own mail server, on a server with none of its own", () => {
  test("no KONTOR_SMTP_URL: the organisation's smtp_url alone sends (202, delivered, from its own address); another organisation without one is a 422 naming channel", async () => {
    const alone = await createTestEnv();
    const relay = await startSmtp();
    const aloneSecrets = loadSecretBox(alone.config);
    const aloneWorker = startDeliveryWorker(alone.db, { ...alone.config, deliveryBackoffMs: [100], deliveryMaxAttempts: 3, deliveryTimeoutMs: 5000 }, { secrets: aloneSecrets, log: () => {} });
    try {
      const own = await alone.newOrg("Own Mail BV");
      const bare = await alone.newOrg("No Mail BV");
      const call = async (token: string, method: string, path: string, body?: unknown) => alone.api(method, path, body, token);
      const issue = async (token: string) => {
        await call(token, "PUT", "/api/v1/organization", { ...SELLER_IDENTITY, email: "billing@ownmail.test" });
        const rate = (await call(token, "GET", "/api/v1/vat-rates")).body.data.find((r: any) => r.rate === "21.00").id;
        const c = (await call(token, "POST", "/api/v1/customers", { ...ADDRESS, name: "Client", email: "client@example.test" })).body.data;
        const d = (await call(token, "POST", "/api/v1/invoices", { customer_id: c.id, issue_date: "2026-03-02", lines: [{ description: "Work", quantity: "1", unit_price: "10.00", vat_rate_id: rate }] })).body.data;
        return (await call(token, "POST", `/api/v1/invoices/${d.id}/finalize`)).body.data;
      };
      await setOrganizationSmtp(alone.db, own.org, relay.url, aloneSecrets);
      const invoice = await issue(own.token);
      const sent = await call(own.token, "POST", `/api/v1/invoices/${invoice.id}/send`, { channel: "email" });
      expect(sent.status, sent.text).toBe(202);
      const [mail] = await relay.received(1);
      expect(mail!.from!.value[0]!.address).toBe("billing@ownmail.test");
      expect(mail!.to).toMatchObject({ value: [{ address: "client@example.test" }] });

      const other = await issue(bare.token);
      const refused = await call(bare.token, "POST", `/api/v1/invoices/${other.id}/send`, { channel: "email" });
      expect(refused.status).toBe(422);
      expect(Object.keys(refused.body.errors)).toEqual(["channel"]);
    } finally {
      await aloneWorker.stop();
      await relay.close();
      alone.close();
    }
  });
});
