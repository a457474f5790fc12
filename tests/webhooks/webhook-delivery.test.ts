/**
 * Webhook delivery end to end (api-spec 6, contract 7.3 to 7.6): a real receiver on 127.0.0.1
 * (Bun.serve), the real worker in this process or as `kontor worker` processes, events made
 * through the API. Back-offs are 50 ms so retries do not make the suite wait.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createRuntime } from "../../server/runtime.ts";
import { createHmac, timingSafeEqual } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import type { Subprocess } from "bun";
import { auditLog, webhookDeliveries } from "../../db/schema.ts";
import { eq } from "drizzle-orm";
import type { Config } from "../../server/config.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { customerService } from "../../server/customers/service.ts";
import { webhookService } from "../../server/webhooks/service.ts";
import { refusedRange } from "../../server/lib/hosts.ts";
import { startServer } from "../../server/serve.ts";
import { startWorker } from "../../server/webhooks/worker.ts";
import { createTestEnv, databaseEnv } from "../helpers.ts";
import { firstRow } from "../../db/client.ts";
const TESTS_ROOT = join(import.meta.dir, "..");

const WORKER_ENV = { KONTOR_WEBHOOK_BACKOFF: "50ms,50ms", KONTOR_WEBHOOK_ALLOW_PRIVATE: "true", KONTOR_WEBHOOK_TIMEOUT_MS: "2000" };
const env = await createTestEnv(WORKER_ENV);

type Received = { path: string; headers: Headers; body: string; at: number };
type Responder = (request: Received, nth: number) => Response | Promise<Response>;

/** The receiver: records every request; each path answers as its test says (200 "ok" by default). */
const received: Received[] = [];
const responders = new Map<string, Responder>();
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const path = new URL(request.url).pathname;
    const entry = { path, headers: request.headers, body: await request.text(), at: Date.now() };
    received.push(entry);
    const respond = responders.get(path) ?? (() => new Response("ok"));
    return respond(entry, received.filter((r) => r.path === path).length);
  },
});
afterAll(async () => {
  await receiver.stop(true);
  env.close();
});

let pathCounter = 0;
/** A fresh receiver path, answering with `respond`. */
function endpoint(respond?: Responder, host = "127.0.0.1") {
  const path = `/hook-${++pathCounter}`;
  if (respond) responders.set(path, respond);
  return { path, url: `http://${host}:${receiver.port}${path}`, requests: () => received.filter((r) => r.path === path) };
}

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

/** A fresh organisation (so tests do not see each other's events) with a webhook on `url`. */
async function setup(url: string, events: string[] = ["customer.created"]) {
  const { org, token } = await env.newOrg();
  const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
  const created = await api("POST", "/api/v1/webhooks", { url, events });
  expect(created.status).toBe(201);
  const webhook = created.body.data;
  const deliveries = async () => (await api("GET", `/api/v1/webhooks/${webhook.id}/deliveries`)).body.data;
  const delivery = async (id: string) => (await api("GET", `/api/v1/webhooks/${webhook.id}/deliveries/${id}`)).body.data;
  return { org, token, api, webhook, secret: webhook.secret as string, deliveries, delivery };
}

/** Runs `work` with a worker in this process, stopped afterwards (each test's own configuration). */
async function withWorker<T>(work: () => Promise<T>, config: Partial<Config> = {}, graceMs?: number, log: (line: string) => void = () => {}): Promise<T> {
  const worker = await startWorker(env.db, { ...env.config, ...config }, { graceMs, log });
  try {
    return await work();
  } finally {
    await worker.stop();
  }
}

const rowsOf = async (orgId: string) => await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.organizationId, orgId));

const hexSignature = (secret: string, body: string) => createHmac("sha256", secret).update(body).digest("hex");
const sameHex = (a: string, b: string | null) => b !== null && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
const headerObject = (headers: Headers) => Object.fromEntries(headers.entries());
/** Both checks a receiver makes: api-spec 6.4 and Standard Webhooks (the `standardwebhooks` package). */
function verifies(secret: string, request: Received): { hex: boolean; standard: boolean } {
  let standard = true;
  try {
    new Webhook(secret).verify(request.body, headerObject(request.headers));
  } catch {
    standard = false;
  }
  return { hex: sameHex(hexSignature(secret, request.body), request.headers.get("x-webhook-signature")), standard };
}

describe("signed deliveries", () => {
  test("headers of api-spec 6.3 and both signatures, verified as a receiver would; payload is the resource", async () => {
    // a host name, not an IP: resolved, checked and connected to by address, Host kept
    const target = endpoint(undefined, "localhost");
    const { api, secret, deliveries, delivery } = await setup(target.url);
    await withWorker(async () => {
      const customer = (await api("POST", "/api/v1/customers", { name: "Brouwerij Het Anker", country: "BE" })).body.data;
      await waitFor("the delivery", () => target.requests().length === 1);
      const [request] = target.requests();
      const [queued] = await deliveries();
      expect(request!.headers.get("content-type")).toBe("application/json");
      expect(request!.headers.get("user-agent")).toBe("Kontor-Webhook/1.0");
      expect(request!.headers.get("x-webhook-event")).toBe("customer.created");
      expect(request!.headers.get("x-webhook-id")).toBe(queued.id);
      // webhook-id is the event's id: the body's, the feed's
      const [event] = (await api("GET", `/api/v1/events?filter[resource_id]=${customer.id}`)).body.data;
      expect(request!.headers.get("webhook-id")).toBe(event.id);
      expect(JSON.parse(request!.body)).toEqual(event);
      expect(request!.headers.get("host")).toBe(`localhost:${receiver.port}`);
      expect(Math.abs(Number(request!.headers.get("webhook-timestamp")) - Date.now() / 1000)).toBeLessThan(5);
      expect(request!.headers.get("webhook-signature")).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(verifies(secret, request!)).toEqual({ hex: true, standard: true });
      expect(new Webhook(secret).verify(request!.body, headerObject(request!.headers))).toEqual(JSON.parse(request!.body));

      const payload = JSON.parse(request!.body);
      // api-spec 6.2's body, inside the events feed's envelope
      expect(Object.keys(payload).sort()).toEqual(["created_at", "data", "event", "id", "links", "resource", "timestamp", "type"]);
      expect(payload).toMatchObject({ event: "customer.created", data: customer });
      expect(payload.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

      await waitFor("delivered", async () => (await firstRow(env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, queued.id))))!.status === "delivered");
      const shown = await delivery(queued.id);
      expect(shown).toMatchObject({ status: "delivered", attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null });
      expect(shown.attempts_log).toHaveLength(1);
      expect(shown.attempts_log[0]).toMatchObject({ status_code: 200, error: null, response_body: "ok" });
      expect(shown.payload).toEqual(payload);
    });
  });

  test("a tampered body or another secret fails both checks", async () => {
    const target = endpoint();
    const { api, secret } = await setup(target.url);
    await withWorker(async () => {
      await api("POST", "/api/v1/customers", { name: "Tamper" });
      await waitFor("the delivery", () => target.requests().length === 1);
    });
    const [request] = target.requests();
    expect(verifies(secret, { ...request!, body: request!.body.replace("Tamper", "Tampered") })).toEqual({ hex: false, standard: false });
    const other = (await env.api("POST", "/api/v1/webhooks", { url: target.url, events: ["customer.created"] })).body.data.secret;
    expect(verifies(other, request!)).toEqual({ hex: false, standard: false });
  });

  test("regenerate-secret switches the signing key at once, for the retry of an event queued before it", async () => {
    // The first attempt is held, then refused, only once the secret has been regenerated: its
    // retry necessarily leaves after the regenerate. A secret frozen with the event (or with the
    // first attempt) would sign the retry with the old key.
    let answerFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (answerFirst = resolve));
    const target = endpoint(async (_, nth) => {
      if (nth > 1) return new Response("ok");
      await firstHeld;
      return new Response("not yet", { status: 500 });
    });
    const { api, webhook, secret: oldSecret, deliveries, delivery } = await setup(target.url);
    let newSecret = "";
    await withWorker(async () => {
      await api("POST", "/api/v1/customers", { name: "Before regenerate" });
      await waitFor("the first attempt", () => target.requests().length === 1);
      const regenerate = await api("POST", `/api/v1/webhooks/${webhook.id}/regenerate-secret`);
      expect(regenerate.status).toBe(200);
      newSecret = regenerate.body.data.secret;
      answerFirst();
      const [queued] = await deliveries();
      const shown = await deliveryWhen(delivery, queued.id, (d) => d.status === "delivered");
      expect(shown.attempts_log.map((a: any) => a.status_code)).toEqual([500, 200]);
    });
    expect(newSecret).not.toBe(oldSecret);
    const [first, retry] = target.requests();
    expect(first!.headers.get("x-webhook-id")).toBe(retry!.headers.get("x-webhook-id"));
    expect(retry!.body).toBe(first!.body); // the payload is frozen, the key is not
    expect(verifies(oldSecret, first!)).toEqual({ hex: true, standard: true });
    expect(verifies(newSecret, retry!)).toEqual({ hex: true, standard: true });
    expect(verifies(oldSecret, retry!)).toEqual({ hex: false, standard: false });
  });
});

describe("what is delivered to whom", () => {
  test("only subscribed events; a deleted event carries the last state", async () => {
    const updates = endpoint();
    const { api, org } = await setup(updates.url, ["customer.updated"]);
    const token = await env.orgToken(["*"], org);
    const deletes = endpoint();
    await env.api("POST", "/api/v1/webhooks", { url: deletes.url, events: ["customer.deleted"] }, token);
    await withWorker(async () => {
      const customer = (await api("POST", "/api/v1/customers", { name: "Old name" })).body.data;
      await api("PUT", `/api/v1/customers/${customer.id}`, { name: "Last name" });
      expect((await api("DELETE", `/api/v1/customers/${customer.id}`)).status).toBe(204);
      await waitFor("both deliveries", () => updates.requests().length === 1 && deletes.requests().length === 1);
    });
    expect(updates.requests().map((r) => r.headers.get("x-webhook-event"))).toEqual(["customer.updated"]);
    const deleted = JSON.parse(deletes.requests()[0]!.body);
    expect(deleted).toMatchObject({ event: "customer.deleted", data: { name: "Last name" } });
  });

  test("an inactive webhook gets nothing queued; what was queued waits and goes on when reactivated", async () => {
    const target = endpoint();
    const { org, api, webhook, deliveries } = await setup(target.url);
    await withWorker(async () => {
      // queued while active, then deactivated before the worker's next turn (both synchronous)
      const scope = { db: env.db, org, actor: CLI_ACTOR };
      await customerService.create(scope, { name: "Queued while active" });
      await webhookService.update(scope, webhook.id, { is_active: false }, env.config, null);
      await api("POST", "/api/v1/customers", { name: "Made while inactive" });
      await Bun.sleep(300);
      expect(target.requests()).toHaveLength(0);
      const waiting = await deliveries();
      expect(waiting.map((d: any) => d.status)).toEqual(["pending"]);

      expect((await api("PUT", `/api/v1/webhooks/${webhook.id}`, { is_active: true })).body.data.is_active).toBe(true);
      await waitFor("the waiting delivery", () => target.requests().length === 1);
      expect(JSON.parse(target.requests()[0]!.body).data.name).toBe("Queued while active");
    });
    expect(await deliveries()).toHaveLength(1);
  });
});

describe("retries", () => {
  test("500, 500, 200: three attempts with one X-Webhook-Id, each logged", async () => {
    const target = endpoint((_, nth) => (nth < 3 ? new Response("x".repeat(3000), { status: 500 }) : new Response("thanks")));
    const { api, secret, deliveries, delivery } = await setup(target.url);
    await withWorker(async () => {
      await api("POST", "/api/v1/customers", { name: "Retried" });
      await waitFor("three attempts", () => target.requests().length === 3);
      const [queued] = await deliveries();
      const shown = await deliveryWhen(delivery, queued.id, (d) => d.status === "delivered");
      expect(shown).toMatchObject({ status: "delivered", attempts: 3, last_status_code: 200, last_error: null });
      expect(shown.attempts_log.map((a: any) => a.status_code)).toEqual([500, 500, 200]);
      // the first 1 KiB of the answer is kept
      expect(shown.attempts_log[0].response_body).toBe("x".repeat(1024));
      expect(shown.attempts_log[2].response_body).toBe("thanks");
      for (const a of shown.attempts_log) expect(a.duration_ms).toBeGreaterThanOrEqual(0);
    });
    // one delivery id and one event id on every attempt
    expect(new Set(target.requests().map((r) => r.headers.get("x-webhook-id"))).size).toBe(1);
    expect(new Set(target.requests().map((r) => r.headers.get("webhook-id"))).size).toBe(1);
    for (const request of target.requests()) expect(verifies(secret, request)).toEqual({ hex: true, standard: true });
  });

  test("always 500: failed after three attempts; redeliver queues a fresh series under the same id", async () => {
    let healthy = false;
    const target = endpoint(() => (healthy ? new Response("ok") : new Response("down", { status: 500 })));
    const { api, webhook, deliveries, delivery } = await setup(target.url);
    await withWorker(async () => {
      await api("POST", "/api/v1/customers", { name: "Unlucky" });
      const [queued] = await deliveries();
      const failed = await deliveryWhen(delivery, queued.id, (d) => d.status === "failed");
      expect(failed).toMatchObject({ status: "failed", attempts: 3, last_status_code: 500, next_attempt_at: null, delivered_at: null });
      expect(failed.attempts_log.map((a: any) => a.status_code)).toEqual([500, 500, 500]);
      expect(target.requests()).toHaveLength(3);

      healthy = true;
      const redelivered = await api("POST", `/api/v1/webhooks/${webhook.id}/deliveries/${queued.id}/redeliver`);
      expect(redelivered.status).toBe(202);
      expect(redelivered.body.data).toMatchObject({ id: queued.id, status: "pending", attempts: 0, last_status_code: null, last_error: null });
      const delivered = await deliveryWhen(delivery, queued.id, (d) => d.status === "delivered");
      expect(delivered).toMatchObject({ attempts: 1, last_status_code: 200 });
      expect(delivered.attempts_log.map((a: any) => a.status_code)).toEqual([500, 500, 500, 200]);
    });
    expect(new Set(target.requests().map((r) => r.headers.get("x-webhook-id")))).toEqual(new Set([(await deliveries())[0].id]));
    const audited = await env.db.select().from(auditLog).where(eq(auditLog.action, "delivery.redelivered"));
    expect(audited.some((a) => a.resourceType === "delivery" && a.resourceId === (target.requests()[0]!.headers.get("x-webhook-id") as string))).toBe(true);
  });

  test("a timeout and a redirect are failed attempts; the redirect is not followed", async () => {
    const slow = endpoint(async () => {
      await Bun.sleep(1500);
      return new Response("late");
    });
    const moved = endpoint(() => new Response(null, { status: 302, headers: { location: "/elsewhere" } }));
    const slowHook = await setup(slow.url);
    const movedHook = await setup(moved.url);
    await withWorker(
      async () => {
        await slowHook.api("POST", "/api/v1/customers", { name: "Slow" });
        await movedHook.api("POST", "/api/v1/customers", { name: "Moved" });
        const timedOut = await deliveryWhen(slowHook.delivery, (await slowHook.deliveries())[0].id, (d) => d.status === "failed");
        expect(timedOut.attempts_log[0]).toMatchObject({ status_code: null, error: "Timed out after 200 ms.", response_body: null });
        expect(timedOut.attempts_log[0].duration_ms).toBeGreaterThanOrEqual(190);
        expect(timedOut.attempts_log[0].duration_ms).toBeLessThan(1400);
        const redirected = await deliveryWhen(movedHook.delivery, (await movedHook.deliveries())[0].id, (d) => d.status === "failed");
        expect(redirected).toMatchObject({ last_status_code: 302, last_error: "Redirect to /elsewhere not followed." });
      },
      { webhookTimeoutMs: 200, webhookMaxAttempts: 1 },
    );
    expect(received.filter((r) => r.path === "/elsewhere")).toHaveLength(0);
  });
});

/** Polls a delivery through the API until `done` holds. */
async function deliveryWhen(show: (id: string) => Promise<any>, id: string, done: (d: any) => boolean): Promise<any> {
  const deadline = Date.now() + 8000;
  for (;;) {
    const d = await show(id);
    if (done(d)) return d;
    if (Date.now() > deadline) throw new Error(`delivery ${id} stayed ${JSON.stringify(d).slice(0, 300)}`);
    await Bun.sleep(20);
  }
}

describe("SSRF guard (contract 7.6)", () => {
  // cloud metadata destinations cannot be saved even with private ones allowed: tests/webhooks/webhooks.test.ts refuses them at delivery
  test("loopback, private and IPv6 loopback destinations are refused at delivery time; the address goes to the log only", async () => {
    const port = receiver.port;
    const urls: [string, RegExp][] = [
      [`http://127.0.0.1:${port}/ssrf`, /127\.0\.0\.1 \(loopback\)/],
      [`http://localhost:${port}/ssrf`, /localhost resolves to 127\.0\.0\.1 \(loopback\)/],
      ["http://10.0.0.1/ssrf", /10\.0\.0\.1 \(private\)/],
      [`http://[::1]:${port}/ssrf`, /::1 \(loopback\)/],
      [`http://[::ffff:127.0.0.1]:${port}/ssrf`, /\(IPv4-mapped\)/],
    ];
    // created while KONTOR_WEBHOOK_ALLOW_PRIVATE was on (this file's env); the worker then runs with it off
    const { org, token, api, webhook, delivery } = await setup(urls[0]![0]);
    for (const [url] of urls.slice(1)) expect((await env.api("POST", "/api/v1/webhooks", { url, events: ["customer.created"] }, token)).status).toBe(201);
    const logged: string[] = [];
    await withWorker(
      async () => {
        await api("POST", "/api/v1/customers", { name: "Internal" });
        await waitFor("every delivery to fail", async () => {
          const rows = await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.organizationId, org.id));
          return rows.length === urls.length && rows.every((r) => r.status === "failed");
        });
      },
      { webhookAllowPrivate: false, webhookMaxAttempts: 1 },
      undefined,
      (line) => logged.push(line),
    );
    const rows = await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.organizationId, org.id));
    // what a client sees says the destination is refused, never what a name resolved to
    expect(new Set(rows.map((r) => r.lastError))).toEqual(new Set(["The destination is not allowed (private or loopback address)."]));
    const shown = await delivery(rows.find((r) => r.webhookId === webhook.id)!.id);
    expect(shown.attempts_log.map((a: any) => a.error)).toEqual(["The destination is not allowed (private or loopback address)."]);
    // the server log keeps it, for the operator
    for (const [url, pattern] of urls) expect(logged.some((line) => pattern.test(line)), `${url}: ${logged.join(" | ")}`).toBe(true);
    expect(received.filter((r) => r.path === "/ssrf")).toHaveLength(0);
  });

  test("an http:// webhook saved while plain HTTP was allowed is not sent once it is off", async () => {
    const target = endpoint();
    const { api, deliveries, delivery } = await setup(target.url);
    expect(target.url).toStartWith("http://");
    await withWorker(
      async () => {
        await api("POST", "/api/v1/customers", { name: "Plain" });
        const [queued] = await deliveries();
        const failed = await deliveryWhen(delivery, queued.id, (d) => d.status === "failed");
        expect(failed.attempts_log.map((a: any) => [a.status_code, a.error])).toEqual([
          [null, "Plain HTTP is not allowed (KONTOR_WEBHOOK_ALLOW_HTTP is off): change the webhook's url to HTTPS."],
        ]);
      },
      { webhookAllowHttp: false, webhookMaxAttempts: 1 },
    );
    expect(target.requests()).toHaveLength(0);
  });

  test("the address classification", () => {
    const cases: [string, string | null][] = [
      ["127.0.0.1", "loopback"], ["10.1.2.3", "private"], ["172.16.0.1", "private"], ["172.31.255.255", "private"],
      ["192.168.1.1", "private"], ["169.254.169.254", "cloud metadata"], ["169.254.10.1", "link-local"],
      ["100.64.0.1", "carrier-grade NAT"], ["0.0.0.0", "this-network"], ["224.0.0.1", "multicast"],
      ["::1", "loopback"], ["::", "unspecified"], ["::ffff:8.8.8.8", "IPv4-mapped"], ["fd00:ec2::254", "unique local"],
      ["fe80::1", "link-local"], ["64:ff9b::a00:1", "private"], ["2002:a00:1::1", "private"],
      ["8.8.8.8", null], ["93.184.216.34", null], ["172.32.0.1", null], ["2606:4700:4700::1111", null], ["64:ff9b::808:808", null],
    ];
    for (const [address, expected] of cases) expect(refusedRange(address), address).toBe(expected);
  });
});

describe("fairness between organisations", () => {
  test("one organisation's dead receivers do not delay another organisation's delivery by more than a second", async () => {
    // organisation A: 5 webhooks to a receiver that never answers, 150 deliveries queued (more
    // than the worker's 128 slots, and 5 × 32 per webhook); B: one webhook, answered at once
    const dead = endpoint(() => new Promise<Response>(() => {}));
    const a = await setup(dead.url);
    for (let i = 0; i < 4; i++) expect((await a.api("POST", "/api/v1/webhooks", { url: dead.url, events: ["customer.created"] })).status).toBe(201);
    const scopeA = { db: env.db, org: a.org, actor: CLI_ACTOR };
    for (let i = 0; i < 30; i++) await customerService.create(scopeA, { name: `Backlog ${i}` });
    const fast = endpoint();
    const b = await setup(fast.url);
    try {
      await withWorker(
        async () => {
          await waitFor("A's attempts in flight", () => dead.requests().length >= 16);
          await Bun.sleep(300); // the worker has claimed all it will for A
          const inFlightForA = dead.requests().length;
          const sent = Date.now();
          await b.api("POST", "/api/v1/customers", { name: "Not kept waiting" });
          await waitFor("B's delivery", () => fast.requests().length === 1, 8000);
          expect(fast.requests()[0]!.at - sent).toBeLessThan(1000);
          // A filled the slots anyone may use (B took one of those kept for organisations
          // within their share); the rest of its backlog waits, pending
          expect(inFlightForA).toBe(128);
          expect(dead.requests().length).toBe(128);
          expect((await rowsOf(a.org.id)).filter((r) => r.status === "pending")).toHaveLength(150);
        },
        { webhookTimeoutMs: 3000 },
        100,
      );
    } finally {
      // no later worker must send to the dead receiver: A's webhooks go, their deliveries with them
      for (const w of (await a.api("GET", "/api/v1/webhooks")).body.data) await a.api("DELETE", `/api/v1/webhooks/${w.id}`);
    }
  }, 20_000);

  test("nor do they when two more organisations' receivers hang as well", async () => {
    const stalled = () => endpoint(() => new Promise<Response>(() => {}));
    const [deadA, deadC, deadD] = [stalled(), stalled(), stalled()];
    const a = await setup(deadA.url);
    for (let i = 0; i < 4; i++) expect((await a.api("POST", "/api/v1/webhooks", { url: deadA.url, events: ["customer.created"] })).status).toBe(201);
    const c = await setup(deadC.url);
    const d = await setup(deadD.url);
    for (let i = 0; i < 30; i++) await customerService.create({ db: env.db, org: a.org, actor: CLI_ACTOR }, { name: `Backlog A${i}` });
    for (const { org } of [c, d]) for (let i = 0; i < 20; i++) await customerService.create({ db: env.db, org, actor: CLI_ACTOR }, { name: `Backlog ${i}` });
    const fast = endpoint();
    const b = await setup(fast.url);
    try {
      await withWorker(
        async () => {
          await waitFor("the stalled attempts", () => deadA.requests().length + deadC.requests().length + deadD.requests().length >= 128);
          await Bun.sleep(300);
          const sent = Date.now();
          await b.api("POST", "/api/v1/customers", { name: "Still not kept waiting" });
          await waitFor("B's delivery", () => fast.requests().length === 1, 8000);
          expect(fast.requests()[0]!.at - sent).toBeLessThan(1000);
          // C and D each have their share; A borrowed the rest of the slots anyone may use
          expect([deadC.requests().length, deadD.requests().length]).toEqual([16, 16]);
          expect(deadA.requests().length).toBe(128 - 32);
        },
        { webhookTimeoutMs: 3000 },
        100,
      );
    } finally {
      for (const { api } of [a, c, d]) for (const w of (await api("GET", "/api/v1/webhooks")).body.data) await api("DELETE", `/api/v1/webhooks/${w.id}`);
    }
  }, 20_000);
});

describe("the receivers of the documents (README.md, docs/webhooks.md)", () => {
  /** The lines a process prints, as they come. */
  function lines(stream: ReadableStream<Uint8Array>) {
    const seen: string[] = [];
    void (async () => {
      const decoder = new TextDecoder();
      let rest = "";
      for await (const chunk of stream) {
        const parts = (rest + decoder.decode(chunk, { stream: true })).split("\n");
        rest = parts.pop()!;
        seen.push(...parts);
      }
    })();
    return async (containing: string) => {
      await waitFor(`a line with "${containing}" (seen: ${seen.join(" | ")})`, () => seen.some((l) => l.includes(containing)));
      return seen.find((l) => l.includes(containing))!;
    };
  }

  /** Every receiver of the documents: a ```ts block that serves HTTP, in README.md and docs/*.md. */
  const receivers = ["README.md", "docs/webhooks.md"].flatMap((file) =>
    [...readFileSync(join(TESTS_ROOT, "..", file), "utf8").matchAll(/```ts\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .filter((code) => code.includes("Bun.serve("))
      .map((code, i) => ({ name: `${file} #${i + 1}${code.includes('from "standardwebhooks"') ? " (standardwebhooks)" : " (node:crypto)"}`, code })),
  );

  test("the documents hold the two receivers: the README's standardwebhooks one, docs/webhooks.md's node:crypto one", () => {
    expect(receivers.map((r) => r.name)).toEqual(["README.md #1 (standardwebhooks)", "docs/webhooks.md #1 (node:crypto)"]);
  });

  for (const { name, code } of receivers) {
    test(`${name}, run exactly as written, verifies a real delivery, answers its redelivery with a 2xx and refuses a forgery`, async () => {
      const { api, webhook, secret, deliveries, delivery } = await setup("https://receiver.example.com/kontor");
      const scratch = mkdtempSync(join(tmpdir(), "kontor-receiver-"));
      const receiverProcess = Bun.spawn(["bun", "-e", code], {
        // the repository's node_modules for the README's `standardwebhooks`
        cwd: join(TESTS_ROOT, ".."),
        env: { ...process.env, KONTOR_WEBHOOK_SECRET: secret, PORT: "0", RECEIVER_DB: join(scratch, "receiver.db") },
        stdout: "pipe",
        stderr: "inherit",
      });
      try {
        const line = lines(receiverProcess.stdout);
        const port = new URL((await line("Listening on ")).slice("Listening on ".length)).port;
        const url = `http://127.0.0.1:${port}/kontor`;
        expect((await api("PUT", `/api/v1/webhooks/${webhook.id}`, { url })).status).toBe(200);
        await withWorker(async () => {
          const customer = (await api("POST", "/api/v1/customers", { name: "Read the docs" })).body.data;
          const [queued] = await deliveries();
          // the receivers print (and de-duplicate on) the event id: the body's id, the webhook-id
          const eventId = (await api("GET", `/api/v1/events?filter[resource_id]=${customer.id}`)).body.data[0].id;
          const printed = `${eventId} customer.created ${customer.id}`;
          expect(await line(printed)).toBe(printed);
          const shown = await deliveryWhen(delivery, queued.id, (d) => d.status === "delivered");
          expect(shown.attempts_log.map((a: any) => [a.status_code, a.response_body])).toEqual([[200, "ok"]]);
          // the same delivery again (a retry after a lost answer, a replay): a 2xx, and one that deduplicates does not redo the work
          expect((await api("POST", `/api/v1/webhooks/${webhook.id}/deliveries/${queued.id}/redeliver`)).status).toBe(202);
          const again = await deliveryWhen(delivery, queued.id, (d) => d.status === "delivered" && d.attempts_log.length === 2);
          expect(again.attempts_log[1].status_code).toBe(200);
          if (code.includes("alreadyProcessed")) expect(again.attempts_log[1].response_body).toBe("duplicate");
        });
        // and it refuses what the secret did not sign
        const forged = await fetch(url, {
          method: "POST",
          headers: { "webhook-id": "msg_forged", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": "v1,Zm9yZ2Vk", "x-webhook-signature": "00" },
          body: JSON.stringify({ event: "customer.created", timestamp: "2026-01-01T00:00:00.000000Z", data: {} }),
        });
        expect(forged.status).toBe(400);
      } finally {
        receiverProcess.kill();
        await receiverProcess.exited;
        rmSync(scratch, { recursive: true, force: true });
      }
    });
  }
});

describe("leases, shutdown and several workers", () => {
  test("stop() lets an attempt in flight finish, and hands back what it had to cut short", async () => {
    const quick = endpoint(async () => {
      await Bun.sleep(100);
      return new Response("ok");
    });
    const stalled = endpoint(() => new Promise<Response>(() => {}));
    const finishing = await setup(quick.url);
    const cut = await setup(stalled.url);
    const worker = await startWorker(env.db, env.config, { graceMs: 400, log: () => {} });
    await finishing.api("POST", "/api/v1/customers", { name: "Finishes" });
    await cut.api("POST", "/api/v1/customers", { name: "Cut short" });
    await waitFor("both in flight", () => quick.requests().length === 1 && stalled.requests().length === 1);
    const started = Date.now();
    await worker.stop();
    expect(Date.now() - started).toBeLessThan(2000);
    const [done] = await finishing.deliveries();
    expect(done).toMatchObject({ status: "delivered", attempts: 1 });
    const row = (await firstRow(env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, cut.webhook.id))))!;
    // not an attempt of its series, and claimable again at once
    expect(row).toMatchObject({ status: "pending", attempts: 0, leasedBy: null, leaseUntil: null, lastStatusCode: null, lastError: null });
    // but recorded, like every attempt (contract 7.5), saying why it ended
    const shown = await cut.delivery(row.id);
    expect(shown).toMatchObject({ status: "pending", attempts: 0, last_status_code: null, last_error: null });
    expect(shown.attempts_log).toEqual([
      { id: expect.any(String), attempted_at: expect.any(String), status_code: null, duration_ms: expect.any(Number), error: "Interrupted by worker shutdown.", response_body: null },
    ]);
    expect(shown.attempts_log[0].duration_ms).toBeGreaterThanOrEqual(300);
    await cut.api("PUT", `/api/v1/webhooks/${cut.webhook.id}`, { is_active: false }); // the receiver never answers
  });

  test("by default stop() gives an attempt in flight its whole timeout: a slow receiver is not cut off by a deploy", async () => {
    // 5.5 s: longer than the 5 s grace the worker used to default to, shorter than the attempt timeout
    const slow = endpoint(async () => {
      await Bun.sleep(5500);
      return new Response("finally");
    });
    const { api, deliveries, delivery } = await setup(slow.url);
    const worker = await startWorker(env.db, { ...env.config, webhookTimeoutMs: 7000 }, { log: () => {} });
    await api("POST", "/api/v1/customers", { name: "Slow receiver" });
    await waitFor("the attempt", () => slow.requests().length === 1);
    await worker.stop();
    const [queued] = await deliveries();
    const shown = await delivery(queued.id);
    expect(shown).toMatchObject({ status: "delivered", attempts: 1, last_status_code: 200, last_error: null });
    expect(shown.attempts_log.map((a: any) => [a.status_code, a.error, a.response_body])).toEqual([[200, null, "finally"]]);
  }, 20_000);

  test("a change answered by any HTTP thread wakes the worker at once, not at its next tick", async () => {
    const target = endpoint();
    const { token } = await setup(target.url);
    const running = await startServer(createRuntime({ ...env.config, port: 0, httpThreads: 2 }, { db: env.db }));
    try {
      const waits: number[] = [];
      for (let i = 0; i < 20; i++) {
        // a connection each: the kernel spreads them over both threads' sockets
        const answered = await fetch(`${running.url}/api/v1/customers`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", connection: "close" },
          body: JSON.stringify({ name: `Woken ${i}` }),
        });
        expect(answered.status).toBe(201);
        const at = Date.now();
        await waitFor(`delivery ${i}`, () => target.requests().length === i + 1, 3000);
        waits.push(target.requests()[i]!.at - at);
      }
      // woken, a delivery leaves within milliseconds; a thread that could not wake the worker
      // left its changes for the worker's next pass (hundreds of ms): 8 of these 20, measured
      expect(waits.filter((ms) => ms > 50).length, `waits: ${waits.join(", ")} ms`).toBeLessThanOrEqual(2);
    } finally {
      await running.stop();
    }
  }, 30_000);

  test("kontor serve stops its worker's claiming at once, while the HTTP side still drains", async () => {
    const target = endpoint();
    const { org, token, deliveries } = await setup(target.url);
    const running = await startServer(createRuntime({ ...env.config, port: 0, httpThreads: 2 }, { db: env.db }));
    // a request in flight: its body is still on its way, so the HTTP server cannot finish stopping
    let bodyStream!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (controller) => void (bodyStream = controller) });
    const inFlight = fetch(`${running.url}/api/v1/customers`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    bodyStream.enqueue(new TextEncoder().encode('{"name": '));
    await Bun.sleep(200);

    let stopped = false;
    const stopping = running.stop().then(() => void (stopped = true));
    // queued while the HTTP side drains: this worker must not take it (the next one will)
    await customerService.create({ db: env.db, org, actor: CLI_ACTOR }, { name: "Queued during the drain" });
    await Bun.sleep(500);
    expect(stopped).toBe(false);
    expect(target.requests()).toHaveLength(0);

    bodyStream.enqueue(new TextEncoder().encode('"Sent during the drain"}'));
    bodyStream.close();
    const answer = await inFlight;
    expect(answer.status).toBe(201); // the request in flight was served to the end
    await stopping;
    expect(target.requests()).toHaveLength(0);
    const queued = await deliveries();
    expect(queued.map((d: any) => [d.status, d.attempts])).toEqual([
      ["pending", 0],
      ["pending", 0],
    ]);
  });

  test("a delivery redelivered while in flight is not sent twice at once", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let inFlight = 0;
    let overlapped = false;
    const target = endpoint(async () => {
      if (++inFlight > 1) overlapped = true;
      await gate;
      inFlight--;
      return new Response("ok");
    });
    const { api, webhook, deliveries, delivery } = await setup(target.url);
    await withWorker(async () => {
      await api("POST", "/api/v1/customers", { name: "In flight" });
      await waitFor("the first attempt", () => target.requests().length === 1);
      const [queued] = await deliveries();
      expect((await api("POST", `/api/v1/webhooks/${webhook.id}/deliveries/${queued.id}/redeliver`)).status).toBe(202);
      await Bun.sleep(200);
      expect(target.requests()).toHaveLength(1);
      release();
      // the fresh series starts once the first attempt is back
      await waitFor("the redelivery", () => target.requests().length === 2);
      const shown = await deliveryWhen(delivery, queued.id, (d) => d.status === "delivered" && d.attempts_log.length === 2);
      expect(shown.attempts).toBe(1);
    });
    expect(overlapped).toBe(false);
  });

  const cliPath = join(TESTS_ROOT, "../cli/main.ts");
  /** A `kontor worker` process, returned once it says it is running. */
  async function spawnWorker(extraEnv: Record<string, string> = {}): Promise<Subprocess> {
    const proc = Bun.spawn(["bun", cliPath, "worker", "--db", env.config.dbPath], {
      env: { ...process.env, KONTOR_ENV: "test", ...databaseEnv(env.config.dbPath), ...WORKER_ENV, ...extraEnv },
      stdout: "pipe",
      stderr: "ignore",
    });
    const reader = proc.stdout.getReader();
    let output = "";
    while (!output.includes("worker running")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`worker exited: ${output}`);
      output += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    return proc;
  }

  test("two worker processes on one database send each delivery once", async () => {
    // A barrier: every request is held until all 200 are in flight at once. One worker has at
    // most 128 attempts in flight (4 webhooks × 32), so the barrier opens only when both
    // workers are sending, whatever the machine's load; should it not open, the answers go out
    // after 4 s and the test fails on the count below.
    const total = 200;
    let open = false;
    let releaseAll!: () => void;
    const barrier = new Promise<void>((resolve) => (releaseAll = resolve));
    let arrived = 0;
    const hold = async () => {
      arrived++;
      if (arrived === total) (open = true), releaseAll();
      await Promise.race([barrier, Bun.sleep(4000)]);
      return new Response("ok");
    };
    const targets = Array.from({ length: 4 }, () => endpoint(hold));
    const { org, token } = await setup(targets[0]!.url);
    for (const t of targets.slice(1)) await env.api("POST", "/api/v1/webhooks", { url: t.url, events: ["customer.created"] }, token);
    const workerEnv = { KONTOR_WEBHOOK_TIMEOUT_MS: "8000" };
    const workers = await Promise.all([spawnWorker(workerEnv), spawnWorker(workerEnv)]);
    const scope = { db: env.db, org, actor: CLI_ACTOR };
    for (let i = 0; i < total / 4; i++) await customerService.create(scope, { name: `Customer ${i}` }); // 200 deliveries
    const leaseHolders = new Set<string>();
    try {
      await waitFor(
        "every delivery",
        async () => {
          const rows = await rowsOf(org.id);
          for (const r of rows) if (r.leasedBy) leaseHolders.add(r.leasedBy.split(":")[1]!);
          return rows.every((r) => r.status === "delivered");
        },
        20_000,
      );
    } finally {
      for (const w of workers) w.kill("SIGTERM");
      await Promise.all(workers.map((w) => w.exited));
    }
    const ids = targets.flatMap((t) => t.requests().map((r) => r.headers.get("x-webhook-id")!));
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    expect((await rowsOf(org.id)).every((r) => r.attempts === 1)).toBe(true);
    // both took part: all 200 were in flight at once, more than one worker may hold
    expect(open).toBe(true);
    expect(leaseHolders).toEqual(new Set(workers.map((w) => String(w.pid))));
  }, 40_000);

  test("a worker killed with SIGKILL mid-flight loses nothing: after a restart every delivery arrives", async () => {
    let stalling = true;
    const stalled: (() => void)[] = [];
    const answered = new Set<string>();
    const target = endpoint(async (request) => {
      if (stalling) await new Promise<void>((resolve) => stalled.push(resolve));
      else answered.add(request.headers.get("x-webhook-id")!);
      return new Response("ok");
    });
    const { org } = await setup(target.url);
    const scope = { db: env.db, org, actor: CLI_ACTOR };
    for (let i = 0; i < 20; i++) await customerService.create(scope, { name: `Stalled ${i}` });
    // a 1.5 s attempt timeout makes the lease 3.5 s, so the restart does not wait long
    const crashEnv = { KONTOR_WEBHOOK_TIMEOUT_MS: "1500" };
    const first = await spawnWorker(crashEnv);
    await waitFor("the first worker's attempts", () => target.requests().length === 20, 10_000);
    first.kill("SIGKILL");
    await first.exited;
    stalling = false;
    for (const resume of stalled) resume();
    expect((await rowsOf(org.id)).every((r) => r.status === "pending" && r.leasedBy !== null)).toBe(true);

    const second = await spawnWorker(crashEnv);
    try {
      await waitFor("every delivery after the restart", async () => (await rowsOf(org.id)).every((r) => r.status === "delivered"), 15_000);
    } finally {
      second.kill("SIGTERM");
      await second.exited;
    }
    expect([...answered].sort()).toEqual((await rowsOf(org.id)).map((r) => r.id).sort());
  }, 30_000);
});
