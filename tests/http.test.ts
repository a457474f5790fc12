/** HTTP conventions of contract section 5: bodies, errors, limits, rate limiting, docs. */
import { afterAll, describe, expect, test } from "bun:test";
import { createRuntime } from "../server/runtime.ts";
import { createLogger } from "../server/log.ts";
import { createRateLimiter, createRateLimitMemory } from "../server/http/rate-limit.ts";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../db/client.ts";
import { startServer } from "../server/serve.ts";
import { createTestEnv, runCli } from "./helpers.ts";

const env = createTestEnv();
afterAll(() => env.close());

const json = { "content-type": "application/json" };

describe("request bodies", () => {
  test("malformed JSON is a 400 {message}", async () => {
    const r = await env.request("POST", "/api/v1/customers", { rawBody: '{"name": "x",', headers: json });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: "The request body is not valid JSON." });
  });

  test("a non-JSON content type is a 415", async () => {
    const r = await env.request("POST", "/api/v1/customers", { rawBody: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(r.status).toBe(415);
    expect(r.body.message).toContain("JSON");
    const none = await env.request("POST", "/api/v1/customers", { rawBody: '{"name":"x"}', headers: { "content-type": "text/plain" } });
    expect(none.status).toBe(415);
  });

  test("a JSON content type with a charset is fine", async () => {
    const r = await env.request("POST", "/api/v1/customers", { rawBody: '{"name":"Charset"}', headers: { "content-type": "application/json; charset=utf-8" } });
    expect(r.status).toBe(201);
  });

  test("over 1 MiB is a 413, declared or streamed", async () => {
    const big = JSON.stringify({ name: "x", notes: "a".repeat(1024 * 1024) });
    const declared = await env.request("POST", "/api/v1/customers", { rawBody: big, headers: json });
    expect(declared.status).toBe(413);
    expect(declared.body.message).toContain("1048576");

    // chunked: no content-length, the limit must hold while reading
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode("a".repeat(64 * 1024)));
        controller.close();
      },
    });
    const response = await env.app.handle(
      new Request("http://localhost/api/v1/customers", {
        method: "POST",
        headers: { ...json, authorization: `Bearer ${env.token}` },
        body: stream,
        duplex: "half",
      }),
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toHaveProperty("message");
  });

  test("an empty body where one is required is a 422", async () => {
    const r = await env.request("POST", "/api/v1/customers", { rawBody: "", headers: json });
    expect(r.status).toBe(422);
  });

  test("a JSON array or scalar instead of an object is a 422", async () => {
    for (const raw of ["[]", "42", '"name"', "null"]) {
      const r = await env.request("POST", "/api/v1/customers", { rawBody: raw, headers: json });
      expect(r.status, raw).toBe(422);
    }
  });

  test("unknown and read-only fields are a 422 naming them", async () => {
    const r = await env.api("POST", "/api/v1/customers", { name: "X", nmae: "typo", id: "x", type: "organization", created_at: "2026-01-01" });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors).sort()).toEqual(["created_at", "id", "nmae", "type"]);
    expect(r.body.errors.nmae[0]).toContain("nmae");
  });
});

describe("errors", () => {
  test("unknown routes are a JSON 404", async () => {
    for (const path of ["/api/v1/nope", "/api/v1/customers/x/y/z", "/nope"]) {
      const r = await env.request("GET", path);
      expect(r.status, path).toBe(404);
      expect(r.body).toEqual({ message: "Not found." });
    }
  });

  test("a known path with the wrong method is a JSON 405 with Allow", async () => {
    const r = await env.request("PATCH", "/api/v1/customers/01900000-0000-7000-8000-000000000000");
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ message: "Method not allowed." });
    expect(r.headers.get("allow")!.split(", ").sort()).toEqual(["DELETE", "GET", "PUT"]);
  });

  test("a bad id is a 404, not a 500", async () => {
    for (const id of ["not-a-uuid", "'; DROP TABLE customers;--", "%00", "0".repeat(300)]) {
      const r = await env.request("GET", `/api/v1/customers/${encodeURIComponent(id)}`);
      expect(r.status, id).toBe(404);
    }
  });

  test("validation errors use Laravel-style keys and human messages", async () => {
    const r = await env.api("POST", "/api/v1/customers", { name: "", email: "nope", country: "XX", currency: "EURO", phone: "1".repeat(51) });
    expect(r.status).toBe(422);
    expect(r.body.message).toBeString();
    expect(Object.keys(r.body.errors).sort()).toEqual(["country", "currency", "email", "name", "phone"]);
    for (const messages of Object.values<string[]>(r.body.errors)) {
      expect(messages[0]).toMatch(/^The [a-z ]+ (field )?/);
      expect(messages[0]).not.toContain("must match");
    }
  });
});

describe("resources", () => {
  test("UUID v7 ids and microsecond UTC timestamps", async () => {
    const r = await env.api("POST", "/api/v1/customers", { name: "Stamp" });
    expect(r.body.data.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.body.data.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
  });
});

describe("rate limit", () => {
  test("60 a minute per token by default, with headers on every response and Retry-After on 429", async () => {
    const limited = createTestEnv({ KONTOR_RATE_LIMIT: "5" });
    try {
      const other = limited.orgToken(["contacts.view"]);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await limited.request("GET", "/api/v1/customers");
        statuses.push(r.status);
        expect(r.headers.get("x-ratelimit-limit")).toBe("5");
        expect(r.headers.get("x-ratelimit-remaining")).toBe(String(Math.max(0, 4 - i)));
        if (r.status === 429) {
          expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
          expect(r.body.message).toBeString();
        }
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
      // another organisation token has its own budget
      expect((await limited.request("GET", "/api/v1/customers", { token: other })).status).toBe(200);
    } finally {
      limited.close();
    }
  });

  test("personal tokens share their user's budget", async () => {
    const limited = createTestEnv({ KONTOR_RATE_LIMIT: "3" });
    try {
      const first = limited.userToken("owner");
      const second = await limited.api("POST", "/api/v1/tokens", { name: "second" }, first.token);
      expect(second.status).toBe(201);
      expect((await limited.request("GET", "/api/v1/customers", { token: first.token })).status).toBe(200);
      expect((await limited.request("GET", "/api/v1/customers", { token: second.body.token })).status).toBe(200);
      expect((await limited.request("GET", "/api/v1/customers", { token: second.body.token })).status).toBe(429);
    } finally {
      limited.close();
    }
  });

  test("organisation tokens count against the user who created them: rotating five gives no more", async () => {
    const limited = createTestEnv({ KONTOR_RATE_LIMIT: "10" });
    try {
      const owner = limited.userToken("owner");
      const tokens: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await limited.api("POST", "/api/v1/org-tokens", { name: `rotate ${i}`, abilities: ["*"] }, owner.token);
        expect(r.status).toBe(201);
        tokens.push(r.body.token);
      }
      // and one minted by one of them: on behalf of the same user
      const grandchild = await limited.api("POST", "/api/v1/org-tokens", { name: "grandchild", abilities: ["contacts.view"] }, tokens[0]);
      expect(grandchild.status).toBe(201);
      tokens.push(grandchild.body.token);
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await limited.request("GET", "/api/v1/customers", { token: tokens[i % tokens.length] })).status);
      // six of the ten went to minting
      expect(statuses).toEqual([...Array(4).fill(200), ...Array(8).fill(429)]);
      expect((await limited.request("GET", "/api/v1/customers", { token: owner.token })).status).toBe(429);

      // a token made by the CLI without a user keeps its own budget, shared with what it mints
      const cliMade = limited.orgToken(["*"]);
      const minted = await limited.api("POST", "/api/v1/org-tokens", { name: "from cli token", abilities: ["contacts.view"] }, cliMade);
      expect(minted.status).toBe(201);
      const more: number[] = [];
      for (let i = 0; i < 10; i++) more.push((await limited.request("GET", "/api/v1/customers", { token: i % 2 ? cliMade : minted.body.token })).status);
      expect(more).toEqual([...Array(9).fill(200), 429]);
      expect((await limited.request("GET", "/api/v1/customers", { token: limited.orgToken(["contacts.view"]) })).status).toBe(200);
    } finally {
      limited.close();
    }
  });

  test("the server's HTTP threads count in one budget: every connection, whichever thread takes it", async () => {
    const limited = createTestEnv();
    const running = await startServer(createRuntime({ ...limited.config, port: 0, httpThreads: 2, rateLimitPerMinute: 10 }, { db: limited.db }), { worker: false });
    try {
      const statuses: number[] = [];
      // a connection each: the kernel spreads connections over the threads' sockets, so with
      // budgets per thread some 20 of these would pass (all on one thread: 1 in 500,000)
      for (let i = 0; i < 20; i++) {
        const r = await fetch(`${running.url}/api/v1/customers`, { headers: { authorization: `Bearer ${limited.token}`, connection: "close" } });
        await r.arrayBuffer();
        statuses.push(r.status);
      }
      expect(statuses).toEqual([...Array(10).fill(200), ...Array(10).fill(429)]);
    } finally {
      await running.stop();
      limited.close();
    }
  });

  test("counters: one window per key, a new window once it has passed, counted in shared memory", () => {
    const memory = createRateLimitMemory();
    const [first, second] = [createRateLimiter(3, memory, 1000), createRateLimiter(3, memory, 1000)];
    const t = 1_700_000_000_000;
    expect([first("a", t), second("a", t + 1), first("a", t + 2), second("a", t + 3)].map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(second("a", t + 3).retryAfterSeconds).toBe(1);
    expect(first("b", t + 4)).toMatchObject({ allowed: true, remaining: 2 });
    expect(first("a", t + 1000)).toMatchObject({ allowed: true, remaining: 2 });
    // more callers than slots: the oldest windows are forgotten, never merged with another key's
    for (let i = 0; i < 40_000; i++) expect(first(`ip:${i}`, t + 2000 + i).remaining).toBe(2);
    expect(first("ip:39999", t + 2000 + 40_000).remaining).toBe(1);
  });

  test("unauthenticated requests are limited per IP", async () => {
    const limited = createTestEnv({ KONTOR_RATE_LIMIT: "2" });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await limited.request("GET", "/api/v1/customers", { token: null })).status);
      expect(statuses).toEqual([401, 401, 429]);
      // an authenticated token is not affected by the IP's budget
      expect((await limited.request("GET", "/api/v1/customers")).status).toBe(200);
    } finally {
      limited.close();
    }
  });
});

describe("HTTP threads", () => {
  test("writes arriving on both threads at once all commit, each once, with their idempotency keys", async () => {
    const threaded = createTestEnv();
    const running = await startServer(createRuntime({ ...threaded.config, port: 0, httpThreads: 2 }, { db: threaded.db }), { worker: false });
    const create = async (i: number) => {
      const r = await fetch(`${running.url}/api/v1/customers`, {
        method: "POST",
        headers: { authorization: `Bearer ${threaded.token}`, "content-type": "application/json", "idempotency-key": `k${i}`, connection: "close" },
        body: JSON.stringify({ name: `Concurrent ${i}` }),
      });
      return { status: r.status, id: ((await r.json()) as { data?: { id: string } }).data?.id };
    };
    try {
      const first = await Promise.all(Array.from({ length: 40 }, (_, i) => create(i)));
      expect(first.map((r) => r.status)).toEqual(Array(40).fill(201));
      const names = threaded.db.$client.query("SELECT name FROM customers WHERE name LIKE 'Concurrent %'").all() as { name: string }[];
      expect(new Set(names.map((n) => n.name)).size).toBe(40);
      expect(names).toHaveLength(40);
      // every key stored its answer: sent again, each replays it instead of creating another
      const again = await Promise.all(Array.from({ length: 40 }, (_, i) => create(i)));
      expect(again.map((r) => r.id)).toEqual(first.map((r) => r.id));
      expect(threaded.db.$client.query("SELECT count(*) AS n FROM customers WHERE name LIKE 'Concurrent %'").get()).toEqual({ n: 40 });
    } finally {
      await running.stop();
      threaded.close();
    }
  });
});

describe("HTTP threads: what each thread remembers of tokens", () => {
  test("a token revoked by the CLI, a process of its own, is refused on both threads from the next request", async () => {
    const threaded = createTestEnv();
    const running = await startServer(createRuntime({ ...threaded.config, port: 0, httpThreads: 2 }, { db: threaded.db }), { worker: false });
    const token = threaded.orgToken(["contacts.view"]);
    // a connection each, so both threads see (and remember) the token
    const statuses = (n: number) =>
      Promise.all(
        Array.from({ length: n }, async () => {
          const r = await fetch(`${running.url}/api/v1/customers`, { headers: { authorization: `Bearer ${token}`, connection: "close" } });
          await r.arrayBuffer();
          return r.status;
        }),
      );
    try {
      expect(await statuses(20)).toEqual(Array(20).fill(200));
      const revoked = await runCli(["token", "revoke", token.split("|")[0]!, "--db", threaded.config.dbPath]);
      expect(revoked.code).toBe(0);
      expect(await statuses(20)).toEqual(Array(20).fill(401));
    } finally {
      await running.stop();
      threaded.close();
    }
  });

  test("the change clock's mark moves on every commit, of this connection or another, and not on reads", () => {
    const marked = createTestEnv();
    const other = openDatabase(marked.config.dbPath);
    try {
      const client = marked.db.$client;
      const marks = [marked.db.connection.clock.mark()];
      client.query("SELECT count(*) FROM customers").get();
      expect(marked.db.connection.clock.mark()).toBe(marks[0]!);
      other.$client.exec("UPDATE organizations SET name = name || '.'");
      marks.push(marked.db.connection.clock.mark());
      client.exec("UPDATE organizations SET name = name || '.'");
      marks.push(marked.db.connection.clock.mark());
      // a checkpoint that restarts the WAL from its first frame: the next commit still moves it
      client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      other.$client.exec("UPDATE organizations SET name = name || '.'");
      marks.push(marked.db.connection.clock.mark());
      expect(new Set(marks).size).toBe(4);
      expect(marked.db.connection.clock.mark()).toBe(marks[3]!);
      // inside a transaction: the version of its snapshot, not the file's
      client.transaction(() => expect(marked.db.connection.clock.mark()).toMatch(/^\d+:\d+$/))();
      // without a -shm file: the version a read transaction sees
      const memory = openDatabase(":memory:");
      const before = memory.connection.clock.mark();
      memory.$client.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)");
      expect(memory.connection.clock.mark()).not.toBe(before);
      memory.$client.close();
    } finally {
      other.$client.close();
      marked.close();
    }
  });

  test("the change clock's mark follows a database deleted with its last connection and created again at the same path", () => {
    const dir = mkdtempSync(join(tmpdir(), "kontor-mark-"));
    const path = join(dir, "again.db");
    try {
      for (let round = 0; round < 2; round++) {
        const db = openDatabase(path);
        db.$client.exec("CREATE TABLE IF NOT EXISTS t (x)");
        const before = db.connection.clock.mark();
        const other = openDatabase(path);
        other.$client.exec("INSERT INTO t VALUES (1)");
        expect(db.connection.clock.mark()).not.toBe(before);
        other.$client.close();
        db.$client.close();
        // the last connection took the -shm file with it: the next round opens a new one
        expect(existsSync(`${path}-shm`)).toBe(false);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("documentation", () => {
  test("/docs loads its scripts from Kontor itself", async () => {
    const page = await env.app.handle(new Request("http://localhost/docs"));
    expect(page.status).toBe(200);
    const html = await page.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThan(0);
    for (const src of sources) expect(src.startsWith("http"), src).toBe(false);
    for (const asset of ["/docs/assets/viewer.js", "/docs/assets/swagger-ui-bundle.js", "/docs/assets/swagger-ui.css"]) {
      const r = await env.app.handle(new Request(`http://localhost${asset}`));
      expect(r.status, asset).toBe(200);
      expect((await r.text()).length, asset).toBeGreaterThan(100);
    }
  });

  test("OpenAPI 3.0 in JSON and YAML, every operation with its ability, schemas and errors", async () => {
    const doc: any = await (await env.app.handle(new Request("http://localhost/docs/openapi.json"))).json();
    expect(doc.openapi).toMatch(/^3\.0\./);
    const yaml = await (await env.app.handle(new Request("http://localhost/docs/openapi.yaml"))).text();
    expect(Bun.YAML.parse(yaml)).toEqual(doc);
    expect(doc.components.securitySchemes.bearerAuth.scheme).toBe("bearer");
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        expect(op.responses, name).toBeObject();
        const success = Object.keys(op.responses).filter((c) => c.startsWith("2"));
        expect(success.length, name).toBeGreaterThan(0);
        if (path === "/api/v1" || path === "/health") continue;
        expect(op["x-ability"], name).toBeString();
        expect(op.security, name).toEqual([{ bearerAuth: [] }]);
        for (const code of ["401", "403", "429"]) expect(op.responses[code], `${name} ${code}`).toBeDefined();
        if (path.includes("{")) expect(op.responses["404"], name).toBeDefined();
        if (op.requestBody) expect(op.responses["422"], name).toBeDefined();
      }
    }
  });
});

describe("failures", () => {
  test("an unexpected error is a 500 {message} without a stack trace; /health turns 503", async () => {
    const lines: string[] = [];
    const broken = createTestEnv();
    try {
      // swap in an app whose log we can read, then pull the database from under it
      const { createApp } = await import("../server/app.ts");
      const app = createApp(createRuntime(broken.config, { db: broken.db, log: createLogger({ format: "json", level: "info" }, (l) => lines.push(l)) }));
      broken.db.$client.close();
      const health = await app.handle(new Request("http://localhost/health"));
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ status: "unavailable" });
      const r = await app.handle(new Request("http://localhost/api/v1/customers", { headers: { authorization: `Bearer ${broken.token}` } }));
      expect(r.status).toBe(500);
      const text = await r.text();
      expect(JSON.parse(text)).toEqual({ message: "Server error." });
      expect(text).not.toContain(".ts");
      expect(lines.join("\n")).toContain("/api/v1/customers");
      // the error line carries the id the client got, to find it from a support request
      const failed = lines.map((l) => JSON.parse(l)).find((l) => l.msg === "request failed");
      expect(failed.request_id).toBe(r.headers.get("x-request-id")!);
    } finally {
      broken.close();
    }
  });
});
