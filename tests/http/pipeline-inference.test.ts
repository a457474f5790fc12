/**
 * What Elysia prepares for every request follows from the source of the kernel's hooks
 * (server/http/kernel.ts, HOOKS_TAKE_FIELDS): a hook that hands the whole context to a function
 * makes it parse each request's cookies (an await: every handler async), copy its headers and
 * parse its query, on every route. And a parse hook on a GET makes its handler async too. A shown
 * invoice paid about a tenth of its time for them (docs/performance.md).
 */
import { afterAll, expect, test } from "bun:test";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

/** The handler Elysia composes for a route, as source. */
function composed(method: string, path: string): string {
  const route = env.app.routes.find((r) => r.method === method && r.path === path) as { compile?: () => unknown } | undefined;
  expect(route?.compile, `${method} ${path}`).toBeFunction();
  return String(route!.compile!());
}

test("a GET's handler waits for nothing but its route's own work, and prepares only what its route reads", () => {
  for (const path of ["/api/v1/invoices/:id", "/api/v1/customers/:id", "/api/v1"]) {
    const source = composed("GET", path);
    expect(source, path).not.toContain("parseCookie(");
    expect(source, path).not.toContain("headers.toJSON()");
    // the answer's path (an error's may wait for the error hook): at most the route's handler,
    // whose read is a unit of work (docs/architecture.md#units-of-work)
    const awaited = source.slice(0, source.lastIndexOf("}catch(error){")).match(/await [^\n;]*/g) ?? [];
    expect(awaited.filter((a) => !a.startsWith("await handler(c)")), path).toEqual([]);
  }
  // a list reads its query, and only there is it parsed
  expect(composed("GET", "/api/v1/invoices")).toContain("parseQueryFromURL(");
  expect(composed("GET", "/api/v1/invoices/:id")).not.toContain("parseQueryFromURL(");
});

test("a write still reads its body through the kernel's parser", async () => {
  expect(composed("POST", "/api/v1/customers")).toContain("e.parse[0]");
  const response = await env.app.handle(
    new Request("http://localhost/api/v1/customers", {
      method: "POST",
      headers: { authorization: `Bearer ${env.token}`, "content-type": "application/json" },
      body: '{"name": "Parsed", "nope": 1}',
    }),
  );
  // the kernel's parser ran (normalize: false keeps the unknown field, and the schema refuses it)
  expect(response.status).toBe(422);
  expect(await response.json()).toMatchObject({ errors: { nope: expect.any(Array) } });
});
