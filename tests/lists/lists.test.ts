/** The list mechanism (api-spec 4.1, contract 5), exercised through customers. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createRuntime } from "../../server/runtime.ts";
import { eq } from "drizzle-orm";
import { customers } from "../../db/schema.ts";
import { join } from "node:path";
import { createTestEnv } from "../helpers.ts";
import { plansOf, slowSteps } from "../query-plan.ts";
import { firstRow } from "../../db/client.ts";
import { openPostgres } from "../../db/postgres/connection.ts";
import { onPostgres, rawSql, sqliteOnly } from "../raw-sql.ts";

const env = await createTestEnv({ KONTOR_BASE_URL: "https://kontor.example.com" });
afterAll(() => env.close());

const names = ["Delta", "alpha", "Charlie", "Bravo", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliet", "Kilo", "Lima"];
const ids: Record<string, string> = {};

beforeAll(async () => {
  for (const [i, name] of names.entries()) {
    const r = await env.api("POST", "/api/v1/customers", {
      name,
      email: `${name.toLowerCase()}@example.com`,
      country: i % 2 ? "NL" : "BE",
      currency: i % 3 ? "EUR" : "USD",
      vat_number: i === 0 ? "BE0202239951" : null,
    });
    ids[name] = r.body.data.id;
  }
});

const list = (query: string) => env.api("GET", `/api/v1/customers${query}`);

describe("pagination", () => {
  test("default page size 20, meta and absolute links from KONTOR_BASE_URL", async () => {
    const r = await list("");
    expect(r.status).toBe(200);
    expect(r.body.meta).toEqual({ current_page: 1, from: 1, last_page: 1, per_page: 20, to: 12, total: 12, next_cursor: null });
    expect(r.body.links.first).toBe("https://kontor.example.com/api/v1/customers?page=1");
    expect(r.body.links.prev).toBeNull();
    expect(r.body.links.next).toBeNull();
  });

  test("page and per_page", async () => {
    const r = await list("?per_page=5&page=2");
    expect(r.body.meta).toEqual({ current_page: 2, from: 6, last_page: 3, per_page: 5, to: 10, total: 12, next_cursor: expect.any(String) });
    expect(r.body.data).toHaveLength(5);
    expect(r.body.links.prev).toBe("https://kontor.example.com/api/v1/customers?per_page=5&page=1");
    expect(r.body.links.next).toBe("https://kontor.example.com/api/v1/customers?per_page=5&page=3");
    expect(r.body.links.last).toBe("https://kontor.example.com/api/v1/customers?per_page=5&page=3");
    const beyond = await list("?per_page=5&page=9");
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.meta).toMatchObject({ from: null, to: null, total: 12 });
  });

  test("walking every page sees every row once", async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 5; page++) seen.push(...(await list(`?per_page=3&page=${page}&sort=-updated_at`)).body.data.map((c: any) => c.id));
    expect(seen).toHaveLength(12);
    expect(new Set(seen).size).toBe(12);
  });

  test("per_page 1–100 and page ≥ 1; others are 422 keyed by the parameter", async () => {
    for (const q of ["per_page=0", "per_page=101", "per_page=abc", "page=0", "page=-1", "page=1.5", "page=1000001", "page=1e21"]) {
      const r = await list(`?${q}`);
      expect(r.status, q).toBe(422);
      expect(Object.keys(r.body.errors), q).toEqual([q.split("=")[0]!]);
    }
    expect((await list("?per_page=100")).status).toBe(200);
  });
});

describe("sorting", () => {
  test("default sort is name, ascending", async () => {
    const r = await list("?per_page=3");
    expect(r.body.data.map((c: any) => c.name)).toEqual(["alpha", "Bravo", "Charlie"]);
  });

  test("-name sorts descending", async () => {
    const r = await list("?per_page=3&sort=-name");
    expect(r.body.data.map((c: any) => c.name)).toEqual(["Lima", "Kilo", "Juliet"]);
  });

  test("created_at with a stable id tiebreak", async () => {
    const asc = (await list("?per_page=100&sort=created_at")).body.data.map((c: any) => c.id);
    const desc = (await list("?per_page=100&sort=-created_at")).body.data.map((c: any) => c.id);
    expect(desc).toEqual([...asc].reverse());
  });

  test("an unknown sort is a 422 keyed sort", async () => {
    const r = await list("?sort=email");
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(["sort"]);
  });
});

describe("filters", () => {
  test("country, currency and email", async () => {
    expect((await list("?filter[country]=NL")).body.meta.total).toBe(6);
    expect((await list("?filter[currency]=USD")).body.meta.total).toBe(4);
    expect((await list("?filter[country]=BE&filter[currency]=USD")).body.meta.total).toBe(2);
    const byEmail = await list("?filter[email]=echo@example.com");
    expect(byEmail.body.data.map((c: any) => c.name)).toEqual(["Echo"]);
  });

  test("unknown filters and bad values are 422 keyed filter.<name>", async () => {
    const unknown = await list("?filter[status]=x");
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.errors)).toEqual(["filter.status"]);
    const bad = await list("?filter[country]=Belgium");
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["filter.country"]);
  });

  test("updated_since for incremental sync", async () => {
    const mark = (await list("?per_page=100&sort=-updated_at")).body.data[0].updated_at;
    await Bun.sleep(2);
    await env.api("PUT", `/api/v1/customers/${ids.Golf}`, { city: "Brussel" });
    const r = await list(`?filter[updated_since]=${encodeURIComponent(mark)}&sort=updated_at`);
    expect(r.body.data.map((c: any) => c.name)).toContain("Golf");
    const after = (await env.api("GET", `/api/v1/customers/${ids.Golf}`)).body.data.updated_at;
    const later = await list(`?filter[updated_since]=${encodeURIComponent(after)}`);
    expect(later.body.data.map((c: any) => c.name)).toEqual(["Golf"]);
    const bad = await list("?filter[updated_since]=yesterday");
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(["filter.updated_since"]);
  });
});

describe("search (FTS5)", () => {
  test("by name prefix, email and vat number; case-insensitive", async () => {
    expect((await list("?search=char")).body.data.map((c: any) => c.name)).toEqual(["Charlie"]);
    expect((await list("?search=ALPHA")).body.data.map((c: any) => c.name)).toEqual(["alpha"]);
    expect((await list("?search=kilo%40example.com")).body.data.map((c: any) => c.name)).toEqual(["Kilo"]);
    expect((await list("?search=BE0202239951")).body.data.map((c: any) => c.name)).toEqual(["Delta"]);
  });

  test("follows renames and deletes", async () => {
    await env.api("PUT", `/api/v1/customers/${ids.Hotel}`, { name: "Motel Zonneschijn", email: "info@zonneschijn.nl" });
    expect((await list("?search=hotel")).body.data).toEqual([]);
    expect((await list("?search=zonneschijn")).body.data.map((c: any) => c.id)).toEqual([ids.Hotel]);
    await env.api("DELETE", `/api/v1/customers/${ids.India}`);
    expect((await list("?search=india")).body.data).toEqual([]);
  });

  test("FTS syntax in the search text is not an error", async () => {
    for (const q of ['"', "AND OR NOT", "*", "a:b", "(", "NEAR(x y)", "%%%", " "]) {
      const r = await list(`?search=${encodeURIComponent(q)}`);
      expect(r.status, q).toBe(200);
    }
  });

  test("search is scoped to the organisation", async () => {
    const other = await env.newOrg();
    expect((await env.api("GET", "/api/v1/customers?search=alpha", undefined, other.token)).body.data).toEqual([]);
  });

  // SQLite's FTS5 and its query plan
  sqliteOnly.test("search uses the FTS index, not a scan of the name column", async () => {
    // prepare + finalize: a cached EXPLAIN statement over FTS5 keeps a read snapshot open
    const statement = env.db.$client.prepare("EXPLAIN QUERY PLAN SELECT id FROM customers WHERE rowid IN (SELECT rowid FROM customers_fts WHERE customers_fts MATCH ?)");
    const plan = statement.all('"alpha"*') as { detail: string }[];
    statement.finalize();
    expect(plan.map((p) => p.detail).join("\n")).toMatch(/VIRTUAL TABLE INDEX/);
    const row = await firstRow(env.db.select().from(customers).where(eq(customers.id, ids.Lima!)));
    expect(row?.name).toBe("Lima");
  });
});

describe("meta.total stays exact", () => {
  test("after writes by this connection and by another process on the same database", async () => {
    const before = (await list("")).body.meta.total;
    expect((await list("")).body.meta.total).toBe(before);
    // another connection (as the CLI or a worker process would be)
    const insert = "INSERT INTO customers (id, organization_id, name, created_at, updated_at) VALUES (?, ?, 'Raw Insert', '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z')";
    if (onPostgres) {
      const other = openPostgres(env.config.databaseUrl!, { max: 1 });
      try {
        await rawSql(other).run(insert, crypto.randomUUID(), env.org.id);
      } finally {
        await other.connection.close();
      }
    } else {
      const { Database } = await import("bun:sqlite");
      const other = new Database(join(env.dir, "kontor.db"));
      other.run(insert, [crypto.randomUUID(), env.org.id]);
      other.close();
    }
    expect((await list("")).body.meta.total).toBe(before + 1);
    // this connection, outside any service
    await rawSql(env.db).run("DELETE FROM customers WHERE name = 'Raw Insert'");
    expect((await list("")).body.meta.total).toBe(before);
  });
});

describe("a page read after the one before it seeks past that page's last row", () => {
  const idsOf = async (query: string) => (await list(query)).body.data.map((c: any) => c.id as string);
  /** a commit that leaves the customers as they were: what lists remember is forgotten */
  const commitNothing = async () => {
    const r = await env.api("POST", "/api/v1/customers", { name: "Transient" });
    expect((await env.api("DELETE", `/api/v1/customers/${r.body.data.id}`)).status).toBe(204);
  };

  test("with ties on the sort column, walking forward equals reading each page by OFFSET", async () => {
    const tied: string[] = [];
    for (let i = 0; i < 7; i++) tied.push((await env.api("POST", "/api/v1/customers", { name: "Tie" })).body.data.id);
    // the same timestamps for all seven: the id alone orders them
    for (const id of tied) await env.db.update(customers).set({ createdAt: "2026-01-01T00:00:00.000000Z", updatedAt: "2026-01-01T00:00:00.000000Z" }).where(eq(customers.id, id));
    try {
      const total = (await list("")).body.meta.total;
      for (const sort of ["created_at", "-created_at", "updated_at", "-updated_at", "name"]) {
        const pages = Math.ceil(total / 2);
        await commitNothing();
        const forward: string[][] = [];
        for (let page = 1; page <= pages + 1; page++) forward.push(await idsOf(`?per_page=2&sort=${sort}&page=${page}`));
        // backwards, after a commit: no page is read after the one before it, every page by OFFSET
        await commitNothing();
        const byOffset: string[][] = [];
        for (let page = pages + 1; page >= 1; page--) byOffset.unshift(await idsOf(`?per_page=2&sort=${sort}&page=${page}`));
        expect(forward).toEqual(byOffset);
        // each page twice: the second time by a seek to the page's own first row
        const again: string[][] = [];
        for (let page = 1; page <= pages + 1; page++) {
          await idsOf(`?per_page=2&sort=${sort}&page=${page}`);
          again.push(await idsOf(`?per_page=2&sort=${sort}&page=${page}`));
        }
        expect(again).toEqual(byOffset);
        expect(forward.flat()).toHaveLength(total);
        expect(new Set(forward.flat()).size).toBe(total);
      }
    } finally {
      for (const id of tied) await env.api("DELETE", `/api/v1/customers/${id}`);
    }
  });

  sqliteOnly.test("the seek is an index search, with no sort step", async () => {
    await list("?per_page=3&sort=-created_at&page=1");
    const plans = await plansOf(env, () => list("?per_page=3&sort=-created_at&page=2"));
    const seek = plans.find((p) => /\("customers"\."created_at", "customers"\."id"\) < \(\?, \?\)/.test(p.sql));
    expect(seek).toBeDefined();
    expect(seek!.plan.join(" ")).toMatch(/SEARCH customers USING INDEX .*\(created_at,id\)<\(\?,\?\)/);
    expect(slowSteps(seek!.plan)).toEqual([]);
    // the same page again seeks to its own first row
    const again = await plansOf(env, () => list("?per_page=3&sort=-created_at&page=2"));
    const inclusive = again.find((p) => /\("customers"\."created_at", "customers"\."id"\) <= \(\?, \?\)/.test(p.sql));
    expect(inclusive).toBeDefined();
    expect(slowSteps(inclusive!.plan)).toEqual([]);
  });

  test("after a commit the next page is read afresh: a new first row shifts every page", async () => {
    const first = await idsOf("?per_page=3&sort=-created_at&page=1");
    const created = await env.api("POST", "/api/v1/customers", { name: "Newest" });
    try {
      const second = await idsOf("?per_page=3&sort=-created_at&page=2");
      expect(second[0]).toBe(first[2]);
    } finally {
      await env.api("DELETE", `/api/v1/customers/${created.body.data.id}`);
    }
  });
});

describe("absolute links", () => {
  test("a forged Host header never becomes their origin: KONTOR_BASE_URL, else the listening address", async () => {
    const { startServer } = await import("../../server/serve.ts");
    const plain = await createTestEnv();
    const running = await startServer(createRuntime({ ...plain.config, port: 0, httpThreads: 1 }, { db: plain.db }), { worker: false });
    try {
      const r = await fetch(`${running.url}/api/v1/customers`, { headers: { authorization: `Bearer ${plain.token}`, host: "evil.example" } });
      const body = (await r.json()) as { links: { first: string } };
      expect(body.links.first).toBe(`${running.url}/api/v1/customers?page=1`);
      expect(running.url).toStartWith("http://127.0.0.1:");
    } finally {
      await running.stop();
      plain.close();
    }
    // in process, the URL's host is the Host header's: configured base wins
    const forged = await env.app.handle(new Request("http://evil.example/api/v1/customers", { headers: { authorization: `Bearer ${env.token}` } }));
    expect(((await forged.json()) as { links: { first: string } }).links.first).toBe("https://kontor.example.com/api/v1/customers?page=1");
  });
});
