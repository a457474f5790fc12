/**
 * Webhook delivery benchmark (not a test). Kontor's side runs in this process as in
 * `kontor serve`: changes made through the customer service write their outbox rows, and the
 * in-process worker, woken by the connection's outbox signal, sends them. The receiver is a second process on
 * 127.0.0.1 that timestamps each arrival; latency is arrival minus the payload's `timestamp`,
 * which the outbox sets inside the change's transaction (the same machine clock).
 *
 *   bun bench/webhooks.ts                 all three scenarios
 *   bun bench/webhooks.ts --only idle,fast  options: --count N (default 10000) --webhooks N (10)
 *                                         --slow-ms MS (1000) --deadline-s S --json
 *
 * Scenarios: `idle` one change at a time (200 changes, 25 ms apart); `fast` N deliveries
 * queued as fast as the service can write them while the worker drains, receiver answering at
 * once; `slow` the same with the receiver answering after --slow-ms; `serve` the real
 * `kontor serve` process with 1, 2 and 4 HTTP threads (--threads 1,2,4), 200 customers
 * (--changes N) created one at a time over the API from the moment it prints its URL (or
 * --settle-ms later, once its other threads have started), each on a
 * connection of its own (so they land on every thread): change to receiver, p50, p90 and max.
 * The maximum must stay below the worker's 1 s poll, or the run exits with code 1: a delivery
 * that waited for the poll is a lost wake-up (`bun bench/webhooks.ts --only serve --threads 2,4`).
 *
 * A scenario stops waiting when every delivery has arrived, when none is pending any more
 * (some failed: nothing else will come), or at its deadline (--deadline-s, default 30 s plus
 * room for the scenario's size and receiver delay); then it reports what did not arrive, by
 * status and last error, with a few examples, and the run exits with code 1.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { firstRow, openDatabase } from "../db/client.ts";
import { migrateDatabase } from "../server/data-migrations.ts";
import { webhookDeliveries } from "../db/schema.ts";
import { loadConfig } from "../server/config.ts";
import { loadSecretBox } from "../server/lib/secret-box.ts";
import { customerService } from "../server/customers/service.ts";
import { CLI_ACTOR, createOrganization } from "../server/orgs/service.ts";
import { webhookService } from "../server/webhooks/service.ts";
import { startWorker } from "../server/webhooks/worker.ts";
import { count, eq, ne } from "drizzle-orm";
import { startFreshServer } from "./fresh-server.ts";

const argv = process.argv.slice(2);
const option = (name: string) => {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
};

/** The worker's poll (its croner tick, server/webhooks/worker.ts): a woken worker never waits this long. */
const POLL_MS = 1000;

if (argv.includes("--receiver")) await runReceiver(Number(option("--delay") ?? 0));
else await main();

// ---------------------------------------------------------------------------------------------
// the receiver process

type Stats = { received: number; unique: number; latenciesMs: number[]; ids?: string[] };

async function runReceiver(delayMs: number): Promise<void> {
  let latenciesMs: number[] = [];
  let ids = new Set<string>();
  const nowMs = () => performance.timeOrigin + performance.now();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (request.method === "GET") {
        const path = new URL(request.url).pathname;
        const stats: Stats = { received: latenciesMs.length, unique: ids.size, latenciesMs: path === "/ids" ? [] : latenciesMs };
        if (path === "/ids") stats.ids = [...ids];
        if (path === "/reset") {
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
    /** the X-Webhook-Id of every delivery that arrived */
    ids: async (): Promise<Set<string>> => new Set(((await (await fetch(`${base}/ids`)).json()) as Stats).ids),
    stop: () => proc.kill("SIGTERM"),
  };
}

// ---------------------------------------------------------------------------------------------
// Kontor's side

type Result = {
  scenario: string;
  deliveries: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** the serve scenarios' second figure */
  p90Ms?: number;
  maxMs: number;
  duplicates: number;
  notDelivered: number;
  /** deliveries that never reached the receiver (failed, still pending at the deadline) */
  missing: number;
  /** why the wait ended: all arrived, nothing left pending, or the deadline */
  ended: "complete" | "settled" | "deadline";
};

async function main(): Promise<void> {
  const only = option("--only")?.split(",");
  const total = Number(option("--count") ?? 10_000);
  const webhookCount = Number(option("--webhooks") ?? 10);
  const slowMs = Number(option("--slow-ms") ?? 1000);
  const serveChanges = Number(option("--changes") ?? 200);
  const settleMs = Number(option("--settle-ms") ?? 0);
  const deadlineS = option("--deadline-s") === undefined ? undefined : Number(option("--deadline-s"));
  const asJson = argv.includes("--json");
  const log = (line: string) => console.error(line);
  const results: Result[] = [];
  const scenarios: [string, () => Promise<Result>][] = [
    ["idle", () => scenario("idle", 0, 200, 1, 25, deadlineS)],
    ["fast", () => scenario("fast", 0, total, webhookCount, 0, deadlineS)],
    ["slow", () => scenario(`slow (${slowMs} ms)`, slowMs, total, webhookCount, 0, deadlineS)],
    ...(option("--threads") ?? "1,2,4").split(",").map((n): [string, () => Promise<Result>] => ["serve", () => serveScenario(Number(n), serveChanges, settleMs)]),
  ];
  for (const [name, run] of scenarios) {
    if (only && !only.includes(name)) continue;
    log(`running ${name} …`);
    const result = await run();
    results.push(result);
    log(`  ${result.deliveries} deliveries in ${result.seconds.toFixed(2)} s${result.missing ? `, ${result.missing} MISSING (${result.ended})` : ""}`);
  }
  if (asJson) console.log(JSON.stringify(results, null, 2));
  else {
    console.log("scenario        deliveries   seconds   deliveries/s   p50 ms   p99 ms   max ms   dup  lost  missing");
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
          String(r.missing).padStart(8),
        ].join(" "),
      );
    }
    const fast = results.find((r) => r.scenario === "fast");
    const idle = results.find((r) => r.scenario === "idle");
    if (fast) console.log(`target ≥ 1000 deliveries/s: ${fast.perSecond >= 1000 ? "met" : "NOT met"}`);
    if (idle) console.log(`target idle p50 < 50 ms: ${idle.p50Ms < 50 ? "met" : "NOT met"}`);
    for (const served of results.filter((r) => r.scenario.startsWith("serve"))) {
      const met = served.p50Ms < 10 && served.p90Ms! < 50;
      console.log(
        `${served.scenario}: change to receiver p50 ${served.p50Ms.toFixed(1)} ms, p90 ${served.p90Ms!.toFixed(1)} ms (target p50 < 10, p90 < 50: ${met ? "met" : "NOT met"}), ` +
          `max ${served.maxMs.toFixed(1)} ms (below the worker's ${POLL_MS} ms poll: ${served.maxMs < POLL_MS ? "met" : "NOT met"})`,
      );
    }
  }
  // a delivery that waited for the poll means a wake-up was lost: the run fails
  const waited = results.filter((r) => r.scenario.startsWith("serve") && !(r.maxMs < POLL_MS));
  if (waited.length > 0) {
    log(`WAITED FOR THE POLL: ${waited.map((r) => `${r.scenario} max ${r.maxMs.toFixed(0)} ms`).join("; ")}`);
    process.exitCode = 1;
  }
  const incomplete = results.filter((r) => r.missing > 0);
  if (incomplete.length > 0) {
    log(`INCOMPLETE: ${incomplete.map((r) => `${r.scenario} missed ${r.missing} of ${r.deliveries} (${r.ended})`).join("; ")}`);
    process.exitCode = 1;
  }
}

/** How long a scenario may wait for its deliveries: 30 s, plus 2 ms a delivery, plus twice its share of the receiver's delay (128 in flight). */
function defaultDeadlineMs(deliveries: number, receiverDelayMs: number): number {
  return 30_000 + deliveries * (2 + (2 * receiverDelayMs) / 128);
}

/**
 * Makes `deliveries / webhooks` changes, each fanning out to every webhook. `gapMs` > 0 paces
 * them one by one; 0 writes them in chunks, yielding between chunks so the worker drains
 * while changes keep coming (as a busy server would).
 */
async function scenario(name: string, receiverDelayMs: number, deliveries: number, webhooks: number, gapMs: number, deadlineS?: number): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), "kontor-bench-webhooks-"));
  const receiver = await startReceiver(receiverDelayMs);
  // the receiver is a process of its own: it goes whatever happens here
  try {
    const config = loadConfig({ KONTOR_ENV: "test", KONTOR_DB: join(dir, "bench.db"), KONTOR_WEBHOOK_ALLOW_PRIVATE: "true" });
    const db = openDatabase(config.dbPath);
    await migrateDatabase(db);
    const org = await createOrganization(db, { name: "Bench" });
    const scope = { db, org, actor: CLI_ACTOR };
    const secrets = loadSecretBox(config);
    for (let i = 0; i < webhooks; i++) await webhookService.create(scope, { url: `${receiver.base}/hook-${i}`, events: ["customer.created"] }, config, secrets, null);
    const worker = await startWorker(db, config, { secrets, log: (line) => console.error(line) });

    const changes = Math.ceil(deliveries / webhooks);
    const started = performance.now();
    if (gapMs > 0) {
      for (let i = 0; i < changes; i++) {
        await customerService.create(scope, { name: `Customer ${i}` });
        await Bun.sleep(gapMs);
      }
    } else {
      const CHUNK = 10;
      for (let i = 0; i < changes; i += CHUNK) {
        for (let k = i; k < Math.min(changes, i + CHUNK); k++) await customerService.create(scope, { name: `Customer ${k}` });
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    const expected = changes * webhooks;
    const deadline = started + (deadlineS !== undefined ? deadlineS * 1000 : defaultDeadlineMs(expected, receiverDelayMs));
    const pendingLeft = async () => (await firstRow(db.select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.status, "pending"))))!.n;
    let ended: Result["ended"] = "complete";
    let stats = await receiver.stats();
    let polls = 0;
    while (stats.unique < expected) {
      if (performance.now() > deadline) {
        ended = "deadline";
        break;
      }
      // failed deliveries never arrive: once nothing is pending, waiting longer changes nothing
      // (checked every 20th poll, once the receiver's count has been read after the database's)
      if (++polls % 20 === 0 && await pendingLeft() === 0) {
        stats = await receiver.stats();
        if (stats.unique < expected) ended = "settled";
        break;
      }
      await Bun.sleep(50);
      stats = await receiver.stats();
    }
    const seconds = (performance.now() - started) / 1000;
    await worker.stop();
    const notDelivered = (await firstRow(db.select({ n: count() }).from(webhookDeliveries).where(ne(webhookDeliveries.status, "delivered"))))!.n;
    const missing = ended === "complete" ? 0 : await reportMissing(name, db, await receiver.ids(), expected, ended);
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });

    const sorted = [...stats.latenciesMs].sort((a, b) => a - b);
    // NaN when nothing arrived at all
    const quantile = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
    return {
      scenario: name,
      deliveries: expected,
      seconds,
      perSecond: (expected - missing) / seconds,
      p50Ms: quantile(0.5),
      p99Ms: quantile(0.99),
      maxMs: sorted[sorted.length - 1] ?? NaN,
      duplicates: stats.received - stats.unique,
      notDelivered,
      missing,
      ended,
    };
  } finally {
    receiver.stop();
  }
}

/**
 * What did not reach the receiver: counted by status and last error, with a few examples, on
 * stderr. Returns how many deliveries are missing.
 */
async function reportMissing(name: string, db: ReturnType<typeof openDatabase>, arrived: Set<string>, expected: number, ended: Result["ended"]): Promise<number> {
  const rows = await db.select().from(webhookDeliveries);
  const lost = rows.filter((row) => !arrived.has(row.id));
  const neverQueued = Math.max(0, expected - rows.length);
  const why = ended === "deadline" ? "the deadline passed" : "nothing was pending any more";
  console.error(`  ${name}: ${lost.length + neverQueued} of ${expected} deliveries did not arrive (${why})`);
  if (neverQueued > 0) console.error(`    ${neverQueued} never queued (${rows.length} rows in webhook_deliveries)`);
  const groups = new Map<string, typeof lost>();
  for (const row of lost) {
    const key = `${row.status}, ${row.attempts} attempt(s), last: ${row.lastStatusCode ?? "-"} ${row.lastError ?? ""}`.trim();
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  for (const [key, group] of [...groups].sort((a, b) => b[1].length - a[1].length).slice(0, 10)) {
    console.error(`    ${String(group.length).padStart(6)} × ${key}`);
    for (const row of group.slice(0, 3)) console.error(`             e.g. ${row.id} (webhook ${row.webhookId}, leased by ${row.leasedBy ?? "nobody"})`);
  }
  return lost.length + neverQueued;
}

/**
 * The real server: `kontor serve` with `threads` HTTP threads on a fresh database, a webhook to
 * the receiver, and `changes` customers created one at a time, each on a new connection (SO_REUSEPORT
 * spreads them over the threads). Whichever thread answers, the worker on the first must be
 * woken at once.
 */
async function serveScenario(threads: number, changes: number, settleMs: number): Promise<Result> {
  const receiver = await startReceiver(0);
  const server = await startFreshServer({
    KONTOR_HTTP_THREADS: String(threads),
    KONTOR_WEBHOOK_ALLOW_HTTP: "true",
    KONTOR_WEBHOOK_ALLOW_PRIVATE: "true",
    // the request log of every change would bury the figures
    KONTOR_LOG_LEVEL: "warn",
  });
  const { url } = server;
  try {
    const headers = { authorization: `Bearer ${server.token}`, "content-type": "application/json", connection: "close" };
    const hook = await fetch(`${url}/api/v1/webhooks`, { method: "POST", headers, body: JSON.stringify({ url: `${receiver.base}/hook`, events: ["customer.created"] }) });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${await hook.text()}`);
    // 0: from the moment the URL is printed, while the other HTTP threads still start (the way a lost wake-up showed)
    await Bun.sleep(settleMs);
    await receiver.stats(true);
    const started = performance.now();
    for (let i = 0; i < changes; i++) {
      const r = await fetch(`${url}/api/v1/customers`, { method: "POST", headers, body: JSON.stringify({ name: `Serve ${i}` }) });
      await r.arrayBuffer();
      // one change at a time: wait for its delivery before the next
      const deadline = Date.now() + 5000;
      while ((await receiver.stats()).received < i + 1 && Date.now() < deadline) await Bun.sleep(1);
    }
    const seconds = (performance.now() - started) / 1000;
    const stats = await receiver.stats();
    const sorted = [...stats.latenciesMs].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
    return {
      scenario: `serve ${threads} thread${threads === 1 ? "" : "s"}`,
      deliveries: changes,
      seconds,
      perSecond: stats.received / seconds,
      p50Ms: at(0.5),
      p90Ms: at(0.9),
      p99Ms: at(0.99),
      maxMs: sorted.at(-1) ?? NaN,
      duplicates: stats.received - stats.unique,
      notDelivered: changes - stats.unique,
      missing: Math.max(0, changes - stats.unique),
      ended: stats.unique >= changes ? "complete" : "deadline",
    };
  } finally {
    await server.stop();
    receiver.stop();
  }
}
