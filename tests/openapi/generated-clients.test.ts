/**
 * Two client generators read the served document as an integrator's build would: openapi-typescript
 * (with openapi-fetch) and @hey-api/openapi-ts (its fetch client and SDK). A small connector
 * written against each (tests/openapi-client/connector/) must pass `tsc --strict` with no cast and
 * no `any`, then run against the app in-process: it reads batch results by their status (the
 * resource, the field errors, the holder of a taken external_id) and filters lists by metadata
 * (`filter[metadata]`, a deepObject parameter the clients send as `filter[metadata][KEY]=v`).
 * Offline: both generators read the document from memory or a local file.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";
import { createClient as heyApi } from "@hey-api/openapi-ts";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const folder = join(import.meta.dir, "..", "openapi-client");
const generated = join(folder, "generated"); // ignored by git: written by this test
const text = await (await env.app.handle(new Request("http://localhost/docs/openapi.json"))).text();

/**
 * The connector's files tsc compiles. The `events-…` files switch on an event's `type` and read
 * `data` as the event's own resource: the document types `Event` as a oneOf discriminated by type.
 */
const CONNECTOR = ["connector/openapi-fetch.ts", "connector/hey-api.ts", "connector/events-openapi-fetch.ts", "connector/events-hey-api.ts"];

/** A cast (`as T`, `<T>x`), an `any` or a non-null assertion: what the connector must do without. */
const UNTYPED = /\bas\s+(?!const\b)[A-Za-z{[(]|\bany\b|(?:[=(,:]|\breturn)\s*<[A-Za-z]+>\s*[A-Za-z(]|[\w)\]]!\./;
const withoutComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\/|(^|[^:])\/\/.*$/gm, "$1");

/** What the connectors read back, computed by hand from the items they send (see the files). */
type Synced = {
  created: string[];
  invalid: Record<string, string[]>[];
  heldBy: string[];
  tagged: string[];
  invoices: string[];
  invoicesFromShop: string[];
};

/** The app in-process as `fetch`; the requests' URLs kept, to see what the generated clients send. */
const sent: string[] = [];
const inProcess = async (input: Request | string, init?: RequestInit) => {
  const request = typeof input === "string" ? new Request(input, init) : input;
  sent.push(decodeURIComponent(new URL(request.url).search));
  return env.app.handle(request);
};

describe("clients generated from the served document", () => {
  test("openapi-typescript and hey-api: the connector compiles with tsc --strict, no cast, no any, and runs", async () => {
    rmSync(generated, { recursive: true, force: true });
    mkdirSync(generated, { recursive: true });
    writeFileSync(join(generated, "openapi-typescript.ts"), astToString(await openapiTS(text)));
    const input = join(generated, "openapi.json");
    writeFileSync(input, text);
    await heyApi({
      input,
      output: { path: join(generated, "hey-api") },
      plugins: ["@hey-api/client-fetch", "@hey-api/typescript", "@hey-api/sdk"],
      logs: { level: "silent" },
    });

    // no cast, no any: the connector reads what the types say
    for (const file of CONNECTOR) {
      const source = readFileSync(join(folder, file), "utf8");
      expect(source, file).not.toContain("@ts-");
      expect(withoutComments(source), file).not.toMatch(UNTYPED);
    }

    const tsconfig = join(generated, "tsconfig.json");
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
          // a client's own project: the DOM's fetch, no Bun or Node types
          lib: ["ES2022", "DOM", "DOM.Iterable"],
          types: [],
          skipLibCheck: true,
          noImplicitAny: true,
          noFallthroughCasesInSwitch: true,
        },
        files: CONNECTOR.map((file) => join(folder, file)),
      }),
    );
    const tsc = Bun.spawnSync([process.execPath, join(import.meta.dir, "../../node_modules/typescript/bin/tsc"), "-p", tsconfig]);
    expect(tsc.stdout.toString() + tsc.stderr.toString()).toBe("");
    expect(tsc.exitCode).toBe(0);

    // run both against the app: each sends its own batches (its own external ids) and reads them back
    type Run = (baseUrl: string, token: string, fetch: typeof inProcess, tag: string) => Promise<Synced>;
    const runs: [string, Run][] = [
      ["openapi-fetch", ((await import(join(folder, "connector/openapi-fetch.ts"))) as { syncWithOpenapiFetch: Run }).syncWithOpenapiFetch],
      ["hey-api", ((await import(join(folder, "connector/hey-api.ts"))) as { syncWithHeyApi: Run }).syncWithHeyApi],
    ];
    for (const [tag, run] of runs) {
      sent.length = 0;
      const synced = await run("http://localhost", env.token, inProcess, tag);
      // items: [ok, name "", taken external id, ok]: two created, one invalid, one held by the first created
      expect(synced.created, tag).toHaveLength(2);
      expect(synced.invalid, tag).toEqual([{ name: ["The name field must not be empty."] }]);
      expect(synced.heldBy, tag).toEqual([synced.created[0]!]);
      // the created customers carry metadata {channel: tag}; the filter finds exactly them
      expect(synced.tagged.sort(), tag).toEqual([...synced.created].sort());
      expect(sent.some((query) => query.includes(`filter[metadata][channel]=${tag}`)), tag).toBe(true);
      // invoices: [shop order, other order, shop order again (409)]: two created, one from the shop
      expect(synced.invoices, tag).toHaveLength(2);
      expect(synced.invoicesFromShop, tag).toEqual([synced.invoices[0]!]);
      expect(sent.some((query) => query.includes(`filter[metadata][source]=shop-${tag}`)), tag).toBe(true);
    }
  }, 60_000);

  test("the no-cast check catches a cast, an any and a non-null assertion, and not a generic call", () => {
    for (const bad of ["x as Customer", "let y: any", "const c = <Customer>value", "f(<Customer>value)", "result!.data", "x as { id: string }", "x as unknown"]) {
      expect(UNTYPED.test(withoutComments(bad)), bad).toBe(true);
    }
    for (const fine of ["const items = [1] as const", "status !== 201", "import type { paths }", "createClient<paths>({ baseUrl })", "// cast as nothing", "const url = 'http://x'"]) {
      expect(UNTYPED.test(withoutComments(fine)), fine).toBe(false);
    }
  });
});
