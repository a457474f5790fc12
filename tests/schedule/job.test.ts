/**
 * Scheduled runs once per period across servers (server/schedule/job.ts): two connections of
 * their own on one database stand for two servers (two files' connections on SQLite, two pools
 * on PostgreSQL); each fires the same period; one runs it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { scheduledRuns } from "../../db/schema.ts";
import { createLogger } from "../../server/log.ts";
import { openConfiguredDatabase } from "../../server/runtime.ts";
import { periodOf, scheduleJob, type JobSpec } from "../../server/schedule/job.ts";
import { createTestEnv } from "../helpers.ts";
import { onPostgres } from "../raw-sql.ts";

const env = await createTestEnv();
const other: Db = openConfiguredDatabase(env.config);
afterAll(async () => {
  await other.connection.close();
  await env.close();
});

const logged: string[] = [];
const log = createLogger({ format: "json", level: "debug" }, (line) => logged.push(line));
/** A job firing once a year (never during a test): the test fires it. */
const job = (db: Db, name: string, run: () => Promise<void>, extra: Partial<JobSpec> = {}) =>
  scheduleJob(db, { job: name, pattern: "0 0 1 1 *", period: "hour", run, log, ...extra });
const rowOf = async (name: string, period: string) =>
  (await env.db.select().from(scheduledRuns).where(and(eq(scheduledRuns.job, name), eq(scheduledRuns.period, period))))[0];

describe("a scheduled run", () => {
  test("two servers firing one period: one runs it, the other skips it (at once on PostgreSQL); the row says who and when it finished", async () => {
    let runs = 0;
    const work = async () => {
      runs++;
      await Bun.sleep(50);
    };
    const a = job(env.db, "test-once", work);
    const b = job(other, "test-once", work);
    const at = new Date("2026-11-27T09:05:00Z");
    // one after the other (two SQLite connections of one thread cannot wait for each other's
    // lock: it is waited for synchronously; two processes can, as two pools of PostgreSQL do below)
    expect(await a.fire(at)).toBe(true);
    expect(await b.fire(at)).toBe(false);
    expect(runs).toBe(1);
    const row = await rowOf("test-once", "2026-11-27T09");
    expect(row!.finishedAt! >= row!.startedAt).toBe(true);
    expect(row!.runBy).toMatch(new RegExp(`:${process.pid}:`));
    // the same period again, later in the hour: nothing
    expect(await a.fire(new Date("2026-11-27T09:59:59Z"))).toBe(false);
    expect(runs).toBe(1);
    // the next hour runs again, on whichever server fires first
    expect(await b.fire(new Date("2026-11-27T10:05:00Z"))).toBe(true);
    expect(runs).toBe(2);
    if (onPostgres) {
      // truly at once: two pools, two transactions; the write lock orders them, the key decides
      const fired = await Promise.all([a.fire(new Date("2026-11-27T11:05:00Z")), b.fire(new Date("2026-11-27T11:05:00Z"))]);
      expect(fired.filter(Boolean)).toHaveLength(1);
      expect(runs).toBe(3);
    }
    await Promise.all([a.stop(), b.stop()]);
  });

  test("a day's period is the UTC day; an hour's the UTC hour", () => {
    expect(periodOf(new Date("2026-11-27T23:59:59.999Z"), "day")).toBe("2026-11-27");
    expect(periodOf(new Date("2026-11-28T00:00:00Z"), "day")).toBe("2026-11-28");
    expect(periodOf(new Date("2026-11-27T09:59:59.999Z"), "hour")).toBe("2026-11-27T09");
    expect(periodOf(new Date("2026-11-27T10:00:00Z"), "hour")).toBe("2026-11-27T10");
  });

  test("a run that fails is logged and its period stays unfinished, not run again; the next period runs", async () => {
    logged.length = 0;
    let runs = 0;
    const failing = job(env.db, "test-failing", async () => {
      runs++;
      if (runs === 1) throw new Error("the disk is full");
    });
    expect(await failing.fire(new Date("2026-11-27T11:05:00Z"))).toBe(true);
    expect(logged.map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({ level: "error", msg: "a scheduled run failed (the next one tries again)", job: "test-failing", error: "the disk is full" }),
    ]);
    expect((await rowOf("test-failing", "2026-11-27T11"))!.finishedAt).toBeNull();
    expect(await failing.fire(new Date("2026-11-27T11:30:00Z"))).toBe(false);
    expect(await failing.fire(new Date("2026-11-27T12:05:00Z"))).toBe(true);
    expect(runs).toBe(2);
    expect((await rowOf("test-failing", "2026-11-27T12"))!.finishedAt).not.toBeNull();
    await failing.stop();
  });

  test("the run at start takes no period: every start catches up, and a stop waits for it", async () => {
    let finished = 0;
    const slow = async () => {
      await Bun.sleep(200);
      finished++;
    };
    const first = job(env.db, "test-start", slow, { atStart: true });
    const second = job(other, "test-start", slow, { atStart: true });
    const stopping = performance.now();
    await Promise.all([first.stop(), second.stop()]);
    expect(performance.now() - stopping).toBeGreaterThanOrEqual(150);
    expect(finished).toBe(2);
    expect(await env.db.select().from(scheduledRuns).where(eq(scheduledRuns.job, "test-start"))).toEqual([]);
  });

  test("a stop waits for a period's run in flight, and a stopped job fires no more", async () => {
    let finished = 0;
    const j = job(env.db, "test-stop", async () => {
      await Bun.sleep(200);
      finished++;
    });
    const firing = j.fire(new Date("2026-11-27T13:05:00Z"));
    await Bun.sleep(20);
    // the firing started by the test is awaited by the test; stop() waits for those the schedule started
    await j.stop();
    expect(await firing).toBe(true);
    expect(finished).toBe(1);
    expect(await j.fire(new Date("2026-11-27T14:05:00Z"))).toBe(false);
    expect(await rowOf("test-stop", "2026-11-27T14")).toBeUndefined();
  });

  test("rows of periods older than 30 days go when the job takes a new one", async () => {
    const j = job(env.db, "test-kept", async () => {});
    const old = new Date(Date.now() - 31 * 86_400_000);
    await env.db.insert(scheduledRuns).values({ job: "test-kept", period: periodOf(old, "hour"), runBy: "gone", startedAt: old.toISOString().replace("Z", "000Z"), finishedAt: null });
    await env.db.insert(scheduledRuns).values({ job: "test-other", period: periodOf(old, "hour"), runBy: "gone", startedAt: old.toISOString().replace("Z", "000Z"), finishedAt: null });
    expect(await j.fire()).toBe(true);
    expect((await env.db.select().from(scheduledRuns).where(eq(scheduledRuns.job, "test-kept"))).map((r) => r.period)).toEqual([periodOf(new Date(), "hour")]);
    // another job's rows are its own to drop
    expect(await env.db.select().from(scheduledRuns).where(eq(scheduledRuns.job, "test-other"))).toHaveLength(1);
    await j.stop();
  });
});
