/**
 * The outbox worker's loop (server/outbox/worker.ts), the part every channel shares: slots,
 * claims, the batches of outcomes, wake-ups, retries before the next tick, and the stop. Driven
 * here through a channel of this test whose rows are in memory, on the suite's database (whose
 * outbox signal wakes the worker); the channels themselves are tested by feature
 * (tests/webhooks/, tests/sending/).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { retryDelay, startOutboxWorker, type Attempt, type OutboxChannel } from "../../server/outbox/worker.ts";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

type Row = { id: string };
type Result = { ok: boolean; aborted: boolean };

/** A channel over `due` (ids), with hooks for what a test wants to see or hold back. */
function testChannel(due: string[], overrides: Partial<OutboxChannel<Row, Result>> = {}) {
  const seen = { inFlight: 0, mostInFlight: 0, claims: [] as number[], recorded: [] as Attempt<Row, Result>[][], released: [] as string[], events: [] as string[] };
  const channel: OutboxChannel<Row, Result> = {
    name: "test",
    slots: 3,
    leaseMs: 60_000,
    graceMs: 1000,
    async claim(_db, request) {
      seen.claims.push(Date.now());
      const rows = due.filter((id) => !request.sending.has(id)).slice(0, request.free);
      for (const row of rows) due.splice(due.indexOf(row), 1);
      return { rows: rows.map((id) => ({ id })), more: false };
    },
    async deliver() {
      await Bun.sleep(20);
      return { ok: true, aborted: false };
    },
    async record(_db, _workerId, attempts) {
      seen.events.push(`record ${attempts.map((a) => a.row.id).join(",")}`);
      seen.recorded.push(attempts);
      return null;
    },
    async release(_db, workerId) {
      seen.events.push("release");
      seen.released.push(workerId);
    },
    started() {
      seen.inFlight++;
      seen.mostInFlight = Math.max(seen.mostInFlight, seen.inFlight);
    },
    ended() {
      seen.inFlight--;
    },
    ...overrides,
  };
  return { channel, seen };
}

const until = async (done: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error("timed out");
    await Bun.sleep(5);
  }
};

describe("the outbox worker", () => {
  test("never more attempts in flight than the channel's slots; every row delivered once and recorded; leases handed back at stop", async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `row-${i}`);
    const { channel, seen } = testChannel([...ids]);
    const worker = startOutboxWorker(env.db, [channel], { log: () => {} });
    await until(() => seen.recorded.flat().length === 10);
    await worker.stop();
    expect(seen.mostInFlight).toBe(3);
    expect(seen.recorded.flat().map((a) => a.row.id).sort()).toEqual([...ids].sort());
    for (const a of seen.recorded.flat()) {
      expect(a.result).toEqual({ ok: true, aborted: false });
      expect(a.durationMs).toBeGreaterThanOrEqual(15);
      expect(a.attemptedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
    expect(seen.events.at(-1)).toBe("release");
    expect(seen.released).toHaveLength(1);
  });

  test("two channels, one worker: each its own slots and rows, one worker id for both leases", async () => {
    const a = testChannel(["a1", "a2", "a3", "a4"], { slots: 1 });
    const b = testChannel(["b1", "b2", "b3", "b4"], { slots: 4 });
    const worker = startOutboxWorker(env.db, [a.channel, b.channel], { log: () => {} });
    await until(() => a.seen.recorded.flat().length === 4 && b.seen.recorded.flat().length === 4);
    await worker.stop();
    expect(a.seen.mostInFlight).toBe(1);
    expect(b.seen.mostInFlight).toBe(4);
    expect(a.seen.released[0]).toBe(b.seen.released[0]!);
  });

  test("a stop aborts what outlives the grace, records it, then hands back the leases; a channel with an endless grace is waited for", async () => {
    const aborted = testChannel(["stuck"], {
      graceMs: 50,
      deliver: (_row, shutdown) => new Promise((resolve) => shutdown.addEventListener("abort", () => resolve({ ok: false, aborted: true }))),
    });
    const waited = testChannel(["slow"], {
      graceMs: Infinity,
      deliver: async (_row, shutdown) => {
        await Bun.sleep(300);
        return { ok: true, aborted: shutdown.aborted };
      },
    });
    const worker = startOutboxWorker(env.db, [aborted.channel, waited.channel], { log: () => {} });
    await until(() => aborted.seen.inFlight === 1 && waited.seen.inFlight === 1);
    const started = performance.now();
    await worker.stop();
    // the slow one was waited for whole (300 ms), though the other's grace ended at 50 ms and aborted its attempt
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(waited.seen.recorded.flat().map((a) => a.result)).toEqual([{ ok: true, aborted: false }]);
    expect(aborted.seen.recorded.flat().map((a) => a.result)).toEqual([{ ok: false, aborted: true }]);
    for (const { seen } of [aborted, waited]) expect(seen.events).toEqual([`record ${seen.recorded[0]![0]!.row.id}`, "release"]);
  });

  test("claiming stops when stop() returns its promise: no claim after it", async () => {
    const { channel, seen } = testChannel([]);
    const worker = startOutboxWorker(env.db, [channel], { log: () => {} });
    await until(() => seen.claims.length >= 1);
    const stopping = worker.stop();
    const claims = seen.claims.length;
    await stopping;
    await Bun.sleep(1200);
    expect(seen.claims.length).toBe(claims);
  });

  test("a row stays in hand from its claim until its outcome is written: a lease run out meanwhile does not make this worker deliver it twice", async () => {
    const due = ["slow-record"];
    const delivered: number[] = [];
    let recordedAt = 0;
    const { channel, seen } = testChannel(due, {
      async deliver(row) {
        delivered.push(Date.now());
        // the row's lease runs out before its outcome is written: due again for everyone
        due.push(row.id);
        return { ok: true, aborted: false };
      },
      async record(_db, _workerId, attempts) {
        await Bun.sleep(300);
        recordedAt = Date.now();
        seen.recorded.push(attempts);
        due.length = 0; // written: done
        return null;
      },
    });
    const worker = startOutboxWorker(env.db, [channel], { log: () => {} });
    await until(() => seen.recorded.length === 1);
    await Bun.sleep(100);
    await worker.stop();
    expect(delivered).toHaveLength(1);
    expect(recordedAt).toBeGreaterThan(0);
  });

  test("a claim under way when the stop comes delivers nothing; its rows are handed back after it", async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { channel, seen } = testChannel([], {});
    let claims = 0;
    channel.claim = async () => {
      claims++;
      if (claims === 1) return { rows: [], more: false };
      seen.events.push("claim started");
      await gate;
      seen.events.push("claim returned");
      return { rows: [{ id: "claimed-late" }], more: false };
    };
    const worker = startOutboxWorker(env.db, [channel], { log: () => {} });
    await until(() => claims >= 1);
    worker.poke();
    await until(() => seen.events.includes("claim started"));
    const stopped = worker.stop();
    await Bun.sleep(50);
    expect(seen.events).toEqual(["claim started"]);
    open();
    await stopped;
    expect(seen.events).toEqual(["claim started", "claim returned", "release"]);
    expect(seen.mostInFlight).toBe(0);
  });

  test("a retry due before the next tick is claimed at its time, not at the tick", async () => {
    let tries = 0;
    const due: string[] = [];
    const { channel, seen } = testChannel(due, {
      async deliver() {
        tries++;
        return { ok: tries > 1, aborted: false };
      },
      async record(_db, _workerId, attempts) {
        seen.recorded.push(attempts);
        if (attempts[0]!.result.ok) return null;
        // what the channel's table does: due again at the retry (just before the time it names)
        setTimeout(() => due.push("flaky"), 80);
        return Date.now() + 100;
      },
    });
    const worker = startOutboxWorker(env.db, [channel], { log: () => {} });
    // just after a tick's claim: the next tick is most of a second away
    await until(() => seen.claims.length >= 1);
    const claims = seen.claims.length;
    await until(() => seen.claims.length > claims, 2000);
    due.push("flaky");
    env.db.connection.outbox.wake();
    await until(() => seen.recorded.length === 1);
    const failedAt = Date.now();
    await until(() => seen.recorded.length === 2);
    await worker.stop();
    const retriedAfter = Date.now() - failedAt;
    expect(retriedAfter).toBeGreaterThanOrEqual(90);
    expect(retriedAfter).toBeLessThan(500);
  });

  test("a commit that queued something wakes every channel at once, between ticks", async () => {
    const due: string[] = [];
    const { channel, seen } = testChannel(due);
    const worker = startOutboxWorker(env.db, [channel], { log: () => {} });
    await until(() => seen.claims.length >= 1);
    // just after a tick's claim, so that the next tick is most of a second away
    const claims = seen.claims.length;
    await until(() => seen.claims.length > claims, 2000);
    due.push("woken");
    const queuedAt = Date.now();
    env.db.connection.outbox.wake();
    await until(() => seen.recorded.length === 1);
    await worker.stop();
    expect(Date.now() - queuedAt).toBeLessThan(500);
  });

  test("a claim or a record that throws is logged, and the worker goes on", async () => {
    let failClaim = true;
    const logged: string[] = [];
    const { channel, seen } = testChannel(["r1"], {});
    const claim = channel.claim;
    channel.claim = async (db, request) => {
      if (failClaim) {
        failClaim = false;
        throw new Error("database is locked");
      }
      return await claim(db, request);
    };
    channel.record = async () => {
      seen.events.push("record");
      throw new Error("disk I/O error");
    };
    const worker = startOutboxWorker(env.db, [channel], { log: (line) => logged.push(line) });
    await until(() => seen.events.includes("record"), 3000);
    await worker.stop();
    expect(logged[0]).toBe("[kontor] test worker: claiming failed (the next tick tries again): database is locked");
    expect(logged).toContain("[kontor] test worker: recording 1 attempt(s) failed: disk I/O error");
    expect(seen.events.at(-1)).toBe("release");
  });
});

describe("retryDelay", () => {
  const policy = { backoffMs: [1000, 5000, 30000], maxAttempts: 5 };
  test("the n-th step after n attempts, the last step repeated, none once the attempts are used up", () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, policy))).toEqual([1000, 5000, 30000, 30000]);
    expect(retryDelay(5, policy)).toBeNull();
    expect(retryDelay(6, policy)).toBeNull();
    expect(retryDelay(1, { backoffMs: [], maxAttempts: 2 })).toBe(0);
  });
});
