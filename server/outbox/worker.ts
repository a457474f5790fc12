/**
 * The outbox worker (docs/architecture.md#the-outbox-worker): one loop for every channel that
 * delivers what a unit of work queued (webhooks, documents by e-mail and Peppol), in
 * `kontor serve` and alone in `kontor worker`, any number of them on one database.
 *
 * Written once here: when to claim, leases, attempts in flight, backoff, batching of outcomes,
 * wake-ups and stopping. A channel (server/webhooks/worker.ts, server/sending/worker.ts) says
 * which of its rows are due and claims them under this worker's lease, delivers one row, and
 * writes the outcomes.
 *
 * - Claims. Each channel has `slots` attempts in flight at most; a claim asks for the free ones
 *   and may leave out the rows this worker has in hand (delivering, or its outcome not yet
 *   written), which it may claim again only after that. It runs in a write unit (SQLite's
 *   `BEGIN IMMEDIATE`, PostgreSQL's write lock: docs/architecture.md#two-engines), so two workers'
 *   claims take turns and the second sees the first's leases.
 * - Leases. A claimed row carries `leased_by` (this worker) and `lease_until`; only the holder of
 *   both moves it on. A worker that dies leaves its rows leased: they are claimed again when the
 *   lease runs out, so delivery is at least once, never lost.
 * - Wake-ups. A tick each second (the fallback), the connection's outbox signal (a commit that
 *   queued something, on any thread, and on PostgreSQL on any server: NOTIFY), a slot that frees
 *   up, and a retry due before the next tick. A wake-up only asks for a claim: the claim is the truth.
 * - Stop. Claiming stops at once; attempts in flight have the channel's `graceMs` to finish and
 *   are then aborted (a channel that must not be cut short says Infinity); outcomes are written
 *   and leases handed back, so those rows are due again at once.
 */
import { Cron } from "croner";
import type { Db } from "../../db/client.ts";
import { holderTag, nowIso } from "../lib/time.ts";

/** What one claim may take, and how to ask for another one later. */
export type ClaimRequest = {
  workerId: string;
  /** free slots: rows claimed at most */
  free: number;
  /** the lease a claimed row is given: now + leaseMs */
  leaseMs: number;
  /**
   * rows this worker has in hand, from their claim until their outcome is written: a channel
   * leaves them out, so that a lease run out meanwhile does not make this worker deliver one twice
   */
  sending: ReadonlySet<string>;
  /** asks for a claim of this channel after `ms` (a channel's own pacing) */
  claimAgainIn: (ms: number) => void;
};

/** One attempt's outcome, as the channel's `record` receives it. */
export type Attempt<Row, Result> = { row: Row; result: Result; attemptedAt: string; durationMs: number };

export type OutboxChannel<Row extends { id: string }, Result> = {
  /** in log lines: "[kontor] <name> worker: …" */
  name: string;
  /** attempts in flight at once */
  slots: number;
  /** a lease outlasts one attempt, which starts right after its claim */
  leaseMs: number;
  /** how long stop() lets attempts in flight finish before it aborts them; Infinity: never aborted */
  graceMs: number;
  /** claims due rows under this worker's lease; `more`: a new claim may find more at once */
  claim(db: Db, request: ClaimRequest): Promise<{ rows: Row[]; more: boolean }>;
  /** delivers one row; never throws (what went wrong is its result); `shutdown` aborts it */
  deliver(row: Row, shutdown: AbortSignal): Promise<Result>;
  /**
   * writes outcomes (those that finished in one turn of the event loop come together) and moves
   * the rows on where this worker still holds their lease; returns the earliest retry it
   * scheduled (epoch ms) or null
   */
  record(db: Db, workerId: string, attempts: Attempt<Row, Result>[]): Promise<number | null>;
  /** hands back the leases this worker still holds (at stop) */
  release(db: Db, workerId: string): Promise<void>;
  /** told when a row's attempt starts and when it ends (a channel's own counts for its claims) */
  started?(row: Row): void;
  ended?(row: Row): void;
};

export type OutboxWorker = {
  stop: () => Promise<void>;
  /** asks every channel for a claim now */
  poke: () => void;
};

/** The delay before the next attempt after `attemptsMade` (1, 2, …), or null when none is left: the n-th step of `backoffMs`, its last repeated. */
export function retryDelay(attemptsMade: number, policy: { backoffMs: readonly number[]; maxAttempts: number }): number | null {
  if (attemptsMade >= policy.maxAttempts) return null;
  const steps = policy.backoffMs;
  return steps[Math.min(attemptsMade, steps.length) - 1] ?? 0;
}

const TICK_MS = 1000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyChannel = OutboxChannel<any, any>;

export function startOutboxWorker(db: Db, channels: AnyChannel[], options: { log?: (line: string) => void } = {}): OutboxWorker {
  const log = options.log ?? ((line: string) => console.error(line));
  const workerId = holderTag();
  const lanes = channels.map((channel) => lane(db, channel, workerId, log));
  const poke = () => {
    for (const l of lanes) l.schedule();
  };
  const tick = new Cron("* * * * * *", { protect: true }, poke);
  const unsubscribe = db.connection.outbox.subscribe(poke);
  poke();

  let stopped: Promise<void> | null = null;
  return {
    poke,
    stop() {
      // claiming stops now, before the promise is returned
      stopped ??= (tick.stop(), unsubscribe(), lanes.forEach((l) => l.stopClaiming()), Promise.allSettled(lanes.map((l) => l.finish())).then(() => undefined));
      return stopped;
    },
  };
}

type Lane = { schedule: () => void; stopClaiming: () => void; finish: () => Promise<void> };

/** One channel's claims and attempts; its attempts are aborted when its own grace has run out. */
function lane(db: Db, channel: AnyChannel, workerId: string, log: (line: string) => void): Lane {
  const say = (line: string) => log(`[kontor] ${channel.name} worker: ${line}`);
  const shutdown = new AbortController();
  const inFlight = new Set<Promise<void>>();
  const sending = new Set<string>();
  const timers = new Set<Timer>();
  let stopping = false;
  let scheduled = false;
  /** the claim running (it awaits a unit of work); one asked for meanwhile runs after it */
  let claiming: Promise<void> | null = null;
  let claimAfter = false;

  const schedule = () => {
    if (scheduled || stopping) return;
    scheduled = true;
    setImmediate(run);
  };
  const after = (ms: number) => {
    if (stopping) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      schedule();
    }, Math.max(0, ms));
    timers.add(timer);
  };

  function run(): void {
    scheduled = false;
    if (stopping) return;
    if (claiming) {
      claimAfter = true;
      return;
    }
    claiming = claimAndDeliver().finally(() => {
      claiming = null;
      if (claimAfter) {
        claimAfter = false;
        schedule();
      }
    });
  }

  async function claimAndDeliver(): Promise<void> {
    const free = channel.slots - inFlight.size;
    if (free <= 0) return;
    let claimed: { rows: { id: string }[]; more: boolean };
    try {
      claimed = await channel.claim(db, { workerId, free, leaseMs: channel.leaseMs, sending, claimAgainIn: after });
    } catch (error) {
      // e.g. the database stayed locked past its busy timeout: the next tick tries again
      say(`claiming failed (the next tick tries again): ${(error as Error).message}`);
      return;
    }
    // claimed while stopping: not delivered; the stop hands their leases back once this claim is over
    if (stopping) return;
    for (const row of claimed.rows) deliver(row);
    if (claimed.more) schedule();
  }

  function deliver(row: { id: string }): void {
    sending.add(row.id);
    channel.started?.(row);
    const attemptedAt = nowIso();
    const started = performance.now();
    const attempt = channel
      .deliver(row, shutdown.signal)
      .then((result) => record({ row, result, attemptedAt, durationMs: Math.round(performance.now() - started) }), (error) => {
        sending.delete(row.id);
        throw error;
      })
      // a channel reports failures as results; anything else is a bug, and the row's lease
      // running out brings it back, so it is logged rather than allowed to end the process
      .catch((error) => say(`delivery ${row.id} failed unexpectedly: ${(error as Error)?.stack ?? error}`))
      .finally(() => {
        inFlight.delete(attempt);
        channel.ended?.(row);
        schedule();
      });
    inFlight.add(attempt);
  }

  // outcomes finishing in the same turn of the event loop are written together, one batch after another
  let outcomes: Attempt<unknown, unknown>[] = [];
  let flushScheduled = false;
  let written: Promise<void> = Promise.resolve();
  function record(outcome: Attempt<unknown, unknown>): void {
    outcomes.push(outcome);
    if (flushScheduled) return;
    flushScheduled = true;
    written = written.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(flush);
  }
  async function flush(): Promise<void> {
    flushScheduled = false;
    const batch = outcomes;
    outcomes = [];
    if (batch.length === 0) return;
    try {
      const retryAt = await channel.record(db, workerId, batch);
      // a retry due before the next tick (short back-offs) gets a timer of its own
      if (retryAt !== null && retryAt - Date.now() < TICK_MS) after(retryAt - Date.now());
    } catch (error) {
      // the rows stay leased to this worker; when the lease runs out they are delivered again
      say(`recording ${batch.length} attempt(s) failed: ${(error as Error).message}`);
    } finally {
      for (const { row } of batch) sending.delete((row as { id: string }).id);
    }
  }

  return {
    schedule,
    stopClaiming() {
      stopping = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
    async finish() {
      // a claim under way when the stop came delivers nothing; its rows are handed back below
      await claiming;
      const drained = Promise.allSettled([...inFlight]);
      if (channel.graceMs === Infinity) await drained;
      else {
        let graceTimer: Timer | undefined;
        const inTime = await Promise.race([drained.then(() => true), new Promise<boolean>((resolve) => (graceTimer = setTimeout(() => resolve(false), channel.graceMs)))]);
        clearTimeout(graceTimer);
        if (!inTime) {
          shutdown.abort();
          await drained;
        }
      }
      // every outcome is written before the leases still held are handed back
      await written;
      try {
        await channel.release(db, workerId);
      } catch (error) {
        say(`releasing leases failed (they run out by themselves): ${(error as Error).message}`);
      }
    },
  };
}
