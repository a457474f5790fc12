/**
 * The events feed (GET /api/v1/events): the organisation's events in commit order, read by
 * `after` an event id, as recordChange wrote them (outbox.ts). A token reads the events of the
 * resource types it may view (RESOURCE_VIEW_ABILITY), as a webhook's manager does; any token may
 * ask, and one that may view none of them reads an empty feed.
 */
import { and, asc, eq, gt, inArray, lt, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { events } from "../../db/schema.ts";
import { ValidationFailed } from "../lib/errors.ts";
import { DEFAULT_PER_PAGE } from "../lib/list.ts";
import { snapshot, transaction, type Scope } from "../lib/scope.ts";
import { isoFromMicros } from "../lib/time.ts";
import { RESOURCE_VIEW_ABILITY, WEBHOOK_EVENTS, type EventResource, type WebhookEvent } from "./events.ts";
import type { EventQuery } from "./model.ts";

type EventRow = typeof events.$inferSelect;

export function presentEvent(row: EventRow) {
  return {
    id: String(row.id),
    type: row.type as WebhookEvent,
    created_at: row.createdAt,
    resource: { type: row.resourceType, id: row.resourceId },
    // stored as the webhook payload's `data` was serialised: parsed, not rebuilt
    data: JSON.parse(row.data) as Record<string, unknown>,
    ...(row.links ? { links: row.links } : {}),
    ...(row.paymentId ? { payment_id: row.paymentId } : {}),
  };
}

/**
 * `filter[type]`: an event name, or `<resource>.*` for every event of a resource type; else a
 * 422 naming the field. A resource type is matched on its own column: the feed's order (id) is
 * then the order of the index walked, with no sort step.
 */
function typeCondition(filter: string): SQL {
  const names: readonly string[] = WEBHOOK_EVENTS;
  const resources = [...new Set(names.map((name) => name.slice(0, name.indexOf("."))))];
  if (filter.endsWith(".*") && resources.includes(filter.slice(0, -2))) return eq(events.resourceType, filter.slice(0, -2));
  if (names.includes(filter)) return eq(events.type, filter);
  throw ValidationFailed.field(
    "filter[type]",
    `The filter[type] must be an event name of GET /api/v1/meta/webhook-events or a resource type followed by .* (${resources.map((r) => `${r}.*`).join(", ")}).`,
  );
}

export const eventFeed = {
  list(scope: Scope, query: EventQuery, url: string, abilities: ReadonlySet<string>) {
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const conditions: (SQL | undefined)[] = [eq(events.organizationId, scope.org.id)];
    if (query.after !== undefined && query.cursor !== undefined && query.after !== query.cursor) {
      throw ValidationFailed.field("cursor", "The cursor and after fields name the same place; send one of them.");
    }
    const after = query.after ?? query.cursor;
    if (after !== undefined) conditions.push(gt(events.id, Number(after)));
    if (query["filter[type]"] !== undefined) conditions.push(typeCondition(query["filter[type]"]));
    if (query["filter[resource_id]"] !== undefined) conditions.push(eq(events.resourceId, query["filter[resource_id]"]));
    const readable = (Object.keys(RESOURCE_VIEW_ABILITY) as EventResource[]).filter((type) => abilities.has(RESOURCE_VIEW_ABILITY[type]));
    if (readable.length < Object.keys(RESOURCE_VIEW_ABILITY).length) conditions.push(inArray(events.resourceType, readable));
    // one more than a page: whether there is a next one
    const rows = readable.length === 0 ? [] : snapshot(scope.db, (tx) => tx.select().from(events).where(and(...conditions)).orderBy(asc(events.id)).limit(perPage + 1).all());
    const page = rows.slice(0, perPage);
    const nextCursor = rows.length > perPage ? String(page.at(-1)!.id) : null;
    let next: string | null = null;
    if (nextCursor !== null) {
      const u = new URL(url);
      u.searchParams.set("after", nextCursor);
      next = u.toString();
    }
    return { data: page.map(presentEvent), links: { next }, meta: { per_page: perPage, next_cursor: nextCursor } };
  },
};

const PRUNE_BATCH = 5000;

/**
 * Deletes the events older than `days` days (KONTOR_EVENT_RETENTION_DAYS; the webhook worker,
 * hourly); returns how many. In batches, each its own transaction, so that a first prune of a
 * large feed never holds the write lock for long.
 */
export function pruneEvents(db: Db, days: number, now = Date.now()): number {
  const cutoff = isoFromMicros((now - days * 86_400_000) * 1000);
  let pruned = 0;
  for (;;) {
    const batch = transaction(db, (tx) => {
      const old = tx.select({ id: events.id }).from(events).where(lt(events.createdAt, cutoff)).limit(PRUNE_BATCH);
      return tx.delete(events).where(inArray(events.id, old)).returning({ id: events.id }).all().length;
    });
    pruned += batch;
    if (batch < PRUNE_BATCH) return pruned;
  }
}
