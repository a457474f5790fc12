/** HTTP conventions of contract section 5: bodies, errors, limits, rate limiting, docs. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createRuntime } from "../../server/runtime.ts";
import { createLogger } from "../../server/log.ts";
import { createRateLimiter, createRateLimitMemory } from "../../server/http/rate-limit.ts";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../db/client.ts";
import { startServer } from "../../server/serve.ts";
import { createTestEnv, runCli } from "../helpers.ts";
import { documentedOperations } from "../fixtures.ts";
import { rawSql, sqliteOnly } from "../raw-sql.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const json = { "content-type": "application/json" };

describe("request bodies", () => {
  test("malformed JSON is a 400 {message}", async () => {
    const r = await env.request("POST", "/api/v1/customers", { rawBody: '{"name": "x",', headers: json });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ code: "bad_request", message: "The request body is not valid JSON." });
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
  test("unknown routes are a JSON 404 route_not_found; an unknown id is not_found", async () => {
    for (const path of ["/api/v1/nope", "/api/v1/customers/x/y/z", "/nope"]) {
      const r = await env.request("GET", path);
      expect(r.status, path).toBe(404);
      expect(r.body).toEqual({ code: "route_not_found", message: "No such route: see /docs for the API's paths." });
    }
    const unknownId = await env.request("GET", "/api/v1/customers/01900000-0000-7000-8000-000000000000");
    expect(unknownId.status).toBe(404);
    expect(unknownId.body).toEqual({ code: "not_found", message: "Not found." });
  });

  test("a known path with the wrong method is a JSON 405 with Allow", async () => {
    const r = await env.request("PATCH", "/api/v1/customers/01900000-0000-7000-8000-000000000000");
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ code: "method_not_allowed", message: "Method not allowed." });
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
    for (const [key, messages] of Object.entries<string[]>(r.body.errors)) {
      expect(messages[0]).toStartWith(`The ${key} field `);
      expect(messages[0]).not.toContain("must match");
    }
    expect(r.body.code).toBe("validation_failed");
  });

  test("every error body has its stable code", async () => {
    const viewer = await env.orgToken(["contacts.view"]);
    const cases: [string, string, { body?: unknown; rawBody?: string; token?: string | null; headers?: Record<string, string> }, number, string][] = [
      ["POST", "/api/v1/customers", { rawBody: "{", headers: json }, 400, "bad_request"],
      ["GET", "/api/v1/customers", { token: null }, 401, "unauthenticated"],
      ["POST", "/api/v1/customers", { body: { name: "X" }, token: viewer }, 403, "forbidden"],
      ["GET", "/api/v1/invoices/01900000-0000-7000-8000-000000000000", {}, 404, "not_found"],
      ["GET", "/api/v1/invoicez", {}, 404, "route_not_found"],
      ["PATCH", "/api/v1/invoices", {}, 405, "method_not_allowed"],
      ["POST", "/api/v1/customers", { rawBody: "x".repeat(1024 * 1024 + 1), headers: json }, 413, "payload_too_large"],
      ["POST", "/api/v1/customers", { rawBody: "name=x", headers: { "content-type": "text/plain" } }, 415, "unsupported_media_type"],
      ["POST", "/api/v1/customers", { body: {} }, 422, "validation_failed"],
    ];
    for (const [method, path, options, status, code] of cases) {
      const r = await env.request(method, path, options);
      expect(r.status, `${method} ${path}`).toBe(status);
      expect(r.body.code, `${method} ${path}`).toBe(code);
    }
    const customer = (await env.api("POST", "/api/v1/customers", { name: "Has Invoices" })).body.data.id;
    await env.api("POST", "/api/v1/invoices", { customer_id: customer, issue_date: "2026-01-01", lines: [{ description: "x", quantity: "1", unit_price: "1.00" }] });
    const conflict = await env.request("DELETE", `/api/v1/customers/${customer}`);
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe("conflict");
  });

  test("field paths as sent, in keys and messages", async () => {
    const customer = (await env.api("POST", "/api/v1/customers", { name: "Paths BV" })).body.data.id;
    const r = await env.api("POST", "/api/v1/invoices", {
      customer_id: customer,
      issue_date: "2026-01-01",
      lines: [{ description: "ok", quantity: "1", unit_price: "1.00" }, { description: "bad", quantity: "1", unit_price: "1.001" }],
    });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual({ "lines.1.unit_price": ["The lines.1.unit_price field must be a decimal number with at most 2 decimal places."] });
    const missing = await env.api("POST", "/api/v1/invoices", { customer_id: customer, issue_date: "2026-01-01", lines: [{ description: "x", quantity: "1" }] });
    expect(missing.body.errors).toEqual({ "lines.0.unit_price": ["The lines.0.unit_price field is required."] });
  });

  test("401 carries WWW-Authenticate: Bearer, with error=invalid_token when a token was sent", async () => {
    const none = await env.request("GET", "/api/v1/customers", { token: null });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="kontor"');
    const bad = await env.request("GET", "/api/v1/customers", { token: "01900000-0000-7000-8000-000000000000|nope" });
    expect(bad.status).toBe(401);
    expect(bad.headers.get("www-authenticate")).toBe('Bearer realm="kontor", error="invalid_token"');
    expect(bad.body).toEqual({ code: "unauthenticated", message: "Unauthenticated." });
  });

  test("an invalid sort or filter names the valid ones", async () => {
    const sort = await env.request("GET", "/api/v1/customers?sort=zip");
    expect(sort.status).toBe(422);
    expect(sort.body.errors.sort).toEqual(["The selected sort is invalid. Valid values: name, -name, created_at, -created_at, updated_at, -updated_at."]);
    const filter = await env.request("GET", "/api/v1/invoices?filter[colour]=red");
    expect(filter.status).toBe(422);
    expect(filter.body.errors["filter.colour"][0]).toStartWith("The filter.colour field is not accepted. Valid filters: filter[updated_since], ");
    expect(filter.body.errors["filter.colour"][0]).toContain("filter[status]");
    // every name of Object.prototype is no filter either, on every list the OpenAPI document has
    // (a list: a GET taking per_page or a filter), each a 422 on that very filter naming the valid ones
    const lists = (await documentedOperations(env)).filter((o) => o.method === "GET" && o.query.some((q) => q.name === "per_page" || q.name.startsWith("filter[")));
    expect(lists.length).toBeGreaterThan(20);
    const names = Object.getOwnPropertyNames(Object.prototype);
    expect(names).toEqual(expect.arrayContaining(["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "__defineGetter__", "isPrototypeOf"]));
    const failures: string[] = [];
    for (const list of lists) {
      const path = list.path.replace(/\{[^}]+\}/g, "01900000-0000-7000-8000-000000000000");
      for (const name of names) {
        const r = await env.request("GET", `${path}?filter[${name}]=x`);
        const message = r.body?.errors?.[`filter.${name}`]?.[0] ?? "";
        if (r.status !== 422 || !message.startsWith(`The filter.${name} field is not accepted.`)) failures.push(`${list.path} filter[${name}] → ${r.status} ${r.text.slice(0, 160)}`);
      }
    }
    expect(failures).toEqual([]);
    // a metadata filter is by own key too: "constructor" is a key like any other, "__proto__" (which no body may hold) a 422
    const held = await env.api("POST", "/api/v1/customers", { name: "Prototype Keys BV", metadata: { constructor: "shop", toString: "x" } });
    expect(held.status).toBe(201);
    const byKey = await env.request("GET", "/api/v1/customers?filter[metadata][constructor]=shop");
    expect(byKey.body.data.map((c: { id: string }) => c.id)).toEqual([held.body.data.id]);
    expect((await env.request("GET", "/api/v1/customers?filter[metadata][hasOwnProperty]=shop")).body.data).toEqual([]);
    const proto = await env.request("GET", "/api/v1/customers?filter[metadata][__proto__]=shop");
    expect(proto.status).toBe(422);
    expect(proto.body.errors["filter.metadata.__proto__"]).toEqual(["The filter.metadata.__proto__ field is not accepted."]);
    const status = await env.request("GET", "/api/v1/invoices?filter[status]=open");
    expect(status.status).toBe(422);
    expect(status.body.errors["filter.status"][0]).toStartWith("The selected filter.status is invalid. Valid values: draft, finalized, ");
  });
});

describe("compression and conditional requests", () => {
  const raw = (path: string, headers: Record<string, string> = {}) =>
    env.app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${env.token}`, ...headers } }));

  beforeAll(async () => {
    const r = await env.api("POST", "/api/v1/customers/batch", { items: Array.from({ length: 30 }, (_, i) => ({ name: `Gzip ${i}`, city: "Gent" })) });
    expect(r.status).toBe(200);
  });

  test("a JSON answer of 1 KiB or more is gzip-compressed for a client that accepts gzip, and says so", async () => {
    const plain = await raw("/api/v1/customers?per_page=30");
    const plainText = await plain.text();
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toBe("Accept-Encoding");
    const gzipped = await raw("/api/v1/customers?per_page=30", { "accept-encoding": "gzip, deflate, br" });
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(gzipped.headers.get("vary")).toBe("Accept-Encoding");
    const bytes = new Uint8Array(await gzipped.arrayBuffer());
    expect(bytes.length).toBeLessThan(plainText.length / 3);
    expect(new TextDecoder().decode(Bun.gunzipSync(bytes))).toBe(plainText);
    // refused with q=0, or not asked for: plain
    expect((await raw("/api/v1/customers?per_page=30", { "accept-encoding": "gzip;q=0, identity" })).headers.get("content-encoding")).toBeNull();
    expect((await raw("/api/v1/customers?per_page=30", { "accept-encoding": "br" })).headers.get("content-encoding")).toBeNull();
    // a small answer is not worth it
    const small = await raw("/api/v1/customers/0196a1b2-0000-7000-8000-000000000000", { "accept-encoding": "gzip" });
    expect(small.headers.get("content-encoding")).toBeNull();
    const smallBody = await small.text();
    expect(smallBody.length).toBeLessThan(1024);
    expect((JSON.parse(smallBody) as { code: string }).code).toBe("not_found");
    // a write's answer too
    const batch = await env.app.handle(
      new Request("http://localhost/api/v1/customers/batch", {
        method: "POST",
        headers: { authorization: `Bearer ${env.token}`, "content-type": "application/json", "accept-encoding": "gzip" },
        body: JSON.stringify({ items: Array.from({ length: 10 }, (_, i) => ({ name: `Gzip batch ${i}` })) }),
      }),
    );
    expect(batch.headers.get("content-encoding")).toBe("gzip");
    expect(JSON.parse(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await batch.arrayBuffer())))).data).toHaveLength(10);
  });

  test("a single resource and a list page carry an ETag; If-None-Match with it is a 304 without a body", async () => {
    const id = (await env.api("GET", "/api/v1/customers?per_page=1")).body.data[0].id;
    for (const path of [`/api/v1/customers/${id}`, "/api/v1/customers?per_page=30"]) {
      const first = await env.request("GET", path);
      const etag = first.headers.get("etag")!;
      expect(etag, path).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      // the same body, the same tag
      expect((await env.request("GET", path)).headers.get("etag")).toBe(etag);
      const notModified = await env.request("GET", path, { headers: { "if-none-match": etag } });
      expect(notModified.status, path).toBe(304);
      expect(notModified.text).toBe("");
      expect(notModified.headers.get("etag")).toBe(etag);
      expect(notModified.headers.get("x-ratelimit-remaining")).toBeString();
      expect((await env.request("GET", path, { headers: { "if-none-match": `"other", W/${etag}` } })).status).toBe(304);
      expect((await env.request("GET", path, { headers: { "if-none-match": '"other"' } })).status).toBe(200);
    }
    // the gzip-coded list page has its own tag, and either one is a match
    const list = "/api/v1/customers?per_page=30";
    const etag = (await env.request("GET", list)).headers.get("etag")!;
    const gzipped = await raw(list, { "accept-encoding": "gzip" });
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(gzipped.headers.get("etag")).toBe(`${etag.slice(0, -1)}-gzip"`);
    expect((await raw(list, { "if-none-match": gzipped.headers.get("etag")! })).status).toBe(304);
    expect((await raw(list, { "if-none-match": etag, "accept-encoding": "gzip" })).status).toBe(304);
    // a change makes a new tag
    const before = (await env.request("GET", `/api/v1/customers/${id}`)).headers.get("etag")!;
    await env.api("PUT", `/api/v1/customers/${id}`, { city: "Brugge" });
    const after = await env.request("GET", `/api/v1/customers/${id}`, { headers: { "if-none-match": before } });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(before);
    // writes carry none
    expect((await env.api("PUT", `/api/v1/customers/${id}`, { city: "Gent" })).headers.get("etag")).toBeNull();
  });

  test("on every HTTP thread of kontor serve", async () => {
    const threaded = await createTestEnv();
    const running = await startServer(createRuntime({ ...threaded.config, port: 0, httpThreads: 2 }, { db: threaded.db }), { worker: false });
    try {
      await threaded.api("POST", "/api/v1/customers/batch", { items: Array.from({ length: 20 }, (_, i) => ({ name: `Threaded ${i}`, city: "Gent" })) });
      const results = await Promise.all(
        Array.from({ length: 20 }, async () => {
          // fetch asks for gzip and decompresses; a connection each, spread over the threads
          const r = await fetch(`${running.url}/api/v1/customers?per_page=20`, { headers: { authorization: `Bearer ${threaded.token}`, connection: "close" } });
          const body = (await r.json()) as { data: unknown[] };
          const again = await fetch(`${running.url}/api/v1/customers?per_page=20`, {
            headers: { authorization: `Bearer ${threaded.token}`, connection: "close", "if-none-match": r.headers.get("etag")! },
          });
          await again.arrayBuffer();
          return { encoding: r.headers.get("content-encoding"), rows: body.data.length, again: again.status };
        }),
      );
      expect(results).toEqual(Array(20).fill({ encoding: "gzip", rows: 20, again: 304 }));
    } finally {
      await running.stop();
      threaded.close();
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
    const limited = await createTestEnv({ KONTOR_RATE_LIMIT: "5" });
    try {
      const other = await limited.orgToken(["contacts.view"]);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await limited.request("GET", "/api/v1/customers");
        statuses.push(r.status);
        expect(r.headers.get("x-ratelimit-limit")).toBe("5");
        expect(r.headers.get("x-ratelimit-remaining")).toBe(String(Math.max(0, 4 - i)));
        // when the window ends, in Unix epoch seconds: within the next minute
        const reset = Number(r.headers.get("x-ratelimit-reset"));
        expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
        expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
        if (r.status === 429) {
          expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
          expect(r.body).toEqual({ code: "rate_limited", message: "Too many requests." });
          expect(reset - Number(r.headers.get("retry-after"))).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
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
    const limited = await createTestEnv({ KONTOR_RATE_LIMIT: "3" });
    try {
      const first = await limited.userToken("owner");
      const second = await limited.api("POST", "/api/v1/tokens", { name: "second" }, first.token);
      expect(second.status).toBe(201);
      expect((await limited.request("GET", "/api/v1/customers", { token: first.token })).status).toBe(200);
      expect((await limited.request("GET", "/api/v1/customers", { token: second.body.token })).status).toBe(200);
      expect((await limited.request("GET", "/api/v1/customers", { token: second.body.token })).status).toBe(429);
    } finally {
      limited.close();
    }
  });

  test("each organisation token has its own budget, whoever made it", async () => {
    const limited = await createTestEnv({ KONTOR_RATE_LIMIT: "3" });
    try {
      const owner = await limited.userToken("owner");
      const made = await limited.api("POST", "/api/v1/org-tokens", { name: "connector", abilities: ["contacts.view"] }, owner.token);
      expect(made.status).toBe(201);
      const sibling = await limited.api("POST", "/api/v1/org-tokens", { name: "another", abilities: ["contacts.view"] }, owner.token);
      const cliMade = await limited.orgToken(["*"]);
      const minted = await limited.api("POST", "/api/v1/org-tokens", { name: "from cli token", abilities: ["contacts.view"] }, cliMade);
      const spend = async (token: string, n: number) => {
        const statuses: number[] = [];
        for (let i = 0; i < n; i++) statuses.push((await limited.request("GET", "/api/v1/customers", { token })).status);
        return statuses;
      };
      // the owner's personal token spent its own two on minting; the tokens it made start afresh
      expect(await spend(made.body.token, 4)).toEqual([200, 200, 200, 429]);
      expect(await spend(sibling.body.token, 3)).toEqual([200, 200, 200]);
      expect(await spend(minted.body.token, 4)).toEqual([200, 200, 200, 429]);
      expect(await spend(cliMade, 3)).toEqual([200, 200, 429]);
      expect(await spend(owner.token, 2)).toEqual([200, 429]);
    } finally {
      limited.close();
    }
  });

  test("the server's HTTP threads count in one budget: every connection, whichever thread takes it", async () => {
    const limited = await createTestEnv();
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
    const limited = await createTestEnv({ KONTOR_RATE_LIMIT: "2" });
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
    const threaded = await createTestEnv();
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
      const raw = rawSql(threaded.db);
      const names = await raw.all<{ name: string }>("SELECT name FROM customers WHERE name LIKE 'Concurrent %'");
      expect(new Set(names.map((n) => n.name)).size).toBe(40);
      expect(names).toHaveLength(40);
      // every key stored its answer: sent again, each replays it instead of creating another
      const again = await Promise.all(Array.from({ length: 40 }, (_, i) => create(i)));
      expect(again.map((r) => r.id)).toEqual(first.map((r) => r.id));
      expect(await raw.get("SELECT count(*) AS n FROM customers WHERE name LIKE 'Concurrent %'")).toEqual({ n: 40 });
    } finally {
      await running.stop();
      threaded.close();
    }
  });
});

describe("HTTP threads: what each thread remembers of tokens", () => {
  test("a token revoked by the CLI, a process of its own, is refused on both threads from the next request", async () => {
    const threaded = await createTestEnv();
    const running = await startServer(createRuntime({ ...threaded.config, port: 0, httpThreads: 2 }, { db: threaded.db }), { worker: false });
    const token = await threaded.orgToken(["contacts.view"]);
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

  // SQLite's change clock (its WAL's header); PostgreSQL's marks are new every time
  sqliteOnly.test("the change clock's mark moves on every commit, of this connection or another, and not on reads", async () => {
    const marked = await createTestEnv();
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

  sqliteOnly.test("the change clock's mark follows a database deleted with its last connection and created again at the same path", () => {
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
    const broken = await createTestEnv();
    try {
      // swap in an app whose log we can read, then pull the database from under it
      const { createApp } = await import("../../server/app.ts");
      const app = createApp(createRuntime(broken.config, { db: broken.db, log: createLogger({ format: "json", level: "info" }, (l) => lines.push(l)) }));
      await broken.db.connection.close();
      const health = await app.handle(new Request("http://localhost/health"));
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ status: "unavailable" });
      const r = await app.handle(new Request("http://localhost/api/v1/customers", { headers: { authorization: `Bearer ${broken.token}` } }));
      expect(r.status).toBe(500);
      const text = await r.text();
      expect(JSON.parse(text)).toEqual({ code: "server_error", message: "Server error." });
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
