/**
 * The events feed (GET /api/v1/events): every change with an event, in commit
 * order, written by recordChange whether or not a webhook subscribes, with the webhook payload's
 * `data`; paged by `after`; filtered by type and resource; ability-scoped; pruned after its
 * retention. No worker runs here: deliveries stay as the outbox wrote them.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { events, webhookDeliveries } from "../../db/schema.ts";
import { pruneEvents } from "../../server/changes/feed.ts";
import { unitOfWork } from "../../server/lib/scope.ts";
import { drawSequence } from "../../server/lib/sequences.ts";
import { loadConfig } from "../../server/config.ts";
import { startRetention } from "../../server/changes/retention.ts";
import { createLogger } from "../../server/log.ts";
import { createTestEnv } from "../helpers.ts";
import { slowListSteps } from "../query-plan.ts";
import { firstRow } from "../../db/client.ts";

const env = await createTestEnv();
afterAll(() => env.close());


const ok = async (method: string, path: string, body?: unknown, token?: string) => {
  const r = await env.api(method, path, body, token);
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body?.data;
};
/** A draft of 2 × 100.00 at the organisation's 21 % (242.00). */
async function invoice(token: string, customerId: string, description = "Consulting") {
  const rate = (await ok("GET", "/api/v1/vat-rates", undefined, token)).find((r: any) => r.rate === "21.00");
  const lines = [{ description, quantity: "2", unit_price: "100.00", vat_rate_id: rate.id }];
  return ok("POST", "/api/v1/invoices", { customer_id: customerId, issue_date: "2026-03-01", lines }, token);
}

/** Every event after `after`, page by page through `links.next`; checks that the cursor and the link agree. */
async function readFeed(query = "", token?: string, perPage = 3): Promise<any[]> {
  const seen: any[] = [];
  let path: string | null = `/api/v1/events?per_page=${perPage}${query}`;
  while (path !== null) {
    const r = await env.api("GET", path, undefined, token);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.length).toBeLessThanOrEqual(perPage);
    seen.push(...r.body.data);
    const { next } = r.body.links;
    expect(r.body.meta.next_cursor === null).toBe(next === null);
    if (next !== null) expect(new URL(next).searchParams.get("after")).toBe(r.body.meta.next_cursor);
    path = next === null ? null : `${new URL(next).pathname}${new URL(next).search}`;
  }
  return seen;
}

const lastId = async (token?: string) => {
  const all = await readFeed("", token, 100);
  return all.at(-1)?.id ?? "0";
};

describe("the feed", () => {
  test("creates, updates and deletes of customers and invoices read back exactly once each, in commit order, with the state after each change", async () => {
    const { token } = await env.newOrg("Sequence BV");
    const expected: { type: string; id: string; data: any }[] = [];
    // the resource as its GET shows it; an invoice's GET adds `readiness`, which webhook payloads never carried
    const get = async (path: string) => {
      const { readiness: _readiness, ...shown } = await ok("GET", path, undefined, token);
      return shown;
    };

    const a = await ok("POST", "/api/v1/customers", { name: "Alpha" }, token);
    expected.push({ type: "customer.created", id: a.id, data: await get(`/api/v1/customers/${a.id}`) });
    const b = await ok("POST", "/api/v1/customers", { name: "Bravo" }, token);
    expected.push({ type: "customer.created", id: b.id, data: await get(`/api/v1/customers/${b.id}`) });
    const inv1 = await invoice(token, a.id);
    expected.push({ type: "invoice.created", id: inv1.id, data: await get(`/api/v1/invoices/${inv1.id}`) });
    await ok("PUT", `/api/v1/customers/${a.id}`, { name: "Alpha 2" }, token);
    expected.push({ type: "customer.updated", id: a.id, data: await get(`/api/v1/customers/${a.id}`) });
    // the draft embeds its customer live: the customer's change is its change too
    expected.push({ type: "invoice.updated", id: inv1.id, data: await get(`/api/v1/invoices/${inv1.id}`) });
    const inv2 = await invoice(token, b.id, "Audit");
    expected.push({ type: "invoice.created", id: inv2.id, data: await get(`/api/v1/invoices/${inv2.id}`) });
    await ok("PUT", `/api/v1/invoices/${inv1.id}`, { notes: "Second thoughts" }, token);
    expected.push({ type: "invoice.updated", id: inv1.id, data: await get(`/api/v1/invoices/${inv1.id}`) });
    // deletions: tombstones whose data is the last state
    const lastInvoice = await get(`/api/v1/invoices/${inv2.id}`);
    await ok("DELETE", `/api/v1/invoices/${inv2.id}`, undefined, token);
    expected.push({ type: "invoice.deleted", id: inv2.id, data: lastInvoice });
    const lastB = await get(`/api/v1/customers/${b.id}`);
    await ok("DELETE", `/api/v1/customers/${b.id}`, undefined, token);
    expected.push({ type: "customer.deleted", id: b.id, data: lastB });
    // a refused change (a customer with invoices) writes no event
    expect((await env.api("DELETE", `/api/v1/customers/${a.id}`, undefined, token)).status).toBe(409);
    const c = await ok("POST", "/api/v1/customers", { name: "Charlie" }, token);
    expected.push({ type: "customer.created", id: c.id, data: await get(`/api/v1/customers/${c.id}`) });

    const feed = await readFeed("", token);
    expect(feed.map((e) => [e.type, e.resource.id])).toEqual(expected.map((e) => [e.type, e.id]));
    expect(feed.map((e) => e.data)).toEqual(expected.map((e) => e.data));
    expect(feed.map((e) => e.resource.type)).toEqual(expected.map((e) => e.type.split(".")[0]));
    const ids = feed.map((e) => BigInt(e.id));
    expect(ids).toEqual([...ids].sort((x, y) => (x < y ? -1 : 1)));
    expect(new Set(ids).size).toBe(ids.length);

    // resuming after any event gives exactly what followed it
    for (const at of [0, 3, 7]) {
      const rest = await readFeed(`&after=${feed[at].id}`, token, 2);
      expect(rest.map((e) => e.id)).toEqual(feed.slice(at + 1).map((e) => e.id));
    }
    const end = await env.api("GET", `/api/v1/events?after=${feed.at(-1).id}`, undefined, token);
    expect(end.body.data).toEqual([]);
    expect(end.body.links).toMatchObject({ next: null, prev: null });
    // the 10 events kept (counted above) are all before this position: an empty page past the last, 10 / 20 = page 1
    expect(expected.length).toBe(10);
    expect(end.body.meta).toEqual({ current_page: 1, from: null, last_page: 1, per_page: 20, to: null, total: 10, next_cursor: null, newest_id: feed.at(-1).id });
  });

  test("events are written without any webhook; a subscribed webhook's delivery carries the same event and data", async () => {
    const { org, token } = await env.newOrg("Outbox BV");
    const quiet = await ok("POST", "/api/v1/customers", { name: "Unsubscribed" }, token);
    expect(await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.organizationId, org.id))).toHaveLength(0);
    expect((await readFeed("", token)).map((e) => e.resource.id)).toEqual([quiet.id]);

    const hook = await ok("POST", "/api/v1/webhooks", { url: "https://hooks.example.com/outbox", events: ["customer.updated"] }, token);
    await ok("PUT", `/api/v1/customers/${quiet.id}`, { city: "Gent" }, token);
    const [delivery] = await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id));
    const payload = JSON.parse(delivery!.payload);
    const event = (await readFeed("", token)).at(-1);
    // one object: the delivery's body is the feed's event
    expect(payload).toEqual(event);
    expect(payload.event).toBe(event.type);
    expect(payload.timestamp).toBe(event.created_at);
    expect(delivery!.eventId).toBe(Number(event.id));
    // byte for byte: `data` is serialised once for both
    const row = (await firstRow(env.db.select().from(events).where(and(eq(events.organizationId, org.id), eq(events.seq, Number(event.id))))))!;
    expect(delivery!.payload).toContain(row.data);
  });

  test("filter[type] takes an event name or <resource>.*; filter[resource_id] one resource; anything else is a 422 naming the field", async () => {
    const { token } = await env.newOrg("Filters BV");
    const a = await ok("POST", "/api/v1/customers", { name: "Filtered" }, token);
    const inv = await invoice(token, a.id);
    await ok("PUT", `/api/v1/invoices/${inv.id}`, { notes: "n" }, token);
    await ok("PUT", `/api/v1/customers/${a.id}`, { name: "Filtered 2" }, token);

    // the last: the draft's, as its customer changed (it embeds its customer live)
    expect((await readFeed("&filter[type]=invoice.*", token)).map((e) => e.type)).toEqual(["invoice.created", "invoice.updated", "invoice.updated"]);
    expect((await readFeed("&filter[type]=customer.updated", token)).map((e) => e.resource.id)).toEqual([a.id]);
    expect((await readFeed(`&filter[resource_id]=${a.id}`, token)).map((e) => e.type)).toEqual(["customer.created", "customer.updated"]);
    expect((await readFeed(`&filter[resource_id]=${inv.id}&filter[type]=invoice.updated`, token)).length).toBe(2);
    for (const bad of ["invoice", "invoice.paid_twice", "nothing.*", "*"]) {
      const r = await env.api("GET", `/api/v1/events?filter[type]=${encodeURIComponent(bad)}`, undefined, token);
      expect(r.status, bad).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual(["filter.type"]);
    }
    for (const bad of ["abc", "-1", "1.5"]) expect((await env.api("GET", `/api/v1/events?after=${bad}`, undefined, token)).status).toBe(422);
    expect((await env.api("GET", "/api/v1/events?per_page=101", undefined, token)).status).toBe(422);
    // `cursor`, the name every list's cursor has, is `after`; both, differing, is a 422
    const [first] = await readFeed("", token);
    expect((await env.api("GET", `/api/v1/events?cursor=${first.id}`, undefined, token)).body.data.map((e: any) => e.id)).toEqual(
      (await readFeed(`&after=${first.id}`, token)).map((e) => e.id),
    );
    expect((await env.api("GET", `/api/v1/events?cursor=${first.id}&after=${first.id}`, undefined, token)).status).toBe(200);
    expect(Object.keys((await env.api("GET", `/api/v1/events?cursor=${first.id}&after=0`, undefined, token)).body.errors)).toEqual(["cursor"]);
  });

  test("a token reads only the events of the resources it may view; another organisation's never", async () => {
    const { org, token } = await env.newOrg("Scoped BV");
    const a = await ok("POST", "/api/v1/customers", { name: "Scoped" }, token);
    await invoice(token, a.id);
    await ok("POST", "/api/v1/suppliers", { name: "Supplies NV" }, token);

    const contacts = await env.orgToken(["contacts.view"], org);
    expect((await readFeed("", contacts)).map((e) => e.type)).toEqual(["customer.created", "supplier.created"]);
    const invoicing = await env.orgToken(["invoicing.view"], org);
    expect((await readFeed("", invoicing)).map((e) => e.type)).toEqual(["invoice.created"]);
    // any token may ask; one that may view nothing reads an empty feed
    const none = await env.orgToken(["invoicing.create"], org);
    const empty = await env.api("GET", "/api/v1/events", undefined, none);
    expect(empty.status).toBe(200);
    expect(empty.body.data).toEqual([]);
    // the first organisation's token sees none of this one's
    const mine = await readFeed("", env.token, 100);
    expect(mine.some((e) => e.resource.id === a.id)).toBe(false);
  });
});

describe("query plans", () => {
  test("the feed reads through its indexes, in id order: no full scan, no sort step, whatever the filter and the token", async () => {
    const { org, token } = await env.newOrg("Plans BV");
    const a = await ok("POST", "/api/v1/customers", { name: "Planned" }, token);
    await invoice(token, a.id);
    const contacts = await env.orgToken(["contacts.view"], org);
    const slow = [
      ...(await slowListSteps(env, "events", "/api/v1/events", token, ["organization_id"])),
      ...(await slowListSteps(env, "events", "/api/v1/events?after=1", token, ["organization_id"])),
      ...(await slowListSteps(env, "events", "/api/v1/events?filter[type]=invoice.*", token, ["organization_id"])),
      ...(await slowListSteps(env, "events", "/api/v1/events?filter[type]=invoice.created&after=1", token, ["organization_id", "type"])),
      ...(await slowListSteps(env, "events", `/api/v1/events?filter[resource_id]=${a.id}`, token, ["organization_id", "resource_id"])),
      ...(await slowListSteps(env, "events", "/api/v1/events?after=1", contacts, ["organization_id"])),
    ];
    expect(slow).toEqual([]);
  });
});

describe("events that had no webhook before", () => {
  test("supplier.*, contact_person.* (beside customer.updated) and organization.updated, each offered to webhooks", async () => {
    const { token } = await env.newOrg("New Events BV");
    const events = ["supplier.created", "supplier.updated", "supplier.deleted", "contact_person.created", "contact_person.updated", "contact_person.deleted", "organization.updated"];
    expect((await ok("GET", "/api/v1/meta/webhook-events", undefined, token)) as string[]).toEqual(expect.arrayContaining(events));
    const hook = await ok("POST", "/api/v1/webhooks", { url: "https://hooks.example.com/new", events }, token);
    const start = await lastId(token);

    const s = await ok("POST", "/api/v1/suppliers", { name: "Leverancier" }, token);
    await ok("PUT", `/api/v1/suppliers/${s.id}`, { city: "Antwerpen" }, token);
    await ok("DELETE", `/api/v1/suppliers/${s.id}`, undefined, token);
    const c = await ok("POST", "/api/v1/customers", { name: "With people" }, token);
    const p = await ok("POST", `/api/v1/customers/${c.id}/contact-persons`, { first_name: "Els", last_name: "Peeters" }, token);
    await ok("PUT", `/api/v1/customers/${c.id}/contact-persons/${p.id}`, { position: "CFO" }, token);
    await ok("DELETE", `/api/v1/customers/${c.id}/contact-persons/${p.id}`, undefined, token);
    const org = await ok("PUT", "/api/v1/organization", { city: "Leuven" }, token);

    const feed = await readFeed(`&after=${start}`, token, 100);
    expect(feed.map((e) => e.type)).toEqual([
      "supplier.created", "supplier.updated", "supplier.deleted",
      "customer.created",
      "contact_person.created", "customer.updated",
      "contact_person.updated", "customer.updated",
      "contact_person.deleted", "customer.updated",
      "organization.updated",
    ]);
    expect(feed[2].data).toMatchObject({ id: s.id, city: "Antwerpen" });
    expect(feed[6].data).toMatchObject({ id: p.id, customer_id: c.id, position: "CFO" });
    expect(feed[8].data).toMatchObject({ id: p.id, position: "CFO" }); // the tombstone: its last state
    expect(feed[9].data.contact_persons).toEqual([]);
    expect(feed[10].data).toEqual(org);
    const sent = (await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id))).map((d) => d.event).sort();
    expect(sent).toEqual(feed.map((e) => e.type).filter((t) => events.includes(t)).sort());
  });
});

describe("invoice.payment_recorded", () => {
  test("carries the recorded payment's id beside data, in the event and the delivery", async () => {
    const { token } = await env.newOrg("Payments BV", { country: "BE" });
    await ok("PUT", "/api/v1/organization", { vat_number: "BE0897290877", address: "Guido Gezellelaan 49", city: "Mechelen", postal_code: "2800" }, token);
    const hook = await ok("POST", "/api/v1/webhooks", { url: "https://hooks.example.com/paid", events: ["invoice.payment_recorded"] }, token);
    const customer = await ok("POST", "/api/v1/customers", { name: "Payer", country: "BE" }, token);
    const inv = await invoice(token, customer.id);
    const fin = await env.api("POST", `/api/v1/invoices/${inv.id}/finalize`, undefined, token);
    expect(fin.status, fin.text).toBe(200);
    await ok("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "100.00", payment_date: "2026-03-10" }, token);
    await ok("POST", `/api/v1/invoices/${inv.id}/record-payment`, { amount: "42.00", payment_date: "2026-03-11" }, token);
    const payments = (await ok("GET", `/api/v1/invoices/${inv.id}`, undefined, token)).payments.map((p: any) => p.id);
    expect(payments).toHaveLength(2);

    const recorded = await readFeed("&filter[type]=invoice.payment_recorded", token);
    expect(recorded.map((e) => e.payment_id)).toEqual(payments);
    expect(recorded.map((e) => e.data.id)).toEqual([inv.id, inv.id]);
    const sent = (await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id))).map((d) => JSON.parse(d.payload));
    expect(sent.map((p) => p.payment_id).sort()).toEqual([...payments].sort());
    // other events carry none
    expect((await readFeed("&filter[type]=invoice.finalized", token))[0].payment_id).toBeUndefined();
  });
});

describe("retention", () => {
  test("KONTOR_EVENT_RETENTION_DAYS: 30 by default, a whole number of days", () => {
    expect(loadConfig({}).eventRetentionDays).toBe(30);
    expect(loadConfig({ KONTOR_EVENT_RETENTION_DAYS: "90" }).eventRetentionDays).toBe(90);
    expect(() => loadConfig({ KONTOR_EVENT_RETENTION_DAYS: "0" })).toThrow("KONTOR_EVENT_RETENTION_DAYS");
    expect(() => loadConfig({ KONTOR_EVENT_RETENTION_DAYS: "1.5" })).toThrow("KONTOR_EVENT_RETENTION_DAYS");
  });

  test("the retention prunes events older than it at start, and its stop waits for the prune; younger ones stay; an after before a pruned id is a 410", async () => {
    const { org, token } = await env.newOrg("Retention BV");
    const day = 86_400_000;
    // a customer as its GET shows it (another organisation's: this one's ids must start with the old events)
    const sample = JSON.stringify(await ok("GET", `/api/v1/customers/${(await ok("POST", "/api/v1/customers", { name: "Sample" })).id}`));
    // events dated in the past, with the organisation's next ids (as emit draws them)
    const old = async (daysAgo: number) =>
      await unitOfWork(env.db, async (tx) => {
        const seq = await drawSequence(tx, org.id, "event", 0);
        await tx.insert(events)
          .values({ organizationId: org.id, seq, type: "customer.created", resourceType: "customer", resourceId: `old-${daysAgo}`, data: sample, createdAt: new Date(Date.now() - daysAgo * day).toISOString() });
        return seq;
      });
    const gone = await old(31); // 1
    const older = await old(29); // 2
    const kept = await ok("POST", "/api/v1/customers", { name: "Recent" }, token); // event 3
    const logged: string[] = [];
    await startRetention(env.db, env.config, createLogger({ format: "json", level: "debug" }, (line) => logged.push(line))).stop();
    expect(logged).toEqual([]);
    const left = (await readFeed("", token, 100)).map((e) => e.resource.id);
    expect(left).toEqual(["old-29", kept.id]);
    // resuming after the pruned id itself misses nothing; before it, the events it needs are gone
    expect((await readFeed(`&after=${gone}`, token, 100)).map((e) => e.resource.id)).toEqual(["old-29", kept.id]);
    const expired = await env.api("GET", "/api/v1/events?after=0", undefined, token);
    expect(expired.status).toBe(410);
    expect(expired.body.code).toBe("events_expired");
    expect(expired.body.message).toContain("docs/events.md#keeping-a-copy-in-sync");
    expect(await pruneEvents(env.db, 1)).toBeGreaterThanOrEqual(1);
    expect((await readFeed(`&after=${older}`, token, 100)).map((e) => e.resource.id)).toEqual([kept.id]);
    expect((await env.api("GET", `/api/v1/events?after=${gone}`, undefined, token)).status).toBe(410);
  });
});
