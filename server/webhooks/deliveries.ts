/**
 * Reading and replaying deliveries (docs/webhooks.md#deliveries-and-replay), for the API and the CLI alike. A replay
 * queues the same row again as a fresh series of attempts: same id, so the receiver sees the
 * same X-Webhook-Id / webhook-id and can tell it has had it.
 */
import { t } from "elysia";
import { and, asc, count, desc, eq, gte, inArray, lt, type SQL } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { webhookAttempts, webhookDeliveries as deliveries, webhooks } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import { ApiError, ValidationFailed } from "../lib/errors.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { findChildInOrg, findInOrg, inOrg, snapshot, unitOfWork, updateInOrg, type Actor, type Scope } from "../lib/scope.ts";
import { isoFromMicros, normalizeTimestamp, nowIso } from "../lib/time.ts";
import { findOrganization } from "../orgs/service.ts";
import { WEBHOOK_EVENTS } from "../changes/events.ts";
import { DELIVERY_STATUSES, type DeliveryStatus, type RedeliverMatching } from "./model.ts";
import { requireEventAccess, type Reader } from "./service.ts";
import { firstRow } from "../../db/client.ts";

export type DeliveryRow = typeof deliveries.$inferSelect;
type AttemptRow = typeof webhookAttempts.$inferSelect;

export function presentDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    event: row.event,
    status: row.status,
    attempts: row.attempts,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    // stored as epoch ms for the claim query; shown like every other timestamp
    next_attempt_at: row.status === "pending" && row.nextAttemptAt !== null ? isoFromMicros(row.nextAttemptAt * 1000) : null,
    delivered_at: row.deliveredAt,
    created_at: row.createdAt,
  };
}

function presentAttempt(row: AttemptRow) {
  return {
    id: row.id,
    attempted_at: row.attemptedAt,
    status_code: row.statusCode,
    duration_ms: row.durationMs,
    error: row.error,
    response_body: row.responseBody,
  };
}

export const deliveryListSpec: ListSpec<typeof deliveries> = {
  table: deliveries,
  sorts: { created_at: deliveries.createdAt },
  defaultSort: "-created_at",
  filters: {
    status: { column: deliveries.status, schema: t.UnionEnum([...DELIVERY_STATUSES]) },
    event: { column: deliveries.event, schema: t.UnionEnum([...WEBHOOK_EVENTS]) },
  },
  updatedAt: deliveries.updatedAt,
};

/**
 * The delivery under its webhook in this organisation (or a 404). With `abilities`, its payload
 * must be one the caller may read: the view abilities of the webhook's events and of the
 * delivery's own (requireEventAccess).
 */
async function findDelivery(tx: Tx, scope: Scope, webhookId: string, deliveryId: string, abilities: Reader): Promise<DeliveryRow> {
  const webhook = await findInOrg(tx, webhooks, scope.org.id, webhookId);
  const row = await findChildInOrg(tx, deliveries, deliveries.webhookId, scope.org.id, webhookId, deliveryId);
  requireEventAccess(abilities, [...webhook.events, row.event]);
  return row;
}

/**
 * Queues a delivery again: pending, due now, a new series of attempts; when its webhook is
 * inactive, pending but parked (next_attempt_at null, see queue.ts) until it is reactivated.
 * The lease column is left alone: if an attempt is in flight right now, its worker hands the row
 * back when it is done, so the new series never overlaps it.
 */
async function requeue(tx: Tx, scope: Scope, deliveryId: string): Promise<void> {
  const webhook = await firstRow(tx
    .select({ isActive: webhooks.isActive })
    .from(deliveries)
    .innerJoin(webhooks, eq(webhooks.id, deliveries.webhookId))
    .where(inOrg(deliveries, scope.org.id, eq(deliveries.id, deliveryId))));
  await updateInOrg(tx, deliveries, scope.org.id, deliveryId, {
    status: "pending",
    attempts: 0,
    nextAttemptAt: webhook?.isActive ? Date.now() : null,
    leasedBy: null,
    lastStatusCode: null,
    lastError: null,
    deliveredAt: null,
    updatedAt: nowIso(),
  });
  await recordChange(tx, scope, { action: "delivery.redelivered", resource: { type: "delivery", id: deliveryId } });
}

export const deliveryService = {
  listSpec: deliveryListSpec,
  async list(scope: Scope, webhookId: string, query: ListQuery, url: string) {
    await snapshot(scope.db, (tx) => findInOrg(tx, webhooks, scope.org.id, webhookId));
    return listPage(scope, deliveryListSpec, query, url, (rows) => rows.map(presentDelivery), [eq(deliveries.webhookId, webhookId)]);
  },
  async get(scope: Scope, webhookId: string, deliveryId: string, abilities: Reader) {
    const { row, attempts } = await snapshot(scope.db, async (tx) => {
      const row = await findDelivery(tx, scope, webhookId, deliveryId, abilities);
      const attempts = await tx
        .select()
        .from(webhookAttempts)
        .where(eq(webhookAttempts.deliveryId, row.id))
        .orderBy(asc(webhookAttempts.attemptedAt), asc(webhookAttempts.id));
      return { row, attempts };
    });
    return { ...presentDelivery(row), attempts_log: attempts.map(presentAttempt), payload: JSON.parse(row.payload) };
  },
  async redeliver(scope: Scope, webhookId: string, deliveryId: string, abilities: Reader) {
    const row = await unitOfWork(scope.db, async (tx) => {
      await findDelivery(tx, scope, webhookId, deliveryId, abilities);
      await requeue(tx, scope, deliveryId);
      tx.connection.outbox.queued();
      return findDelivery(tx, scope, webhookId, deliveryId, null);
    });
    return presentDelivery(row);
  },
};

/** Deliveries one bulk redeliver queues at most: a wider window is a 422 asking for a narrower one. */
export const MAX_BULK_REDELIVER = 10_000;

/** `from` / `to` of a bulk redeliver as stored timestamps; a 422 on the field when it is not one. */
function windowBound(field: "from" | "to", value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const at = normalizeTimestamp(value);
  if (at === null) throw ValidationFailed.field(field, `The ${field} field must be a date or an ISO 8601 timestamp.`);
  return at;
}

/**
 * Queues again every delivery of the webhook in `status` created in [from, to) (after an
 * outage: `{status: "failed", from, to}`), oldest first, each audited as delivery.redelivered
 * with the caller as actor, as `kontor deliveries replay --failed` does (replayDeliveries). The
 * payloads it sends again must be ones the caller may read (requireEventAccess). Returns how many.
 */
export async function redeliverMatching(scope: Scope, webhookId: string, input: RedeliverMatching, abilities: Reader): Promise<number> {
  const search: DeliverySearch = {
    orgId: scope.org.id,
    webhookId,
    status: input.status,
    createdSince: windowBound("from", input.from),
    createdBefore: windowBound("to", input.to),
  };
  if (search.createdSince && search.createdBefore && search.createdBefore <= search.createdSince) throw ValidationFailed.field("to", "The to field must be after from.");
  return await unitOfWork(scope.db, async (tx) => {
    const webhook = await findInOrg(tx, webhooks, scope.org.id, webhookId);
    const ids = await findDeliveryIds(tx, search);
    if (ids.length > MAX_BULK_REDELIVER) {
      throw ValidationFailed.field("to", `${ids.length} deliveries match; one call redelivers at most ${MAX_BULK_REDELIVER}: narrow from and to.`);
    }
    const events = await tx.selectDistinct({ event: deliveries.event }).from(deliveries).where(searchConditions(search));
    requireEventAccess(abilities, [...webhook.events, ...events.map((e) => e.event)]);
    return replayDeliveries(tx, ids, scope.actor);
  });
}

export type DeliverySearch = {
  orgId?: string;
  webhookId?: string;
  status?: DeliveryStatus;
  /** created at or after this timestamp */
  createdSince?: string;
  /** created before this timestamp */
  createdBefore?: string;
};

function searchConditions(search: DeliverySearch): SQL | undefined {
  const conditions: SQL[] = [];
  if (search.orgId) conditions.push(eq(deliveries.organizationId, search.orgId));
  if (search.webhookId) conditions.push(eq(deliveries.webhookId, search.webhookId));
  if (search.status) conditions.push(eq(deliveries.status, search.status));
  if (search.createdSince) conditions.push(gte(deliveries.createdAt, search.createdSince));
  if (search.createdBefore) conditions.push(lt(deliveries.createdAt, search.createdBefore));
  return and(...conditions);
}

/** Deliveries across organisations, newest first (the CLI's view of the database), and how many match. */
export async function findDeliveries(db: Db, search: DeliverySearch & { limit: number }): Promise<{ rows: DeliveryRow[]; total: number }> {
  const where = searchConditions(search);
  const rows = await db.select().from(deliveries).where(where).orderBy(desc(deliveries.createdAt), desc(deliveries.id)).limit(search.limit);
  const total = rows.length < search.limit ? rows.length : (await firstRow(db.select({ n: count() }).from(deliveries).where(where)))!.n;
  return { rows, total };
}

/** The ids of every matching delivery, oldest first (what a replay queues, in event order). */
export async function findDeliveryIds(db: Db, search: DeliverySearch): Promise<string[]> {
  return (await db
    .select({ id: deliveries.id })
    .from(deliveries)
    .where(searchConditions(search))
    .orderBy(asc(deliveries.createdAt), asc(deliveries.id)))
    .map((row) => row.id);
}

const REPLAY_BATCH = 200;

/**
 * Queues these deliveries again, each audited with `actor` in its own organisation. Unknown ids
 * refuse the whole replay before anything changes. Batches commit one by one (`onProgress`
 * after each), so a long replay does not hold the write lock for long.
 */
export async function replayDeliveries(db: Db, ids: string[], actor: Actor, onProgress?: (done: number, total: number) => void): Promise<number> {
  const unique = [...new Set(ids)];
  const orgOf = new Map<string, string>();
  for (let i = 0; i < unique.length; i += REPLAY_BATCH) {
    const batch = unique.slice(i, i + REPLAY_BATCH);
    for (const row of (await db.select({ id: deliveries.id, orgId: deliveries.organizationId }).from(deliveries).where(inArray(deliveries.id, batch)))) {
      orgOf.set(row.id, row.orgId);
    }
  }
  const missing = unique.filter((id) => !orgOf.has(id));
  if (missing.length > 0) throw new ApiError(404, `No delivery ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ` (and ${missing.length - 5} more)` : ""}.`);

  const scopes = new Map<string, Scope>();
  const scopeOf = async (orgId: string) => {
    let scope = scopes.get(orgId);
    if (!scope) scopes.set(orgId, (scope = { db, org: await findOrganization(db, orgId), actor }));
    return scope;
  };
  for (let i = 0; i < unique.length; i += REPLAY_BATCH) {
    const batch = unique.slice(i, i + REPLAY_BATCH);
    await unitOfWork(db, async (tx) => {
      for (const id of batch) await requeue(tx, await scopeOf(orgOf.get(id)!), id);
    });
    onProgress?.(Math.min(i + REPLAY_BATCH, unique.length), unique.length);
  }
  db.connection.outbox.queued();
  return unique.length;
}
