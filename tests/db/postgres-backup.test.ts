/**
 * The backup docs/operations.md#running-on-postgresql names: `pg_dump --format=custom` restored
 * with `pg_restore` into an empty database gives a database Kontor serves as before, its search
 * included (the search indexes' functions must resolve whatever search path a restore runs
 * with). Needs a PostgreSQL server (KONTOR_TEST_DATABASE_URL) and its client tools.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createTestEnv, type TestEnv } from "../helpers.ts";
import { freshPostgresDatabase, TEST_DATABASE_URL } from "../postgres-database.ts";
import { openPostgres } from "../../db/postgres/connection.ts";
import { createApp } from "../../server/app.ts";
import { createRuntime } from "../../server/runtime.ts";
import { silentLogger } from "../../server/log.ts";

/** PostgreSQL's own client tools of the newest installed version (Debian keeps them per version). */
function tool(name: string): string | null {
  try {
    const version = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a))[0];
    return version ? join("/usr/lib/postgresql", version, "bin", name) : null;
  } catch {
    return null;
  }
}

describe.skipIf(TEST_DATABASE_URL === null || tool("pg_dump") === null)("pg_dump and pg_restore", () => {
  let env: TestEnv;
  let restored: Awaited<ReturnType<typeof freshPostgresDatabase>> | null = null;
  afterAll(async () => {
    await env?.close();
    await restored?.drop();
  });

  test("a restored database answers as the one dumped, its search included", async () => {
    env = await createTestEnv();
    expect((await env.api("POST", "/api/v1/customers", { name: "Brasserie Ömer BV" })).status).toBe(201);
    const before = (await env.api("GET", "/api/v1/customers?search=omer")).body.data.map((c: { id: string }) => c.id);
    expect(before).toHaveLength(1);

    const file = join(env.dir, "kontor.dump");
    const dump = Bun.spawnSync([tool("pg_dump")!, "--format=custom", "--file", file, "--dbname", env.config.databaseUrl!]);
    expect(dump.exitCode, dump.stderr.toString()).toBe(0);
    // an empty database to restore into: the test template's copy, emptied of everything
    restored = await freshPostgresDatabase();
    const empty = new URL(restored.url);
    const admin = Bun.spawnSync([tool("psql")!, "--dbname", empty.toString(), "-v", "ON_ERROR_STOP=1", "-c", "DROP SCHEMA public CASCADE; CREATE SCHEMA public;"]);
    expect(admin.exitCode, admin.stderr.toString()).toBe(0);
    const restore = Bun.spawnSync([tool("pg_restore")!, "--exit-on-error", "--no-owner", "--dbname", empty.toString(), file]);
    expect(restore.exitCode, restore.stderr.toString()).toBe(0);

    const db = openPostgres(restored.url, { max: 2 });
    try {
      const app = createApp(createRuntime(env.config, { db, log: silentLogger }));
      const r = await app.handle(new Request("http://localhost/api/v1/customers?search=omer", { headers: { authorization: `Bearer ${env.token}` } }));
      expect(r.status).toBe(200);
      expect(((await r.json()) as { data: { id: string }[] }).data.map((c) => c.id)).toEqual(before);
    } finally {
      await db.connection.close();
    }
  }, 60_000);
});
