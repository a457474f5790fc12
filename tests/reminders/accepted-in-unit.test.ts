/**
 * What a reminder's acceptance records (its interest note sent, the audit entry, the event
 * invoice.reminder_sent) commits in the unit that marks the delivery accepted, or not at all: when
 * it is refused, the delivery is not accepted (it is sent again later) and nothing of it is
 * recorded. A real SMTP server on 127.0.0.1 and Kontor's real delivery worker.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { firstRow } from "../../db/client.ts";
import { auditLog, documentDeliveries, events } from "../../db/schema.ts";
import { loadSecretBox } from "../../server/lib/secret-box.ts";
import { renderReminderForDelivery } from "../../server/reminders/read.ts";
import { onReminderAccepted, runReminders } from "../../server/reminders/run.ts";
import type { OutboxWorker } from "../../server/outbox/worker.ts";
import { startDeliveryWorker } from "../../server/sending/worker.ts";
import { SELLER_IDENTITY } from "../fixtures.ts";
import { createTestEnv } from "../helpers.ts";
import { startSmtp } from "../sending/smtp.ts";

const smtp = await startSmtp();
const env = await createTestEnv({ KONTOR_SMTP_URL: smtp.url, KONTOR_MAIL_FROM: "invoices@kontor.test" });
let worker: OutboxWorker | null = null;
let refusals = 0;

afterAll(async () => {
  await worker?.stop();
  await smtp.close();
  env.close();
});

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await env.api(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 400)}`).toBeLessThan(300);
  return r.body?.data ?? r.body;
};

beforeAll(async () => {
  await ok("PUT", "/api/v1/organization", { ...SELLER_IDENTITY, email: "billing@acme.test" });
  const rate21 = (await ok("GET", "/api/v1/vat-rates")).find((r: any) => r.rate === "21.00").id;
  const customer = await ok("POST", "/api/v1/customers", { name: "Café De Zon", email: "zon@cafe.test", address: "Veldstraat 10", city: "Gent", postal_code: "9000", country: "BE" });
  const draft = await ok("POST", "/api/v1/invoices", {
    customer_id: customer.id, issue_date: "2025-09-01", due_date: "2025-10-01",
    lines: [{ description: "Advies", quantity: "1", unit_price: "100.00", vat_rate_id: rate21 }],
  });
  await ok("POST", `/api/v1/invoices/${draft.id}/finalize`);
  await ok("PUT", "/api/v1/reminder-policy", { enabled: true, channel: "email", levels: [{ days_after_due: 10, charge_interest: false, charge_compensation: false }] });
  worker = startDeliveryWorker(env.db, { ...env.config, deliveryBackoffMs: [100], deliveryMaxAttempts: 3, deliveryTimeoutMs: 5000 }, {
    secrets: loadSecretBox(env.config),
    log: () => {},
    renderReminder: renderReminderForDelivery,
    // the real work, then a refusal after it: as a refused posting or a full disk would be
    onReminderAccepted: async (tx, delivery) => {
      await onReminderAccepted(tx, delivery);
      refusals++;
      throw new Error("refused by test");
    },
  });
});

test("a refused acceptance leaves the reminder's delivery unaccepted and records no event and no audit entry of it", async () => {
  const [run] = await runReminders(env.db, { date: "2025-10-11", orgId: env.org.id });
  expect(run!.recorded).toBe(1);
  await smtp.received(1);
  const deadline = Date.now() + 10_000;
  while (refusals === 0 && Date.now() < deadline) await Bun.sleep(20);
  expect(refusals).toBe(1);
  // what the refused unit had written is gone with it, including what ran after its first await
  await Bun.sleep(200);
  const delivery = (await firstRow(env.db.select().from(documentDeliveries).where(and(eq(documentDeliveries.organizationId, env.org.id), eq(documentDeliveries.subject, "reminder")))))!;
  expect(delivery.status).toBe("pending");
  expect(delivery.acceptedAt).toBeNull();
  expect(await env.db.select().from(events).where(and(eq(events.organizationId, env.org.id), eq(events.type, "invoice.reminder_sent")))).toEqual([]);
  expect(await env.db.select().from(auditLog).where(and(eq(auditLog.organizationId, env.org.id), eq(auditLog.action, "reminder.sent")))).toEqual([]);
});
