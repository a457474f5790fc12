/**
 * Reminders a customer can pay (docs/reminders.md#what-a-reminder-asks): a real SMTP server and a
 * fake Recommand access point on 127.0.0.1, Kontor's real delivery worker rendering what the
 * reminder runs recorded. The reminder's e-mail carries the interest note it issued (its PDF, and
 * for a Peppol customer its UBL, which passes the CEN and Peppol rules), the Peppol customer gets
 * the note over Peppol as a delivery of its own, and the note is sent. The letter's payment block
 * gives the invoice's own reference and one total (the invoice's amount due plus its open interest
 * notes, worked out by hand below), and a CAMT statement line of exactly that total carrying that
 * reference pays the invoice and both its notes.
 *
 * Every run is dated in 2025 (an interest note is never issued after today), so the figures do
 * not move with the calendar. Both half years are at 10.50 % (server/interest/rates-be.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { reminders } from "../../db/schema.ts";
import { loadSecretBox } from "../../server/lib/secret-box.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { renderReminderForDelivery } from "../../server/reminders/read.ts";
import { onReminderAccepted, runReminders } from "../../server/reminders/run.ts";
import { setPeppolAccessPoint } from "../../server/sending/peppol/settings.ts";
import type { OutboxWorker } from "../../server/outbox/worker.ts";
import { startDeliveryWorker } from "../../server/sending/worker.ts";
import { describe as describeValidation, validateUbl } from "../einvoicing/validate.ts";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv, TEST_IBAN } from "../helpers.ts";
import { startFakeRecommand } from "../sending/recommand-fake.ts";
import { startSmtp } from "../sending/smtp.ts";
import { firstRow } from "../../db/client.ts";

const smtp = await startSmtp();
const CREDENTIALS = { apiKey: "key_rem", apiSecret: "secret_rem", companyId: "c_REM" };
const fake = startFakeRecommand(CREDENTIALS);
const env = await createTestEnv({ KONTOR_SMTP_URL: smtp.url, KONTOR_MAIL_FROM: "invoices@kontor.test" });
const secrets = loadSecretBox(env.config);
let worker: OutboxWorker;

afterAll(async () => {
  await worker?.stop();
  await smtp.close();
  fake.stop();
  env.close();
});

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await env.api(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBeLessThan(300);
  return r.body?.data ?? r.body;
};

async function pdfText(bytes: Uint8Array): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "kontor-reminder-"));
  writeFileSync(join(dir, "a.pdf"), bytes);
  return Bun.spawnSync(["pdftotext", "-layout", join(dir, "a.pdf"), "-"]).stdout.toString().replace(/\u00a0/g, " ");
}

/** Waits until `check` holds (the worker sends on its own). */
async function until<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(value).slice(0, 600)}`);
    await Bun.sleep(50);
  }
}

const reminderOf = async (invoiceId: string, level: number) => (await firstRow(env.db.select().from(reminders).where(and(eq(reminders.invoiceId, invoiceId), eq(reminders.level, level)))))!;
const ADDRESS = { address: "Veldstraat 10", city: "Gent", postal_code: "9000", country: "BE" };
const PEPPOL_BUYER = "0208:0404795549";

// 1000.00 + 21 % VAT = 1210.00, issued 1 September 2025, due 1 October 2025
const INVOICE_CENTS = 121_000;
// First reminder, 11 October (due + 10): interest 2 to 11 October, 10 days at 10.50 % on 1210.00:
// 121000 × 1050 × 10 / 3 650 000 = 348.08 → 3.48; the fixed compensation 40.00. Note 1: 43.48.
const NOTE1_CENTS = 348 + 4000;
// Second reminder, 10 November (due + 40): the running sum over 40 days, 121000 × 1050 × 40 /
// 3 650 000 = 1392.33 → 13.92, less the 3.48 charged: 10.44, no compensation (once per invoice).
const NOTE2_CENTS = 1392 - 348;
// What each letter asks: the invoice, its open notes, the note it issues.
const FIRST_TOTAL = INVOICE_CENTS + NOTE1_CENTS; // 1253.48
const SECOND_TOTAL = INVOICE_CENTS + NOTE1_CENTS + NOTE2_CENTS; // 1263.92
const nl = (cents: number) => {
  const [units, hundredths] = (cents / 100).toFixed(2).split(".");
  return `${units!.replace(/\B(?=(\d{3})+$)/g, ".")},${hundredths}`;
};

let peppolInvoice: any;
let mailInvoice: any;

beforeAll(async () => {
  await ok("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, email: "billing@acme.test" });
  await setPeppolAccessPoint({ db: env.db, org: env.org, actor: CLI_ACTOR }, secrets, { provider: "recommand", ...CREDENTIALS, baseUrl: fake.baseUrl });
  const rate21 = (await ok("GET", "/api/v1/vat-rates")).find((r: any) => r.rate === "21.00").id;
  const issue = async (customer: Record<string, unknown>) => {
    const c = await ok("POST", "/api/v1/customers", { ...ADDRESS, language: "nl", ...customer });
    const draft = await ok("POST", "/api/v1/invoices", {
      customer_id: c.id, issue_date: "2025-09-01", due_date: "2025-10-01", buyer_reference: "PO-2025-9",
      lines: [{ description: "Brouwadvies", quantity: "1", unit_price: "1000.00", vat_rate_id: rate21 }],
    });
    return ok("POST", `/api/v1/invoices/${draft.id}/finalize`);
  };
  peppolInvoice = await issue({ name: "Brouwerij Het Anker", vat_number: "BE0404795549", peppol_id: PEPPOL_BUYER, email: "boekhouding@anker.test" });
  mailInvoice = await issue({ name: "Café De Zon", vat_number: "BE0428759497", email: "zon@cafe.test" });
  expect([peppolInvoice.total, mailInvoice.total]).toEqual(["1210.00", "1210.00"]);
  await ok("PUT", "/api/v1/reminder-policy", {
    enabled: true,
    channel: "email",
    levels: [
      { days_after_due: 10, charge_interest: true, charge_compensation: true },
      { days_after_due: 40, charge_interest: true, charge_compensation: true },
    ],
  });
  worker = startDeliveryWorker(env.db, { ...env.config, deliveryBackoffMs: [100], deliveryMaxAttempts: 3, deliveryTimeoutMs: 5000 }, {
    secrets,
    log: () => {},
    renderReminder: renderReminderForDelivery,
    onReminderAccepted,
  });
});

describe("the first reminder: the interest note travels with it", () => {
  let note1: any;
  let mailNote1: any;
  let mails: Record<string, any>;

  beforeAll(async () => {
    const [run] = await runReminders(env.db, { date: "2025-10-11", orgId: env.org.id });
    expect(run!.recorded).toBe(2);
    note1 = await ok("GET", `/api/v1/invoices/${(await reminderOf(peppolInvoice.id, 0)).interestNoteId}`);
    mailNote1 = await ok("GET", `/api/v1/invoices/${(await reminderOf(mailInvoice.id, 0)).interestNoteId}`);
    await smtp.received(2);
    mails = Object.fromEntries(smtp.messages.map((m) => [m.to && !Array.isArray(m.to) ? m.to.value[0]!.address : "", m]));
  });

  test("the run issued one interest note per invoice, by hand 3.48 interest + 40.00 compensation, and queued the Peppol customer's over Peppol", async () => {
    for (const note of [note1, mailNote1]) {
      expect(note).toMatchObject({ type: "interest_note", total: (NOTE1_CENTS / 100).toFixed(2) });
      expect(note.payment_reference).toBeTruthy();
    }
    expect(note1.related_invoice_id).toBe(peppolInvoice.id);
    // a Peppol customer: the note is a delivery of its own, over Peppol, to the buyer as issued
    const own = (await ok("GET", `/api/v1/invoices/${note1.id}/deliveries`)).filter((d: any) => d.subject === "invoice");
    expect(own.map((d: any) => [d.channel, d.recipients])).toEqual([["peppol", { peppol_id: PEPPOL_BUYER }]]);
    // the e-mail customer's goes with its reminder only
    expect((await ok("GET", `/api/v1/invoices/${mailNote1.id}/deliveries`)).map((d: any) => [d.subject, d.channel])).toEqual([["reminder", "email"]]);
  });

  test("the Peppol customer's e-mail carries the reminder letter, the note's PDF and the note's UBL (valid CEN and Peppol)", async () => {
    const mail = mails["boekhouding@anker.test"];
    expect(mail.attachments.map((a: any) => a.filename).sort()).toEqual([`${note1.number}.pdf`, `${note1.number}.xml`, `${peppolInvoice.number}-reminder.pdf`].sort());
    const ubl = mail.attachments.find((a: any) => a.filename === `${note1.number}.xml`).content.toString("utf8");
    expect(ubl).toContain(`<cbc:ID>${note1.number}</cbc:ID>`);
    expect(ubl).toContain("<cbc:InvoiceTypeCode>383</cbc:InvoiceTypeCode>");
    const validation = await validateUbl(ubl);
    expect(validation.fatal, describeValidation(validation)).toEqual([]);
    // the note's own PDF keeps its own reference
    const notePdf = await pdfText(mail.attachments.find((a: any) => a.filename === `${note1.number}.pdf`).content);
    expect(notePdf).toContain(note1.number);
    expect(notePdf).toContain(note1.payment_reference);
  });

  test("the e-mail customer (no e-invoice) gets the letter and the note's PDF, no XML", async () => {
    const mail = mails["zon@cafe.test"];
    expect(mail.attachments.map((a: any) => a.filename).sort()).toEqual([`${mailInvoice.number}-reminder.pdf`, `${mailNote1.number}.pdf`].sort());
  });

  test("the letter's payment block: the invoice's own reference and the total of invoice and note, 1253.48", async () => {
    const mail = mails["boekhouding@anker.test"];
    const letter = await pdfText(mail.attachments.find((a: any) => a.filename === `${peppolInvoice.number}-reminder.pdf`).content);
    const block = letter.slice(letter.indexOf("Betaling"));
    expect(block).toContain(peppolInvoice.payment_reference);
    expect(block).not.toContain(note1.payment_reference);
    expect(block).toMatch(new RegExp(`Totaal te betalen\\s+${nl(FIRST_TOTAL).replace(".", "\\.")}`));
    // the table: the invoice, then the interest and the compensation of the note it issued
    expect(letter).toMatch(new RegExp(`Verwijlintresten \\(intrestnota ${note1.number}\\)\\s+3,48`));
    expect(letter).toMatch(new RegExp(`Vergoeding voor invorderingskosten \\(intrestnota ${note1.number}\\)\\s+40,00`));
    // the e-mail's text says the same
    const text = mail.text.replace(/\u00a0/g, " ");
    expect(text).toContain(`Totaal te betalen: ${nl(FIRST_TOTAL)} €`);
    // a Belgian structured communication, named as such in Dutch
    expect(text).toContain(`Gestructureerde mededeling: ${peppolInvoice.payment_reference}`);
    expect(text).toContain(TEST_IBAN);
    // and the API
    expect((await ok("GET", `/api/v1/reminders/${(await reminderOf(peppolInvoice.id, 0)).id}`)).total_to_pay).toBe((FIRST_TOTAL / 100).toFixed(2));
  });

  test("the note is sent: over Peppol its own UBL, and sent with its deliveries (sent_at, status sent)", async () => {
    const deliveries = await until(
      "the note's deliveries accepted",
      () => ok("GET", `/api/v1/invoices/${note1.id}/deliveries`),
      (list: any[]) => list.length === 2 && list.every((d) => d.status === "accepted"),
    );
    expect(deliveries.map((d: any) => [d.subject, d.channel]).sort()).toEqual([["invoice", "peppol"], ["reminder", "email"]]);
    const sent = fake.requests.filter((r) => r.operationId === "sendDocument");
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body.recipient).toBe(PEPPOL_BUYER);
    expect(sent[0]!.body.document).toBe((await env.request("GET", `/api/v1/invoices/${note1.id}/ubl`)).text);
    expect(fake.violations).toEqual([]);
    for (const id of [note1.id, mailNote1.id]) {
      const note = await until("the note sent", () => ok("GET", `/api/v1/invoices/${id}`), (n: any) => n.status === "sent");
      expect(note.sent_at).toBeTruthy();
    }
    // the invoice it reminds of is not itself sent again: its status is its own
    expect((await ok("GET", `/api/v1/invoices/${peppolInvoice.id}`)).status).toBe("finalized");
  });
});

describe("the second reminder: one total for the invoice and both notes, paid by one bank line", () => {
  let note1Id: string;
  let note2: any;

  beforeAll(async () => {
    await until("the first reminders accepted", () => ok("GET", "/api/v1/reminders"), (list: any[]) => list.every((r) => r.status === "sent"));
    await runReminders(env.db, { date: "2025-11-10", orgId: env.org.id });
    note1Id = (await reminderOf(peppolInvoice.id, 0)).interestNoteId!;
    note2 = await ok("GET", `/api/v1/invoices/${(await reminderOf(peppolInvoice.id, 1)).interestNoteId}`);
    await smtp.received(4);
  });

  test("the new note charges 10.44 of interest and no compensation; the letter asks 1210.00 + 43.48 + 10.44 = 1263.92 with the invoice's reference", async () => {
    expect(note2.total).toBe((NOTE2_CENTS / 100).toFixed(2));
    const shown = await ok("GET", `/api/v1/reminders/${(await reminderOf(peppolInvoice.id, 1)).id}`);
    expect(shown).toMatchObject({ amount_due: "1210.00", interest: "10.44", compensation: "0.00", total_to_pay: (SECOND_TOTAL / 100).toFixed(2), missing_rates: [] });
    const mail = smtp.messages.slice(2).find((m: any) => m.to.value[0].address === "boekhouding@anker.test")!;
    const letter = await pdfText(mail.attachments.find((a: any) => a.filename === `${peppolInvoice.number}-reminder.pdf`)!.content);
    const note1 = await ok("GET", `/api/v1/invoices/${note1Id}`);
    // the earlier note still open is asked with it, by its number and what it has due
    expect(letter).toMatch(new RegExp(`Intrestnota ${note1.number}\\s+11/10/2025\\s+43,48`));
    const block = letter.slice(letter.indexOf("Betaling"));
    expect(block).toContain(peppolInvoice.payment_reference);
    expect(block).toMatch(new RegExp(`Totaal te betalen\\s+${nl(SECOND_TOTAL).replace(".", "\\.")}`));
    expect(mail.attachments.map((a: any) => a.filename).sort()).toEqual([`${note2.number}.pdf`, `${note2.number}.xml`, `${peppolInvoice.number}-reminder.pdf`].sort());
  });

  test("a CAMT line of exactly that total with the invoice's reference pays the invoice and both notes", async () => {
    await until("the second note sent", () => ok("GET", `/api/v1/invoices/${note2.id}`), (n: any) => n.status === "sent");
    const bank = (await ok("GET", "/api/v1/bank-accounts")).find((a: any) => a.iban === TEST_IBAN);
    const amount = (SECOND_TOTAL / 100).toFixed(2);
    const date = "2025-11-14";
    const camt = `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr><MsgId>REM-1</MsgId><CreDtTm>${date}T18:00:00</CreDtTm></GrpHdr><Stmt><Id>REM-1</Id><CreDtTm>${date}T18:00:00</CreDtTm><Acct><Id><IBAN>${TEST_IBAN}</IBAN></Id><Ccy>EUR</Ccy></Acct><Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal><Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal><Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${date}</Dt></BookgDt><ValDt><Dt>${date}</Dt></ValDt><AcctSvcrRef>REM-1-0</AcctSvcrRef><NtryDtls><TxDtls><RmtInf><Strd><CdtrRefInf><Ref>${peppolInvoice.payment_reference}</Ref></CdtrRefInf></Strd></RmtInf></TxDtls></NtryDtls></Ntry></Stmt></BkToCstmrStmt></Document>`;
    const r = await env.request("POST", `/api/v1/bank-accounts/${bank.id}/statements`, { rawBody: camt, headers: { "content-type": "application/xml" } });
    expect(r.status, r.text).toBe(201);
    const line = r.body.data.transactions[0];
    expect(line).toMatchObject({ status: "matched", invoice_id: peppolInvoice.id, unallocated_amount: "0.00" });
    expect(line.allocations.map((a: any) => [a.invoice_id, a.amount])).toEqual([
      [peppolInvoice.id, "1210.00"],
      [note1Id, "43.48"],
      [note2.id, "10.44"],
    ]);
    for (const id of [peppolInvoice.id, note1Id, note2.id]) expect((await ok("GET", `/api/v1/invoices/${id}`)).status).toBe("paid");
  });
});
