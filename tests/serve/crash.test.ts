/**
 * Crash safety: while clients stream invoice creations at the real server process, it is
 * killed with SIGKILL. After a restart, every invoice that got a 201 is there with all its
 * lines, no partial invoice or orphan line exists, and every committed invoice has its outbox
 * row and its audit entry. On the suite's engine: a SQLite file, or a PostgreSQL database of its
 * own (KONTOR_TEST_DATABASE_URL).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers.ts";
import { freshPostgresDatabase, TEST_DATABASE_URL } from "../postgres-database.ts";
const TESTS_ROOT = join(import.meta.dir, "..");

const dir = mkdtempSync(join(tmpdir(), "kontor-crash-"));
const dbPath = join(dir, "crash.db");
let postgres: Awaited<ReturnType<typeof freshPostgresDatabase>> | null = null;
/** What every process needs to reach the database: on PostgreSQL its URL (KONTOR_DB names nothing then). */
let engineEnv: Record<string, string> = {};
beforeAll(async () => {
  if (TEST_DATABASE_URL === null) return;
  postgres = await freshPostgresDatabase();
  engineEnv = { KONTOR_DATABASE_URL: postgres.url, KONTOR_SECRET_KEY_FILE: join(dir, "kontor.key") };
});
afterAll(async () => {
  await postgres?.drop();
  rmSync(dir, { recursive: true, force: true });
});
const cli = (args: string[]) => runCli([...args, "--db", dbPath], engineEnv);

/** Rows of a query on the crashed database, read by the engine's own client. */
async function inspect<T>(queries: { sqlite: string; postgres?: string }): Promise<T[]> {
  if (postgres === null) {
    const db = new Database(dbPath, { readonly: true });
    try {
      return db.query(queries.sqlite).all() as T[];
    } finally {
      db.close();
    }
  }
  const client = new SQL(postgres.url, { max: 1 });
  try {
    return [...(await client.unsafe(queries.postgres ?? queries.sqlite))] as T[];
  } finally {
    await client.close();
  }
}

async function serve() {
  const proc = Bun.spawn(["bun", join(TESTS_ROOT, "../cli/main.ts"), "serve", "--db", dbPath, "--port", "0", "--no-worker"], {
    env: { ...process.env, KONTOR_ENV: "test", KONTOR_RATE_LIMIT: "1000000", ...engineEnv },
    stdout: "pipe",
    stderr: "ignore",
  });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!/listening on (\S+)/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server exited: ${out}`);
    out += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return { proc, url: /listening on (\S+)/.exec(out)![1]! };
}

test("SIGKILL during a stream of invoice creations loses nothing that was acknowledged", async () => {
  await cli(["migrate"]);
  await cli(["org", "create", "--name", "Crash Test", "--country", "BE"]);
  const token = JSON.parse((await cli(["token", "create", "--org", "Crash Test", "--organisation", "--name", "t", "--abilities", "*", "--json"])).stdout).token;
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };

  const first = await serve();
  const api = (path: string, body?: unknown) =>
    fetch(`${first.url}${path}`, { method: body ? "POST" : "GET", headers, body: body ? JSON.stringify(body) : undefined });
  const customer = ((await (await api("/api/v1/customers", { name: "Streamed Customer" })).json()) as any).data;
  const rates = ((await (await api("/api/v1/vat-rates")).json()) as any).data;
  expect((await api("/api/v1/webhooks", { url: "https://hooks.example.com/crash", events: ["invoice.created"] })).status).toBe(201);

  const acknowledged = new Map<string, number>(); // invoice id → number of lines sent
  let stop = false;
  const client = async (n: number) => {
    for (let i = 0; !stop; i++) {
      const lines = Array.from({ length: 1 + ((i + n) % 5) }, (_, k) => ({
        description: `Line ${k}`,
        quantity: `${k + 1}.25`,
        unit_price: "19.99",
        vat_rate_id: rates[k % rates.length].id,
      }));
      try {
        const r = await api("/api/v1/invoices", { customer_id: customer.id, issue_date: "2026-05-01", lines });
        if (r.status === 201) acknowledged.set(((await r.json()) as any).data.id, lines.length);
      } catch {
        return; // the server is gone
      }
    }
  };
  const clients = Array.from({ length: 6 }, (_, n) => client(n));
  while (acknowledged.size < 150) await Bun.sleep(10);
  first.proc.kill("SIGKILL");
  stop = true;
  await Promise.all(clients);
  await first.proc.exited;
  expect(acknowledged.size).toBeGreaterThanOrEqual(150);

  // restart: migrations and recovery on the crashed file, then inspect it
  const second = await serve();
  const health = await fetch(`${second.url}/health`);
  expect(health.status).toBe(200);
  second.proc.kill("SIGTERM");
  await second.proc.exited;

  if (postgres === null) expect(await inspect({ sqlite: "PRAGMA integrity_check" })).toEqual([{ integrity_check: "ok" }]);
  const lineCounts = new Map(
    (await inspect<{ id: string; n: number }>({ sqlite: "SELECT i.id, count(l.id) AS n FROM invoices i LEFT JOIN invoice_lines l ON l.invoice_id = i.id GROUP BY i.id" })).map(
      (r) => [r.id, Number(r.n)],
    ),
  );
  for (const [id, sent] of acknowledged) expect(lineCounts.get(id), `invoice ${id}`).toBe(sent);
  // no partial invoice: every invoice has lines and totals that add up
  expect(await inspect({ sqlite: "SELECT i.id FROM invoices i WHERE NOT EXISTS (SELECT 1 FROM invoice_lines l WHERE l.invoice_id = i.id)" })).toEqual([]);
  expect(await inspect({ sqlite: "SELECT l.id FROM invoice_lines l LEFT JOIN invoices i ON i.id = l.invoice_id WHERE i.id IS NULL" })).toEqual([]);
  expect(
    await inspect({
      sqlite:
        "SELECT i.id FROM invoices i JOIN (SELECT invoice_id, sum(amount_cents) AS a, sum(vat_cents) AS v FROM invoice_lines GROUP BY invoice_id) s ON s.invoice_id = i.id WHERE i.subtotal_cents != s.a OR i.vat_cents != s.v OR i.total_cents != s.a + s.v",
    }),
  ).toEqual([]);
  // every committed invoice (acknowledged or not) has its outbox row and audit entry
  expect(
    await inspect({
      sqlite: "SELECT i.id FROM invoices i WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event = 'invoice.created' AND json_extract(d.payload, '$.data.id') = i.id)",
      postgres: "SELECT i.id FROM invoices i WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event = 'invoice.created' AND CAST(d.payload AS jsonb) #>> '{data,id}' = i.id)",
    }),
  ).toEqual([]);
  expect(
    await inspect({ sqlite: "SELECT i.id FROM invoices i WHERE NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.resource_type = 'invoice' AND a.resource_id = i.id AND a.action = 'invoice.created')" }),
  ).toEqual([]);
}, 60_000);

test("SIGKILL during a stream of keyed creates: after a restart, every retry finds exactly one invoice per key, with the first answer", async () => {
  const token = JSON.parse((await cli(["token", "create", "--org", "Crash Test", "--organisation", "--name", "keys", "--abilities", "*", "--json"])).stdout).token;
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const first = await serve();
  const customer = ((await (await fetch(`${first.url}/api/v1/customers`, { method: "POST", headers, body: JSON.stringify({ name: "Keyed" }) })).json()) as any).data;
  const body = (key: string) => JSON.stringify({ customer_id: customer.id, issue_date: "2026-05-01", notes: key, lines: [{ description: "x", quantity: "1", unit_price: "1.00" }] });
  const create = (url: string, key: string) => fetch(`${url}/api/v1/invoices`, { method: "POST", headers: { ...headers, "idempotency-key": key }, body: body(key) });

  const answered = new Map<string, string>(); // key → the first answer's body
  const sent = new Set<string>();
  let stop = false;
  const client = async (n: number) => {
    for (let i = 0; !stop; i++) {
      const key = `crash-${n}-${i}`;
      sent.add(key);
      try {
        const r = await create(first.url, key);
        if (r.status === 201) answered.set(key, await r.text());
      } catch {
        return; // the server is gone; this key's request may or may not have committed
      }
    }
  };
  const clients = Array.from({ length: 6 }, (_, n) => client(n));
  while (answered.size < 100) await Bun.sleep(5);
  first.proc.kill("SIGKILL");
  stop = true;
  await Promise.all(clients);
  await first.proc.exited;

  const second = await serve();
  try {
    for (const key of sent) {
      const r = await create(second.url, key);
      expect(r.status, key).toBe(201);
      const text = await r.text();
      if (answered.has(key)) {
        expect(text, key).toBe(answered.get(key)!);
        expect(r.headers.get("idempotent-replayed"), key).toBe("true");
      }
    }
  } finally {
    second.proc.kill("SIGTERM");
    await second.proc.exited;
  }
  const perKey = await inspect<{ key: string; n: number }>({ sqlite: "SELECT notes AS key, count(*) AS n FROM invoices WHERE notes LIKE 'crash-%' GROUP BY notes" });
  expect(perKey.filter((r) => Number(r.n) !== 1)).toEqual([]);
  expect(new Set(perKey.map((r) => r.key))).toEqual(sent);
}, 60_000);
