/**
 * One event (docs/events.md#an-event, docs/webhooks.md#which-id-to-de-duplicate-on): the webhook
 * body is the feed's event, `webhook-id` its id, on every attempt, replay and subscribed
 * webhook; GET /events/{id} shows the same object. Real deliveries to a receiver on 127.0.0.1,
 * sent by the worker in this process.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { startWorker } from "../../server/webhooks/worker.ts";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv({ KONTOR_WEBHOOK_BACKOFF: "50ms,50ms", KONTOR_WEBHOOK_ALLOW_PRIVATE: "true", KONTOR_WEBHOOK_TIMEOUT_MS: "2000" });

type Received = { path: string; headers: Record<string, string>; body: string };
const received: Received[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    received.push({ path: new URL(request.url).pathname, headers: Object.fromEntries(request.headers), body: await request.text() });
    return new Response("ok");
  },
});
afterAll(async () => {
  await receiver.stop(true);
  env.close();
});

async function waitFor(what: string, condition: () => boolean, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

const ok = async (method: string, path: string, token: string, body?: unknown) => {
  const r = await env.api(method, path, body, token);
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body?.data;
};

/** The whole feed, by `links.next`. */
async function feedOf(token: string): Promise<any[]> {
  const seen: any[] = [];
  let path: string | null = "/api/v1/events?per_page=4&cursor=";
  while (path !== null) {
    const r = await env.api("GET", path, undefined, token);
    expect(r.status, r.text).toBe(200);
    seen.push(...r.body.data);
    path = r.body.links.next === null ? null : `${new URL(r.body.links.next).pathname}${new URL(r.body.links.next).search}`;
  }
  return seen;
}

describe("webhooks and the feed carry one event", () => {
  test("every delivery's body is the feed's event and its webhook-id the event's id, one to one; two webhooks share it, a replay keeps it", async () => {
    const { token } = await env.newOrg("Envelope BV");
    const events = ["customer.created", "customer.updated", "customer.deleted", "invoice.created", "invoice.updated"];
    const hooks = [];
    for (const name of ["a", "b"]) {
      hooks.push(await ok("POST", "/api/v1/webhooks", token, { url: `http://127.0.0.1:${receiver.port}/${name}`, events }));
    }
    const worker = await startWorker(env.db, env.config, { log: () => {} });
    try {
      const kept = await ok("POST", "/api/v1/customers", token, { name: "Kept NV", country: "BE" });
      const gone = await ok("POST", "/api/v1/customers", token, { name: "Gone BV" });
      await ok("PUT", `/api/v1/customers/${kept.id}`, token, { city: "Gent" });
      const rate = (await ok("GET", "/api/v1/vat-rates", token)).find((r: any) => r.rate === "21.00");
      const invoice = await ok("POST", "/api/v1/invoices", token, {
        customer_id: kept.id,
        issue_date: "2026-03-01",
        lines: [{ description: "Work", quantity: "1", unit_price: "100.00", vat_rate_id: rate.id }],
      });
      await ok("PUT", `/api/v1/invoices/${invoice.id}`, token, { notes: "Thanks" });
      await ok("DELETE", `/api/v1/customers/${gone.id}`, token);
      // customer.created ×2, customer.updated, invoice.created, invoice.updated, customer.deleted: 6 events, to 2 webhooks
      await waitFor("12 deliveries", () => received.filter((r) => r.path === "/a" || r.path === "/b").length === 12);

      const feed = await feedOf(token);
      expect(feed.map((e) => e.type)).toEqual(["customer.created", "customer.created", "customer.updated", "invoice.created", "invoice.updated", "customer.deleted"]);
      // a new organisation's events are numbered from 1
      expect(feed.map((e) => e.id)).toEqual(["1", "2", "3", "4", "5", "6"]);
      for (const path of ["/a", "/b"]) {
        const hook = hooks[path === "/a" ? 0 : 1];
        const bodies = received.filter((r) => r.path === path);
        // one to one: each delivery names one event of the feed by webhook-id, and its body is that event
        const byId = new Map(bodies.map((r) => [r.headers["webhook-id"], r]));
        expect([...byId.keys()].sort()).toEqual(feed.map((e) => e.id).sort());
        for (const event of feed) {
          const delivery = byId.get(event.id)!;
          expect(JSON.parse(delivery.body)).toEqual(event);
          expect(delivery.headers["x-webhook-event"]).toBe(event.type);
          // Standard Webhooks signs webhook-id.timestamp.body: it verifies with the event id
          expect(new Webhook(hook.secret).verify(delivery.body, delivery.headers)).toEqual(event);
        }
        // X-Webhook-Id names the delivery, one per event and webhook
        expect(new Set(bodies.map((r) => r.headers["x-webhook-id"])).size).toBe(6);
      }
      const a = received.filter((r) => r.path === "/a");
      const b = received.filter((r) => r.path === "/b");
      expect(new Set(a.map((r) => r.headers["x-webhook-id"])).isDisjointFrom(new Set(b.map((r) => r.headers["x-webhook-id"])))).toBe(true);

      // a replay: the same delivery id, the same event id, the same body
      const first = a.find((r) => r.headers["webhook-id"] === "3")!;
      const replayed = await env.api("POST", `/api/v1/webhooks/${hooks[0].id}/deliveries/${first.headers["x-webhook-id"]}/redeliver`, undefined, token);
      expect(replayed.status).toBe(202);
      await waitFor("the replay", () => received.filter((r) => r.path === "/a").length === 7);
      const again = received.filter((r) => r.path === "/a").at(-1)!;
      expect([again.headers["webhook-id"], again.headers["x-webhook-id"], again.body]).toEqual(["3", first.headers["x-webhook-id"], first.body]);
      // and GET /events/{id} is the same object again
      expect(await ok("GET", "/api/v1/events/3", token)).toEqual(JSON.parse(first.body));
    } finally {
      await worker.stop();
    }
  });
});

describe("per-organisation ids", () => {
  test("each organisation numbers its events from 1; GET /events/{id} finds only its own", async () => {
    const one = await env.newOrg("First Ids BV");
    const two = await env.newOrg("Second Ids BV");
    for (const name of ["A", "B", "C"]) await ok("POST", "/api/v1/customers", one.token, { name });
    const b = await ok("POST", "/api/v1/customers", two.token, { name: "Only" });
    expect((await feedOf(one.token)).map((e) => e.id)).toEqual(["1", "2", "3"]);
    const [only] = await feedOf(two.token);
    expect(only.id).toBe("1");
    expect(only).toMatchObject({ event: "customer.created", type: "customer.created", resource: { type: "customer", id: b.id }, links: {} });
    expect(only.timestamp).toBe(only.created_at);

    expect(await ok("GET", "/api/v1/events/1", two.token)).toEqual(only);
    // 3 is the first organisation's: unknown here
    for (const id of ["3", "999", "abc", "0"]) {
      const r = await env.api("GET", `/api/v1/events/${id}`, undefined, two.token);
      expect(r.status, id).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
    // a token that may not view customers may not read a customer's event
    const r = await env.api("GET", "/api/v1/events/1", undefined, await env.orgToken(["invoicing.view"], two.org));
    expect(r.status).toBe(403);
    expect(r.body.message).toContain("contacts.view");
  });

  test("an after beyond the organisation's newest id is a 422 naming it", async () => {
    const { token } = await env.newOrg("Beyond BV");
    await ok("POST", "/api/v1/customers", token, { name: "One" });
    const r = await env.api("GET", "/api/v1/events?after=2", undefined, token);
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(["after"]);
    expect(r.body.message).toContain("the newest is 1");
    expect((await env.api("GET", "/api/v1/events?cursor=5", undefined, token)).body.errors).toHaveProperty("cursor");
    expect((await env.api("GET", "/api/v1/events?after=1", undefined, token)).status).toBe(200);
  });
});
