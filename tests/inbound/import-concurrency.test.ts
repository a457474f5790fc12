/**
 * At most KONTOR_IMPORT_CONCURRENCY uploaded files parsed at once per server: with a concurrency of
 * 1 and its one slot held by a slow parse (as another HTTP thread's upload holds it, through the
 * same shared memory), a further upload waits; it goes through when the slot frees within 10 s,
 * and is answered 503 with Retry-After when it does not. Expense imports and statement imports
 * share the slots.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../server/app.ts";
import { loadConfig } from "../../server/config.ts";
import { IMPORT_WAIT_MS, ImportSlots } from "../../server/lib/import-slots.ts";
import { silentLogger } from "../../server/log.ts";
import { createRuntime, type Runtime } from "../../server/runtime.ts";
import { createTestEnv, type TestEnv } from "../helpers.ts";

const UBL = readFileSync(join(import.meta.dir, "..", "einvoicing", "examples", "peppol", "base-example.xml"), "utf8");

let env: TestEnv;
let runtime: Runtime;
let app: ReturnType<typeof createApp>;
beforeAll(async () => {
  env = await createTestEnv();
  // the test env's database, served by an app whose server parses one file at a time
  const config = loadConfig({ KONTOR_ENV: "test", KONTOR_RATE_LIMIT: "100000", KONTOR_IMPORT_CONCURRENCY: "1", KONTOR_DB: env.config.dbPath });
  runtime = createRuntime(config, { db: env.db, log: silentLogger });
  app = createApp(runtime);
});
afterAll(() => env.close());

const upload = (number: string, path = "/api/v1/expenses/import") =>
  app.handle(
    new Request(`http://localhost${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${env.token}`, "content-type": "application/xml" },
      body: UBL.replace("<cbc:ID>Snippet1</cbc:ID>", `<cbc:ID>${number}</cbc:ID>`),
    }),
  );

/** Holds one slot of the server's (the same shared memory its threads count in) until `release` is called. */
function holdSlot(): { release: () => void; held: Promise<void> } {
  let release!: () => void;
  const held = runtime.importSlots.run(() => new Promise<void>((resolve) => (release = resolve)));
  return { release: () => release(), held };
}

describe("KONTOR_IMPORT_CONCURRENCY", () => {
  test("defaults to 2, and is read from the environment (1 to 64)", () => {
    expect(loadConfig({}).importConcurrency).toBe(2);
    expect(loadConfig({ KONTOR_IMPORT_CONCURRENCY: "3" }).importConcurrency).toBe(3);
    expect(() => loadConfig({ KONTOR_IMPORT_CONCURRENCY: "0" })).toThrow("KONTOR_IMPORT_CONCURRENCY must be a whole number from 1 to 64");
    expect(runtime.importSlots.limit).toBe(1);
  });

  test("an upload waits while the slot is busy and goes through once it frees (within 10 s)", async () => {
    const slot = holdSlot();
    const started = performance.now();
    const waiting = upload("WAIT-1");
    setTimeout(slot.release, 1_000);
    const response = await waiting;
    expect(response.status).toBe(201);
    // it did wait for the slot: the parse could not start before the release
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    await slot.held;
  });

  test(
    "an upload that finds no free slot for 10 s is a 503 with Retry-After, and nothing is imported; the next one, once free, is taken",
    async () => {
      const slot = holdSlot();
      const started = performance.now();
      const response = await upload("BUSY-1");
      const waited = performance.now() - started;
      expect(response.status).toBe(503);
      expect(response.headers.get("retry-after")).toBe("5");
      const body = (await response.json()) as { code: string; message: string };
      expect(body.code).toBe("service_unavailable");
      expect(body.message).toContain("KONTOR_IMPORT_CONCURRENCY");
      expect(waited).toBeGreaterThanOrEqual(IMPORT_WAIT_MS - 50);
      expect(waited).toBeLessThan(IMPORT_WAIT_MS + 3_000);
      // a bank statement upload shares the slots
      const statement = await upload("BUSY-2", `/api/v1/bank-accounts/${crypto.randomUUID()}/statements`);
      expect(statement.status).toBe(503);
      slot.release();
      await slot.held;
      const list = await env.request("GET", "/api/v1/expenses?per_page=100");
      expect(list.body.data.map((e: { supplier_invoice_number: string }) => e.supplier_invoice_number)).not.toContain("BUSY-1");
      expect(await upload("BUSY-1").then((r) => r.status)).toBe(201);
    },
    { timeout: 40_000 },
  );

  test("slots are counted in shared memory: two holders of the same memory share its limit", async () => {
    const memory = new SharedArrayBuffer(4);
    const a = new ImportSlots(memory, 2, 200);
    const b = new ImportSlots(memory, 2, 200);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const holding = [a.run(() => gate), b.run(() => gate)];
    await Bun.sleep(10);
    await expect(a.run(() => "third")).rejects.toMatchObject({ status: 503 });
    await expect(b.run(() => "third")).rejects.toMatchObject({ status: 503 });
    release();
    await Promise.all(holding);
    expect(await b.run(() => "after")).toBe("after");
    expect(new Int32Array(memory)[0]).toBe(0);
  });
});
