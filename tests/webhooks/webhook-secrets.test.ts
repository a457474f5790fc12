/**
 * Webhook secrets at rest (issue 16): sealed with a key kept outside the database, so the
 * database (or a copy, or a backup) alone cannot sign; the key file; the one-time sealing of
 * what an older Kontor stored in plaintext. Deliveries go to a real receiver on 127.0.0.1.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createRuntime } from "../../server/runtime.ts";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { firstRow, openDatabase } from "../../db/client.ts";
import { migrateDatabase } from "../../server/data-migrations.ts";
import { webhookDeliveries } from "../../db/schema.ts";
import { createApp } from "../../server/app.ts";
import { loadConfig } from "../../server/config.ts";
import { customerService } from "../../server/customers/service.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { startServer } from "../../server/serve.ts";
import { startWorker } from "../../server/webhooks/worker.ts";
import { createTestEnv, type TestEnv } from "../helpers.ts";

const WEBHOOK_ENV = { KONTOR_WEBHOOK_ALLOW_PRIVATE: "true", KONTOR_WEBHOOK_BACKOFF: "50ms", KONTOR_WEBHOOK_MAX_ATTEMPTS: "1" };
const env = await createTestEnv(WEBHOOK_ENV);
const scratch = mkdtempSync(join(tmpdir(), "kontor-secrets-"));

type Received = { path: string; headers: Record<string, string>; body: string };
const received: Received[] = [];
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    received.push({ path: new URL(request.url).pathname, headers: Object.fromEntries(request.headers), body: await request.text() });
    return new Response("ok");
  },
});
afterAll(async () => {
  await receiver.stop(true);
  env.close();
  rmSync(scratch, { recursive: true, force: true });
});

let paths = 0;
const hookUrl = () => `http://127.0.0.1:${receiver.port}/secrets-${++paths}`;
const arrivedAt = (url: string) => received.filter((r) => r.path === new URL(url).pathname);
const verifies = (secret: string, request: Received) => {
  try {
    new Webhook(secret).verify(request.body, request.headers);
    return true;
  } catch {
    return false;
  }
};
const storedSecret = (e: TestEnv, id: string) => (e.db.$client.query("SELECT secret FROM webhooks WHERE id = ?").get(id) as { secret: string }).secret;
/** The database's bytes, the WAL included: the secret must be nowhere in them. */
function databaseBytes(path: string): string {
  return ["", "-wal"].map((suffix) => (existsSync(path + suffix) ? readFileSync(path + suffix).toString("latin1") : "")).join("");
}

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

describe("secrets at rest", () => {
  test("the secret is stored sealed, never as shown; attempts sign with it all the same", async () => {
    const { org, token } = await env.newOrg();
    const url = hookUrl();
    const created = (await env.api("POST", "/api/v1/webhooks", { url, events: ["customer.created"] }, token)).body.data;
    const regenerated = (await env.api("POST", `/api/v1/webhooks/${created.id}/regenerate-secret`, undefined, token)).body.data;
    for (const secret of [created.secret, regenerated.secret]) expect(secret).toMatch(/^whsec_[A-Za-z0-9]{44}$/);
    const stored = storedSecret(env, created.id);
    expect(stored).toMatch(/^enc:v1:[A-Za-z0-9+/]+=*$/);
    env.db.$client.exec("PRAGMA wal_checkpoint(PASSIVE)");
    const bytes = databaseBytes(env.config.dbPath);
    for (const secret of [created.secret, regenerated.secret]) {
      expect(stored).not.toContain(secret.slice("whsec_".length));
      expect(bytes.includes(secret.slice("whsec_".length))).toBe(false);
    }

    const worker = await startWorker(env.db, env.config, { log: () => {} });
    try {
      await customerService.create({ db: env.db, org, actor: CLI_ACTOR }, { name: "Signed" });
      await waitFor("the delivery", () => arrivedAt(url).length === 1);
    } finally {
      await worker.stop();
    }
    expect(verifies(regenerated.secret, arrivedAt(url)[0]!)).toBe(true);
    expect(verifies(created.secret, arrivedAt(url)[0]!)).toBe(false);
  });

  test("a copy of the database with another key cannot sign: its attempts fail with a clear error", async () => {
    const { org, token } = await env.newOrg();
    const url = hookUrl();
    const { id, secret } = (await env.api("POST", "/api/v1/webhooks", { url, events: ["customer.created"] }, token)).body.data;
    env.db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const copyDir = mkdtempSync(join(scratch, "copy-"));
    copyFileSync(env.config.dbPath, join(copyDir, "kontor.db")); // the database alone, as a backup would hold it

    const config = loadConfig({ KONTOR_ENV: "test", ...WEBHOOK_ENV, KONTOR_DB: join(copyDir, "kontor.db") });
    const copy = openDatabase(config.dbPath);
    const logged: string[] = [];
    const worker = await startWorker(copy, config, { log: (line) => logged.push(line) });
    try {
      await customerService.create({ db: copy, org, actor: CLI_ACTOR }, { name: "From the copy" });
      await waitFor("the attempt", async () => (await firstRow(copy.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, id))))?.status === "failed");
    } finally {
      await worker.stop();
    }
    const row = (await firstRow(copy.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, id))))!;
    expect(row.lastError).toBe(
      "The webhook's secret cannot be decrypted with this server's key (KONTOR_SECRET_KEY_FILE): restore the key file that belongs to this database, or regenerate the secret.",
    );
    expect(logged.some((line) => line.includes(row.id) && line.includes("does not open with this server's key"))).toBe(true);
    // nothing was sent, so nothing could carry a signature the receiver would accept
    expect(arrivedAt(url).every((r) => !verifies(secret, r))).toBe(true);
    expect(arrivedAt(url)).toHaveLength(0);
    copy.$client.close();

    // the database with its key file (here at a path of its own) is a whole backup: it signs again
    const keyFile = join(copyDir, "elsewhere", "restored.key");
    const restoredDir = mkdtempSync(join(scratch, "restored-"));
    copyFileSync(env.config.dbPath, join(restoredDir, "kontor.db"));
    mkdirSync(join(copyDir, "elsewhere"));
    copyFileSync(join(env.dir, "kontor.key"), keyFile);
    const restoredConfig = loadConfig({ KONTOR_ENV: "test", ...WEBHOOK_ENV, KONTOR_DB: join(restoredDir, "kontor.db"), KONTOR_SECRET_KEY_FILE: keyFile });
    const restored = openDatabase(restoredConfig.dbPath);
    const again = await startWorker(restored, restoredConfig, { log: () => {} });
    try {
      await customerService.create({ db: restored, org, actor: CLI_ACTOR }, { name: "From the restored backup" });
      await waitFor("the delivery", () => arrivedAt(url).length === 1);
    } finally {
      await again.stop();
      restored.$client.close();
    }
    expect(verifies(secret, arrivedAt(url)[0]!)).toBe(true);
  });

  test("the key file: 32 bytes, mode 0600, beside the database or at KONTOR_SECRET_KEY_FILE, read again on the next start", async () => {
    const beside = join(env.dir, "kontor.key");
    expect(statSync(beside).mode & 0o777).toBe(0o600);
    expect(readFileSync(beside)).toHaveLength(32);
    const before = readFileSync(beside);
    // a second start on the same database uses the same key: what the first sealed still opens
    const { org, token } = await env.newOrg();
    const url = hookUrl();
    const { secret } = (await env.api("POST", "/api/v1/webhooks", { url, events: ["customer.created"] }, token)).body.data;
    const second = openDatabase(env.config.dbPath);
    const worker = await startWorker(second, env.config, { log: () => {} });
    try {
      await customerService.create({ db: second, org, actor: CLI_ACTOR }, { name: "Second start" });
      await waitFor("the delivery", () => arrivedAt(url).length === 1);
    } finally {
      await worker.stop();
      second.$client.close();
    }
    expect(verifies(secret, arrivedAt(url)[0]!)).toBe(true);
    expect(readFileSync(beside)).toEqual(before);

    const keyFile = join(scratch, "keys", "kontor-test.key");
    const configured = await createTestEnv({ KONTOR_SECRET_KEY_FILE: keyFile });
    try {
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(statSync(join(scratch, "keys")).mode & 0o777).toBe(0o700);
      expect(readFileSync(keyFile)).toHaveLength(32);
      expect(existsSync(join(configured.dir, "kontor.key"))).toBe(false);
    } finally {
      configured.close();
    }

    // a key file that is not a key stops the start with a message that says what to do
    const damaged = join(scratch, "damaged.key");
    writeFileSync(damaged, "not a key\n");
    const config = loadConfig({ KONTOR_ENV: "test", KONTOR_DB: join(scratch, "damaged.db"), KONTOR_SECRET_KEY_FILE: damaged });
    const db = openDatabase(config.dbPath);
    await migrateDatabase(db);
    try {
      expect(() => createApp(createRuntime(config, { db }))).toThrow(/must hold exactly 32 bytes .*restore it from the backup/);
      expect(() => startWorker(db, config)).toThrow(/must hold exactly 32 bytes/);
    } finally {
      db.$client.close();
    }
  });

  test("secrets an older Kontor stored in plaintext are sealed at start, once", async () => {
    const { org, token } = await env.newOrg();
    const url = hookUrl();
    const { id } = (await env.api("POST", "/api/v1/webhooks", { url, events: ["customer.created"] }, token)).body.data;
    const plaintext = `whsec_${"Q".repeat(44)}`;
    env.db.$client.query("UPDATE webhooks SET secret = ? WHERE id = ?").run(plaintext, id); // as an older version stored it

    const server = await startServer(createRuntime({ ...env.config, port: 0, httpThreads: 1 }, { db: env.db }), { worker: false });
    await server.stop();
    const sealed = storedSecret(env, id);
    expect(sealed).toStartWith("enc:v1:");
    expect(sealed).not.toContain("QQQQ");
    // every other secret was sealed already, and is left as it was; a second start changes nothing
    const all = () => env.db.$client.query("SELECT id, secret FROM webhooks ORDER BY id").all();
    const before = all();
    const again = await startServer(createRuntime({ ...env.config, port: 0, httpThreads: 1 }, { db: env.db }), { worker: false });
    await again.stop();
    expect(all()).toEqual(before);

    const worker = await startWorker(env.db, env.config, { log: () => {} });
    try {
      await customerService.create({ db: env.db, org, actor: CLI_ACTOR }, { name: "Sealed at start" });
      await waitFor("the delivery", () => arrivedAt(url).length === 1);
    } finally {
      await worker.stop();
    }
    expect(verifies(plaintext, arrivedAt(url)[0]!)).toBe(true);
  });

  test("every HTTP thread of kontor serve seals with the server's key", async () => {
    const { org, token } = await env.newOrg();
    const running = await startServer(createRuntime({ ...env.config, port: 0, httpThreads: 2 }, { db: env.db }), { worker: false });
    const hooks: { url: string; secret: string }[] = [];
    try {
      for (let i = 0; i < 6; i++) {
        const url = hookUrl();
        // a new connection each time, so that both threads take some
        const answer = await fetch(`${running.url}/api/v1/webhooks`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", connection: "close" },
          body: JSON.stringify({ url, events: ["customer.created"] }),
        });
        expect(answer.status).toBe(201);
        hooks.push({ url, secret: ((await answer.json()) as any).data.secret });
      }
    } finally {
      await running.stop();
    }
    const worker = await startWorker(env.db, env.config, { log: () => {} });
    try {
      await customerService.create({ db: env.db, org, actor: CLI_ACTOR }, { name: "Threads" });
      await waitFor("every delivery", () => hooks.every((h) => arrivedAt(h.url).length === 1));
    } finally {
      await worker.stop();
    }
    for (const h of hooks) expect(verifies(h.secret, arrivedAt(h.url)[0]!)).toBe(true);
  });
});
