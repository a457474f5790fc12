/**
 * One write path for the side effects of a change (server/changes/record.ts): every webhook
 * event has its payload builder, each builds the resource as its GET shows it, `recordChange`
 * writes the audit entry and one delivery per subscribed webhook in the change's transaction,
 * and no other module writes either.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { and, asc, eq } from "drizzle-orm";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../../db/client.ts";
import { auditLog, webhookDeliveries, webhooks } from "../../db/schema.ts";
import { recordChange } from "../../server/changes/record.ts";
import { unitOfWork, type Scope } from "../../server/lib/scope.ts";
import { newId, nowIso } from "../../server/lib/time.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { WEBHOOK_EVENTS } from "../../server/changes/events.ts";
import { createTestEnv } from "../helpers.ts";
const TESTS_ROOT = join(import.meta.dir, "..");

const env = await createTestEnv();
afterAll(() => env.close());

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await env.api(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 200)}`).toBeLessThan(300);
  return r.body.data;
};

/** One resource of each type that has events, with the path its GET answers at. */
async function oneOfEach(): Promise<Record<string, { id: string; path: string }>> {
  const customer = await ok("POST", "/api/v1/customers", { name: "Payload Customer", currency: "EUR" });
  await ok("POST", `/api/v1/customers/${customer.id}/contact-persons`, { first_name: "Ada", last_name: "Payload", is_primary: true });
  const invoice = await ok("POST", "/api/v1/invoices", {
    customer_id: customer.id,
    issue_date: "2026-03-01",
    lines: [{ description: "Work", quantity: "2", unit_price: "10.00" }],
  });
  await ok("POST", `/api/v1/invoices/${invoice.id}/finalize`);
  await ok("POST", `/api/v1/invoices/${invoice.id}/record-payment`, { amount: "5.00", payment_date: "2026-03-02" });
  const expense = await ok("POST", "/api/v1/expenses", { category: "Travel", amount: "12.50", date: "2026-03-01", vendor: "Payload Vendor" });
  await ok("POST", "/api/v1/fiscal-years/2025/close");
  const accounts = await env.api("GET", "/api/v1/bank-accounts");
  const statement = await env.request("POST", `/api/v1/bank-accounts/${accounts.body.data[0].id}/statements`, {
    rawBody: readFileSync(join(TESTS_ROOT, "inbound", "fixtures", "statement-1.camt053.xml"), "utf8"),
    headers: { "content-type": "application/xml" },
  });
  expect(statement.status, statement.text).toBe(201);
  const line = statement.body.data.transactions[0];
  return {
    fiscal_year: { id: "2025", path: "/api/v1/fiscal-years/2025" },
    bank_transaction: { id: line.id, path: `/api/v1/bank-transactions/${line.id}` },
    customer: { id: customer.id, path: `/api/v1/customers/${customer.id}` },
    invoice: { id: invoice.id, path: `/api/v1/invoices/${invoice.id}` },
    expense: { id: expense.id, path: `/api/v1/expenses/${expense.id}` },
  };
}

describe("event payloads", () => {
  test("each resource's last event carries it as its GET shows it", async () => {
    // every payload is built by the resource's own feature (the write path knows none): one webhook
    // subscribed to every event sees each resource type's events carry the GET's shape
    const id = newId();
    const now = nowIso();
    await env.db
      .insert(webhooks)
      .values({ id, organizationId: env.org.id, url: "https://hooks.example.com/all", events: [...WEBHOOK_EVENTS], isActive: true, secret: "s".repeat(64), createdAt: now, updatedAt: now });
    const resources = await oneOfEach();
    const delivered = (await env.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, id)))
      .map((row) => JSON.parse(row.payload) as { event: string; data: { id?: string; year?: number } });
    for (const [type, resource] of Object.entries(resources)) {
      const about = delivered.filter((d) => d.event.startsWith(`${type}.`) && String(d.data.id ?? d.data.year) === resource.id);
      expect(about.length, type).toBeGreaterThan(0);
      // a draft invoice's readiness is its GET's alone (it reads the whole document; docs/einvoicing.md)
      const { readiness: _, ...shown } = await ok("GET", resource.path);
      expect(about.at(-1)!.data, type).toEqual(shown);
    }
  });
});

describe("recordChange", async () => {
  const org = await env.newOrg("Recorded Co");
  const scope: Scope = { db: env.db, org: org.org, actor: CLI_ACTOR };
  const now = nowIso();
  const hook = async (events: string[], isActive = true) => {
    const id = newId();
    await env.db
      .insert(webhooks)
      .values({ id, organizationId: org.org.id, url: "https://hooks.example.com/x", events, isActive, secret: "s".repeat(64), createdAt: now, updatedAt: now });
    return id;
  };
  const subscribed = [await hook(["expense.updated"]), await hook(["expense.created", "expense.updated"])];
  const otherEvent = await hook(["expense.approved"]);
  const inactive = await hook(["expense.updated"], false);
  /** The audit entries of `action`, read through `db` (inside a unit: its transaction). */
  const entries = async (action: string, db: Db = env.db) =>
    await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.organizationId, org.org.id), eq(auditLog.action, action)));
  // in the order they were queued (PostgreSQL returns rows in no promised order without one)
  const deliveriesOf = async (webhookId: string, db: Db = env.db) =>
    await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId)).orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id));

  test("writes the audit entry and one delivery per subscribed active webhook, the payload built from the resource", async () => {
    const expense = (await env.api("POST", "/api/v1/expenses", { category: "Meals", amount: "9.00", date: "2026-03-03" }, org.token)).body.data;
    const before = await Promise.all(subscribed.map(async (id) => (await deliveriesOf(id)).length));
    await unitOfWork(env.db, (tx) =>
      recordChange(tx, scope, { action: "test.recorded", resource: { type: "expense", id: expense.id }, event: "expense.updated", data: expense }),
    );

    expect(await entries("test.recorded")).toMatchObject([{ resourceType: "expense", resourceId: expense.id, actorType: "cli", actorId: null }]);
    for (const [i, id] of subscribed.entries()) {
      const rows = await deliveriesOf(id);
      expect(rows.length).toBe(before[i]! + 1);
      const last = JSON.parse(rows.at(-1)!.payload);
      expect(last).toMatchObject({ event: "expense.updated", data: expense });
    }
    expect(await deliveriesOf(otherEvent)).toEqual([]);
    expect(await deliveriesOf(inactive)).toEqual([]);
  });

  test("without an event: the audit entry alone", async () => {
    await unitOfWork(env.db, (tx) => recordChange(tx, scope, { action: "test.audit_only", resource: { type: "token", id: "t-1" } }));
    expect(await entries("test.audit_only")).toMatchObject([{ resourceType: "token", resourceId: "t-1" }]);
  });

  test("a failure after recordChange, in the same transaction, leaves neither the audit entry nor a delivery", async () => {
    const expense = (await env.api("POST", "/api/v1/expenses", { category: "Meals", amount: "4.00", date: "2026-03-04" }, org.token)).body.data;
    const before = await Promise.all(subscribed.map(async (id) => (await deliveriesOf(id)).length));
    expect(async () =>
      await unitOfWork(env.db, async (tx) => {
        await recordChange(tx, scope, { action: "test.rolled_back", resource: { type: "expense", id: expense.id }, event: "expense.updated", data: expense });
        // both are written at this point, inside the transaction (seen through it: on PostgreSQL
        // another connection of the pool sees only what is committed)
        expect((await entries("test.rolled_back", tx)).length).toBe(1);
        expect(await Promise.all(subscribed.map(async (id) => (await deliveriesOf(id, tx)).length))).toEqual(before.map((n) => n + 1));
        throw new Error("after the change");
      }),
    ).toThrow("after the change");
    expect(await entries("test.rolled_back")).toEqual([]);
    expect(await Promise.all(subscribed.map(async (id) => (await deliveriesOf(id)).length))).toEqual(before);
  });
});

describe("one path", () => {

  test("no module but server/changes/record.ts calls audit() or emit() itself", () => {
    const root = join(TESTS_ROOT, "..");
    const writers: string[] = [];
    for (const file of new Bun.Glob("server/**/*.ts").scanSync(root)) {
      if (file === "server/changes/record.ts") continue;
      const source = readFileSync(join(root, file), "utf8");
      const imports = [...source.matchAll(/import\s*{([^}]*)}\s*from\s*"([^"]+)"/g)];
      const writes = imports.some(
        ([, names, from]) =>
          (from!.endsWith("audit/service.ts") && /\baudit\b/.test(names!)) || (from!.endsWith("changes/outbox.ts") && /\bemit\b/.test(names!)),
      );
      if (writes) writers.push(file);
    }
    expect(writers).toEqual([]);
  });
});
