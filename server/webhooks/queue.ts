/**
 * The delivery queue as workers see it (contract 7.3, 7.5): due rows are claimed under a lease,
 * each attempt's outcome is written with the retry schedule, and leases are handed back.
 *
 * A lease is `leased_by` (the worker) plus `lease_until` (epoch ms). A row is claimable when it
 * is pending, due, its webhook is active, and it has no live lease; so two workers never hold
 * one row at once, and the rows of a worker that died are claimable again once its lease runs
 * out. Only the holder of the lease may move the row on (checked on both columns), which keeps
 * a late worker from overwriting a row that was redelivered or re-claimed in the meantime.
 */
import { and, asc, eq, inArray, isNotNull, isNull, lt, lte, notInArray, or } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { webhookAttempts, webhookDeliveries as deliveries, webhooks } from "../../db/schema.ts";
import type { Config } from "../config.ts";
import { transaction } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import type { AttemptResult } from "./send.ts";

export type RetryPolicy = Pick<Config, "webhookBackoffMs" | "webhookMaxAttempts">;

export type Claim = {
  id: string;
  organizationId: string;
  webhookId: string;
  event: string;
  payload: string;
  /** attempts made before this one, in the current series */
  attempts: number;
  /** the webhook's URL and secret as they are now: an attempt always uses the current ones */
  url: string;
  secret: string;
  leaseUntil: number;
};

export type ClaimRequest = {
  workerId: string;
  limit: number;
  leaseMs: number;
  /** rows this worker is sending now, per webhook, so one slow endpoint cannot take every slot */
  inFlightByWebhook: ReadonlyMap<string, number>;
  perWebhookLimit: number;
};

/** How many due rows are looked at per free slot, so capped webhooks do not hide the others. */
const CANDIDATES_PER_SLOT = 4;

/**
 * Claims up to `limit` due rows in one IMMEDIATE transaction (the write lock is taken before
 * the rows are read, so a second worker waits and then sees them leased). `more` says that
 * the per-webhook caps left rows behind that a new round, skipping the now-full webhooks, may take.
 */
export function claimDue(db: Db, request: ClaimRequest): { claims: Claim[]; more: boolean } {
  const { workerId, limit, leaseMs, inFlightByWebhook, perWebhookLimit } = request;
  if (limit <= 0) return { claims: [], more: false };
  const full = [...inFlightByWebhook].filter(([, n]) => n >= perWebhookLimit).map(([id]) => id);
  const candidateLimit = limit * CANDIDATES_PER_SLOT;
  // served by the deliveries_due (status, next_attempt_at) index, oldest due first
  const dueRows = (tx: Tx, now: number, max: number) =>
    tx
      .select({ id: deliveries.id, webhookId: deliveries.webhookId })
      .from(deliveries)
      .innerJoin(webhooks, and(eq(webhooks.id, deliveries.webhookId), eq(webhooks.isActive, true)))
      .where(
        and(
          eq(deliveries.status, "pending"),
          lte(deliveries.nextAttemptAt, now),
          or(isNull(deliveries.leaseUntil), lt(deliveries.leaseUntil, now)),
          full.length > 0 ? notInArray(deliveries.webhookId, full) : undefined,
        ),
      )
      .orderBy(asc(deliveries.nextAttemptAt))
      .limit(max)
      .all();
  // an idle tick only reads: the write lock is taken when there is something to claim
  if (dueRows(db, Date.now(), 1).length === 0) return { claims: [], more: false };
  return transaction(db, (tx) => {
    const now = Date.now();
    const candidates = dueRows(tx, now, candidateLimit);

    const taken = new Map<string, number>();
    const chosen: string[] = [];
    for (const candidate of candidates) {
      if (chosen.length === limit) break;
      const busy = (inFlightByWebhook.get(candidate.webhookId) ?? 0) + (taken.get(candidate.webhookId) ?? 0);
      if (busy >= perWebhookLimit) continue;
      taken.set(candidate.webhookId, (taken.get(candidate.webhookId) ?? 0) + 1);
      chosen.push(candidate.id);
    }
    if (chosen.length === 0) return { claims: [], more: false };

    const leaseUntil = now + leaseMs;
    const rows = tx
      .update(deliveries)
      .set({ leasedBy: workerId, leaseUntil })
      .where(inArray(deliveries.id, chosen))
      .returning({
        id: deliveries.id,
        organizationId: deliveries.organizationId,
        webhookId: deliveries.webhookId,
        event: deliveries.event,
        payload: deliveries.payload,
        attempts: deliveries.attempts,
      })
      .all();
    const targets = new Map(
      tx
        .select({ id: webhooks.id, url: webhooks.url, secret: webhooks.secret })
        .from(webhooks)
        .where(inArray(webhooks.id, [...taken.keys()]))
        .all()
        .map((w) => [w.id, w]),
    );
    const claims = rows.map((row) => ({ ...row, url: targets.get(row.webhookId)!.url, secret: targets.get(row.webhookId)!.secret, leaseUntil }));
    return { claims, more: chosen.length < limit && candidates.length === candidateLimit };
  });
}

/**
 * Delay before the next attempt after `attemptsMade` failed ones, or null when the delivery is
 * now `failed`. Attempt 1 goes at once, attempt n+1 after the n-th backoff step; with more
 * attempts configured than steps, the last step repeats (contract 7.5).
 */
export function retryDelay(attemptsMade: number, policy: RetryPolicy): number | null {
  if (attemptsMade >= policy.webhookMaxAttempts) return null;
  const steps = policy.webhookBackoffMs;
  return steps[Math.min(attemptsMade, steps.length) - 1] ?? 0;
}

export type Outcome = { claim: Claim; result: AttemptResult; attemptedAt: string };

/**
 * Writes a batch of outcomes in one transaction: every attempt into webhook_attempts, and the
 * delivery moved on (delivered, retry later, failed) when this worker still holds its lease.
 * An attempt cut short by shutdown is logged (error "Interrupted by worker shutdown.") but is not
 * one of the series: it does not count, nor touch last_status_code/last_error; its row is only
 * handed back, due again at once.
 * Returns the earliest retry this batch scheduled (epoch ms), so the worker can wake for it.
 */
export function recordOutcomes(db: Db, workerId: string, outcomes: Outcome[], policy: RetryPolicy): number | null {
  if (outcomes.length === 0) return null;
  let earliestRetry: number | null = null;
  transaction(db, (tx) => {
    for (const { claim, result, attemptedAt } of outcomes) {
      const row = tx
        .select({ attempts: deliveries.attempts, leasedBy: deliveries.leasedBy, leaseUntil: deliveries.leaseUntil, active: webhooks.isActive })
        .from(deliveries)
        .innerJoin(webhooks, eq(webhooks.id, deliveries.webhookId))
        .where(eq(deliveries.id, claim.id))
        .get();
      if (!row) continue; // its webhook was deleted meanwhile
      // every attempt is logged (contract 7.5), one cut short by shutdown too (its error says so)
      tx.insert(webhookAttempts)
        .values({
          id: newId(),
          organizationId: claim.organizationId,
          deliveryId: claim.id,
          attemptedAt,
          statusCode: result.statusCode,
          durationMs: result.durationMs,
          error: result.error,
          responseBody: result.responseBody,
        })
        .run();
      const now = Date.now();
      const updatedAt = nowIso();
      const holdsLease = row.leasedBy === workerId && row.leaseUntil === claim.leaseUntil;
      if (!holdsLease) {
        // redelivered while in flight (redeliver clears leased_by): its fresh series may start now
        if (row.leasedBy === null && row.leaseUntil === claim.leaseUntil) {
          tx.update(deliveries).set({ leaseUntil: null }).where(eq(deliveries.id, claim.id)).run();
        }
        continue;
      }
      const released = { leasedBy: null, leaseUntil: null, updatedAt };
      if (result.interrupted) {
        tx.update(deliveries).set(released).where(eq(deliveries.id, claim.id)).run();
        continue;
      }
      const attempts = row.attempts + 1;
      const last = { attempts, lastStatusCode: result.statusCode, lastError: result.error };
      if (result.ok) {
        tx.update(deliveries)
          .set({ ...released, ...last, status: "delivered", deliveredAt: updatedAt, nextAttemptAt: null })
          .where(eq(deliveries.id, claim.id))
          .run();
        continue;
      }
      const delay = retryDelay(attempts, policy);
      // a retry of a webhook deactivated while this attempt was in flight is parked with the rest
      const nextAttemptAt = delay === null || !row.active ? null : now + delay;
      if (nextAttemptAt !== null) earliestRetry = Math.min(earliestRetry ?? nextAttemptAt, nextAttemptAt);
      tx.update(deliveries)
        .set({ ...released, ...last, status: delay === null ? "failed" : "pending", nextAttemptAt })
        .where(eq(deliveries.id, claim.id))
        .run();
    }
  });
  return earliestRetry;
}

/** Hands back every lease this worker still holds (shutdown): those rows are due again at once. */
export function releaseLeases(db: Db, workerId: string): number {
  return transaction(db, (tx) =>
    tx
      .update(deliveries)
      .set({ leasedBy: null, leaseUntil: null })
      // status first: the deliveries_due index narrows it to the pending rows
      .where(and(eq(deliveries.status, "pending"), eq(deliveries.leasedBy, workerId)))
      .returning({ id: deliveries.id })
      .all(),
  ).length;
}

/*
 * Parking (contract 7.2). The pending rows of an inactive webhook wait, kept on purpose; but a
 * claim reads the deliveries_due (status, next_attempt_at) index in next_attempt_at order, so
 * rows of an inactive webhook that stayed due would be walked (and dropped by the join) by every
 * claim, idle ticks included. So they are parked: next_attempt_at NULL, which the index range
 * `next_attempt_at <= now` skips. Deactivating a webhook parks its pending rows, reactivating it
 * makes them due at once, both in the transaction that flips is_active; a retry scheduled or a
 * redelivery queued while the webhook is inactive is parked as well. A pending row shows
 * next_attempt_at null while parked.
 */

/** Parks a webhook's pending rows (in the transaction that deactivates it). */
export function parkDeliveries(tx: Tx, orgId: string, webhookId: string): void {
  tx.update(deliveries)
    .set({ nextAttemptAt: null, updatedAt: nowIso() })
    // served by deliveries_webhook_status (organization_id, webhook_id, status, …)
    .where(and(eq(deliveries.organizationId, orgId), eq(deliveries.webhookId, webhookId), eq(deliveries.status, "pending"), isNotNull(deliveries.nextAttemptAt)))
    .run();
}

/** Makes a webhook's parked rows due now (in the transaction that reactivates it). */
export function unparkDeliveries(tx: Tx, orgId: string, webhookId: string): void {
  tx.update(deliveries)
    .set({ nextAttemptAt: Date.now(), updatedAt: nowIso() })
    .where(and(eq(deliveries.organizationId, orgId), eq(deliveries.webhookId, webhookId), eq(deliveries.status, "pending"), isNull(deliveries.nextAttemptAt)))
    .run();
}

/**
 * Brings parking in line with is_active across the database, once when a worker starts: rows
 * left due by a version of Kontor that did not park (an upgrade, a rolling deploy) are parked,
 * and parked rows of an active webhook are made due.
 */
export function reconcileParking(db: Db): void {
  transaction(db, (tx) => {
    const inactive = tx.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.isActive, false));
    const active = tx.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.isActive, true));
    tx.update(deliveries)
      .set({ nextAttemptAt: null })
      .where(and(eq(deliveries.status, "pending"), isNotNull(deliveries.nextAttemptAt), inArray(deliveries.webhookId, inactive)))
      .run();
    tx.update(deliveries)
      .set({ nextAttemptAt: Date.now() })
      .where(and(eq(deliveries.status, "pending"), isNull(deliveries.nextAttemptAt), inArray(deliveries.webhookId, active)))
      .run();
  });
}
