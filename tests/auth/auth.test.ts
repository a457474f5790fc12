/** Authentication, abilities, roles and tokens (contract section 6, api-spec 4.2 and 5). */
import { afterAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { apiTokens } from "../../db/schema.ts";
import { firstRow, openDatabase, type Db } from "../../db/client.ts";
import { migrateDatabase } from "../../server/data-migrations.ts";
import { embeddedMigrations } from "../../db/migrations/index.ts";
import { ABILITIES } from "../../server/auth/abilities.ts";
import { CLI_ACTOR, findUser, removeUser, setApiAccess, setUserRole } from "../../server/orgs/service.ts";
import { WEBHOOK_EVENTS } from "../../server/changes/events.ts";
import { createTestEnv } from "../helpers.ts";
import { sqliteOnly } from "../raw-sql.ts";
import { openConfiguredDatabase } from "../../server/runtime.ts";

const env = await createTestEnv();
afterAll(() => env.close());

describe("401", () => {
  const cases: [string, Record<string, string>][] = [
    ["no header", {}],
    ["not bearer", { authorization: "Basic YWJjOmRlZg==" }],
    ["no secret part", { authorization: "Bearer 01900000-0000-7000-8000-000000000000" }],
    ["unknown id", { authorization: "Bearer 01900000-0000-7000-8000-000000000000|" + "x".repeat(40) }],
    ["garbage", { authorization: "Bearer ||||" }],
  ];
  for (const [name, headers] of cases) {
    test(name, async () => {
      const r = await env.request("GET", "/api/v1/customers", { token: null, headers });
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ code: "unauthenticated", message: "Unauthenticated." });
    });
  }

  test("a wrong secret for a real token id", async () => {
    const [id] = env.token.split("|");
    const r = await env.request("GET", "/api/v1/customers", { token: `${id}|${"A".repeat(43)}` });
    expect(r.status).toBe(401);
  });

  test("401 comes before the body is looked at", async () => {
    const r = await env.request("POST", "/api/v1/customers", { token: null, rawBody: "{not json", headers: { "content-type": "application/json" } });
    expect(r.status).toBe(401);
  });

  test("the API index and /health need no token", async () => {
    expect((await env.request("GET", "/api/v1", { token: null })).body).toMatchObject({ name: "Kontor", docs: "/docs" });
    expect((await env.request("GET", "/health", { token: null })).body).toEqual({ status: "ok" });
  });
});

describe("secrets", () => {
  test("only a SHA-256 of the secret is stored", async () => {
    const [id, secret] = env.token.split("|") as [string, string];
    expect(secret.length).toBeGreaterThanOrEqual(40);
    expect(secret).toMatch(/^[A-Za-z0-9_-]+$/);
    const row = (await firstRow(env.db.select().from(apiTokens).where(eq(apiTokens.id, id))))!;
    const expected = new Bun.CryptoHasher("sha256").update(secret).digest("hex");
    expect(row.secretHash).toBe(expected);
    expect(JSON.stringify(row)).not.toContain(secret);
  });

  test("last_used_at is recorded", async () => {
    const token = await env.orgToken(["contacts.view"]);
    const id = token.split("|")[0]!;
    expect((await firstRow(env.db.select().from(apiTokens).where(eq(apiTokens.id, id))))!.lastUsedAt).toBeNull();
    expect((await env.api("GET", "/api/v1/customers", undefined, token)).status).toBe(200);
    expect((await firstRow(env.db.select().from(apiTokens).where(eq(apiTokens.id, id))))!.lastUsedAt).toMatch(/\.\d{6}Z$/);
  });
});

describe("a resolved token is remembered only while nothing commits", () => {
  test("a revocation by another connection (the CLI) counts from the next request", async () => {
    const token = await env.orgToken(["contacts.view"]);
    const id = token.split("|")[0]!;
    expect((await env.api("GET", "/api/v1/customers", undefined, token)).status).toBe(200);
    expect((await env.api("GET", "/api/v1/customers", undefined, token)).status).toBe(200);
    const cli = openConfiguredDatabase(env.config);
    try {
      await cli.update(apiTokens).set({ revokedAt: new Date().toISOString() }).where(eq(apiTokens.id, id));
    } finally {
      await cli.connection.close();
    }
    expect((await env.api("GET", "/api/v1/customers", undefined, token)).status).toBe(401);
  });

  test("abilities changed by another connection count from the next request", async () => {
    const token = await env.orgToken(["contacts.view"]);
    expect((await env.api("POST", "/api/v1/customers", { name: "Not yet" }, token)).status).toBe(403);
    const cli = openConfiguredDatabase(env.config);
    try {
      await cli.update(apiTokens).set({ abilities: ["contacts.view", "contacts.create"] }).where(eq(apiTokens.id, token.split("|")[0]!));
    } finally {
      await cli.connection.close();
    }
    expect((await env.api("POST", "/api/v1/customers", { name: "Now" }, token)).status).toBe(201);
  });

  test("expiry is checked on every request, also with nothing committed in between", async () => {
    const token = await env.orgToken(["contacts.view"]);
    const expiresAt = new Date(Date.now() + 1500).toISOString().replace("Z", "000Z");
    await env.db.update(apiTokens).set({ expiresAt }).where(eq(apiTokens.id, token.split("|")[0]!));
    expect((await env.api("GET", "/api/v1/customers", undefined, token)).status).toBe(200);
    await Bun.sleep(1600);
    expect((await env.api("GET", "/api/v1/customers", undefined, token)).status).toBe(401);
  });

  test("the right id with a wrong secret is refused even after the right secret was seen", async () => {
    const token = await env.orgToken(["contacts.view"]);
    expect((await env.api("GET", "/api/v1/customers", undefined, token)).status).toBe(200);
    const [id, secret] = token.split("|") as [string, string];
    const wrong = `${id}|${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`;
    expect((await env.api("GET", "/api/v1/customers", undefined, wrong)).status).toBe(401);
  });
});

describe("403", () => {
  test("a missing ability is named", async () => {
    const token = await env.orgToken(["contacts.view"]);
    const r = await env.api("POST", "/api/v1/customers", { name: "X" }, token);
    expect(r.status).toBe(403);
    expect(r.body.message).toContain("contacts.create");
    expect((await env.api("GET", "/api/v1/customers", undefined, token)).status).toBe(200);
  });

  test("an organisation without api_access", async () => {
    const other = await env.newOrg("No access");
    await setApiAccess(env.db, other.org, false, CLI_ACTOR);
    const r = await env.api("GET", "/api/v1/customers", undefined, other.token);
    expect(r.status).toBe(403);
    expect(r.body.message).toContain("API access");
    // meta endpoints too: every token route is behind api_access
    expect((await env.api("GET", "/api/v1/meta/abilities", undefined, other.token)).status).toBe(403);
    await setApiAccess(env.db, other.org, true, CLI_ACTOR);
    expect((await env.api("GET", "/api/v1/customers", undefined, other.token)).status).toBe(200);
  });
});

describe("roles and personal tokens", () => {
  test("a personal token's abilities are its own ∩ its user's role", async () => {
    const { token } = await env.userToken("viewer", ["contacts.view", "contacts.create"]);
    expect((await env.api("GET", "/api/v1/customers", undefined, token)).status).toBe(200);
    const r = await env.api("POST", "/api/v1/customers", { name: "Nope" }, token);
    expect(r.status).toBe(403);
    expect(r.body.message).toContain("contacts.create");
  });

  test("member: views plus create/edit of contacts, invoicing, expenses; no delete", async () => {
    const { token } = await env.userToken("member");
    const created = await env.api("POST", "/api/v1/customers", { name: "By member" }, token);
    expect(created.status).toBe(201);
    expect((await env.api("DELETE", `/api/v1/customers/${created.body.data.id}`, undefined, token)).status).toBe(403);
  });

  test("a demoted user's token loses power at once", async () => {
    const { token, userId } = await env.userToken("admin");
    expect((await env.api("POST", "/api/v1/customers", { name: "Before" }, token)).status).toBe(201);
    await setUserRole(env.db, await findUser(env.db, userId), "viewer", CLI_ACTOR);
    expect((await env.api("POST", "/api/v1/customers", { name: "After" }, token)).status).toBe(403);
    expect((await env.api("GET", "/api/v1/customers", undefined, token)).status).toBe(200);
  });

  test("removing a user ends its personal tokens but not the organisation tokens it created", async () => {
    const { token: personal, userId } = await env.userToken("owner");
    const minted = await env.api("POST", "/api/v1/org-tokens", { name: "integration", abilities: ["contacts.view"] }, personal);
    expect(minted.status).toBe(201);
    await removeUser(env.db, await findUser(env.db, userId), CLI_ACTOR);
    expect((await env.api("GET", "/api/v1/customers", undefined, personal)).status).toBe(401);
    expect((await env.api("GET", "/api/v1/customers", undefined, minted.body.token)).status).toBe(200);
  });
});

describe("personal tokens: /api/v1/tokens", () => {
  test("create, list without secrets, use, revoke", async () => {
    const { token } = await env.userToken("accountant");
    const r = await env.api("POST", "/api/v1/tokens", { name: "laptop", abilities: ["contacts.view"], expires_in_days: 30 }, token);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: "laptop", type: "personal", abilities: ["contacts.view"] });
    expect(r.body.token).toMatch(/^[0-9a-f-]{36}\|[A-Za-z0-9_-]{40,}$/);
    expect(r.headers.get("location")).toBe(`/api/v1/tokens/${r.body.id}`);
    const days = (Date.parse(r.body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);

    const list = await env.api("GET", "/api/v1/tokens", undefined, token);
    expect(list.status).toBe(200);
    const ids = list.body.data.map((t: any) => t.id);
    expect(ids).toContain(r.body.id);
    expect(list.text).not.toContain(r.body.token.split("|")[1]);
    for (const item of list.body.data) {
      expect(Object.keys(item).sort()).toEqual(["abilities", "created_at", "created_by", "expires_at", "id", "last_used_at", "name", "type"]);
    }

    expect((await env.api("GET", "/api/v1/customers", undefined, r.body.token)).status).toBe(200);
    expect((await env.api("DELETE", `/api/v1/tokens/${r.body.id}`, undefined, token)).status).toBe(204);
    expect((await env.api("GET", "/api/v1/customers", undefined, r.body.token)).status).toBe(401);
    expect((await env.api("DELETE", `/api/v1/tokens/${r.body.id}`, undefined, token)).status).toBe(404);
  });

  test("omitted abilities: everything the caller holds", async () => {
    const { token } = await env.userToken("viewer");
    const r = await env.api("POST", "/api/v1/tokens", { name: "all" }, token);
    expect(r.status).toBe(201);
    expect(r.body.abilities.every((a: string) => a.endsWith(".view"))).toBe(true);
  });

  test("an organisation token cannot create personal tokens", async () => {
    const r = await env.api("POST", "/api/v1/tokens", { name: "x" });
    expect(r.status).toBe(403);
  });

  test("* on a personal token is a 422", async () => {
    const { token } = await env.userToken("owner");
    const r = await env.api("POST", "/api/v1/tokens", { name: "x", abilities: ["*"] }, token);
    expect(r.status).toBe(422);
    expect(r.body.errors.abilities[0]).toContain("*");
  });

  test("no token can mint more power than its own: 422 naming the excess", async () => {
    const { token } = await env.userToken("viewer");
    const r = await env.api("POST", "/api/v1/tokens", { name: "x", abilities: ["contacts.view", "invoicing.create", "expenses.approve"] }, token);
    expect(r.status).toBe(422);
    expect(r.body.errors.abilities[0]).toContain("invoicing.create");
    expect(r.body.errors.abilities[0]).toContain("expenses.approve");
    expect(r.body.errors.abilities[0]).not.toContain("contacts.view");
  });

  test("validation: name, unknown abilities, expires_in_days bounds, unknown fields", async () => {
    const { token } = await env.userToken("owner");
    const bad = [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: "x".repeat(256) }, "name"],
      [{ name: "x", abilities: ["nope.view"] }, "abilities"],
      [{ name: "x", abilities: [] }, "abilities"],
      [{ name: "x", expires_in_days: 0 }, "expires_in_days"],
      [{ name: "x", expires_in_days: 366 }, "expires_in_days"],
      [{ name: "x", expires_in_days: 1.5 }, "expires_in_days"],
      [{ name: "x", type: "organization" }, "type"],
    ] as const;
    for (const [body, field] of bad) {
      const r = await env.api("POST", "/api/v1/tokens", body, token);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(r.body.errors), JSON.stringify(body)).toContain(field);
    }
    const ok = await env.api("POST", "/api/v1/tokens", { name: "x", expires_in_days: null }, token);
    expect(ok.status).toBe(201);
    expect(ok.body.expires_at).toBeNull();
  });

  test("an expired token is a 401", async () => {
    const { token } = await env.userToken("owner");
    const r = await env.api("POST", "/api/v1/tokens", { name: "short", expires_in_days: 1 }, token);
    const id = r.body.id;
    await env.db.update(apiTokens).set({ expiresAt: "2020-01-01T00:00:00.000000Z" }).where(eq(apiTokens.id, id));
    expect((await env.api("GET", "/api/v1/meta/abilities", undefined, r.body.token)).status).toBe(401);
  });

  test("a user cannot revoke another user's personal token", async () => {
    const a = await env.userToken("owner");
    const b = await env.userToken("owner");
    const minted = await env.api("POST", "/api/v1/tokens", { name: "a's" }, a.token);
    expect((await env.api("DELETE", `/api/v1/tokens/${minted.body.id}`, undefined, b.token)).status).toBe(404);
    expect((await env.api("GET", "/api/v1/tokens", undefined, b.token)).body.data.map((t: any) => t.id)).not.toContain(minted.body.id);
  });
});

describe("organisation tokens: /api/v1/org-tokens", () => {
  test("an owner's personal token can mint within its own power", async () => {
    const { token } = await env.userToken("owner");
    const r = await env.api("POST", "/api/v1/org-tokens", { name: "erp", abilities: ["invoicing.view"] }, token);
    expect(r.status).toBe(201);
    expect(r.body.type).toBe("organization");
    expect(r.headers.get("location")).toBe(`/api/v1/org-tokens/${r.body.id}`);
    // * needs the caller to hold every ability: an owner personal token does
    const star = await env.api("POST", "/api/v1/org-tokens", { name: "all", abilities: ["*"] }, token);
    expect(star.status).toBe(201);
    expect(star.body.abilities).toEqual(["*"]);
  });

  test("accountants and admins without manage-users cannot mint organisation tokens", async () => {
    const { token } = await env.userToken("accountant");
    expect((await env.api("POST", "/api/v1/org-tokens", { name: "x", abilities: ["contacts.view"] }, token)).status).toBe(403);
    const admin = await env.userToken("admin", ["contacts.view"]);
    expect((await env.api("POST", "/api/v1/org-tokens", { name: "x", abilities: ["contacts.view"] }, admin.token)).status).toBe(403);
  });

  test("only an organisation token with * may mint organisation tokens", async () => {
    const limited = await env.orgToken([...ABILITIES]);
    expect((await env.api("POST", "/api/v1/org-tokens", { name: "x", abilities: ["contacts.view"] }, limited)).status).toBe(403);
    const r = await env.api("POST", "/api/v1/org-tokens", { name: "x", abilities: ["contacts.view"] });
    expect(r.status).toBe(201);
    const list = await env.api("GET", "/api/v1/org-tokens");
    expect(list.body.data.map((t: any) => t.id)).toContain(r.body.id);
    expect(list.body.data.every((t: any) => t.type === "organization")).toBe(true);
    expect((await env.api("DELETE", `/api/v1/org-tokens/${r.body.id}`)).status).toBe(204);
    expect((await env.api("GET", "/api/v1/customers", undefined, r.body.token)).status).toBe(401);
  });

  test("another organisation's token ids are 404", async () => {
    const other = await env.newOrg();
    const r = await env.api("POST", "/api/v1/org-tokens", { name: "theirs", abilities: ["contacts.view"] }, other.token);
    expect((await env.api("DELETE", `/api/v1/org-tokens/${r.body.id}`)).status).toBe(404);
    expect((await env.api("GET", "/api/v1/customers", undefined, r.body.token)).status).toBe(200);
  });
});

describe("meta", () => {
  test("abilities and webhook events", async () => {
    const token = await env.orgToken(["contacts.view"]);
    const abilities = await env.api("GET", "/api/v1/meta/abilities", undefined, token);
    expect(abilities.body.data).toContain("invoicing.finalize");
    expect(abilities.body.data).toContain("organization.view-audit-log");
    expect(abilities.body.data).toHaveLength(ABILITIES.length);
    const events = await env.api("GET", "/api/v1/meta/webhook-events", undefined, token);
    expect(events.body.data).toContain("invoice.payment_recorded");
    expect(events.body.data).toEqual([...WEBHOOK_EVENTS]);
    expect(events.body.data).toEqual(expect.arrayContaining(["fiscal_year.closed", "fiscal_year.reopened"]));
    expect(events.body.data).toContain("bank_transaction.matched");
  });
});

describe("tokens minted by tokens", () => {
  const idOf = (token: string) => token.split("|")[0]!;
  const rowOf = async (id: string) => (await firstRow(env.db.select().from(apiTokens).where(eq(apiTokens.id, id))))!;
  /** An organisation token with `*` made by an owner's personal token, and that owner. */
  async function ownedStarToken(body: Record<string, unknown> = {}) {
    const owner = await env.userToken("owner");
    const r = await env.api("POST", "/api/v1/org-tokens", { name: "star", abilities: ["*"], ...body }, owner.token);
    expect(r.status, r.text).toBe(201);
    return { owner, star: r.body as { id: string; token: string; expires_at: string | null } };
  }
  const mintOrg = async (parent: string, body: Record<string, unknown> = {}) => {
    const r = await env.api("POST", "/api/v1/org-tokens", { name: "child", abilities: ["*"], ...body }, parent);
    expect(r.status, r.text).toBe(201);
    return r.body as { id: string; token: string; expires_at: string | null };
  };

  test("a child never expires later than the token that minted it", async () => {
    const { star } = await ownedStarToken({ expires_in_days: 1 });
    expect(star.expires_at).not.toBeNull();
    // no expiry asked: the parent's; a later one: the parent's; an earlier one: its own
    expect((await mintOrg(star.token)).expires_at).toBe(star.expires_at);
    expect((await mintOrg(star.token, { expires_in_days: 365 })).expires_at).toBe(star.expires_at);
    expect((await mintOrg(star.token, { expires_in_days: null })).expires_at).toBe(star.expires_at);
    const grandchild = await mintOrg((await mintOrg(star.token)).token);
    expect(grandchild.expires_at).toBe(star.expires_at);
    expect((await rowOf(grandchild.id)).expiresAt).toBe(star.expires_at);

    const long = await ownedStarToken({ expires_in_days: 30 });
    const shorter = await mintOrg(long.star.token, { expires_in_days: 2 });
    expect(shorter.expires_at! < long.star.expires_at!).toBe(true);

    // personal tokens minting personal tokens: the same rule
    const { token } = await env.userToken("accountant");
    const parent = await env.api("POST", "/api/v1/tokens", { name: "week", expires_in_days: 7 }, token);
    const child = await env.api("POST", "/api/v1/tokens", { name: "forever" }, parent.body.token);
    expect(child.status).toBe(201);
    expect(child.body.expires_at).toBe(parent.body.expires_at);
    // a token with no expiry mints what was asked
    expect((await env.api("POST", "/api/v1/tokens", { name: "free" }, token)).body.expires_at).toBeNull();
  });

  test("lists show created_by: the user behind it and the token that minted it", async () => {
    const { owner, star } = await ownedStarToken();
    const child = await mintOrg(star.token);
    const cliMade = idOf(await env.orgToken(["contacts.view"]));
    const list = await env.api("GET", "/api/v1/org-tokens?per_page=100");
    const byId = new Map(list.body.data.map((t: any) => [t.id, t.created_by]));
    expect(byId.get(star.id)).toEqual({ user_id: owner.userId, token_id: idOf(owner.token) });
    // minted by an organisation token: on behalf of the user behind that token
    expect(byId.get(child.id)).toEqual({ user_id: owner.userId, token_id: star.id });
    expect(byId.get(cliMade)).toEqual({ user_id: null, token_id: null });

    const personal = await env.api("POST", "/api/v1/tokens", { name: "mine" }, owner.token);
    const mine = await env.api("GET", "/api/v1/tokens", undefined, owner.token);
    expect(mine.body.data.find((t: any) => t.id === personal.body.id).created_by).toEqual({ user_id: owner.userId, token_id: idOf(owner.token) });
  });

  test("revoking without cascade leaves what a token minted working; ?cascade=true revokes it all, each audited", async () => {
    const { star } = await ownedStarToken();
    const child = await mintOrg(star.token);
    const grandchild = await mintOrg(child.token);
    const sibling = await mintOrg(star.token);
    expect((await env.api("DELETE", `/api/v1/org-tokens/${child.id}`)).status).toBe(204);
    expect((await env.api("GET", "/api/v1/customers", undefined, child.token)).status).toBe(401);
    expect((await env.api("GET", "/api/v1/customers", undefined, grandchild.token)).status).toBe(200);

    // cascading from the star reaches the grandchild through its revoked parent
    expect((await env.api("DELETE", `/api/v1/org-tokens/${star.id}?cascade=true`)).status).toBe(204);
    for (const t of [star, grandchild, sibling]) expect((await env.api("GET", "/api/v1/customers", undefined, t.token)).status).toBe(401);
    const audit = await env.api("GET", "/api/v1/audit-log?filter[action]=token.revoked&per_page=100");
    const revoked = audit.body.data.map((e: any) => e.resource_id);
    for (const t of [star, child, grandchild, sibling]) expect(revoked).toContain(t.id);
    expect(revoked.filter((id: string) => id === child.id)).toHaveLength(1);
  });

  test("cascade on an already revoked token revokes what it left behind", async () => {
    const { star } = await ownedStarToken();
    const child = await mintOrg(star.token);
    expect((await env.api("DELETE", `/api/v1/org-tokens/${star.id}`)).status).toBe(204);
    expect((await env.api("DELETE", `/api/v1/org-tokens/${star.id}`)).status).toBe(404);
    expect((await env.api("GET", "/api/v1/customers", undefined, child.token)).status).toBe(200);
    expect((await env.api("DELETE", `/api/v1/org-tokens/${star.id}?cascade=true`)).status).toBe(204);
    expect((await env.api("GET", "/api/v1/customers", undefined, child.token)).status).toBe(401);
  });

  test("a personal token's cascade reaches the organisation tokens it minted", async () => {
    const { owner, star } = await ownedStarToken();
    const personal = await env.api("POST", "/api/v1/tokens", { name: "laptop" }, owner.token);
    const other = await env.userToken("owner");
    // the cascade starts only from one's own token
    expect((await env.api("DELETE", `/api/v1/tokens/${idOf(owner.token)}?cascade=true`, undefined, other.token)).status).toBe(404);
    expect((await env.api("DELETE", `/api/v1/tokens/${idOf(owner.token)}?cascade=true`, undefined, owner.token)).status).toBe(204);
    for (const t of [owner.token, star.token, personal.body.token]) expect((await env.api("GET", "/api/v1/meta/abilities", undefined, t)).status).toBe(401);
    expect((await env.api("GET", "/api/v1/meta/abilities", undefined, other.token)).status).toBe(200);
  });

  test("cascade takes true or false; other query parameters are a 422", async () => {
    const { star } = await ownedStarToken();
    const child = await mintOrg(star.token);
    for (const query of ["cascade=yes", "cascade=1", "cascad=true"]) {
      const r = await env.api("DELETE", `/api/v1/org-tokens/${star.id}?${query}`);
      expect(r.status, query).toBe(422);
    }
    expect((await env.api("DELETE", `/api/v1/org-tokens/${star.id}?cascade=false`)).status).toBe(204);
    expect((await env.api("GET", "/api/v1/customers", undefined, child.token)).status).toBe(200);
  });

  test("responses carrying a new token are never stored by a cache", async () => {
    const { owner } = await ownedStarToken();
    const personal = await env.api("POST", "/api/v1/tokens", { name: "x" }, owner.token);
    const org = await env.api("POST", "/api/v1/org-tokens", { name: "x", abilities: ["contacts.view"] }, owner.token);
    for (const r of [personal, org]) {
      expect(r.status).toBe(201);
      expect(r.headers.get("cache-control")).toBe("no-store");
    }
    // nor is its replay under the same Idempotency-Key
    const headers = { "idempotency-key": "mint-once" };
    const first = await env.request("POST", "/api/v1/tokens", { body: { name: "once" }, token: owner.token, headers });
    const replay = await env.request("POST", "/api/v1/tokens", { body: { name: "once" }, token: owner.token, headers });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.token).toBe(first.body.token);
    expect(replay.headers.get("cache-control")).toBe("no-store");
  });
});

// an upgrade of a SQLite database from before 0012: a PostgreSQL database starts from a baseline after it
sqliteOnly.describe("migration 0012: existing tokens learn who minted them", () => {
  test("the minting organisation token comes from the audit log; children inherit its user and expiry", async () => {
    const scratch = await createTestEnv();
    let db: Db | null = null;
    try {
      // a database as it was before 0012: migrations up to 0011, with tokens minted the old way
      const path = `${scratch.dir}/old.db`;
      db = openDatabase(path);
      const before = embeddedMigrations.filter((m) => m.tag < "0012");
      (db as any).dialect.migrate(
        before.map((m) => ({ sql: m.sql.split("--> statement-breakpoint"), bps: m.breakpoints, folderMillis: m.when, hash: m.tag })),
        (db as any).session,
        {},
      );
      const client = db.$client;
      const org = crypto.randomUUID();
      const user = crypto.randomUUID();
      client.run("INSERT INTO organizations (id, name, currency, country, api_access, created_at, updated_at) VALUES (?, 'Old', 'EUR', 'BE', 1, '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')", [org]);
      const token = (id: string, createdByUser: string | null, expiresAt: string | null) =>
        client.run(
          "INSERT INTO api_tokens (id, organization_id, type, user_id, created_by_user_id, name, secret_hash, abilities, expires_at, created_at) VALUES (?, ?, 'organization', NULL, ?, 'old', 'x', '[\"*\"]', ?, '2026-01-01T00:00:00.000000Z')",
          [id, org, createdByUser, expiresAt],
        );
      const minted = (id: string, by: { type: string; id: string | null }) =>
        client.run(
          "INSERT INTO audit_log (id, organization_id, action, resource_type, resource_id, actor_type, actor_id, created_at) VALUES (?, ?, 'token.created', 'token', ?, ?, ?, '2026-01-01T00:00:00.000000Z')",
          [crypto.randomUUID(), org, id, by.type, by.id],
        );
      const [root, child, grandchild, cliMade] = [1, 2, 3, 4].map(() => crypto.randomUUID()) as [string, string, string, string];
      token(root, user, "2026-02-01T00:00:00.000000Z");
      minted(root, { type: "user", id: user });
      token(child, null, null);
      minted(child, { type: "token", id: root });
      token(grandchild, null, "2027-01-01T00:00:00.000000Z");
      minted(grandchild, { type: "token", id: child });
      token(cliMade, null, null);
      minted(cliMade, { type: "cli", id: null });
      db.$client.close();
      db = openDatabase(path);
      await migrateDatabase(db);
      const row = async (id: string) => (await firstRow(db!.select().from(apiTokens).where(eq(apiTokens.id, id))))!;
      expect(await row(root)).toMatchObject({ createdByTokenId: null, createdByUserId: user, expiresAt: "2026-02-01T00:00:00.000000Z" });
      expect(await row(child)).toMatchObject({ createdByTokenId: root, createdByUserId: user, expiresAt: "2026-02-01T00:00:00.000000Z" });
      expect(await row(grandchild)).toMatchObject({ createdByTokenId: child, createdByUserId: user, expiresAt: "2026-02-01T00:00:00.000000Z" });
      expect(await row(cliMade)).toMatchObject({ createdByTokenId: null, createdByUserId: null, expiresAt: null });
    } finally {
      db?.$client.close();
      scratch.close();
    }
  });
});
