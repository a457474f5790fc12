/**
 * Webhook secrets at rest (issue 16): sealed with a key kept outside the database, so the
 * database (or a copy, or a backup) alone cannot sign; the key file; the one-time sealing of
 * what an older Kontor stored in plaintext. Deliveries go to a real receiver on 127.0.0.1.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { createRuntime, openConfiguredDatabase } from "../../server/runtime.ts";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { firstRow } from "../../db/client.ts";
import { migrateDatabase } from "../../server/data-migrations.ts";
import { webhookDeliveries } from "../../db/schema.ts";
import { createApp } from "../../server/app.ts";
import { loadConfig } from "../../server/config.ts";
import { customerService } from "../../server/customers/service.ts";
import { CLI_ACTOR } from "../../server/orgs/service.ts";
import { startServer } from "../../server/serve.ts";
import { startWorker } from "../../server/webhooks/worker.ts";
import { createTestEnv, type TestEnv } from "../helpers.ts";
import { onPostgres, rawSql } from "../raw-sql.ts";

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
  await env.close();
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
const storedSecret = async (e: TestEnv, id: string) => (await rawSql(e.db).get<{ secret: string }>("SELECT secret FROM webhooks WHERE id = ?", id))!.secret;
/**
 * The test's database opened again by a server with its own configuration: on SQLite the file at
 * `dbPath` (a copy, a restored backup, or the test's own), on PostgreSQL the test's database (a
 * server of another key file reaches the same rows, as a copy of them would hold them).
 */
const engineOf = (dbPath: string): Record<string, string> => (env.config.databaseUrl === null ? { KONTOR_DB: dbPath } : { KONTOR_DB: dbPath, KONTOR_DATABASE_URL: env.config.databaseUrl });
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
    const stored = await storedSecret(env, created.id);
    expect(stored).toMatch(/^enc:v1:[A-Za-z0-9+/]+=*$/);
    for (const secret of [created.secret, regenerated.secret]) expect(stored).not.toContain(secret.slice("whsec_".length));
    if (!onPostgres) {
      // SQLite: the plaintext reaches neither the file nor its WAL
      env.db.$client.exec("PRAGMA wal_checkpoint(PASSIVE)");
      const bytes = databaseBytes(env.config.dbPath);
      for (const secret of [created.secret, regenerated.secret]) expect(bytes.includes(secret.slice("whsec_".length))).toBe(false);
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
    const copyDir = mkdtempSync(join(scratch, "copy-"));
    if (!onPostgres) {
      env.db.$client.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      copyFileSync(env.config.dbPath, join(copyDir, "kontor.db")); // the database alone, as a backup would hold it
    }

    // its own key: on SQLite made beside the copy, on PostgreSQL (where the key file is required) at that same place
    const config = loadConfig({ KONTOR_ENV: "test", ...WEBHOOK_ENV, ...engineOf(join(copyDir, "kontor.db")), ...(onPostgres ? { KONTOR_SECRET_KEY_FILE: join(copyDir, "kontor.key") } : {}) });
    const copy = openConfiguredDatabase(config);
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
    await copy.connection.close();

    // the database with its key file (here at a path of its own) is a whole backup: it signs again
    const keyFile = join(copyDir, "elsewhere", "restored.key");
    const restoredDir = mkdtempSync(join(scratch, "restored-"));
    if (!onPostgres) copyFileSync(env.config.dbPath, join(restoredDir, "kontor.db"));
    mkdirSync(join(copyDir, "elsewhere"));
    copyFileSync(join(env.dir, "kontor.key"), keyFile);
    const restoredConfig = loadConfig({ KONTOR_ENV: "test", ...WEBHOOK_ENV, ...engineOf(join(restoredDir, "kontor.db")), KONTOR_SECRET_KEY_FILE: keyFile });
    const restored = openConfiguredDatabase(restoredConfig);
    const again = await startWorker(restored, restoredConfig, { log: () => {} });
    try {
      await customerService.create({ db: restored, org, actor: CLI_ACTOR }, { name: "From the restored backup" });
      await waitFor("the delivery", () => arrivedAt(url).length === 1);
    } finally {
      await again.stop();
      await restored.connection.close();
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
    const second = openConfiguredDatabase(env.config);
    const worker = await startWorker(second, env.config, { log: () => {} });
    try {
      await customerService.create({ db: second, org, actor: CLI_ACTOR }, { name: "Second start" });
      await waitFor("the delivery", () => arrivedAt(url).length === 1);
    } finally {
      await worker.stop();
      await second.connection.close();
    }
    expect(verifies(secret, arrivedAt(url)[0]!)).toBe(true);
    expect(readFileSync(beside)).toEqual(before);

    // a start with KONTOR_SECRET_KEY_FILE makes the key there, and none beside the database
    const keyFile = join(scratch, "keys", "kontor-test.key");
    const configuredDir = mkdtempSync(join(scratch, "configured-"));
    const configuredConfig = loadConfig({ KONTOR_ENV: "test", ...engineOf(join(configuredDir, "kontor.db")), KONTOR_SECRET_KEY_FILE: keyFile });
    const configured = openConfiguredDatabase(configuredConfig);
    try {
      await migrateDatabase(configured);
      createApp(createRuntime(configuredConfig, { db: configured }));
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(statSync(join(scratch, "keys")).mode & 0o777).toBe(0o700);
      expect(readFileSync(keyFile)).toHaveLength(32);
      expect(existsSync(join(configuredDir, "kontor.key"))).toBe(false);
    } finally {
      await configured.connection.close();
    }

    // a key file that is not a key stops the start with a message that says what to do
    const damaged = join(scratch, "damaged.key");
    writeFileSync(damaged, "not a key\n");
    const config = loadConfig({ KONTOR_ENV: "test", ...engineOf(join(scratch, "damaged.db")), KONTOR_SECRET_KEY_FILE: damaged });
    const db = openConfiguredDatabase(config);
    await migrateDatabase(db);
    try {
      expect(() => createApp(createRuntime(config, { db }))).toThrow(/must hold exactly 32 bytes .*restore it from the backup/);
      await expect(startWorker(db, config)).rejects.toThrow(/must hold exactly 32 bytes/);
    } finally {
      await db.connection.close();
    }
  });

  test("secrets an older Kontor stored in plaintext are sealed at start, once", async () => {
    const { org, token } = await env.newOrg();
    const url = hookUrl();
    const { id } = (await env.api("POST", "/api/v1/webhooks", { url, events: ["customer.created"] }, token)).body.data;
    const plaintext = `whsec_${"Q".repeat(44)}`;
    await rawSql(env.db).run("UPDATE webhooks SET secret = ? WHERE id = ?", plaintext, id); // as an older version stored it

    const server = await startServer(createRuntime({ ...env.config, port: 0, httpThreads: 1 }, { db: env.db }), { worker: false });
    await server.stop();
    const sealed = await storedSecret(env, id);
    expect(sealed).toStartWith("enc:v1:");
    expect(sealed).not.toContain("QQQQ");
    // every other secret was sealed already, and is left as it was; a second start changes nothing
    const all = () => rawSql(env.db).all("SELECT id, secret FROM webhooks ORDER BY id");
    const before = await all();
    const again = await startServer(createRuntime({ ...env.config, port: 0, httpThreads: 1 }, { db: env.db }), { worker: false });
    await again.stop();
    expect(await all()).toEqual(before);

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
