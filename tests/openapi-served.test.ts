/**
 * The OpenAPI document a real `kontor serve` serves is the one built when it started, on every
 * HTTP thread, whatever was asked before: answering a request compiles its route, and Elysia's
 * compiling writes into the route's schemas (server/docs/openapi.ts, `servedDocument`). A
 * document built lazily after `GET /api/v1/org-tokens` was a 500 until restart.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parse } from "yaml";
import { createTestEnv } from "./helpers.ts";
import { startKontor } from "./docs/examples.ts";

const env = createTestEnv();
let server: Awaited<ReturnType<typeof startKontor>>;
beforeAll(async () => {
  server = await startKontor({ KONTOR_HTTP_THREADS: "2" });
});
afterAll(async () => {
  await server?.stop();
  env.close();
});

/** The document this process built at its start, from the same code as the server's. */
const reference: unknown = await (await env.app.handle(new Request("http://localhost/docs/openapi.json"))).json();

/**
 * Each request on a connection of its own: the kernel spreads new connections over the threads
 * sharing the port, so `times` requests reach each of 2 threads but with a chance of 2^(1-times).
 */
async function spread(times: number, request: () => Promise<Response>): Promise<Response[]> {
  const answers: Response[] = [];
  for (let round = 0; round < times; round += 8) {
    answers.push(...(await Promise.all(Array.from({ length: Math.min(8, times - round) }, request))));
  }
  return answers;
}

const call = (method: string, path: string) => () =>
  fetch(`${server.url}${path}`, {
    method,
    keepalive: false,
    headers: { authorization: `Bearer ${server.token}`, "content-type": "application/json" },
    ...(["POST", "PUT", "PATCH"].includes(method) ? { body: "{}" } : {}),
  });

/** The JSON and the YAML documents, each asked 24 times: both the reference on every thread. */
async function expectDocumentsUnchanged(after: string) {
  for (const [format, read] of [
    ["json", (text: string) => JSON.parse(text)],
    // a YAML 1.1 loader: the strictest reader of the two (dates, yes/no, octal)
    ["yaml", (text: string) => parse(text, { version: "1.1" })],
  ] as const) {
    const answers = await spread(24, call("GET", `/docs/openapi.${format}`));
    const texts = await Promise.all(answers.map((r) => r.text()));
    expect(answers.map((r) => r.status), `${format} after ${after}`).toEqual(answers.map(() => 200));
    expect(new Set(texts).size, `${format} after ${after}: one text`).toBe(1);
    expect(read(texts[0]!), `${format} after ${after}`).toEqual(reference);
  }
}

describe("the served document is the one built at start", () => {
  test("after GET /api/v1/org-tokens on every thread (the 500 of issue 28)", async () => {
    const answers = await spread(24, call("GET", "/api/v1/org-tokens"));
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    await expectDocumentsUnchanged("GET /api/v1/org-tokens");
  });

  test("after every route of the route table, on every thread", async () => {
    const routes = env.app.routes.filter((r) => !r.path.startsWith("/docs"));
    expect(routes.length).toBeGreaterThan(90);
    const id = crypto.randomUUID();
    for (const route of routes) {
      const path = route.path.replace(/:[A-Za-z]+/g, id);
      const answers = await spread(8, call(route.method, path));
      for (const r of answers) {
        await r.arrayBuffer();
        expect(r.status, `${route.method} ${path}`).toBeLessThan(500);
      }
    }
    await expectDocumentsUnchanged("every route");
  }, 120_000);
});
