/**
 * Suppliers (contract section 3): the customer's fields, rules and list mechanism at
 * /api/v1/suppliers, 409 when a supplier with expenses is deleted, abilities contacts.*,
 * tenant isolation and audit entries. No webhook events (api-spec 6.1 names none).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLog, suppliers, webhookDeliveries, webhooks } from "../../db/schema.ts";
import { WEBHOOK_EVENTS } from "../../server/changes/events.ts";
import { newId, nowIso } from "../../server/lib/time.ts";
import { createTestEnv } from "../helpers.ts";
import { slowListSteps } from "../query-plan.ts";
import { firstRow } from "../../db/client.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const full = {
  name: "Colruyt Group NV",
  email: "invoices@colruyt.be",
  phone: "+32 2 363 55 45",
  address: "Edingensesteenweg 196",
  city: "Halle",
  postal_code: "1500",
  country: "BE",
  vat_number: "BE0400378485",
  currency: "EUR",
  payment_terms: "30 days end of month",
};

async function supplier(body: Record<string, unknown> = { name: `S ${Math.random()}` }, token?: string) {
  const r = await env.api("POST", "/api/v1/suppliers", body, token);
  expect(r.status, r.text).toBe(201);
  return r.body.data;
}

describe("fields and rules (the customer's)", () => {
  test("create with every field: 201, Location, type derived; show is the same", async () => {
    const r = await env.api("POST", "/api/v1/suppliers", full);
    expect(r.status).toBe(201);
    expect(r.headers.get("location")).toBe(`/api/v1/suppliers/${r.body.data.id}`);
    expect(r.body.data).toMatchObject({ ...full, type: "organization" });
    expect(r.body.data).not.toHaveProperty("contact_persons");
    expect((await env.api("GET", `/api/v1/suppliers/${r.body.data.id}`)).body.data).toEqual(r.body.data);
  });

  test("every field rule of api-spec 4.4: a 422 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: "x".repeat(256) }, "name"],
      [{ name: 42 }, "name"],
      [{ name: "x", email: "not-an-email" }, "email"],
      [{ name: "x", phone: "1".repeat(51) }, "phone"],
      [{ name: "x", address: "a".repeat(501) }, "address"],
      [{ name: "x", city: "c".repeat(101) }, "city"],
      [{ name: "x", postal_code: "12345678901" }, "postal_code"],
      [{ name: "x", country: "XX" }, "country"],
      [{ name: "x", vat_number: "v".repeat(51) }, "vat_number"],
      [{ name: "x", currency: "XYZ" }, "currency"],
      [{ name: "x", payment_terms: "p".repeat(256) }, "payment_terms"],
      [{ name: "x", peppol_id: "0208" }, "peppol_id"],
      [{ name: "x", peppol_id: "208:0123456749" }, "peppol_id"],
      [{ name: "x", peppol_id: "1234:0123456749" }, "peppol_id"],
      [{ name: "x", peppol_id: "0208:0123456748" }, "peppol_id"],
      [{ name: "x", peppol_id: "9925:BE 0123456749" }, "peppol_id"],
      [{ name: "x", peppol_id: `0088:${"1".repeat(61)}` }, "peppol_id"],
      [{ name: "x", language: "es" }, "language"],
      [{ name: "x", language: "NL" }, "language"],
      [{ name: "x", type: "organization" }, "type"],
      [{ name: "x", contact_persons: [] }, "contact_persons"],
    ];
    for (const [body, field] of cases) {
      const r = await env.api("POST", "/api/v1/suppliers", body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(Object.keys(r.body.errors), JSON.stringify(body).slice(0, 80)).toEqual([field]);
    }
    const edge = await env.api("POST", "/api/v1/suppliers", { name: "x".repeat(255), phone: "1".repeat(50), postal_code: "1234567890" });
    expect(edge.status).toBe(201);
  });

  test("update: partial; type follows vat_number; read-only fields refused", async () => {
    const s = await supplier({ name: "Before BV", vat_number: "NL006375054B01" });
    const r = await env.api("PUT", `/api/v1/suppliers/${s.id}`, { vat_number: null, email: "AP@Before.nl" });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: "Before BV", vat_number: null, type: "individual", email: "ap@before.nl" });
    expect(r.body.data.updated_at > s.updated_at).toBe(true);
    expect((await env.api("PUT", `/api/v1/suppliers/${s.id}`, { name: "" })).status).toBe(422);
    expect((await env.api("PUT", `/api/v1/suppliers/${s.id}`, { id: newId() })).status).toBe(422);
  });

  test("suppliers and customers are separate lists", async () => {
    const c = (await env.api("POST", "/api/v1/customers", { name: "Only A Customer" })).body.data;
    const s = await supplier({ name: "Only A Supplier" });
    expect((await env.api("GET", `/api/v1/suppliers/${c.id}`)).status).toBe(404);
    expect((await env.api("GET", `/api/v1/customers/${s.id}`)).status).toBe(404);
    expect((await env.api("GET", "/api/v1/suppliers?search=customer")).body.data).toEqual([]);
  });
});

describe("delete", () => {
  test("204 then 404", async () => {
    const s = await supplier();
    expect((await env.api("DELETE", `/api/v1/suppliers/${s.id}`)).status).toBe(204);
    expect((await env.api("GET", `/api/v1/suppliers/${s.id}`)).status).toBe(404);
    expect((await env.api("DELETE", `/api/v1/suppliers/${s.id}`)).status).toBe(404);
  });

  test("409 while it has expenses; deletable once they are gone", async () => {
    const s = await supplier({ name: "Busy Supplier" });
    const e = (await env.api("POST", "/api/v1/expenses", { category: "Office", amount: "5", date: "2026-05-01", vendor: "busy supplier" })).body.data;
    expect(e.supplier_id).toBe(s.id);
    const r = await env.api("DELETE", `/api/v1/suppliers/${s.id}`);
    expect(r.status).toBe(409);
    expect(Object.keys(r.body)).toEqual(["code", "message"]);
    expect(r.body.message).toContain("1 expense");
    expect(await firstRow(env.db.select().from(suppliers).where(eq(suppliers.id, s.id)))).toBeDefined();
    expect(await env.db.select().from(auditLog).where(and(eq(auditLog.resourceId, s.id), eq(auditLog.action, "supplier.deleted")))).toEqual([]);
    expect((await env.api("DELETE", `/api/v1/expenses/${e.id}`)).status).toBe(204);
    expect((await env.api("DELETE", `/api/v1/suppliers/${s.id}`)).status).toBe(204);
  });
});

describe("abilities (contacts.*)", () => {
  test("each operation needs its ability: 403 naming it; that ability alone is enough", async () => {
    const ops: [string, string, string, unknown?][] = [
      ["contacts.view", "GET", "/api/v1/suppliers"],
      ["contacts.view", "GET", "/api/v1/suppliers/:id"],
      ["contacts.create", "POST", "/api/v1/suppliers", { name: "Ability Test" }],
      ["contacts.edit", "PUT", "/api/v1/suppliers/:id", { city: "Gent" }],
      ["contacts.delete", "DELETE", "/api/v1/suppliers/:id"],
    ];
    const contactAbilities = ["contacts.view", "contacts.create", "contacts.edit", "contacts.delete"];
    for (const [ability, method, template, body] of ops) {
      const path = template.replace(":id", (await supplier()).id);
      const denied = await env.api(method, path, body, await env.orgToken(contactAbilities.filter((a) => a !== ability)));
      expect(denied.status, `${method} ${template}`).toBe(403);
      expect(denied.body.message).toContain(ability);
      const allowed = await env.api(method, path, body, await env.orgToken([ability]));
      expect(allowed.status, `${method} ${template} with ${ability}`).toBeLessThan(300);
    }
  });
});

describe("tenant isolation", () => {
  test("another organisation's supplier is a 404 on every verb, and stays unchanged", async () => {
    const mine = await supplier({ name: "Mine Supplier" });
    const other = await env.newOrg("Supplier Intruder");
    for (const [method, body] of [["GET"], ["PUT", { name: "Stolen" }], ["DELETE"]] as [string, unknown?][]) {
      const r = await env.api(method, `/api/v1/suppliers/${mine.id}`, body, other.token);
      expect(r.status, method).toBe(404);
      expect(r.body).toEqual({ code: "not_found", message: "Not found." });
    }
    expect((await env.api("GET", "/api/v1/suppliers?search=mine", undefined, other.token)).body.data).toEqual([]);
    expect((await env.api("GET", `/api/v1/suppliers/${mine.id}`)).body.data).toEqual(mine);
  });
});

describe("list (contract section 5: the customers' sorts, filters and search)", async () => {
  const org = await env.newOrg("Supplier List Co");
  const list = (query: string) => env.api("GET", `/api/v1/suppliers${query}`, undefined, org.token);
  const names = async (query: string) => (await list(query)).body.data.map((s: any) => s.name);

  beforeAll(async () => {
    for (const [name, country, currency, email, vat] of [
      ["delta Logistics", "BE", "EUR", "ops@delta.be", "BE0462423150"],
      ["Alpha Paper", "NL", "EUR", "sales@alpha.nl", null],
      ["Bravo Energy", "BE", "USD", "billing@bravo.com", null],
      ["charlie Cleaning", "DE", "EUR", null, "DE811363057"],
    ]) {
      await supplier({ name, country, currency, email, vat_number: vat }, org.token);
    }
  });

  test("sorts: name (default, case-insensitive), -name, created_at, updated_at", async () => {
    expect(await names("")).toEqual(["Alpha Paper", "Bravo Energy", "charlie Cleaning", "delta Logistics"]);
    expect(await names("?sort=-name")).toEqual(["delta Logistics", "charlie Cleaning", "Bravo Energy", "Alpha Paper"]);
    expect(await names("?sort=created_at")).toEqual(["delta Logistics", "Alpha Paper", "Bravo Energy", "charlie Cleaning"]);
    expect((await names("?sort=-updated_at"))[0]).toBe("charlie Cleaning");
    expect((await list("?sort=country")).status).toBe(422);
  });

  test("filters: country, currency, email; others 422", async () => {
    expect(await names("?filter[country]=BE")).toEqual(["Bravo Energy", "delta Logistics"]);
    expect(await names("?filter[currency]=USD")).toEqual(["Bravo Energy"]);
    expect(await names("?filter[email]=SALES@alpha.nl")).toEqual(["Alpha Paper"]);
    const bad = await list("?filter[type]=organization");
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["filter.type"]);
  });

  test("search: name, email, vat_number", async () => {
    expect(await names("?search=logist")).toEqual(["delta Logistics"]);
    expect(await names("?search=billing%40bravo.com")).toEqual(["Bravo Energy"]);
    expect(await names("?search=DE811363057")).toEqual(["charlie Cleaning"]);
  });

  test("list queries read through indexes (EXPLAIN QUERY PLAN)", async () => {
    const slow: string[] = [];
    const queries: [string, string[]][] = [
      ["", []], ["?sort=-name", []], ["?sort=created_at", []], ["?sort=updated_at", []],
      ["?filter[country]=BE", ["country"]], ["?filter[currency]=EUR", ["currency"]], ["?filter[email]=a@b.test", ["email"]], ["?search=alpha", []],
    ];
    for (const [q, seekOn] of queries) slow.push(...(await slowListSteps(env, "suppliers", `/api/v1/suppliers${q}`, org.token, seekOn)));
    expect(slow).toEqual([]);
  });
});

describe("audit and events", () => {
  test("create, update, delete are audited with the token as actor, and queue supplier.created, .updated and .deleted", async () => {
    const now = nowIso();
    const org = await env.newOrg("Supplier Hooks");
    const hookId = newId();
    await env.db.insert(webhooks).values({ id: hookId, organizationId: org.org.id, url: "https://hooks.example.com/s", events: [...WEBHOOK_EVENTS], isActive: true, secret: "s".repeat(64), createdAt: now, updatedAt: now });
    const { token, userId } = await env.userToken("admin", undefined, org.org);
    const s = await supplier({ name: "Audited Supplier" }, token);
    await env.api("PUT", `/api/v1/suppliers/${s.id}`, { city: "Leuven" }, token);
    await env.api("DELETE", `/api/v1/suppliers/${s.id}`, undefined, org.token);
    const entries = await env.db.select().from(auditLog).where(eq(auditLog.resourceId, s.id)).orderBy(auditLog.createdAt);
    expect(entries.map((a) => [a.action, a.resourceType, a.actorType, a.actorId])).toEqual([
      ["supplier.created", "supplier", "user", userId],
      ["supplier.updated", "supplier", "user", userId],
      ["supplier.deleted", "supplier", "token", org.token.split("|")[0]],
    ]);
    const queued = await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hookId)).orderBy(webhookDeliveries.createdAt);
    expect(queued.map((d) => [d.event, JSON.parse(d.payload).data.id])).toEqual([
      ["supplier.created", s.id],
      ["supplier.updated", s.id],
      ["supplier.deleted", s.id],
    ]);
    expect(JSON.parse(queued[2]!.payload).data.city).toBe("Leuven"); // the tombstone: its last state
  });
});
