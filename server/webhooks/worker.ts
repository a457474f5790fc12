/**
 * The webhook channel of the outbox worker (server/outbox/worker.ts; docs/webhooks.md#the-worker):
 * claims due webhook deliveries (queue.ts), POSTs each signed (send.ts), and writes the attempts.
 * Each organisation has a share of attempts it can always start, in slots kept for that beyond
 * those anyone may use (`organizationShare`, `reserve`): so one organisation's slow or dead
 * receivers never hold up another's deliveries, and an organisation alone still has the whole
 * worker. A stop lets attempts in flight finish for as long as an attempt may take (so a deploy
 * does not cut a slow receiver off), then aborts them: each is logged as an interrupted attempt,
 * not counted, and its row handed back.
 */
import type { Db } from "../../db/client.ts";
import type { Config } from "../config.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import { startOutboxWorker, type OutboxChannel, type OutboxWorker } from "../outbox/worker.ts";
import { claimDue, reconcileParking, recordOutcomes, releaseLeases, type Claim } from "./queue.ts";
import { sendAttempt, type AttemptResult } from "./send.ts";
import { openSecrets } from "./service.ts";

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
   * how long a stop lets attempts in flight finish; default: the attempt timeout
   * (config.webhookTimeoutMs), so an attempt started just before the stop can still complete
   */
  graceMs?: number;
  log?: (line: string) => void;
  /** told each attempt's outcome (the server's /metrics counts them: server/metrics/server.ts) */
  onAttempt?: (outcome: "delivered" | "failed" | "interrupted") => void;
};

/**
 * How often a claim looks past the backlog of the organisations at their share (a walk over
 * it, see queue.ts): the longest a row of an organisation with nothing in flight waits while
 * another organisation fills the worker.
 */
const SWEEP_MS = 200;
const TIMER_SLACK_MS = 2;
/**
 * A lease outlasts the attempt's own timeout by this much. Each attempt starts right after its
 * claim and is aborted at the timeout, so the margin only has to absorb a late timer; should a
 * lease still run out, the worst case is a second send, which at-least-once allows.
 */
const LEASE_MARGIN_MS = 2000;

export async function webhookChannel(db: Db, config: Config, options: WorkerOptions = {}): Promise<OutboxChannel<Claim, AttemptResult>> {
  const concurrency = options.concurrency ?? 128;
  const organizationShare = options.organizationShare ?? Math.max(4, Math.floor(concurrency / 8));
  const reserve = options.reserve ?? Math.floor(concurrency / 2);
  const perWebhookLimit = options.perWebhookConcurrency ?? 32;
  const secrets = options.secrets ?? (await openSecrets(db, config));
  const log = options.log ?? ((line: string) => console.error(line));
  const policy = { backoffMs: config.webhookBackoffMs, maxAttempts: config.webhookMaxAttempts };
  try {
    // rows an older Kontor left due for inactive webhooks would slow every claim (queue.ts)
    await reconcileParking(db);
  } catch (error) {
    log(`[kontor] webhook worker: parking the deliveries of inactive webhooks failed: ${(error as Error).message}`);
  }

  const inFlightByWebhook = new Map<string, number>();
  const inFlightByOrganization = new Map<string, number>();
  /** organisations whose attempts ended since the last claim */
  const ended = new Set<string>();
  let lastSweep = -SWEEP_MS;
  /** the last claim swept and left rows behind: the next one sweeps too */
  let sweepNext = false;
  /** when the claim asked for to sweep comes (performance.now(); past: none is still to come) */
  let sweepAskedAt = 0;
  const count = (counts: Map<string, number>, key: string, by: 1 | -1) => {
    const n = (counts.get(key) ?? 0) + by;
    if (n === 0) counts.delete(key);
    else counts.set(key, n);
  };

  return {
    name: "webhook",
    slots: concurrency + reserve,
    leaseMs: config.webhookTimeoutMs + LEASE_MARGIN_MS,
    graceMs: options.graceMs ?? config.webhookTimeoutMs,
    async claim(db, request) {
      // a monotonic clock (a wall clock set back would hold sweeps off), with room for a timer that fires a little early
      const now = performance.now();
      const sweep = sweepNext || now - lastSweep >= SWEEP_MS - TIMER_SLACK_MS;
      // a claim that may not sweep yet asks for the one that will: with every slot held by
      // stalled attempts, nothing else would come to look
      if (!sweep && sweepAskedAt <= now) {
        sweepAskedAt = lastSweep + SWEEP_MS;
        request.claimAgainIn(sweepAskedAt - now);
      }
      // organisations whose attempts end while this claim runs are the next claim's refill
      const refill = [...ended].filter((id) => (inFlightByOrganization.get(id) ?? 0) < organizationShare);
      ended.clear();
      const claimed = await claimDue(db, {
        workerId: request.workerId,
        limit: request.free,
        leaseMs: request.leaseMs,
        inFlightByWebhook,
        perWebhookLimit,
        inFlightByOrganization,
        organizationShare,
        reserve,
        refill,
        sweep,
      });
      if (sweep) lastSweep = performance.now();
      sweepNext = sweep && claimed.more;
      return { rows: claimed.claims, more: claimed.more };
    },
    async deliver(claim, shutdown) {
      const result = await sendAttempt(
        { deliveryId: claim.id, eventId: claim.eventId, webhookId: claim.webhookId, event: claim.event, payload: claim.payload, url: claim.url, secret: claim.secret },
        { timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivate, allowHttp: config.webhookAllowHttp, secrets, shutdown },
      );
      options.onAttempt?.(result.interrupted ? "interrupted" : result.ok ? "delivered" : "failed");
      if (result.logDetail) log(`[kontor] webhook worker: delivery ${claim.id} of webhook ${claim.webhookId}: ${result.error} (${result.logDetail})`);
      return result;
    },
    record: async (db, workerId, attempts) => await recordOutcomes(db, workerId, attempts.map(({ row, result, attemptedAt }) => ({ claim: row, result, attemptedAt })), policy),
    async release(db, workerId) {
      await releaseLeases(db, workerId);
    },
    started(claim) {
      count(inFlightByWebhook, claim.webhookId, 1);
      count(inFlightByOrganization, claim.organizationId, 1);
    },
    ended(claim) {
      count(inFlightByWebhook, claim.webhookId, -1);
      count(inFlightByOrganization, claim.organizationId, -1);
      ended.add(claim.organizationId);
    },
  };
}

/** An outbox worker with the webhook channel alone (tests, the webhook bench). */
export async function startWorker(db: Db, config: Config, options: WorkerOptions = {}): Promise<OutboxWorker> {
  return startOutboxWorker(db, [await webhookChannel(db, config, options)], { log: options.log });
}
