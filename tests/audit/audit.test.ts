/**
 * The audit log (contract section 5): every change made through the API or the CLI appends
 * an entry in the change's own transaction, with its actor (user, token, cli) and IP;
 * GET /api/v1/audit-log lists them newest first with its filters; entries are never updated
 * or deleted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditLog, organizations } from "../../db/schema.ts";
import { findOrganization } from "../../server/orgs/service.ts";
import { createTestEnv, runCli } from "../helpers.ts";
import { slowListSteps } from "../query-plan.ts";
import { firstRow } from "../../db/client.ts";
import { rawSql } from "../raw-sql.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const ok = async (method: string, path: string, body?: unknown, token?: string) => {
  const r = await env.api(method, path, body, token);
  expect(r.status, `${method} ${path}: ${r.text.slice(0, 200)}`).toBeLessThan(300);
  return r.body?.data;
};
const entriesFor = async (resourceId: string) => await env.db.select().from(auditLog).where(eq(auditLog.resourceId, resourceId)).orderBy(auditLog.createdAt);

describe("every kind of change is audited with its actor", () => {
  test("through an organisation token: actor token, its id", async () => {
    const tokenId = env.token.split("|")[0];
    const customer = await ok("POST", "/api/v1/customers", { name: "Audit Customer" });
    const person = await ok("POST", `/api/v1/customers/${customer.id}/contact-persons`, { first_name: "A", last_name: "B" });
    await ok("PUT", `/api/v1/customers/${customer.id}/contact-persons/${person.id}`, { position: "CEO" });
    await ok("DELETE", `/api/v1/customers/${customer.id}/contact-persons/${person.id}`);
    await ok("PUT", `/api/v1/customers/${customer.id}`, { city: "Brugge" });
    await ok("DELETE", `/api/v1/customers/${customer.id}`);
    const supplier = await ok("POST", "/api/v1/suppliers", { name: "Audit Supplier" });
    await ok("PUT", `/api/v1/suppliers/${supplier.id}`, { city: "Gent" });
    const expense = await ok("POST", "/api/v1/expenses", { category: "Travel", amount: "1.00", date: "2026-01-01", vendor: "Audit Vendor" });
    await ok("PUT", `/api/v1/expenses/${expense.id}`, { amount: "2.00" });
    await ok("POST", `/api/v1/expenses/${expense.id}/reject`, { reason: "no" });
    await ok("PUT", `/api/v1/expenses/${expense.id}`, {});
    await ok("POST", `/api/v1/expenses/${expense.id}/approve`);
    const second = await ok("POST", "/api/v1/expenses", { category: "Travel", amount: "1.00", date: "2026-01-01" });
    await ok("DELETE", `/api/v1/expenses/${second.id}`);
    await ok("DELETE", `/api/v1/suppliers/${supplier.id}`);
    const minted = (await env.api("POST", "/api/v1/org-tokens", { name: "audited", abilities: ["contacts.view"] })).body;
    await ok("DELETE", `/api/v1/org-tokens/${minted.id}`);

    const expected: [string, string, string][] = [
      [customer.id, "customer", "customer.created"],
      [person.id, "contact_person", "contact_person.created"],
      [person.id, "contact_person", "contact_person.updated"],
      [person.id, "contact_person", "contact_person.deleted"],
      [customer.id, "customer", "customer.updated"],
      [customer.id, "customer", "customer.deleted"],
      [supplier.id, "supplier", "supplier.created"],
      [supplier.id, "supplier", "supplier.updated"],
      [expense.supplier_id, "supplier", "supplier.created"],
      [expense.id, "expense", "expense.created"],
      [expense.id, "expense", "expense.updated"],
      [expense.id, "expense", "expense.rejected"],
      [expense.id, "expense", "expense.approved"],
      [second.id, "expense", "expense.deleted"],
      [supplier.id, "supplier", "supplier.deleted"],
      [minted.id, "token", "token.created"],
      [minted.id, "token", "token.revoked"],
    ];
    for (const [resourceId, resourceType, action] of expected) {
      const entry = (await entriesFor(resourceId)).find((e) => e.action === action);
      expect(entry, action).toBeDefined();
      expect(entry, action).toMatchObject({ resourceType, actorType: "token", actorId: tokenId, organizationId: env.org.id });
    }
  });

  test("through a personal token: actor user, the user's id", async () => {
    const { token, userId } = await env.userToken("accountant");
    const customer = await ok("POST", "/api/v1/customers", { name: "By A User" }, token);
    const expense = await ok("POST", "/api/v1/expenses", { category: "Meals", amount: "3.00", date: "2026-01-02" }, token);
    await ok("POST", `/api/v1/expenses/${expense.id}/approve`, undefined, token);
    for (const [id, action] of [[customer.id, "customer.created"], [expense.id, "expense.created"], [expense.id, "expense.approved"]]) {
      expect((await entriesFor(id!)).find((e) => e.action === action), action).toMatchObject({ actorType: "user", actorId: userId });
    }
  });

  test("through the CLI (a real process): actor cli, no id, no ip", async () => {
    const cli = (...args: string[]) => runCli([...args, "--db", env.config.dbPath, "--json"]);
    const created = await cli("org", "create", "--name", "Made By CLI", "--currency", "EUR", "--country", "NL");
    expect(created.code, created.stderr).toBe(0);
    const orgId = JSON.parse(created.stdout).id;
    const user = await cli("user", "create", "--org", orgId, "--email", "cli@example.test", "--name", "Cli", "--role", "viewer");
    expect(user.code, user.stderr).toBe(0);
    expect((await cli("org", "api-access", orgId, "off")).code).toBe(0);
    const bank = await cli("bank-account", "add", "--org", orgId, "--name", "CLI bank", "--iban", "NL91ABNA0417164300");
    expect(bank.code, bank.stderr).toBe(0);

    const org = await findOrganization(env.db, orgId);
    expect(org.apiAccess).toBe(false);
    const actions = await env.db.select().from(auditLog).where(eq(auditLog.organizationId, orgId)).orderBy(auditLog.createdAt);
    expect(actions.map((a) => [a.action, a.actorType, a.actorId, a.ip])).toEqual([
      ["organization.created", "cli", null, null],
      ["user.created", "cli", null, null],
      ["organization.api_access_disabled", "cli", null, null],
      ["bank_account.created", "cli", null, null],
    ]);
  });

  test("a refused change writes no entry (same transaction)", async () => {
    const expense = await ok("POST", "/api/v1/expenses", { category: "Travel", amount: "1.00", date: "2026-01-01" });
    await ok("POST", `/api/v1/expenses/${expense.id}/approve`);
    const before = (await entriesFor(expense.id)).length;
    expect((await env.api("DELETE", `/api/v1/expenses/${expense.id}`)).status).toBe(409);
    expect((await env.api("PUT", `/api/v1/expenses/${expense.id}`, { amount: "5" })).status).toBe(409);
    expect((await env.api("POST", "/api/v1/expenses", { category: "Travel", amount: "0", date: "2026-01-01" })).status).toBe(422);
    expect((await entriesFor(expense.id)).length).toBe(before);
  });

  test("the IP of the request is recorded when the server knows it", async () => {
    const server = env.app.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const response = await fetch(`http://127.0.0.1:${server.server!.port}/api/v1/customers`, {
        method: "POST",
        headers: { authorization: `Bearer ${env.token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Over The Wire" }),
      });
      expect(response.status).toBe(201);
      const { data } = (await response.json()) as { data: { id: string } };
      expect((await entriesFor(data.id))[0]!.ip).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    } finally {
      await server.stop();
    }
  });
});

describe("GET /api/v1/audit-log", async () => {
  const org = await env.newOrg("Audit List Co");
  const list = (query = "", token = org.token) => env.api("GET", `/api/v1/audit-log${query}`, undefined, token);
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    ids.customer = await ok("POST", "/api/v1/customers", { name: "Listed" }, org.token).then((c) => c.id);
    await ok("PUT", `/api/v1/customers/${ids.customer}`, { city: "Namen" }, org.token);
    ids.expense = await ok("POST", "/api/v1/expenses", { category: "x", amount: "1", date: "2026-01-01" }, org.token).then((e) => e.id);
    await ok("POST", `/api/v1/expenses/${ids.expense}/approve`, undefined, org.token);
  });

  test("the entry shape; newest first", async () => {
    const r = await list();
    expect(r.status).toBe(200);
    const actions = r.body.data.map((e: any) => e.action);
    expect(actions.slice(0, 4)).toEqual(["expense.approved", "expense.created", "customer.updated", "customer.created"]);
    expect(actions.at(-1)).toBe("organization.created");
    const times = r.body.data.map((e: any) => e.created_at);
    expect(times).toEqual([...times].sort().reverse());
    expect(r.body.data[0]).toEqual({
      id: expect.any(String),
      action: "expense.approved",
      resource_type: "expense",
      resource_id: ids.expense,
      actor: { type: "token", id: org.token.split("|")[0] },
      ip: null,
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/),
    });
    expect(r.body.data.at(-1).actor).toEqual({ type: "cli", id: null });
  });

  test("filters: resource_type, resource_id, action, combined; pagination", async () => {
    const actions = async (q: string) => (await list(q)).body.data.map((e: any) => e.action);
    expect(await actions("?filter[resource_type]=customer")).toEqual(["customer.updated", "customer.created"]);
    expect(await actions(`?filter[resource_id]=${ids.expense}`)).toEqual(["expense.approved", "expense.created"]);
    expect(await actions("?filter[action]=customer.updated")).toEqual(["customer.updated"]);
    expect(await actions(`?filter[resource_type]=expense&filter[action]=expense.created&filter[resource_id]=${ids.expense}`)).toEqual(["expense.created"]);
    expect(await actions("?filter[resource_type]=invoice")).toEqual([]);
    const page = await list("?per_page=2&page=2");
    expect(page.body.meta).toMatchObject({ current_page: 2, per_page: 2, from: 3, to: 4 });
    expect(page.body.data.map((e: any) => e.action)).toEqual(["customer.updated", "customer.created"]);
    for (const [q, key] of [["?filter[actor]=cli", "filter.actor"], ["?sort=action", "sort"]]) {
      const r = await list(q);
      expect(r.status, q).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual([key]);
    }
    expect((await list("?sort=created_at")).body.data[0].action).toBe("organization.created");
  });

  test("only the organisation's own entries", async () => {
    const other = await env.newOrg("Audit Neighbour");
    // a new organisation's log: its creation and its first token, both by the CLI actor
    const theirs = (await list("?per_page=100", other.token)).body.data;
    expect(theirs.map((e: any) => [e.action, e.actor.type])).toEqual([
      ["token.created", "cli"],
      ["organization.created", "cli"],
    ]);
    expect(theirs.find((e: any) => e.action === "organization.created").resource_id).toBe(other.org.id);
    expect((await list(`?filter[resource_id]=${ids.customer}`, other.token)).body.data).toEqual([]);
  });

  test("organization.view-audit-log is needed: 403 naming it (viewers and members lack it)", async () => {
    for (const token of [await env.orgToken(["organization.view", "contacts.view"], org.org), (await env.userToken("viewer", undefined, org.org)).token, (await env.userToken("member", undefined, org.org)).token]) {
      const r = await list("", token);
      expect(r.status).toBe(403);
      expect(r.body.message).toContain("organization.view-audit-log");
    }
    expect((await list("", await env.orgToken(["organization.view-audit-log"], org.org))).status).toBe(200);
    expect((await list("", (await env.userToken("accountant", undefined, org.org)).token)).status).toBe(200);
  });

  test("list queries read through indexes in list order (EXPLAIN QUERY PLAN)", async () => {
    const slow: string[] = [];
    const queries: [string, string[]][] = [
      ["", []],
      ["?sort=created_at", []],
      ["?filter[resource_type]=expense", ["resource_type"]],
      [`?filter[resource_id]=${ids.expense}`, ["resource_id"]],
      ["?filter[action]=expense.created", ["action"]],
      [`?filter[resource_type]=expense&filter[resource_id]=${ids.expense}`, ["resource_id"]],
    ];
    for (const [q, seekOn] of queries) slow.push(...(await slowListSteps(env, "audit_log", `/api/v1/audit-log${q}`, org.token, seekOn)));
    expect(slow).toEqual([]);
  });
});

describe("entries are never updated or deleted", () => {
  test("no route changes them: 405 on the list path, 404 below it", async () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const r = await env.api(method, "/api/v1/audit-log", method === "DELETE" ? undefined : {});
      expect(r.status, method).toBe(405);
    }
    const [entry] = await env.db.select().from(auditLog).limit(1);
    for (const method of ["GET", "PUT", "DELETE"]) expect((await env.api(method, `/api/v1/audit-log/${entry!.id}`)).status, method).toBe(404);
  });

  test("the database refuses UPDATE and DELETE of an entry", async () => {
    const [entry] = await env.db.select().from(auditLog).where(eq(auditLog.organizationId, env.org.id)).limit(1);
    // the trigger's message: drizzle's PostgreSQL driver wraps it as the cause of a "Failed query"
    const refusal = async (query: PromiseLike<unknown>) => {
      try {
        await query;
      } catch (error) {
        return `${(error as Error).message}\n${((error as Error).cause as Error | undefined)?.message ?? ""}`;
      }
      return "not refused";
    };
    expect(await refusal(env.db.update(auditLog).set({ action: "forged" }).where(eq(auditLog.id, entry!.id)))).toMatch(/never updated/);
    expect(await refusal(env.db.delete(auditLog).where(eq(auditLog.id, entry!.id)))).toMatch(/never deleted/);
    await expect(rawSql(env.db).run("DELETE FROM audit_log")).rejects.toThrow(/never deleted/);
    expect(await firstRow(env.db.select().from(auditLog).where(eq(auditLog.id, entry!.id)))).toEqual(entry);
  });

  test("erasing a whole organisation still takes its entries with it", async () => {
    const gone = await env.newOrg("Erased Org");
    expect((await env.db.select().from(auditLog).where(eq(auditLog.organizationId, gone.org.id))).length).toBeGreaterThan(0);
    await env.db.delete(organizations).where(eq(organizations.id, gone.org.id));
    expect(await env.db.select().from(auditLog).where(eq(auditLog.organizationId, gone.org.id))).toEqual([]);
  });
});
