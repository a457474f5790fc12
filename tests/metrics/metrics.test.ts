/**
 * /metrics, the request log and scheduled backups of a real `kontor serve` with two HTTP
 * threads: the counters are the totals of both threads, /metrics is not on the API's port (a
 * token does not reach it), every request has one log line with its id and route and no
 * secret, and scheduled backups are complete, checked files, the oldest pruned.
 */
import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, serveProcess } from "../helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "kontor-metrics-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function freePort(): number {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port!;
  void probe.stop(true);
  return port;
}

/** `name{labels} value` lines of a scrape, by the part before the value. */
function samples(text: string): Map<string, number> {
  const map = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const at = line.lastIndexOf(" ");
    map.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return map;
}

test("two threads' requests, refusals and deliveries add up on the metrics port; one log line per request", async () => {
  const db = join(dir, "kontor.db");
  const backups = join(dir, "backups");
  await runCli(["org", "create", "--name", "Metrics", "--db", db]);
  const token = JSON.parse((await runCli(["token", "create", "--org", "Metrics", "--organisation", "--name", "m", "--abilities", "*", "--json", "--db", db])).stdout).token;
  const [apiPort, metricsPort] = [freePort(), freePort()];
  const server = await serveProcess(["--db", db, "--port", String(apiPort)], {
    KONTOR_HTTP_THREADS: "2",
    KONTOR_METRICS_PORT: String(metricsPort),
    KONTOR_RATE_LIMIT: "50",
    KONTOR_LOG_LEVEL: "info",
    KONTOR_LOG_FORMAT: "json",
    KONTOR_BACKUP_DIR: backups,
    KONTOR_BACKUP_EVERY: "1s",
    KONTOR_BACKUP_KEEP: "2",
  });
  let log = "";
  try {
    // the listening line comes as the first thread binds; the metrics listener once all threads listen
    const scrapeNow = () => fetch(`http://127.0.0.1:${metricsPort}/metrics`).catch(() => null);
    for (const deadline = Date.now() + 15_000; !(await scrapeNow()); await Bun.sleep(50)) {
      if (Date.now() > deadline) throw new Error(`no metrics listener: ${server.log()}`);
    }
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    // a webhook whose receiver is refused (a name that does not resolve): its delivery fails, and waits for a retry
    expect((await fetch(`${server.url}/api/v1/webhooks`, { method: "POST", headers, body: JSON.stringify({ url: "http://kontor-test.invalid/hook", events: ["customer.created"] }) })).status).toBe(201);
    const created = await fetch(`${server.url}/api/v1/customers`, { method: "POST", headers: { ...headers, "x-request-id": "client-chosen.id:1" }, body: JSON.stringify({ name: "Counted" }) });
    expect(created.status).toBe(201);
    expect(created.headers.get("x-request-id")).toBe("client-chosen.id:1");
    const customer = ((await created.json()) as any).data;

    // 60 reads, each on a connection of its own: the kernel spreads them over both threads
    const statuses: number[] = [];
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 60 }, async () => {
        const r = await fetch(`${server.url}/api/v1/customers/${customer.id}`, { headers: { ...headers, "x-request-id": "bad id with spaces" }, keepalive: false });
        statuses.push(r.status);
        ids.push(r.headers.get("x-request-id")!);
      }),
    );
    const refused = statuses.filter((s) => s === 429).length;
    expect(refused).toBeGreaterThan(0); // 50 a minute for the token, two already spent
    expect(statuses.filter((s) => s === 200).length).toBe(60 - refused);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    // /metrics is not on the API's port, token or not
    expect((await fetch(`${server.url}/metrics`, { headers })).status).toBe(404);

    let scrape = new Map<string, number>();
    const deadline = Date.now() + 15_000;
    for (;;) {
      const r = (await scrapeNow())!;
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toContain("text/plain");
      scrape = samples(await r.text());
      const backupsDone = (scrape.get("kontor_last_backup_timestamp_seconds") ?? 0) > 0 && readdirSync(backups).filter((n) => n.endsWith("Z.db")).length >= 2;
      if ((scrape.get('kontor_webhook_delivery_attempts_total{outcome="failed"}') ?? 0) >= 1 && backupsDone) break;
      if (Date.now() > deadline) throw new Error(`not yet: ${[...scrape].join("\n")}`);
      await Bun.sleep(200);
    }
    const route = "/api/v1/customers/:id";
    expect(scrape.get(`kontor_http_requests_total{method="GET",route="${route}",status="200"}`)).toBe(60 - refused);
    expect(scrape.get(`kontor_http_requests_total{method="GET",route="${route}",status="429"}`)).toBe(refused);
    expect(scrape.get("kontor_rate_limit_refusals_total")).toBe(refused);
    expect(scrape.get(`kontor_http_request_duration_seconds_count{method="GET",route="${route}"}`)).toBe(60);
    expect(scrape.get(`kontor_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="${route}"}`)).toBe(60);
    expect(scrape.get('kontor_http_requests_total{method="POST",route="/api/v1/customers",status="201"}')).toBe(1);
    expect(scrape.get("kontor_outbox_depth")).toBe(1); // the failed delivery, waiting 30 s for its retry
    expect(scrape.get("kontor_outbox_oldest_due_age_seconds")).toBe(0);
    expect(scrape.get("kontor_sqlite_database_bytes")!).toBeGreaterThan(0);
    expect(scrape.get("kontor_sqlite_wal_bytes")!).toBeGreaterThanOrEqual(0);
    expect(Math.abs(scrape.get("kontor_last_backup_timestamp_seconds")! - Date.now() / 1000)).toBeLessThan(30);

  } finally {
    log = await server.stop();
  }
  {
    const lines = log.trim().split("\n").map((l) => JSON.parse(l));
    const requests = lines.filter((l) => l.msg === "request");
    expect(requests.filter((l) => l.route === "/api/v1/customers/:id")).toHaveLength(60);
    const post = requests.find((l) => l.request_id === "client-chosen.id:1");
    expect(post).toMatchObject({ method: "POST", route: "/api/v1/customers", status: 201, level: "info" });
    expect(Object.keys(post).sort()).toEqual(["duration_ms", "level", "method", "msg", "organization_id", "request_id", "route", "status", "time", "token_id"]);
    expect(post.token_id).toBe(token.split("|")[0]);
    expect(log).not.toContain(token.split("|")[1]);
    expect(log).not.toContain("Counted"); // no body
  }
  // the audit entry of the POST carries its request id
  const sqlite = new Database(db, { readonly: true });
  expect(sqlite.query("SELECT request_id FROM audit_log WHERE action = 'customer.created'").get()).toEqual({ request_id: "client-chosen.id:1" });
  sqlite.close();
  // scheduled backups: two kept, complete and checked, nothing half-written left
  const files = readdirSync(backups);
  expect(files.filter((n) => /^kontor-\d{8}T\d{6}Z\.db$/.test(n))).toHaveLength(2);
  expect(files.filter((n) => n.includes(".tmp-"))).toEqual([]);
  for (const name of files) {
    const copy = new Database(join(backups, name), { readonly: true });
    expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    copy.close();
  }
}, 120_000);
