/**
 * The OpenAPI document a real `kontor serve` serves is the one built when it started, on every
 * HTTP thread, whatever was asked before: answering a request compiles its route, and Elysia's
 * compiling writes into the route's schemas (server/docs/openapi.ts, `servedDocument`). A
 * document built lazily after `GET /api/v1/org-tokens` was a 500 until restart. And a client
 * generated from that document compiles and runs the guides' requests as they are written.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { parse } from "yaml";
import { createTestEnv } from "../helpers.ts";
import { startKontor } from "../docs/examples.ts";
const TESTS_ROOT = join(import.meta.dir, "..");

const env = await createTestEnv();
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

describe("a client generated from the served document compiles and runs the guides' requests", () => {
  test("openapi-typescript types, tsc --strict on the README's and docs/api.md's requests as openapi-fetch calls, then run", async () => {
    const served = (await (await fetch(`${server.url}/docs/openapi.json`)).json()) as Parameters<typeof openapiTS>[0];
    const folder = join(TESTS_ROOT, "openapi-client");
    writeFileSync(join(folder, "kontor-api.ts"), astToString(await openapiTS(served)));
    const scratch = mkdtempSync(join(tmpdir(), "kontor-client-"));
    try {
      const tsconfig = join(scratch, "tsconfig.json");
      writeFileSync(
        tsconfig,
        JSON.stringify({
          compilerOptions: {
            target: "ES2022",
            module: "Preserve",
            moduleResolution: "bundler",
            strict: true,
            noEmit: true,
            allowImportingTsExtensions: true,
            verbatimModuleSyntax: true,
            // a client's own project: the DOM's fetch, no Bun or Node types
            lib: ["ES2022", "DOM"],
            types: [],
            skipLibCheck: true,
          },
          files: [join(folder, "readme-examples.ts")],
        }),
      );
      const tsc = Bun.spawnSync([process.execPath, join(TESTS_ROOT, "../node_modules/typescript/bin/tsc"), "-p", tsconfig]);
      expect(tsc.stdout.toString() + tsc.stderr.toString()).toBe("");
      expect(tsc.exitCode).toBe(0);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    // by a path tsc does not follow: the repository's type-check runs before any types are generated
    const examples = join(folder, "readme-examples.ts");
    const { readmeExamples } = (await import(examples)) as { readmeExamples: (url: string, token: string) => Promise<unknown> };
    expect(await readmeExamples(server.url, server.token)).toEqual({
      status: "draft",
      total: "1509.48",
      number: "INV-2026-00001",
      payment_reference: "+++000/0000/00101+++",
      paid: "paid",
      pdf: "%PDF-",
      erpTokenType: "organization",
      auditAction: "customer.created",
    });
  }, 90_000);
});
