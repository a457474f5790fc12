/**
 * The webhook worker (contract 7.3): in-process in `kontor serve`, alone in `kontor worker`,
 * any number of them on one database. It wakes every second (croner), right after an enqueue
 * in this process (the outbox's nudge), when a retry it scheduled falls due and when a slot
 * frees up; each time it claims as many due rows as it has free slots, so a claimed row is
 * sent at once and its lease only has to outlast one attempt.
 *
 * At-least-once: a row is moved on only after its attempt; a worker that dies leaves its rows
 * leased, and they are claimed again when the lease runs out. `stop()` stops claiming at once
 * (synchronously, before it returns its promise), lets the attempts in flight finish (by default
 * for as long as an attempt may take, so a slow receiver is not cut off by a deploy), and hands
 * back the rows of those it had to cut short; each of those is logged as an interrupted attempt.
 */
import { Cron } from "croner";
import { hostname } from "node:os";
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import { nowIso } from "../lib/time.ts";
import { onEnqueue } from "./outbox.ts";
import { claimDue, reconcileParking, recordOutcomes, releaseLeases, type Claim, type Outcome } from "./queue.ts";
import { sendAttempt } from "./send.ts";

export type Worker = { stop: () => Promise<void> };

export type WorkerOptions = {
  /** attempts in flight at once (default 128) */
  concurrency?: number;
  /** attempts in flight at once to one webhook (default 32): a slow endpoint cannot take every slot */
  perWebhookConcurrency?: number;
  /**
   * how long `stop()` lets attempts in flight finish; default: the attempt timeout
   * (config.webhookTimeoutMs), so an attempt started just before the stop can still complete
   */
  graceMs?: number;
  log?: (line: string) => void;
};

const TICK_MS = 1000;
/**
 * A lease outlasts the attempt's own timeout by this much. Each attempt starts right after its
 * claim and is aborted at the timeout, so the margin only has to absorb a late timer; should a
 * lease still run out, the worst case is a second send, which at-least-once allows.
 */
const LEASE_MARGIN_MS = 2000;

export function startWorker(db: Db, config: Config, options: WorkerOptions = {}): Worker {
  const concurrency = options.concurrency ?? 128;
  const perWebhookLimit = options.perWebhookConcurrency ?? 32;
  const graceMs = options.graceMs ?? config.webhookTimeoutMs;
  const log = options.log ?? ((line: string) => console.error(line));
  const workerId = `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
  const leaseMs = config.webhookTimeoutMs + LEASE_MARGIN_MS;

  const inFlight = new Set<Promise<void>>();
  const inFlightByWebhook = new Map<string, number>();
  const shutdown = new AbortController();
  const wakeTimers = new Set<Timer>();
  let stopping = false;

  let pumpScheduled = false;
  const schedulePump = () => {
    if (pumpScheduled || stopping) return;
    pumpScheduled = true;
    setImmediate(pump);
  };

  function pump(): void {
    pumpScheduled = false;
    if (stopping) return;
    let claimed: ReturnType<typeof claimDue>;
    try {
      claimed = claimDue(db, { workerId, limit: concurrency - inFlight.size, leaseMs, inFlightByWebhook, perWebhookLimit });
    } catch (error) {
      // e.g. the database stayed locked past busy_timeout: the next tick tries again
      log(`[kontor] webhook worker: claiming failed: ${(error as Error).message}`);
      return;
    }
    for (const claim of claimed.claims) send(claim);
    if (claimed.more) schedulePump();
  }

  function send(claim: Claim): void {
    inFlightByWebhook.set(claim.webhookId, (inFlightByWebhook.get(claim.webhookId) ?? 0) + 1);
    const attemptedAt = nowIso();
    const attempt = sendAttempt(
      { deliveryId: claim.id, event: claim.event, payload: claim.payload, url: claim.url, secret: claim.secret },
      { timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivate, shutdown: shutdown.signal },
    )
      .then((result) => record({ claim, result, attemptedAt }))
      // sendAttempt reports failures as results; anything else is a bug, and the row's lease
      // running out brings it back, so it is logged rather than allowed to end the process
      .catch((error) => log(`[kontor] webhook worker: delivery ${claim.id} failed unexpectedly: ${(error as Error)?.stack ?? error}`))
      .finally(() => {
        inFlight.delete(attempt);
        const left = inFlightByWebhook.get(claim.webhookId)! - 1;
        if (left === 0) inFlightByWebhook.delete(claim.webhookId);
        else inFlightByWebhook.set(claim.webhookId, left);
        schedulePump();
      });
    inFlight.add(attempt);
  }

  // outcomes finishing in the same turn of the event loop are written in one transaction
  let outcomes: Outcome[] = [];
  let flushScheduled = false;
  function record(outcome: Outcome): void {
    outcomes.push(outcome);
    if (flushScheduled) return;
    flushScheduled = true;
    setImmediate(flush);
  }
  function flush(): void {
    flushScheduled = false;
    const batch = outcomes;
    outcomes = [];
    if (batch.length === 0) return;
    try {
      const retryAt = recordOutcomes(db, workerId, batch, config);
      if (retryAt !== null) wakeAt(retryAt);
    } catch (error) {
      // the rows stay leased to this worker; when the lease runs out they are sent again
      log(`[kontor] webhook worker: recording ${batch.length} attempt(s) failed: ${(error as Error).message}`);
    }
  }

  /** Retries due before the next tick (short test back-offs) get a timer of their own. */
  function wakeAt(at: number): void {
    const delay = at - Date.now();
    if (stopping || delay >= TICK_MS) return;
    const timer = setTimeout(() => {
      wakeTimers.delete(timer);
      schedulePump();
    }, Math.max(0, delay));
    wakeTimers.add(timer);
  }

  try {
    // rows an older Kontor left due for inactive webhooks would slow every claim (queue.ts)
    reconcileParking(db);
  } catch (error) {
    log(`[kontor] webhook worker: parking the deliveries of inactive webhooks failed: ${(error as Error).message}`);
  }
  const cron = new Cron("* * * * * *", { protect: true }, schedulePump);
  const unsubscribe = onEnqueue(schedulePump);
  schedulePump();

  let stopped: Promise<void> | null = null;
  return {
    stop() {
      stopped ??= (async () => {
        stopping = true;
        cron.stop();
        unsubscribe();
        for (const timer of wakeTimers) clearTimeout(timer);
        const drained = Promise.allSettled([...inFlight]);
        let graceTimer: Timer | undefined;
        const finishedInTime = await Promise.race([
          drained.then(() => true),
          new Promise<boolean>((resolve) => (graceTimer = setTimeout(() => resolve(false), graceMs))),
        ]);
        clearTimeout(graceTimer);
        if (!finishedInTime) {
          shutdown.abort();
          await drained;
        }
        flush();
        try {
          releaseLeases(db, workerId);
        } catch (error) {
          log(`[kontor] webhook worker: releasing leases failed (they run out by themselves): ${(error as Error).message}`);
        }
      })();
      return stopped;
    },
  };
}
