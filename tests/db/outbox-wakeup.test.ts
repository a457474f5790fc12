/**
 * Waking the workers of other processes (db/outbox-signal.ts): on PostgreSQL a unit that queued
 * deliveries notifies with its commit, and a connection of another process whose worker listens
 * looks for work at once, not at its next tick. Two pools on one database stand for two
 * processes (they share no memory). Needs a PostgreSQL server (KONTOR_TEST_DATABASE_URL).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { unitOfWork, type Db } from "../../db/client.ts";
import { openPostgres } from "../../db/postgres/connection.ts";
import { migrateDatabase } from "../../server/data-migrations.ts";
import { freshPostgresDatabase, TEST_DATABASE_URL } from "../postgres-database.ts";

describe.skipIf(TEST_DATABASE_URL === null)("the outbox's wake-up across processes", () => {
  let database: Awaited<ReturnType<typeof freshPostgresDatabase>>;
  let server: Db;
  let worker: Db;
  let wakes = 0;
  let stop: () => void;

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    server = openPostgres(database.url, { max: 2 });
    worker = openPostgres(database.url, { max: 2 });
    await migrateDatabase(server);
    stop = worker.connection.outbox.subscribe(() => wakes++);
    // the LISTEN is acknowledged on a connection of its own
    await worker.connection.outbox.listening();
  });
  afterAll(async () => {
    stop?.();
    await server?.connection.close();
    await worker?.connection.close();
    await database?.drop();
  });

  /** Whether a wake-up comes within `withinMs` after the count `before` (taken before what should wake: the notification may arrive before the commit's own answer does). */
  const woken = async (withinMs: number, before = wakes) => {
    const deadline = Date.now() + withinMs;
    while (wakes === before && Date.now() < deadline) await Bun.sleep(10);
    return wakes > before;
  };

  test("a commit that queued deliveries wakes the other process's worker; not before the commit", async () => {
    const before = wakes;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const unit = unitOfWork(server, async (tx) => {
      tx.connection.outbox.queued();
      await held;
    });
    // queued but not committed: nothing to find yet, and no wake-up
    await Bun.sleep(300);
    expect(wakes).toBe(before);
    release();
    await unit;
    expect(await woken(5_000, before)).toBe(true);
  });

  test("a unit that rolled back wakes no one; one that queued nothing neither", async () => {
    const before = wakes;
    await unitOfWork(server, async (tx) => {
      tx.connection.outbox.queued();
      throw new Error("refused");
    }).catch(() => {});
    expect(await woken(500, before)).toBe(false);
    await unitOfWork(server, async () => {});
    expect(await woken(500, before)).toBe(false);
  });
});
