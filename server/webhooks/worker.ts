/**
 * The webhook worker (docs/webhooks.md#the-worker), which also prunes the events feed of events older than its
 * retention (hourly): in-process in `kontor serve`, alone in `kontor worker`,
 * any number of them on one database. It wakes every second (croner), right after an enqueue
 * on any thread of the server (the connection's outbox signal), when a retry it scheduled falls due and when a slot
 * frees up; each time it claims as many due rows as it has free slots, so a claimed row is
 * sent at once and its lease only has to outlast one attempt. Each organisation has a share of
 * attempts it can always start, in slots kept for that beyond those anyone may use
 * (`organizationShare`, `reserve`): so one organisation's slow or dead receivers never hold up
 * another's deliveries, and an organisation alone still has the whole worker.
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
import { pruneEvents } from "../changes/feed.ts";
import type { Config } from "../config.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import { nowIso } from "../lib/time.ts";
import { claimDue, reconcileParking, recordOutcomes, releaseLeases, type Claim, type Outcome } from "./queue.ts";
import { sendAttempt } from "./send.ts";
import { openSecrets } from "./service.ts";

export type Worker = { stop: () => Promise<void> };

export type WorkerOptions = {
  /** attempts in flight at once, of any organisation (default 128) */
  concurrency?: number;
  /**
   * attempts an organisation may always start (default max(4, concurrency / 8)): beyond
   * `concurrency`, `reserve` more slots are kept for the organisations below their share, so one
   * organisation's slow or dead receivers, however many slots they hold, cannot hold up
   * another's deliveries, while an organisation alone still has the whole of `concurrency`
   */
  organizationShare?: number;
  /** the slots beyond `concurrency` kept for organisations below their share (default concurrency / 2) */
  reserve?: number;
  /** attempts in flight at once to one webhook (default 32): a slow endpoint cannot take every slot */
  perWebhookConcurrency?: number;
  /**
   * opens the webhooks' secrets; default: the key file of `config`, after sealing what an older
   * Kontor left in plaintext (`kontor worker`; `kontor serve` passes the box it opened)
   */
  secrets?: SecretBox;
  /**
   * how long `stop()` lets attempts in flight finish; default: the attempt timeout
   * (config.webhookTimeoutMs), so an attempt started just before the stop can still complete
   */
  graceMs?: number;
  log?: (line: string) => void;
  /** told each attempt's outcome (the server's /metrics counts them: server/metrics/server.ts) */
  onAttempt?: (outcome: "delivered" | "failed" | "interrupted") => void;
};

const TICK_MS = 1000;
/**
 * How often a claim looks past the backlog of the organisations at their share (a walk over
 * it, see queue.ts): the longest a row of an organisation with nothing in flight waits while
 * another organisation fills the worker.
 */
const SWEEP_MS = 200;
/**
 * A lease outlasts the attempt's own timeout by this much. Each attempt starts right after its
 * claim and is aborted at the timeout, so the margin only has to absorb a late timer; should a
 * lease still run out, the worst case is a second send, which at-least-once allows.
 */
const LEASE_MARGIN_MS = 2000;

export async function startWorker(db: Db, config: Config, options: WorkerOptions = {}): Promise<Worker> {
  const concurrency = options.concurrency ?? 128;
  const organizationShare = options.organizationShare ?? Math.max(4, Math.floor(concurrency / 8));
  const reserve = options.reserve ?? Math.floor(concurrency / 2);
  const perWebhookLimit = options.perWebhookConcurrency ?? 32;
  const secrets = options.secrets ?? (await openSecrets(db, config));
  const graceMs = options.graceMs ?? config.webhookTimeoutMs;
  const log = options.log ?? ((line: string) => console.error(line));
  const workerId = `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
  const leaseMs = config.webhookTimeoutMs + LEASE_MARGIN_MS;

  const inFlight = new Set<Promise<void>>();
  const inFlightByWebhook = new Map<string, number>();
  const inFlightByOrganization = new Map<string, number>();
  const shutdown = new AbortController();
  const wakeTimers = new Set<Timer>();
  let stopping = false;

  let pumpScheduled = false;
  /** a pump is claiming (its claim awaits a unit of work); one asked for meanwhile runs after it */
  let pumping = false;
  let sweepRequested = false;
  let lastSweep = 0;
  let sweepTimer: Timer | null = null;
  /** organisations whose attempts ended since the last claim */
  const ended = new Set<string>();
  /** `sweep`: the last claim swept and left rows behind, so the next one sweeps too */
  const schedulePump = (sweep = false) => {
    sweepRequested ||= sweep;
    if (pumpScheduled || stopping) return;
    pumpScheduled = true;
    setImmediate(pump);
  };

  function pump(): void {
    pumpScheduled = false;
    if (stopping) return;
    if (pumping) {
      schedulePumpAfterClaim = true;
      return;
    }
    pumping = true;
    void claimAndSend().finally(() => {
      pumping = false;
      if (schedulePumpAfterClaim) {
        schedulePumpAfterClaim = false;
        schedulePump();
      }
    });
  }
  let schedulePumpAfterClaim = false;

  async function claimAndSend(): Promise<void> {
    const sweep = sweepRequested || Date.now() - lastSweep >= SWEEP_MS;
    // a claim that may not sweep yet leaves a timer for the one that will: with every slot
    // held by stalled attempts, nothing else would come to look
    if (!sweep && sweepTimer === null) {
      sweepTimer = setTimeout(() => {
        sweepTimer = null;
        schedulePump(true);
      }, lastSweep + SWEEP_MS - Date.now());
    }
    const refill = [...ended].filter((id) => (inFlightByOrganization.get(id) ?? 0) < organizationShare);
    let claimed: Awaited<ReturnType<typeof claimDue>>;
    try {
      claimed = await claimDue(db, {
        workerId,
        limit: concurrency + reserve - inFlight.size,
        leaseMs,
        inFlightByWebhook,
        perWebhookLimit,
        inFlightByOrganization,
        organizationShare,
        reserve,
        refill,
        sweep,
      });
    } catch (error) {
      // e.g. the database stayed locked past busy_timeout: the next tick tries again
      log(`[kontor] webhook worker: claiming failed: ${(error as Error).message}`);
      return;
    }
    sweepRequested = false;
    ended.clear();
    if (sweep) lastSweep = Date.now();
    for (const claim of claimed.claims) send(claim);
    if (claimed.more) schedulePump(sweep);
  }

  function send(claim: Claim): void {
    count(inFlightByWebhook, claim.webhookId, 1);
    count(inFlightByOrganization, claim.organizationId, 1);
    const attemptedAt = nowIso();
    const attempt = sendAttempt(
      { deliveryId: claim.id, eventId: claim.eventId, webhookId: claim.webhookId, event: claim.event, payload: claim.payload, url: claim.url, secret: claim.secret },
      {
        timeoutMs: config.webhookTimeoutMs,
        allowPrivate: config.webhookAllowPrivate,
        allowHttp: config.webhookAllowHttp,
        secrets,
        shutdown: shutdown.signal,
      },
    )
      .then((result) => {
        options.onAttempt?.(result.interrupted ? "interrupted" : result.ok ? "delivered" : "failed");
        if (result.logDetail) log(`[kontor] webhook worker: delivery ${claim.id} of webhook ${claim.webhookId}: ${result.error} (${result.logDetail})`);
        record({ claim, result, attemptedAt });
      })
      // sendAttempt reports failures as results; anything else is a bug, and the row's lease
      // running out brings it back, so it is logged rather than allowed to end the process
      .catch((error) => log(`[kontor] webhook worker: delivery ${claim.id} failed unexpectedly: ${(error as Error)?.stack ?? error}`))
      .finally(() => {
        inFlight.delete(attempt);
        count(inFlightByWebhook, claim.webhookId, -1);
        count(inFlightByOrganization, claim.organizationId, -1);
        ended.add(claim.organizationId);
        schedulePump();
      });
    inFlight.add(attempt);
  }

  function count(counts: Map<string, number>, key: string, by: 1 | -1): void {
    const n = (counts.get(key) ?? 0) + by;
    if (n === 0) counts.delete(key);
    else counts.set(key, n);
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
  async function flush(): Promise<void> {
    flushScheduled = false;
    const batch = outcomes;
    outcomes = [];
    if (batch.length === 0) return;
    try {
      const retryAt = await recordOutcomes(db, workerId, batch, config);
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
    await reconcileParking(db);
  } catch (error) {
    log(`[kontor] webhook worker: parking the deliveries of inactive webhooks failed: ${(error as Error).message}`);
  }
  const cron = new Cron("* * * * * *", { protect: true }, () => schedulePump());
  // the events feed keeps KONTOR_EVENT_RETENTION_DAYS of events: older ones go at start and hourly
  const prune = async () => {
    try {
      await pruneEvents(db, config.eventRetentionDays);
    } catch (error) {
      log(`[kontor] webhook worker: pruning old events failed (the next hour tries again): ${(error as Error).message}`);
    }
  };
  const pruning = new Cron("0 * * * *", { protect: true }, prune);
  void prune();
  // deliveries queued by any thread of the server (they share the signal's memory)
  const unsubscribe = db.connection.outbox.subscribe(() => schedulePump());
  schedulePump();

  let stopped: Promise<void> | null = null;
  return {
    stop() {
      stopped ??= (async () => {
        stopping = true;
        cron.stop();
        pruning.stop();
        unsubscribe();
        for (const timer of wakeTimers) clearTimeout(timer);
        if (sweepTimer) clearTimeout(sweepTimer);
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
        await flush();
        try {
          await releaseLeases(db, workerId);
        } catch (error) {
          log(`[kontor] webhook worker: releasing leases failed (they run out by themselves): ${(error as Error).message}`);
        }
      })();
      return stopped;
    },
  };
}
