/**
 * Webhook delivery benchmark (not a test). Kontor's side runs in this process as in
 * `kontor serve`: changes made through the customer service write their outbox rows, and the
 * in-process worker, nudged by the outbox, sends them. The receiver is a second process on
 * 127.0.0.1 that timestamps each arrival; latency is arrival minus the payload's `timestamp`,
 * which the outbox sets inside the change's transaction (the same machine clock).
 *
 *   bun bench/webhooks.ts                 all three scenarios
 *   bun bench/webhooks.ts --only idle,fast  options: --count N (default 10000) --webhooks N (10)
 *                                         --slow-ms MS (1000) --json
 *
 * Scenarios: `idle` one change at a time (200 changes, 25 ms apart); `fast` N deliveries
 * queued as fast as the service can write them while the worker drains, receiver answering at
 * once; `slow` the same with the receiver answering after --slow-ms.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate, openDatabase } from "../db/client.ts";
import { webhookDeliveries } from "../db/schema.ts";
import { loadConfig } from "../server/config.ts";
import { customerService } from "../server/customers/service.ts";
import { CLI_ACTOR, createOrganization } from "../server/orgs/service.ts";
import { webhookService } from "../server/webhooks/service.ts";
import { startWorker } from "../server/webhooks/worker.ts";
import { count, ne } from "drizzle-orm";

const argv = process.argv.slice(2);
const option = (name: string) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
};

if (argv.includes("--receiver")) await runReceiver(Number(option("--delay") ?? 0));
else await main();

// ---------------------------------------------------------------------------------------------
// the receiver process

type Stats = { received: number; unique: number; latenciesMs: number[] };

async function runReceiver(delayMs: number): Promise<void> {
  let latenciesMs: number[] = [];
  let ids = new Set<string>();
  const nowMs = () => performance.timeOrigin + performance.now();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (request.method === "GET") {
        const stats: Stats = { received: latenciesMs.length, unique: ids.size, latenciesMs };
        if (new URL(request.url).pathname === "/reset") {
          latenciesMs = [];
          ids = new Set();
        }
        return Response.json(stats);
      }
      const arrived = nowMs();
      const payload = (await request.json()) as { timestamp: string };
      latenciesMs.push(arrived - Date.parse(payload.timestamp) - Number(payload.timestamp.slice(23, 26)) / 1000);
      ids.add(request.headers.get("x-webhook-id")!);
      if (delayMs > 0) await Bun.sleep(delayMs);
      return new Response("ok");
    },
  });
  console.log(`PORT ${server.port}`);
  process.on("SIGTERM", () => process.exit(0));
}

async function startReceiver(delayMs: number) {
  const proc = Bun.spawn(["bun", import.meta.path, "--receiver", "--delay", String(delayMs)], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let output = "";
  while (!/PORT (\d+)/.test(output)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`receiver exited: ${output}`);
    output += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const base = `http://127.0.0.1:${/PORT (\d+)/.exec(output)![1]}`;
  return {
    base,
    stats: async (reset = false): Promise<Stats> => (await fetch(`${base}${reset ? "/reset" : "/stats"}`)).json() as Promise<Stats>,
    stop: () => proc.kill("SIGTERM"),
  };
}

// ---------------------------------------------------------------------------------------------
// Kontor's side

type Result = { scenario: string; deliveries: number; seconds: number; perSecond: number; p50Ms: number; p99Ms: number; maxMs: number; duplicates: number; notDelivered: number };

async function main(): Promise<void> {
  const only = option("--only")?.split(",");
  const total = Number(option("--count") ?? 10_000);
  const webhookCount = Number(option("--webhooks") ?? 10);
  const slowMs = Number(option("--slow-ms") ?? 1000);
  const asJson = argv.includes("--json");
  const log = (line: string) => console.error(line);
  const results: Result[] = [];
  const scenarios: [string, () => Promise<Result>][] = [
    ["idle", () => scenario("idle", 0, 200, 1, 25)],
    ["fast", () => scenario("fast", 0, total, webhookCount, 0)],
    ["slow", () => scenario(`slow (${slowMs} ms)`, slowMs, total, webhookCount, 0)],
  ];
  for (const [name, run] of scenarios) {
    if (only && !only.includes(name)) continue;
    log(`running ${name} …`);
    const result = await run();
    results.push(result);
    log(`  ${result.deliveries} deliveries in ${result.seconds.toFixed(2)} s`);
  }
  if (asJson) console.log(JSON.stringify(results, null, 2));
  else {
    console.log("scenario        deliveries   seconds   deliveries/s   p50 ms   p99 ms   max ms   dup  lost");
    for (const r of results) {
      console.log(
        [
          r.scenario.padEnd(15),
          String(r.deliveries).padStart(10),
          r.seconds.toFixed(2).padStart(9),
          r.perSecond.toFixed(0).padStart(14),
          r.p50Ms.toFixed(1).padStart(8),
          r.p99Ms.toFixed(1).padStart(8),
          r.maxMs.toFixed(1).padStart(8),
          String(r.duplicates).padStart(5),
          String(r.notDelivered).padStart(5),
        ].join(" "),
      );
    }
    const fast = results.find((r) => r.scenario === "fast");
    const idle = results.find((r) => r.scenario === "idle");
    if (fast) console.log(`target ≥ 1000 deliveries/s: ${fast.perSecond >= 1000 ? "met" : "NOT met"}`);
    if (idle) console.log(`target idle p50 < 50 ms: ${idle.p50Ms < 50 ? "met" : "NOT met"}`);
  }
}

/**
 * Makes `deliveries / webhooks` changes, each fanning out to every webhook. `gapMs` > 0 paces
 * them one by one; 0 writes them in chunks, yielding between chunks so the worker drains
 * while changes keep coming (as a busy server would).
 */
async function scenario(name: string, receiverDelayMs: number, deliveries: number, webhooks: number, gapMs: number): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), "kontor-bench-webhooks-"));
  const receiver = await startReceiver(receiverDelayMs);
  const config = loadConfig({ KONTOR_ENV: "test", KONTOR_DB: join(dir, "bench.db"), KONTOR_WEBHOOK_ALLOW_PRIVATE: "true" });
  const db = openDatabase(config.dbPath);
  migrate(db);
  const org = createOrganization(db, { name: "Bench" });
  const scope = { db, org, actor: CLI_ACTOR };
  for (let i = 0; i < webhooks; i++) webhookService.create(scope, { url: `${receiver.base}/hook-${i}`, events: ["customer.created"] }, config);
  const worker = startWorker(db, config, { log: (line) => console.error(line) });

  const changes = Math.ceil(deliveries / webhooks);
  const started = performance.now();
  if (gapMs > 0) {
    for (let i = 0; i < changes; i++) {
      customerService.create(scope, { name: `Customer ${i}` });
      await Bun.sleep(gapMs);
    }
  } else {
    const CHUNK = 10;
    for (let i = 0; i < changes; i += CHUNK) {
      for (let k = i; k < Math.min(changes, i + CHUNK); k++) customerService.create(scope, { name: `Customer ${k}` });
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  const expected = changes * webhooks;
  let stats = await receiver.stats();
  while (stats.unique < expected) {
    await Bun.sleep(50);
    stats = await receiver.stats();
  }
  const seconds = (performance.now() - started) / 1000;
  await worker.stop();
  const notDelivered = db.select({ n: count() }).from(webhookDeliveries).where(ne(webhookDeliveries.status, "delivered")).get()!.n;
  db.$client.close();
  receiver.stop();
  rmSync(dir, { recursive: true, force: true });

  const sorted = [...stats.latenciesMs].sort((a, b) => a - b);
  const quantile = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return {
    scenario: name,
    deliveries: expected,
    seconds,
    perSecond: expected / seconds,
    p50Ms: quantile(0.5),
    p99Ms: quantile(0.99),
    maxMs: sorted[sorted.length - 1]!,
    duplicates: stats.received - stats.unique,
    notDelivered,
  };
}
