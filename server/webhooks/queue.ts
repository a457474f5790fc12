/**
 * The delivery queue as workers see it (docs/webhooks.md#retries): due rows are claimed under a lease,
 * each attempt's outcome is written with the retry schedule, and leases are handed back.
 *
 * A lease is `leased_by` (the worker) plus `lease_until` (epoch ms). A row is claimable when it
 * is pending, due, its webhook is active, and it has no live lease; so two workers never hold
 * one row at once, and the rows of a worker that died are claimable again once its lease runs
 * out. Only the holder of the lease may move the row on (checked on both columns), which keeps
 * a late worker from overwriting a row that was redelivered or re-claimed in the meantime.
 */
import { and, asc, eq, inArray, isNotNull, isNull, notInArray, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db, Tx } from "../../db/client.ts";
import { webhookAttempts, webhookDeliveries as deliveries, webhooks } from "../../db/schema.ts";
import { dueAt, holdsLease, releaseLeases as releaseLeasesOf } from "../outbox/leases.ts";
import { retryDelay } from "../outbox/worker.ts";
import { snapshot, unitOfWork } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { clipServerText } from "../lib/counts.ts";
import type { AttemptResult } from "./send.ts";
import { firstRow } from "../../db/client.ts";

/** The back-off of KONTOR_WEBHOOK_BACKOFF and the attempts of KONTOR_WEBHOOK_MAX_ATTEMPTS. */
export type RetryPolicy = { backoffMs: readonly number[]; maxAttempts: number };

export type Claim = {
  id: string;
  organizationId: string;
  webhookId: string;
  event: string;
  /** the event's id in its organisation (the `webhook-id`); null for a delivery queued before events had one */
  eventId: number | null;
  payload: string;
  /** attempts made before this one, in the current series */
  attempts: number;
  /** the webhook's URL and secret (sealed, as stored) as they are now: an attempt always uses the current ones */
  url: string;
  secret: string;
  leaseUntil: number;
};

export type ClaimRequest = {
  workerId: string;
  /** free slots: rows claimed at most */
  limit: number;
  leaseMs: number;
  /** rows this worker is sending now, per webhook, so one slow endpoint cannot take every slot */
  inFlightByWebhook: ReadonlyMap<string, number>;
  perWebhookLimit: number;
  /**
   * and per organisation, for the organisations' shares (worker.ts): below `organizationShare`
   * an organisation may take any free slot; at or above it, only one that leaves `reserve`
   * slots free, kept for the organisations below their share
   */
  inFlightByOrganization: ReadonlyMap<string, number>;
  organizationShare: number;
  reserve: number;
  /**
   * organisations below their share whose attempts just ended: their next rows are read
   * through their own index range first, so that no other organisation's backlog is in the way
   */
  refill: readonly string[];
  /**
   * whether to look past the backlog of the organisations at their share for everyone else's
   * due rows: that walks over the backlog, so the worker does it a few times a second (SWEEP_MS)
   */
  sweep: boolean;
};

/** How many due rows are looked at per row wanted, so capped webhooks do not hide the others. */
const CANDIDATES_PER_SLOT = 4;

type Candidate = { id: string; webhookId: string; organizationId: string };

/**
 * Claims up to `limit` due rows in one IMMEDIATE transaction (the write lock is taken before
 * the rows are read, so a second worker waits and then sees them leased), in three steps:
 *
 * 1. refill: the organisations of `refill`, each up to its share, oldest first;
 * 2. sweep (when asked): the oldest due rows of the organisations below their share, the
 *    others' skipped by the query, so that an organisation's backlog, however old, cannot keep
 *    another's rows out of sight;
 * 3. borrow: the oldest due rows of anyone, as long as `reserve` slots stay free.
 *
 * Rows a cap keeps back stay pending for a later claim. `more` says that a step filled its
 * window of candidates without using all its room: a new round may find more.
 */
export async function claimDue(db: Db, request: ClaimRequest): Promise<{ claims: Claim[]; more: boolean }> {
  const { workerId, limit, leaseMs, inFlightByWebhook, perWebhookLimit, inFlightByOrganization, organizationShare, reserve } = request;
  if (limit <= 0) return { claims: [], more: false };
  const due = (now: number, nextAttemptAtIndexed = true) => [dueAt(deliveries, now, nextAttemptAtIndexed)];
  const fullWebhooks = [...inFlightByWebhook].filter(([, n]) => n >= perWebhookLimit).map(([id]) => id);
  const candidates = async (tx: Tx, where: (SQL | undefined)[], orderBy: SQLiteColumn, max: number): Promise<Candidate[]> =>
    await tx
      .select({ id: deliveries.id, webhookId: deliveries.webhookId, organizationId: deliveries.organizationId })
      .from(deliveries)
      .innerJoin(webhooks, and(eq(webhooks.id, deliveries.webhookId), eq(webhooks.isActive, true)))
      .where(and(...where, fullWebhooks.length > 0 ? notInArray(deliveries.webhookId, fullWebhooks) : undefined))
      .orderBy(asc(orderBy))
      .limit(max);
  // an idle tick only reads: the write lock is taken when there is something to claim
  // (served by the deliveries_due (status, next_attempt_at) index, oldest due first)
  if ((await snapshot(db, (tx) => candidates(tx, due(Date.now()), deliveries.nextAttemptAt, 1))).length === 0) return { claims: [], more: false };

  return await unitOfWork(db, async (tx) => {
    const now = Date.now();
    const chosen = new Set<string>();
    const taken = new Map<string, number>();
    const takenByOrganization = new Map<string, number>();
    const count = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
    const webhookBusy = (c: Candidate) => (inFlightByWebhook.get(c.webhookId) ?? 0) + (taken.get(c.webhookId) ?? 0);
    const organizationBusy = (id: string) => (inFlightByOrganization.get(id) ?? 0) + (takenByOrganization.get(id) ?? 0);
    let more = false;
    /** Takes what `accept` allows of `rows`, at most `room`; notes when the window was full but the room was not. */
    const step = (rows: Candidate[], window: number, room: number, accept: (c: Candidate) => boolean, noteMore = true) => {
      let took = 0;
      for (const c of rows) {
        if (took === room) break;
        if (chosen.has(c.id) || webhookBusy(c) >= perWebhookLimit || !accept(c)) continue;
        chosen.add(c.id);
        count(taken, c.webhookId);
        count(takenByOrganization, c.organizationId);
        took++;
      }
      if (noteMore && rows.length === window && took < room) more = true;
    };
    const free = () => limit - chosen.size;
    const belowShare = (c: Candidate) => organizationBusy(c.organizationId) < organizationShare;

    // 1. refill, through deliveries_org_status (organization_id, status, created_at)
    for (const organizationId of request.refill) {
      const room = Math.min(free(), organizationShare - organizationBusy(organizationId));
      if (room <= 0) continue;
      const window = room * CANDIDATES_PER_SLOT;
      // what its webhooks' caps keep back waits for its next refill or the next sweep
      step(await candidates(tx, [eq(deliveries.organizationId, organizationId), ...due(now, false)], deliveries.createdAt, window), window, room, belowShare, false);
    }
    // 2. sweep
    if (request.sweep && free() > 0) {
      const atShare = [...new Set([...inFlightByOrganization.keys(), ...takenByOrganization.keys()])].filter((id) => organizationBusy(id) >= organizationShare);
      const window = free() * CANDIDATES_PER_SLOT;
      const others = atShare.length > 0 ? notInArray(deliveries.organizationId, atShare) : undefined;
      step(await candidates(tx, [...due(now), others], deliveries.nextAttemptAt, window), window, free(), belowShare);
    }
    // 3. borrow
    if (free() > reserve) {
      const room = free() - reserve;
      const window = (room + chosen.size) * CANDIDATES_PER_SLOT; // what was chosen above may come again
      step(await candidates(tx, due(now), deliveries.nextAttemptAt, window), window, room, () => true);
    }
    if (chosen.size === 0) return { claims: [], more: false };

    const leaseUntil = now + leaseMs;
    const rows = await tx
      .update(deliveries)
      .set({ leasedBy: workerId, leaseUntil })
      .where(inArray(deliveries.id, [...chosen]))
      .returning({
        id: deliveries.id,
        organizationId: deliveries.organizationId,
        webhookId: deliveries.webhookId,
        event: deliveries.event,
        eventId: deliveries.eventId,
        payload: deliveries.payload,
        attempts: deliveries.attempts,
      });
    const targets = new Map(
      (await tx
        .select({ id: webhooks.id, url: webhooks.url, secret: webhooks.secret })
        .from(webhooks)
        .where(inArray(webhooks.id, [...taken.keys()])))
        .map((w) => [w.id, w]),
    );
    const claims = rows.map((row) => ({ ...row, url: targets.get(row.webhookId)!.url, secret: targets.get(row.webhookId)!.secret, leaseUntil }));
    return { claims, more };
  });
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
export async function recordOutcomes(db: Db, workerId: string, outcomes: Outcome[], policy: RetryPolicy): Promise<number | null> {
  if (outcomes.length === 0) return null;
  let earliestRetry: number | null = null;
  await unitOfWork(db, async (tx) => {
    for (const { claim, result, attemptedAt } of outcomes) {
      const row = await firstRow(tx
        .select({ attempts: deliveries.attempts, leasedBy: deliveries.leasedBy, leaseUntil: deliveries.leaseUntil, active: webhooks.isActive })
        .from(deliveries)
        .innerJoin(webhooks, eq(webhooks.id, deliveries.webhookId))
        .where(eq(deliveries.id, claim.id)));
      if (!row) continue; // its webhook was deleted meanwhile
      // every attempt is logged, one cut short by shutdown too (its error says so)
      await tx.insert(webhookAttempts)
        .values({
          id: newId(),
          organizationId: claim.organizationId,
          deliveryId: claim.id,
          attemptedAt,
          statusCode: result.statusCode,
          durationMs: result.durationMs,
          error: result.error,
          responseBody: result.responseBody,
        });
      const now = Date.now();
      const updatedAt = nowIso();
      if (!holdsLease(row, workerId, claim.leaseUntil)) {
        // redelivered while in flight (redeliver clears leased_by): its fresh series may start now
        if (row.leasedBy === null && row.leaseUntil === claim.leaseUntil) {
          await tx.update(deliveries).set({ leaseUntil: null }).where(eq(deliveries.id, claim.id));
        }
        continue;
      }
      const released = { leasedBy: null, leaseUntil: null, updatedAt };
      if (result.interrupted) {
        await tx.update(deliveries).set(released).where(eq(deliveries.id, claim.id));
        continue;
      }
      const attempts = row.attempts + 1;
      const last = { attempts, lastStatusCode: result.statusCode, lastError: clipServerText(result.error) };
      if (result.ok) {
        await tx.update(deliveries)
          .set({ ...released, ...last, status: "delivered", deliveredAt: updatedAt, nextAttemptAt: null })
          .where(eq(deliveries.id, claim.id));
        continue;
      }
      const delay = retryDelay(attempts, policy);
      // a retry of a webhook deactivated while this attempt was in flight is parked with the rest
      const nextAttemptAt = delay === null || !row.active ? null : now + delay;
      if (nextAttemptAt !== null) earliestRetry = Math.min(earliestRetry ?? nextAttemptAt, nextAttemptAt);
      await tx.update(deliveries)
        .set({ ...released, ...last, status: delay === null ? "failed" : "pending", nextAttemptAt })
        .where(eq(deliveries.id, claim.id));
    }
  });
  return earliestRetry;
}

/** Hands back every lease this worker still holds (shutdown): those rows are due again at once. */
export async function releaseLeases(db: Db, workerId: string): Promise<number> {
  return await releaseLeasesOf(db, deliveries, workerId);
}

/*
 * Parking. The pending rows of an inactive webhook wait, kept on purpose; but a
 * claim reads the deliveries_due (status, next_attempt_at) index in next_attempt_at order, so
 * rows of an inactive webhook that stayed due would be walked (and dropped by the join) by every
 * claim, idle ticks included. So they are parked: next_attempt_at NULL, which the index range
 * `next_attempt_at <= now` skips. Deactivating a webhook parks its pending rows, reactivating it
 * makes them due at once, both in the transaction that flips is_active; a retry scheduled or a
 * redelivery queued while the webhook is inactive is parked as well. A pending row shows
 * next_attempt_at null while parked.
 */

/** Parks a webhook's pending rows (in the transaction that deactivates it). */
export async function parkDeliveries(tx: Tx, orgId: string, webhookId: string): Promise<void> {
  await tx.update(deliveries)
    .set({ nextAttemptAt: null, updatedAt: nowIso() })
    // served by deliveries_webhook_status (organization_id, webhook_id, status, …)
    .where(and(eq(deliveries.organizationId, orgId), eq(deliveries.webhookId, webhookId), eq(deliveries.status, "pending"), isNotNull(deliveries.nextAttemptAt)));
}

/** Makes a webhook's parked rows due now (in the transaction that reactivates it). */
export async function unparkDeliveries(tx: Tx, orgId: string, webhookId: string): Promise<void> {
  await tx.update(deliveries)
    .set({ nextAttemptAt: Date.now(), updatedAt: nowIso() })
    .where(and(eq(deliveries.organizationId, orgId), eq(deliveries.webhookId, webhookId), eq(deliveries.status, "pending"), isNull(deliveries.nextAttemptAt)));
}

/**
 * Brings parking in line with is_active across the database, once when a worker starts: rows
 * left due by a version of Kontor that did not park (an upgrade, a rolling deploy) are parked,
 * and parked rows of an active webhook are made due.
 */
export async function reconcileParking(db: Db): Promise<void> {
  await unitOfWork(db, async (tx) => {
    const inactive = tx.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.isActive, false));
    const active = tx.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.isActive, true));
    await tx.update(deliveries)
      .set({ nextAttemptAt: null })
      .where(and(eq(deliveries.status, "pending"), isNotNull(deliveries.nextAttemptAt), inArray(deliveries.webhookId, inactive)));
    await tx.update(deliveries)
      .set({ nextAttemptAt: Date.now() })
      .where(and(eq(deliveries.status, "pending"), isNull(deliveries.nextAttemptAt), inArray(deliveries.webhookId, active)));
  });
}
