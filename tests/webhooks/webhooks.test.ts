/**
 * Webhooks API (api-spec 4.9, contract 7.1, 7.2, 7.7), the outbox as seen through the API, and
 * `kontor deliveries list|replay` as real processes. No worker runs here: deliveries stay as
 * the outbox wrote them, and the tests move them where they need them.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLog, webhookAttempts, webhookDeliveries } from "../../db/schema.ts";
import { WEBHOOK_EVENTS } from "../../server/changes/events.ts";
import { claimDue, reconcileParking, recordOutcomes, releaseLeases } from "../../server/webhooks/queue.ts";
import { METADATA_HOSTS } from "../../server/lib/hosts.ts";
import { resolveDestination } from "../../server/webhooks/ssrf.ts";
import { closeObjects, createContractChecker } from "../contract.ts";
import { createTestEnv, runCli } from "../helpers.ts";
import { plansOf, slowListSteps, slowSteps } from "../query-plan.ts";
import { firstRow } from "../../db/client.ts";
import { rawSql, sqliteOnly } from "../raw-sql.ts";

const env = await createTestEnv();
const sql = rawSql(env.db);
const strict = await createTestEnv({ KONTOR_WEBHOOK_ALLOW_HTTP: "false" });
afterAll(() => {
  env.close();
  strict.close();
});

const HOOK = "https://hooks.example.com/kontor";

async function webhook(body: Record<string, unknown> = {}, token?: string) {
  const r = await env.api("POST", "/api/v1/webhooks", { url: HOOK, events: ["customer.created"], ...body }, token);
  expect(r.status, r.text).toBe(201);
  return r.body.data;
}

const deliveriesOf = async (webhookId: string) =>
  await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId)).orderBy(webhookDeliveries.createdAt, webhookDeliveries.id);
const audited = async (action: string, id: string) =>
  (await env.db.select().from(auditLog).where(and(eq(auditLog.action, action), eq(auditLog.resourceId, id)))).length;

describe("webhooks CRUD", () => {
  test("create: 201 with Location and the secret, shown only then", async () => {
    const r = await env.api("POST", "/api/v1/webhooks", { url: HOOK, events: ["invoice.created", "customer.created", "invoice.created"] });
    expect(r.status).toBe(201);
    const created = r.body.data;
    expect(Object.keys(created).sort()).toEqual(["created_at", "events", "id", "is_active", "last_triggered_at", "secret", "updated_at", "url"]);
    expect(created).toMatchObject({ url: HOOK, events: ["invoice.created", "customer.created"], is_active: true, last_triggered_at: null });
    expect(r.headers.get("location")).toBe(`/api/v1/webhooks/${created.id}`);
    // whsec_ + 33 random bytes, the same text in base64 and base64url
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9]{44}$/);
    const text = created.secret.slice("whsec_".length);
    expect(Buffer.from(text, "base64")).toEqual(Buffer.from(text, "base64url"));
    expect(Buffer.from(text, "base64").length).toBe(33);

    const shown = (await env.api("GET", `/api/v1/webhooks/${created.id}`)).body.data;
    const { secret, ...withoutSecret } = created;
    expect(shown).toEqual(withoutSecret);
    const listed = (await env.api("GET", "/api/v1/webhooks")).body.data;
    expect(listed.every((w: any) => !("secret" in w))).toBe(true);
    expect(await audited("webhook.created", created.id)).toBe(1);
  });

  test("secrets differ per webhook and per regeneration", async () => {
    const secrets = new Set<string>();
    const { token } = await env.newOrg(); // the first organisation's 20 webhooks are for the other tests
    for (let i = 0; i < 5; i++) secrets.add((await webhook({}, token)).secret);
    expect(secrets.size).toBe(5);
  });

  test("list: newest first, paginated", async () => {
    const { token } = await env.newOrg();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await webhook({}, token)).id);
    const page = await env.api("GET", "/api/v1/webhooks?per_page=2", undefined, token);
    expect(page.body.data.map((w: any) => w.id)).toEqual([ids[2], ids[1]]);
    expect(page.body.meta).toMatchObject({ total: 3, last_page: 2, per_page: 2 });
    const oldest = await env.api("GET", "/api/v1/webhooks?sort=created_at", undefined, token);
    expect(oldest.body.data.map((w: any) => w.id)).toEqual(ids);
    expect((await env.api("GET", "/api/v1/webhooks?sort=url", undefined, token)).status).toBe(422);
  });

  test("update: partial, and each field's rules", async () => {
    const w = await webhook();
    const r = await env.api("PUT", `/api/v1/webhooks/${w.id}`, { events: ["expense.approved"], is_active: false });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ url: HOOK, events: ["expense.approved"], is_active: false });
    expect(r.body.data).not.toHaveProperty("secret");
    const moved = await env.api("PUT", `/api/v1/webhooks/${w.id}`, { url: "https://other.example.com/hook" });
    expect(moved.body.data).toMatchObject({ url: "https://other.example.com/hook", events: ["expense.approved"], is_active: false });
    for (const [body, field] of [
      [{ events: [] }, "events"],
      [{ events: ["invoice.paid"] }, "events.0"],
      [{ url: "not a url" }, "url"],
      [{ is_active: "yes" }, "is_active"],
      [{ secret: "mine" }, "secret"],
    ] as const) {
      const bad = await env.api("PUT", `/api/v1/webhooks/${w.id}`, body);
      expect(bad.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(bad.body.errors), JSON.stringify(body)).toEqual([field]);
    }
    expect(await audited("webhook.updated", w.id)).toBe(2);
  });

  test("create rules of api-spec 4.9", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ events: ["customer.created"] }, "url"],
      [{ url: HOOK }, "events"],
      [{ url: HOOK, events: [] }, "events"],
      [{ url: HOOK, events: ["customer.created", "customer.exploded"] }, "events.1"],
      [{ url: HOOK, events: "customer.created" }, "events"],
      [{ url: `https://example.com/${"x".repeat(2048)}`, events: ["customer.created"] }, "url"],
      [{ url: "ftp://example.com/hook", events: ["customer.created"] }, "url"],
      [{ url: "https://", events: ["customer.created"] }, "url"],
      [{ url: HOOK, events: ["customer.created"], is_active: 1 }, "is_active"],
      [{ url: HOOK, events: ["customer.created"], id: "mine" }, "id"],
    ];
    for (const [body, field] of cases) {
      const r = await env.api("POST", "/api/v1/webhooks", body);
      expect(r.status, JSON.stringify(body).slice(0, 100)).toBe(422);
      expect(Object.keys(r.body.errors), JSON.stringify(body).slice(0, 100)).toEqual([field]);
    }
    // the limits themselves, every known event, and plain http where allowed (test env)
    const longest = `https://example.com/${"x".repeat(2048 - "https://example.com/".length)}`;
    expect((await env.api("POST", "/api/v1/webhooks", { url: longest, events: [...WEBHOOK_EVENTS] })).status).toBe(201);
    expect((await env.api("POST", "/api/v1/webhooks", { url: "http://hooks.example.com:9/hook", events: ["customer.created"], is_active: false })).status).toBe(201);
  });

  test("the url is stored parsed and normalised; credentials, port 0 and control characters are refused", async () => {
    const refused: [string, string][] = [
      // reads like x.example.com, goes to evil.com with "x.example.com:443" as user name and password
      ["https://x.example.com:443@evil.com/", "The url must not contain a user name or password."],
      ["https://user:secret@x.example.com/hook", "The url must not contain a user name or password."],
      ["https://token@x.example.com/hook", "The url must not contain a user name or password."],
      ["https://x.example.com:0/hook", "The url must not use port 0."],
      ["https://x.example.com:000/hook", "The url must not use port 0."],
      ["https://x.example.com\u0000/hook", "The url must not contain control characters."],
      ["https://x.example.com/ho\u0000ok", "The url must not contain control characters."],
      ["https://x.exa\tmple.com/hook", "The url must not contain control characters."],
      ["https://x.example.com/hook\n", "The url must not contain control characters."],
      ["https://x.example.com/\u0085", "The url must not contain control characters."],
      ["javascript:alert(1)", "The url must be an HTTPS or HTTP URL."],
      ["mailto:ops@example.com", "The url must be an HTTPS or HTTP URL."],
      ["https://x.example.com:99999/", "The url field must be a valid URL."],
      // 600 characters as sent, 3 618 once each é is percent-encoded
      [`https://x.example.com/${"é".repeat(600)}`, "The url must not be greater than 2048 characters once normalised."],
    ];
    for (const [url, message] of refused) {
      const created = await env.api("POST", "/api/v1/webhooks", { url, events: ["customer.created"] });
      expect(created.status, JSON.stringify(url)).toBe(422);
      expect(created.body.errors, JSON.stringify(url)).toEqual({ url: [message] });
    }
    const w = await webhook();
    for (const [url, message] of refused) {
      const updated = await env.api("PUT", `/api/v1/webhooks/${w.id}`, { url });
      expect(updated.status, JSON.stringify(url)).toBe(422);
      expect(updated.body.errors, JSON.stringify(url)).toEqual({ url: [message] });
    }
    expect((await env.api("GET", `/api/v1/webhooks/${w.id}`)).body.data.url).toBe(HOOK);

    const normalised: [string, string][] = [
      [" https://x.example.com/hook", "https://x.example.com/hook"],
      ["https://x.example.com/hook  ", "https://x.example.com/hook"],
      ["https:x.example.com", "https://x.example.com/"],
      ["HTTPS://X.Example.COM:443/a/../hook?b=1", "https://x.example.com/hook?b=1"],
      ["https://x.example.com:8443", "https://x.example.com:8443/"],
      ["https://x.example.com/é", "https://x.example.com/%C3%A9"],
    ];
    for (const [url, stored] of normalised) {
      const created = await env.api("POST", "/api/v1/webhooks", { url, events: ["customer.created"] });
      expect(created.status, JSON.stringify(url)).toBe(201);
      expect(created.body.data.url, JSON.stringify(url)).toBe(stored);
      expect((await env.api("GET", `/api/v1/webhooks/${created.body.data.id}`)).body.data.url).toBe(stored);
      await env.api("DELETE", `/api/v1/webhooks/${created.body.data.id}`); // within the organisation's 20
      const updated = await env.api("PUT", `/api/v1/webhooks/${w.id}`, { url });
      expect(updated.body.data.url, JSON.stringify(url)).toBe(stored);
    }
    const stored = (await sql.get<{ url: string }>("SELECT url FROM webhooks WHERE id = ?", w.id))!;
    expect(stored.url).toBe("https://x.example.com/%C3%A9");
    // http where it is not allowed, whatever its spelling
    for (const url of ["http://hooks.example.com/x", "HTTP://hooks.example.com/x", " http:hooks.example.com"]) {
      const r = await strict.api("POST", "/api/v1/webhooks", { url, events: ["customer.created"] });
      expect(r.status, url).toBe(422);
      expect(r.body.errors).toEqual({ url: ["The url must be an HTTPS URL."] });
    }
  });

  test("plain http is a 422 unless KONTOR_WEBHOOK_ALLOW_HTTP", async () => {
    const http = await strict.api("POST", "/api/v1/webhooks", { url: "http://hooks.example.com/kontor", events: ["customer.created"] });
    expect(http.status).toBe(422);
    expect(http.body.errors).toEqual({ url: ["The url must be an HTTPS URL."] });
    const created = await strict.api("POST", "/api/v1/webhooks", { url: HOOK, events: ["customer.created"] });
    expect(created.status).toBe(201);
    expect((await strict.api("PUT", `/api/v1/webhooks/${created.body.data.id}`, { url: "http://hooks.example.com/x" })).status).toBe(422);
  });

  test("regenerate-secret: 200 with a new secret, the old one gone; a body is refused when it has fields", async () => {
    const w = await webhook();
    const r = await env.api("POST", `/api/v1/webhooks/${w.id}/regenerate-secret`);
    expect(r.status).toBe(200);
    expect(r.body.data.secret).toMatch(/^whsec_/);
    expect(r.body.data.secret).not.toBe(w.secret);
    expect(r.body.data.id).toBe(w.id);
    // stored sealed, never as shown (tests/webhooks/webhook-secrets.test.ts)
    const stored = (await sql.get<{ secret: string }>("SELECT secret FROM webhooks WHERE id = ?", w.id))!;
    expect(stored.secret).toStartWith("enc:v1:");
    expect(stored.secret).not.toContain(r.body.data.secret.slice("whsec_".length));
    expect((await env.api("POST", `/api/v1/webhooks/${w.id}/regenerate-secret`, {})).status).toBe(200);
    const extra = await env.api("POST", `/api/v1/webhooks/${w.id}/regenerate-secret`, { secret: "chosen" });
    expect(extra.status).toBe(422);
    expect(Object.keys(extra.body.errors)).toEqual(["secret"]);
    expect(await audited("webhook.secret_regenerated", w.id)).toBe(2);
  });

  test("delete: 204, then 404; its deliveries and attempts go with it", async () => {
    const w = await webhook();
    await env.api("POST", "/api/v1/customers", { name: "Queued for a webhook about to go" });
    const [queued] = await deliveriesOf(w.id);
    await env.db.insert(webhookAttempts).values({ id: crypto.randomUUID(), organizationId: env.org.id, deliveryId: queued!.id, attemptedAt: "2026-01-01T00:00:00.000000Z", durationMs: 5, statusCode: 500 });
    const r = await env.api("DELETE", `/api/v1/webhooks/${w.id}`);
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await env.api("GET", `/api/v1/webhooks/${w.id}`)).status).toBe(404);
    expect((await env.api("DELETE", `/api/v1/webhooks/${w.id}`)).status).toBe(404);
    expect(await deliveriesOf(w.id)).toHaveLength(0);
    expect(await env.db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, queued!.id))).toHaveLength(0);
    expect(await audited("webhook.deleted", w.id)).toBe(1);
  });
});

describe("the contract check (tests/contract.ts)", () => {
  test("a field the OpenAPI document does not describe fails it: a secret leaking into GET", async () => {
    const check = await createContractChecker((r) => env.app.handle(r));
    const w = await webhook();
    const { secret, ...shown } = w;
    const url = `http://localhost/api/v1/webhooks/${w.id}`;
    expect(() => check("GET", url, 200, { data: shown }, "application/json")).not.toThrow();
    expect(() => check("GET", url, 200, { data: w }, "application/json")).toThrow("must NOT have additional properties");
    expect(() => check("GET", url, 200, { data: shown, debug: true }, "application/json")).toThrow("must NOT have additional properties");
    const list = (await env.api("GET", "/api/v1/webhooks?per_page=1")).body;
    expect(() => check("GET", "http://localhost/api/v1/webhooks?per_page=1", 200, list, "application/json")).not.toThrow();
    const leaky = { ...list, data: [{ ...list.data[0], secret }] };
    expect(() => check("GET", "http://localhost/api/v1/webhooks?per_page=1", 200, leaky, "application/json")).toThrow("must NOT have additional properties");
    const withMeta = { ...list, meta: { ...list.meta, sql: "SELECT" } };
    expect(() => check("GET", "http://localhost/api/v1/webhooks?per_page=1", 200, withMeta, "application/json")).toThrow("must NOT have additional properties");
    // shared components (the error bodies) are closed too; free-form objects stay open
    expect(() => check("GET", url.replace(w.id, crypto.randomUUID()), 404, { message: "Not found.", trace: "at x" }, "application/json")).toThrow("must NOT have additional properties");
    expect(closeObjects({ type: "object", properties: { data: { type: "object", properties: {}, additionalProperties: true } } })).toEqual({
      type: "object",
      properties: { data: { type: "object", properties: {}, additionalProperties: true } },
      additionalProperties: false,
    });
  });
});

describe("abilities and tenant isolation", () => {
  test("organization.view reads, organization.edit changes", async () => {
    const w = await webhook();
    const viewer = await env.orgToken(["organization.view"]);
    expect((await env.api("GET", "/api/v1/webhooks", undefined, viewer)).status).toBe(200);
    expect((await env.api("GET", `/api/v1/webhooks/${w.id}/deliveries`, undefined, viewer)).status).toBe(200);
    for (const [method, path] of [
      ["POST", "/api/v1/webhooks"],
      ["PUT", `/api/v1/webhooks/${w.id}`],
      ["DELETE", `/api/v1/webhooks/${w.id}`],
      ["POST", `/api/v1/webhooks/${w.id}/regenerate-secret`],
    ] as const) {
      const r = await env.api(method, path, method === "DELETE" ? undefined : { url: HOOK, events: ["customer.created"] }, viewer);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.message).toContain("organization.edit");
    }
    const blind = await env.orgToken(["contacts.view"]);
    expect((await env.api("GET", "/api/v1/webhooks", undefined, blind)).body.message).toContain("organization.view");
    // an accountant's role lacks organization.edit: their personal token can read, not change
    const accountant = (await env.userToken("accountant")).token;
    expect((await env.api("GET", `/api/v1/webhooks/${w.id}`, undefined, accountant)).status).toBe(200);
    expect((await env.api("PUT", `/api/v1/webhooks/${w.id}`, { is_active: false }, accountant)).status).toBe(403);
  });

  test("another organisation's webhooks and deliveries are a 404, and absent from its lists", async () => {
    const w = await webhook();
    await env.api("POST", "/api/v1/customers", { name: "Isolated" });
    const [d] = await deliveriesOf(w.id);
    const other = await env.newOrg();
    const as = (method: string, path: string, body?: unknown) => env.api(method, path, body, other.token);
    expect((await as("GET", `/api/v1/webhooks/${w.id}`)).status).toBe(404);
    expect((await as("PUT", `/api/v1/webhooks/${w.id}`, { is_active: false })).status).toBe(404);
    expect((await as("POST", `/api/v1/webhooks/${w.id}/regenerate-secret`)).status).toBe(404);
    expect((await as("GET", `/api/v1/webhooks/${w.id}/deliveries`)).status).toBe(404);
    expect((await as("GET", `/api/v1/webhooks/${w.id}/deliveries/${d!.id}`)).status).toBe(404);
    expect((await as("POST", `/api/v1/webhooks/${w.id}/deliveries/${d!.id}/redeliver`)).status).toBe(404);
    expect((await as("DELETE", `/api/v1/webhooks/${w.id}`)).status).toBe(404);
    expect((await as("GET", "/api/v1/webhooks")).body.data).toEqual([]);
    // its own webhook with our delivery id: still a 404
    const theirs = (await as("POST", "/api/v1/webhooks", { url: HOOK, events: ["customer.created"] })).body.data;
    expect((await as("GET", `/api/v1/webhooks/${theirs.id}/deliveries/${d!.id}`)).status).toBe(404);
    // and its events reach only its own webhooks
    await as("POST", "/api/v1/customers", { name: "Theirs" });
    expect(await deliveriesOf(theirs.id)).toHaveLength(1);
    expect(await deliveriesOf(w.id)).toHaveLength(1);
    expect((await env.api("GET", `/api/v1/webhooks/${w.id}`)).body.data.is_active).toBe(true);
  });
});

describe("webhooks reach no further than their token (docs/webhooks.md)", () => {
  const ORG = ["organization.view", "organization.edit"];

  test("subscribing needs the view ability of every resource type the events carry", async () => {
    const { org } = await env.newOrg();
    const bare = await env.orgToken(ORG, org);
    const invoices = await env.api("POST", "/api/v1/webhooks", { url: HOOK, events: ["customer.created", "invoice.created"] }, await env.orgToken([...ORG, "contacts.view"], org));
    expect(invoices.status).toBe(403);
    expect(invoices.body.message).toContain("invoicing.view");
    expect(invoices.body.message).not.toContain("contacts.view");
    const both = await env.api("POST", "/api/v1/webhooks", { url: HOOK, events: ["customer.created", "expense.approved"] }, bare);
    expect(both.status).toBe(403);
    expect(both.body.message).toContain("contacts.view");
    expect(both.body.message).toContain("expenses.view");
    expect((await env.api("GET", "/api/v1/webhooks", undefined, bare)).body.data).toEqual([]);
    const allowed = await env.api("POST", "/api/v1/webhooks", { url: HOOK, events: ["customer.created", "expense.approved"] }, await env.orgToken([...ORG, "contacts.view", "expenses.view"], org));
    expect(allowed.status).toBe(201);
  });

  test("changing url or events needs them for the old and the new events; is_active does not", async () => {
    const { org, token } = await env.newOrg();
    const w = await webhook({ events: ["invoice.finalized"] }, token);
    const contacts = await env.orgToken([...ORG, "contacts.view"], org);
    const moved = await env.api("PUT", `/api/v1/webhooks/${w.id}`, { url: "https://attacker.example.net/collect" }, contacts);
    expect(moved.status).toBe(403);
    expect(moved.body.message).toContain("invoicing.view");
    // swapping the events for ones it may read still needs the ability of the old ones
    expect((await env.api("PUT", `/api/v1/webhooks/${w.id}`, { events: ["customer.created"] }, contacts)).status).toBe(403);
    expect((await env.api("GET", `/api/v1/webhooks/${w.id}`, undefined, token)).body.data).toMatchObject({ url: HOOK, events: ["invoice.finalized"] });
    // the same url and events again change nothing, so need nothing more; nor does is_active
    const same = await env.api("PUT", `/api/v1/webhooks/${w.id}`, { url: HOOK, events: ["invoice.finalized"], is_active: false }, contacts);
    expect(same.status).toBe(200);
    const invoicing = await env.orgToken([...ORG, "invoicing.view"], org);
    expect((await env.api("PUT", `/api/v1/webhooks/${w.id}`, { events: ["invoice.finalized", "customer.created"] }, invoicing)).status).toBe(403);
    const full = await env.orgToken([...ORG, "invoicing.view", "contacts.view"], org);
    expect((await env.api("PUT", `/api/v1/webhooks/${w.id}`, { events: ["customer.created"] }, full)).status).toBe(200);
    expect((await env.api("PUT", `/api/v1/webhooks/${w.id}`, { url: "https://erp.example.com/hook" }, await env.orgToken([...ORG, "contacts.view"], org))).status).toBe(200);
  });

  test("a new signing secret needs them too: whoever holds it can sign events the receiver trusts", async () => {
    const { org, token } = await env.newOrg();
    const w = await webhook({ events: ["invoice.payment_recorded"] }, token);
    const refused = await env.api("POST", `/api/v1/webhooks/${w.id}/regenerate-secret`, undefined, await env.orgToken(ORG, org));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain("invoicing.view");
    expect(refused.text).not.toContain("whsec_");
    const allowed = await env.api("POST", `/api/v1/webhooks/${w.id}/regenerate-secret`, undefined, await env.orgToken([...ORG, "invoicing.view"], org));
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.secret).toStartWith("whsec_");
  });

  test("a delivery's payload and its redelivery need them too; the list without payloads does not", async () => {
    const { org, token } = await env.newOrg();
    const w = await webhook({ events: ["invoice.created"] }, token);
    const customer = (await env.api("POST", "/api/v1/customers", { name: "Payload NV" }, token)).body.data;
    const vatRate = (await env.api("GET", "/api/v1/vat-rates", undefined, token)).body.data[0];
    const lines = [{ description: "Secret work", quantity: "1", unit_price: "990.00", vat_rate_id: vatRate.id }];
    expect((await env.api("POST", "/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-03-01", lines }, token)).status).toBe(201);
    const [d] = await deliveriesOf(w.id);
    const base = `/api/v1/webhooks/${w.id}/deliveries`;

    const viewer = await env.orgToken(["organization.view"], org);
    expect((await env.api("GET", base, undefined, viewer)).body.data.map((x: any) => x.id)).toEqual([d!.id]);
    const shown = await env.api("GET", `${base}/${d!.id}`, undefined, viewer);
    expect(shown.status).toBe(403);
    expect(shown.body.message).toContain("invoicing.view");
    expect(shown.text).not.toContain("Secret work");
    expect((await env.api("GET", `${base}/${d!.id}`, undefined, await env.orgToken(["organization.view", "invoicing.view"], org))).body.data.payload.data.lines[0].description).toBe("Secret work");

    const editor = await env.orgToken(ORG, org);
    const redelivered = await env.api("POST", `${base}/${d!.id}/redeliver`, undefined, editor);
    expect(redelivered.status).toBe(403);
    expect(redelivered.body.message).toContain("invoicing.view");
    expect(await audited("delivery.redelivered", d!.id)).toBe(0);
    expect((await env.api("POST", `${base}/${d!.id}/redeliver`, undefined, await env.orgToken([...ORG, "invoicing.view"], org))).status).toBe(202);

    // a member's personal token has every *.view
    const member = (await env.userToken("member", undefined, org)).token;
    expect((await env.api("GET", `${base}/${d!.id}`, undefined, member)).status).toBe(200);
  });
});

describe("webhook URLs and limits (issue 16)", () => {
  test("a literal loopback, private, link-local or metadata host, or localhost, is a 422 at once", async () => {
    const { token } = await env.newOrg();
    const w = await webhook({}, token);
    const refused = [
      "http://127.0.0.1:8080/hook", "https://127.1.2.3/", "http://0.0.0.0/", "http://10.0.0.7/", "https://172.16.5.4/", "https://192.168.1.1/",
      "http://169.254.169.254/latest/meta-data/", "http://100.100.100.200/", "http://[::1]/", "http://[::]/", "http://[fd00:ec2::254]/",
      "http://[fe80::1]/", "http://[::ffff:127.0.0.1]/", "http://[64:ff9b::a9fe:a9fe]/", "http://localhost:3000/", "https://LOCALHOST./",
      "https://api.localhost/", "http://2130706433/", "http://0x7f.1/",
    ];
    for (const url of refused) {
      const created = await env.api("POST", "/api/v1/webhooks", { url, events: ["customer.created"] }, token);
      expect(created.status, url).toBe(422);
      expect(Object.keys(created.body.errors), url).toEqual(["url"]);
      // a cloud metadata address is named as such, in the words every outbound URL's check uses
      const metadata = /169\.254\.169\.254|100\.100\.100\.200|fd00:ec2::254|64:ff9b::a9fe:a9fe/.test(url); // the last is 169.254.169.254 by NAT64
      expect(created.body.errors.url[0], url).toMatch(
        metadata ? /^The url must not point to a cloud metadata service \(.+\): it hands out the server's credentials\.$/ : /^The url must not point to a private, loopback or other internal address \(.+\)\.$/,
      );
      const updated = await env.api("PUT", `/api/v1/webhooks/${w.id}`, { url }, token);
      expect(updated.status, url).toBe(422);
    }
    // names are resolved at each attempt instead; public addresses pass
    for (const url of ["https://internal.example.com/hook", "https://8.8.8.8/hook", "https://[2606:4700:4700::1111]/hook", "https://localhost.example.com/"]) {
      const created = await env.api("POST", "/api/v1/webhooks", { url, events: ["customer.created"] }, token);
      expect(created.status, url).toBe(201);
      await env.api("DELETE", `/api/v1/webhooks/${created.body.data.id}`, undefined, token);
    }
    // with KONTOR_WEBHOOK_ALLOW_PRIVATE the operator allows them
    const lenient = await createTestEnv({ KONTOR_WEBHOOK_ALLOW_PRIVATE: "true" });
    try {
      expect((await lenient.api("POST", "/api/v1/webhooks", { url: "http://127.0.0.1:9/hook", events: ["customer.created"] })).status).toBe(201);
    } finally {
      lenient.close();
    }
  });

  test("cloud metadata names and addresses are a 422 at create and update whatever KONTOR_WEBHOOK_ALLOW_PRIVATE says, and refused at delivery", async () => {
    const names = ["metadata.google.internal", "metadata.goog", "metadata", "instance-data", "instance-data.ec2.internal"];
    expect<string[]>([...METADATA_HOSTS]).toEqual(names);
    const lenient = await createTestEnv({ KONTOR_WEBHOOK_ALLOW_PRIVATE: "true" });
    try {
      const w = await lenient.api("POST", "/api/v1/webhooks", { url: "http://127.0.0.1:9/hook", events: ["customer.created"] });
      expect(w.status).toBe(201);
      const urls = [
        ...names.map((name) => `http://${name}/computeMetadata/v1/`),
        "http://METADATA.Google.Internal./", "https://metadata.goog:443/x", "http://169.254.169.254/latest/meta-data/", "http://100.100.100.200/",
        "http://[fd00:ec2::254]/", "http://192.0.0.192/",
      ];
      for (const url of urls) {
        for (const r of [
          await lenient.api("POST", "/api/v1/webhooks", { url, events: ["customer.created"] }),
          await lenient.api("PUT", `/api/v1/webhooks/${w.body.data.id}`, { url }),
        ]) {
          expect(r.status, url).toBe(422);
          expect(r.body.errors.url[0], url).toMatch(/^The url must not point to a cloud metadata service \(.+\): it hands out the server's credentials\.$/);
        }
      }
      // a near name is an ordinary host
      expect((await lenient.api("POST", "/api/v1/webhooks", { url: "https://metadata.example.com/", events: ["customer.created"] })).status).toBe(201);
    } finally {
      lenient.close();
    }
    // a webhook saved before this check is refused at each attempt, before any DNS lookup
    for (const host of [...names, "169.254.169.254", "[fd00:ec2::254]", "100.100.100.200"]) {
      await expect(resolveDestination(host, true, new AbortController().signal)).rejects.toThrow(/cloud metadata service/);
    }
  });

  test("at most 20 webhooks per organisation: the 21st is a 422 naming the cap", async () => {
    const { token } = await env.newOrg();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await webhook({ is_active: i % 2 === 0 }, token)).id);
    const over = await env.api("POST", "/api/v1/webhooks", { url: HOOK, events: ["customer.created"] }, token);
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual({ webhooks: ["An organisation can have at most 20 webhooks; delete one before creating another."] });
    expect((await env.api("GET", "/api/v1/webhooks", undefined, token)).body.meta.total).toBe(20);
    // another organisation is not affected, and deleting one makes room
    expect((await env.api("POST", "/api/v1/webhooks", { url: HOOK, events: ["customer.created"] }, (await env.newOrg()).token)).status).toBe(201);
    expect((await env.api("DELETE", `/api/v1/webhooks/${ids[0]}`, undefined, token)).status).toBe(204);
    expect((await env.api("POST", "/api/v1/webhooks", { url: HOOK, events: ["customer.created"] }, token)).status).toBe(201);
  });

  test("the answers that carry a secret are not stored by caches", async () => {
    const { token } = await env.newOrg();
    const created = await env.api("POST", "/api/v1/webhooks", { url: HOOK, events: ["customer.created"] }, token);
    expect(created.status).toBe(201);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const regenerated = await env.api("POST", `/api/v1/webhooks/${created.body.data.id}/regenerate-secret`, undefined, token);
    expect(regenerated.status).toBe(200);
    expect(regenerated.headers.get("cache-control")).toBe("no-store");
  });
});

describe("the outbox through the API", () => {
  test("one delivery per subscribed active webhook, in the transaction of the change, payload frozen", async () => {
    const { token } = await env.newOrg();
    const created = await webhook({ events: ["customer.created"] }, token);
    const updated = await webhook({ events: ["customer.updated"] }, token);
    const inactive = await webhook({ events: ["customer.created"], is_active: false }, token);
    const customer = (await env.api("POST", "/api/v1/customers", { name: "Frozen NV" }, token)).body.data;
    await env.api("PUT", `/api/v1/customers/${customer.id}`, { name: "Thawed NV" }, token);
    expect((await deliveriesOf(created.id)).map((d) => d.event)).toEqual(["customer.created"]);
    expect((await deliveriesOf(updated.id)).map((d) => d.event)).toEqual(["customer.updated"]);
    expect(await deliveriesOf(inactive.id)).toHaveLength(0);
    const payload = JSON.parse((await deliveriesOf(created.id))[0]!.payload);
    expect(payload).toMatchObject({ event: "customer.created", type: "customer.created", data: customer });
    expect(payload.timestamp).toBe(payload.created_at);
    expect(payload.data.name).toBe("Frozen NV");
    expect((await env.api("GET", `/api/v1/webhooks/${created.id}`, undefined, token)).body.data.last_triggered_at).toBe(payload.timestamp);
    // a change that fails writes no delivery either
    expect((await env.api("POST", "/api/v1/customers", { name: "" }, token)).status).toBe(422);
    expect(await deliveriesOf(created.id)).toHaveLength(1);
  });
});

describe("deliveries API (contract 7.7)", () => {
  test("list with filters, show with attempts and payload, shapes", async () => {
    const { token } = await env.newOrg();
    const w = await webhook({ events: ["customer.created", "customer.updated"] }, token);
    const customer = (await env.api("POST", "/api/v1/customers", { name: "Listed" }, token)).body.data;
    await env.api("PUT", `/api/v1/customers/${customer.id}`, { city: "Gent" }, token);
    const [first, second] = await deliveriesOf(w.id);
    await env.db.update(webhookDeliveries).set({ status: "failed", attempts: 3, lastStatusCode: 503, nextAttemptAt: null }).where(eq(webhookDeliveries.id, first!.id));
    await env.db.insert(webhookAttempts).values({ id: crypto.randomUUID(), organizationId: first!.organizationId, deliveryId: first!.id, attemptedAt: "2026-01-01T00:00:00.000000Z", statusCode: 503, durationMs: 12, error: null, responseBody: "busy" });

    const base = `/api/v1/webhooks/${w.id}/deliveries`;
    const all = await env.api("GET", base, undefined, token);
    expect(all.status).toBe(200);
    expect(all.body.data.map((d: any) => d.id)).toEqual([second!.id, first!.id]); // newest first
    expect(Object.keys(all.body.data[0]).sort()).toEqual(
      ["attempts", "created_at", "delivered_at", "event", "id", "last_error", "last_status_code", "next_attempt_at", "status"],
    );
    expect(all.body.data[0]).toMatchObject({ status: "pending", attempts: 0, next_attempt_at: expect.stringMatching(/Z$/) });
    expect(all.body.data[1]).toMatchObject({ status: "failed", attempts: 3, last_status_code: 503, next_attempt_at: null });
    const failed = await env.api("GET", `${base}?filter[status]=failed`, undefined, token);
    expect(failed.body.data.map((d: any) => d.id)).toEqual([first!.id]);
    const updates = await env.api("GET", `${base}?filter[event]=customer.updated`, undefined, token);
    expect(updates.body.data.map((d: any) => d.id)).toEqual([second!.id]);
    for (const bad of ["filter[status]=lost", "filter[event]=customer.exploded", "filter[webhook_id]=x", "sort=status"]) {
      const r = await env.api("GET", `${base}?${bad}`, undefined, token);
      expect(r.status, bad).toBe(422);
    }

    const shown = await env.api("GET", `${base}/${first!.id}`, undefined, token);
    expect(shown.status).toBe(200);
    expect(shown.body.data.attempts_log).toEqual([
      { id: expect.any(String), attempted_at: "2026-01-01T00:00:00.000000Z", status_code: 503, duration_ms: 12, error: null, response_body: "busy" },
    ]);
    expect(shown.body.data.payload).toMatchObject({ event: "customer.created", timestamp: expect.any(String), data: customer });
    expect((await env.api("GET", `${base}/${crypto.randomUUID()}`, undefined, token)).status).toBe(404);
  });

  test("redeliver: 202, a fresh series under the same id, audited", async () => {
    const w = await webhook();
    await env.api("POST", "/api/v1/customers", { name: "Redelivered" });
    const [d] = await deliveriesOf(w.id);
    await env.db.update(webhookDeliveries)
      .set({ status: "failed", attempts: 3, lastStatusCode: 500, lastError: "boom", nextAttemptAt: null, leasedBy: "gone-worker", leaseUntil: 1 })
      .where(eq(webhookDeliveries.id, d!.id));
    const before = Date.now();
    const r = await env.api("POST", `/api/v1/webhooks/${w.id}/deliveries/${d!.id}/redeliver`);
    expect(r.status).toBe(202);
    expect(r.body.data).toMatchObject({ id: d!.id, status: "pending", attempts: 0, last_status_code: null, last_error: null, delivered_at: null });
    const row = (await deliveriesOf(w.id))[0]!;
    expect(row).toMatchObject({ status: "pending", attempts: 0, leasedBy: null });
    expect(row.nextAttemptAt!).toBeGreaterThanOrEqual(before);
    expect(row.payload).toBe(d!.payload);
    expect(await audited("delivery.redelivered", d!.id)).toBe(1);
    expect((await env.api("POST", `/api/v1/webhooks/${w.id}/deliveries/${crypto.randomUUID()}/redeliver`)).status).toBe(404);
  });

  test("bulk redeliver: {status, from, to} queues every matching delivery again in one call, oldest first, each audited; answers how many", async () => {
    const { org, token } = await env.newOrg();
    const w = await webhook({ events: ["customer.created", "invoice.created"] }, token);
    for (let i = 0; i < 6; i++) await env.api("POST", "/api/v1/customers", { name: `Outage ${i}` }, token);
    const rows = (await deliveriesOf(w.id)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    // six deliveries an hour apart: 0-3 failed during an outage, 4 delivered, 5 still pending
    for (const [i, row] of rows.entries()) {
      const createdAt = `2026-11-20T0${i}:00:00.000000Z`;
      const status = i < 4 ? "failed" : i === 4 ? "delivered" : "pending";
      await env.db.update(webhookDeliveries).set({ createdAt, status, attempts: 3, lastError: "down", nextAttemptAt: status === "pending" ? Date.now() : null }).where(eq(webhookDeliveries.id, row.id));
    }
    const path = `/api/v1/webhooks/${w.id}/redeliver`;
    const r = await env.api("POST", path, { status: "failed", from: "2026-11-20T01:00:00Z", to: "2026-11-20T03:00:00Z" }, token);
    expect(r.status, r.text).toBe(202);
    expect(r.body).toEqual({ data: { redelivered: 2 } });
    const after = new Map((await deliveriesOf(w.id)).map((row) => [row.id, row]));
    expect(rows.map((row) => [after.get(row.id)!.status, after.get(row.id)!.attempts])).toEqual([
      ["failed", 3], ["pending", 0], ["pending", 0], ["failed", 3], ["delivered", 3], ["pending", 3],
    ]);
    expect(await Promise.all(rows.map((row) => audited("delivery.redelivered", row.id)))).toEqual([0, 1, 1, 0, 0, 0]);
    // without a window: every failed one left
    expect((await env.api("POST", path, { status: "failed" }, token)).body.data.redelivered).toBe(2);
    expect((await env.api("POST", path, { status: "failed" }, token)).body.data.redelivered).toBe(0);

    for (const [body, field] of [
      [{ status: "pending" }, "status"], [{}, "status"], [{ status: "failed", from: "yesterday" }, "from"],
      [{ status: "failed", from: "2026-11-20", to: "2026-11-19" }, "to"], [{ status: "failed", webhook_id: w.id }, "webhook_id"],
    ] as const) {
      const refused = await env.api("POST", path, body, token);
      expect(refused.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(refused.body.errors), JSON.stringify(body)).toEqual([field]);
    }
    // the payloads it sends again must be ones the caller may read; another organisation's webhook is a 404
    const editor = await env.orgToken(["organization.view", "organization.edit"], org);
    const forbidden = await env.api("POST", path, { status: "delivered" }, editor);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.message).toContain("contacts.view");
    expect(await audited("delivery.redelivered", rows[4]!.id)).toBe(0);
    expect((await env.api("POST", path, { status: "failed" })).status).toBe(404);
  });
});

describe("parking: the queued deliveries of an inactive webhook wait out of the claim's way (contract 7.2)", () => {
  const claimAll = async (workerId: string) => (await claimDue(env.db, { workerId, limit: 1000, leaseMs: 60_000, inFlightByWebhook: new Map(), perWebhookLimit: 1000, inFlightByOrganization: new Map(), organizationShare: 1000, reserve: 0, refill: [], sweep: true })).claims;
  const rowsOf = async (webhookId: string) => (await deliveriesOf(webhookId)).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  /** Rows the claim's index range (status = pending AND next_attempt_at <= now) walks. */
  const walked = async (webhookId: string) =>
    (await sql.get<{ n: number }>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? AND webhook_id = ?", Date.now(), webhookId))!.n;

  test("deactivation parks the pending rows, events while inactive queue nothing, reactivation makes them due at once", async () => {
    const { token } = await env.newOrg();
    const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
    const w = await webhook({ events: ["customer.created"] }, token);
    for (const name of ["P1", "P2", "P3"]) await api("POST", "/api/v1/customers", { name });
    const [p1, p2, delivered] = await rowsOf(w.id);
    await env.db.update(webhookDeliveries).set({ status: "delivered", attempts: 1, nextAttemptAt: null, deliveredAt: "2026-01-01T00:00:00.000000Z" }).where(eq(webhookDeliveries.id, delivered!.id));
    expect(await walked(w.id)).toBe(2);

    expect((await api("PUT", `/api/v1/webhooks/${w.id}`, { is_active: false })).status).toBe(200);
    expect((await rowsOf(w.id)).map((r) => [r.status, r.nextAttemptAt])).toEqual([["pending", null], ["pending", null], ["delivered", null]]);
    expect(await walked(w.id)).toBe(0);
    const listed = (await api("GET", `/api/v1/webhooks/${w.id}/deliveries`)).body.data;
    expect(listed.map((d: any) => [d.status, d.next_attempt_at])).toEqual([["delivered", null], ["pending", null], ["pending", null]]);
    expect((await claimAll("parking-1")).some((c) => c.webhookId === w.id)).toBe(false);
    await releaseLeases(env.db, "parking-1");
    // an inactive webhook gets nothing queued
    await api("POST", "/api/v1/customers", { name: "While inactive" });
    expect(await rowsOf(w.id)).toHaveLength(3);
    // updating something else leaves the parked rows parked
    await api("PUT", `/api/v1/webhooks/${w.id}`, { events: ["customer.created", "customer.updated"], is_active: false });
    expect(await walked(w.id)).toBe(0);

    const before = Date.now();
    expect((await api("PUT", `/api/v1/webhooks/${w.id}`, { is_active: true })).status).toBe(200);
    const after = await rowsOf(w.id);
    expect(after.map((r) => r.id)).toEqual([p1!.id, p2!.id, delivered!.id]);
    for (const r of after.slice(0, 2)) {
      expect(r.status).toBe("pending");
      expect(r.nextAttemptAt!).toBeGreaterThanOrEqual(before);
      expect(r.nextAttemptAt!).toBeLessThanOrEqual(Date.now());
    }
    expect(after[2]).toMatchObject({ status: "delivered", nextAttemptAt: null });
    expect((await api("GET", `/api/v1/webhooks/${w.id}/deliveries/${p1!.id}`)).body.data.next_attempt_at).toMatch(/Z$/);
    const claimed = (await claimAll("parking-2")).filter((c) => c.webhookId === w.id);
    await releaseLeases(env.db, "parking-2");
    expect(claimed.map((c) => c.id).sort()).toEqual([p1!.id, p2!.id].sort());
  });

  test("a redelivery while inactive stays parked until reactivation; a retry of a webhook deactivated mid-attempt is parked", async () => {
    const { token } = await env.newOrg();
    const api = (method: string, path: string, body?: unknown) => env.api(method, path, body, token);
    const w = await webhook({ events: ["customer.created"] }, token);
    await api("POST", "/api/v1/customers", { name: "Failed, then redelivered" });
    await api("POST", "/api/v1/customers", { name: "In flight when deactivated" });
    const [failed, inFlight] = await rowsOf(w.id);
    await env.db.update(webhookDeliveries).set({ status: "failed", attempts: 3, lastStatusCode: 500, nextAttemptAt: null }).where(eq(webhookDeliveries.id, failed!.id));
    // the worker holds the second row when the webhook is deactivated
    const claim = (await claimAll("parking-3")).find((c) => c.id === inFlight!.id)!;
    expect(claim).toBeDefined();
    await api("PUT", `/api/v1/webhooks/${w.id}`, { is_active: false });

    const redelivered = await api("POST", `/api/v1/webhooks/${w.id}/deliveries/${failed!.id}/redeliver`);
    expect(redelivered.status).toBe(202);
    expect(redelivered.body.data).toMatchObject({ status: "pending", attempts: 0, next_attempt_at: null });
    expect((await rowsOf(w.id))[0]).toMatchObject({ status: "pending", nextAttemptAt: null });

    // its attempt fails: a retry is due, but the webhook is inactive now, so it is parked
    const retryAt = await recordOutcomes(env.db, "parking-3", [
      { claim, attemptedAt: "2026-01-01T00:00:00.000000Z", result: { ok: false, statusCode: 503, durationMs: 5, error: null, responseBody: "busy", interrupted: false } },
    ], { backoffMs: [10], maxAttempts: 3 });
    expect(retryAt).toBeNull();
    expect((await rowsOf(w.id))[1]).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: 503, nextAttemptAt: null, leasedBy: null, leaseUntil: null });
    await releaseLeases(env.db, "parking-3");
    expect(await walked(w.id)).toBe(0);

    await api("PUT", `/api/v1/webhooks/${w.id}`, { is_active: true });
    expect(await walked(w.id)).toBe(2);
    expect((await rowsOf(w.id)).map((r) => [r.status, r.attempts])).toEqual([["pending", 0], ["pending", 1]]);
  });

  test("a worker's start parks what an older version left due, and makes due what an active webhook had parked", async () => {
    const { token } = await env.newOrg();
    const parked = await webhook({ events: ["customer.created"], is_active: true }, token);
    const active = await webhook({ events: ["customer.created"] }, token);
    await env.api("POST", "/api/v1/customers", { name: "Both" }, token);
    await env.api("PUT", `/api/v1/webhooks/${parked.id}`, { is_active: false }, token);
    // the state a version without parking leaves behind, and its converse
    await env.db.update(webhookDeliveries).set({ nextAttemptAt: Date.now() - 1000 }).where(eq(webhookDeliveries.webhookId, parked.id));
    await env.db.update(webhookDeliveries).set({ nextAttemptAt: null }).where(eq(webhookDeliveries.webhookId, active.id));
    await reconcileParking(env.db);
    expect((await deliveriesOf(parked.id)).map((r) => r.nextAttemptAt)).toEqual([null]);
    expect((await deliveriesOf(active.id))[0]!.nextAttemptAt).toBeNumber();
    expect(await walked(active.id)).toBe(1);
  });
});

describe("query plans", () => {
  test("the lists read through their indexes: no full scan, no sort step", async () => {
    const { token } = await env.newOrg();
    const w = await webhook({ events: ["customer.created", "customer.updated"] }, token);
    for (const name of ["P1", "P2"]) await env.api("POST", "/api/v1/customers", { name }, token);
    const base = `/api/v1/webhooks/${w.id}/deliveries`;
    const slow = [
      ...(await slowListSteps(env, "webhooks", "/api/v1/webhooks", token)),
      ...(await slowListSteps(env, "webhooks", "/api/v1/webhooks?sort=created_at", token)),
      ...(await slowListSteps(env, "webhook_deliveries", base, token, ["webhook_id"])),
      ...(await slowListSteps(env, "webhook_deliveries", `${base}?sort=created_at`, token, ["webhook_id"])),
      ...(await slowListSteps(env, "webhook_deliveries", `${base}?filter[status]=failed`, token, ["webhook_id", "status"])),
      ...(await slowListSteps(env, "webhook_deliveries", `${base}?filter[event]=customer.updated`, token, ["webhook_id", "event"])),
    ];
    expect(slow).toEqual([]);
  });

  // SQLite's plans (EXPLAIN QUERY PLAN of the statements the claim runs): PostgreSQL's planner is not held to them
  sqliteOnly.test("the workers' claim reads through its indexes: no full scan, no sort step", async () => {
    const { org, token } = await env.newOrg();
    await webhook({ events: ["customer.created", "customer.updated"] }, token);
    for (const name of ["P1", "P2"]) await env.api("POST", "/api/v1/customers", { name }, token);
    const claimPlans = await plansOf(env, async () => {
      await claimDue(env.db, {
        workerId: "plan-check",
        limit: 64,
        leaseMs: 1000,
        inFlightByWebhook: new Map([["some-webhook", 32]]),
        perWebhookLimit: 32,
        // each step runs: a refill, a sweep past an organisation at its share, and borrowing
        inFlightByOrganization: new Map([["some-organisation", 16]]),
        organizationShare: 16,
        reserve: 0,
        refill: [org.id],
        sweep: true,
      });
    });
    await releaseLeases(env.db, "plan-check");
    const onDeliveries = claimPlans.filter((p) => /from "webhook_deliveries"/.test(p.sql));
    expect(onDeliveries).toHaveLength(4); // the idle check, then the three steps
    expect(onDeliveries.flatMap((p) => slowSteps(p.plan))).toEqual([]);
    expect(onDeliveries[0]!.plan.join(" ")).toContain("deliveries_due (status=? AND next_attempt_at<?)");
    // the refill reads one organisation's range, whatever the others' backlog
    expect(onDeliveries[1]!.plan.join(" ")).toContain("deliveries_org_status (organization_id=? AND status=?)");
    for (const p of onDeliveries.slice(2)) expect(p.plan.join(" ")).toContain("deliveries_due (status=? AND next_attempt_at<?)");
  });
});

describe("kontor deliveries", () => {
  const cli = (...args: string[]) => runCli([...args, "--db", env.config.dbPath]);

  test("list: newest first, filters, --json, a human table", async () => {
    const { org, token } = await env.newOrg("CLI Org");
    const w = await webhook({ events: ["customer.created"] }, token);
    for (const name of ["One", "Two", "Three"]) await env.api("POST", "/api/v1/customers", { name }, token);
    const rows = await deliveriesOf(w.id);
    await env.db.update(webhookDeliveries).set({ status: "failed", attempts: 3, lastError: "Refused: x resolves to 10.0.0.1 (private)" }).where(eq(webhookDeliveries.id, rows[0]!.id));

    const listed = await cli("deliveries", "list", "--webhook", w.id, "--json");
    expect(listed.code, listed.stderr).toBe(0);
    const out = JSON.parse(listed.stdout);
    expect(out.map((d: any) => d.id)).toEqual(rows.map((r) => r.id).reverse());
    expect(out[0]).toMatchObject({ webhook_id: w.id, event: "customer.created", status: "pending" });

    const failed = JSON.parse((await cli("deliveries", "list", "--org", org.id, "--status", "failed", "--json")).stdout);
    expect(failed.map((d: any) => d.id)).toEqual([rows[0]!.id]);
    const recent = JSON.parse((await cli("deliveries", "list", "--webhook", w.id, "--since", "2h", "--limit", "2", "--json")).stdout);
    expect(recent).toHaveLength(2);
    const future = JSON.parse((await cli("deliveries", "list", "--webhook", w.id, "--since", "2999-01-01T00:00:00Z", "--json")).stdout);
    expect(future).toEqual([]);

    const table = await cli("deliveries", "list", "--webhook", w.id, "--limit", "2");
    expect(table.code).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID\s+WEBHOOK\s+EVENT\s+STATUS\s+ATTEMPTS/);
    expect(table.stdout).toContain(rows[2]!.id);
    expect(table.stderr).toContain("newest 2 of 3");

    for (const args of [["--status", "lost"], ["--since", "yesterday"], ["--limit", "0"]]) {
      const r = await cli("deliveries", "list", ...args);
      expect(r.code, args.join(" ")).toBe(2);
    }
    expect((await cli("deliveries", "list", "--webhook", crypto.randomUUID())).code).toBe(1);
    expect((await cli("deliveries", "list", "--org", "No Such Org")).code).toBe(1);
  });

  test("replay: by ids or --failed, audited as the CLI, exit codes 0/1/2", async () => {
    const { org, token } = await env.newOrg();
    const w = await webhook({ events: ["customer.created"] }, token);
    const other = await webhook({ events: ["customer.created"] }, token);
    for (const name of ["A", "B", "C"]) await env.api("POST", "/api/v1/customers", { name }, token);
    const mine = await deliveriesOf(w.id);
    const fail = async (id: string) =>
      await env.db.update(webhookDeliveries).set({ status: "failed", attempts: 3, lastStatusCode: 500, nextAttemptAt: null }).where(eq(webhookDeliveries.id, id));
    for (const d of [...mine, ...await deliveriesOf(other.id)]) await fail(d.id);

    const byId = await cli("deliveries", "replay", mine[0]!.id, "--json");
    expect(byId.code, byId.stderr).toBe(0);
    expect(JSON.parse(byId.stdout)).toEqual({ replayed: 1, ids: [mine[0]!.id] });
    expect(byId.stderr).toBe(""); // no progress bar when stderr is not a terminal
    expect((await deliveriesOf(w.id)).find((d) => d.id === mine[0]!.id)).toMatchObject({ status: "pending", attempts: 0 });
    const entry = await firstRow(env.db.select().from(auditLog).where(and(eq(auditLog.action, "delivery.redelivered"), eq(auditLog.resourceId, mine[0]!.id))));
    expect(entry).toMatchObject({ actorType: "cli", organizationId: org.id, resourceType: "delivery" });

    const failedOfOne = await cli("deliveries", "replay", "--failed", "--webhook", w.id, "--since", "1h", "--json");
    expect(JSON.parse(failedOfOne.stdout).replayed).toBe(2);
    expect((await deliveriesOf(w.id)).every((d) => d.status === "pending")).toBe(true);
    expect((await deliveriesOf(other.id)).every((d) => d.status === "failed")).toBe(true);

    const human = await cli("deliveries", "replay", "--failed", "--org", org.id);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("Queued 3 deliveries again");
    expect((await cli("deliveries", "replay", "--failed", "--org", org.id)).stdout).toContain("Nothing to replay.");

    // usage errors: neither or both selections, filters without --failed
    for (const args of [[], [mine[0]!.id, "--failed"], [mine[0]!.id, "--since", "2h"], ["--failed", "--since", "soon"]]) {
      const r = await cli("deliveries", "replay", ...args);
      expect(r.code, args.join(" ")).toBe(2);
    }
    // an unknown id refuses the whole replay
    await fail(mine[1]!.id);
    const unknown = await cli("deliveries", "replay", mine[1]!.id, "01900000-0000-7000-8000-000000000000");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No delivery 01900000-0000-7000-8000-000000000000");
    expect((await deliveriesOf(w.id)).find((d) => d.id === mine[1]!.id)!.status).toBe("failed");
  });
});
