/**
 * The events feed (GET /api/v1/events) and one event (GET /api/v1/events/{id}): the
 * organisation's events in commit order, read after an event id, as recordChange wrote them
 * (outbox.ts), in the envelope the webhook deliveries carry. A token reads the events of the
 * resource types it may view (RESOURCE_VIEW_ABILITY), as a webhook's manager does; any token may
 * ask, and one that may view none of them reads an empty feed.
 */
import { and, asc, count, eq, gt, inArray, lt, lte, sql, type SQL } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { events, numberSequences } from "../../db/schema.ts";
import { EventsExpired, Forbidden, NotFound, ValidationFailed } from "../lib/errors.ts";
import { DEFAULT_PER_PAGE } from "../lib/list.ts";
import { snapshot, unitOfWork, type Scope } from "../lib/scope.ts";
import { isoDaysBefore } from "../lib/time.ts";
import { RESOURCE_VIEW_ABILITY, resourceOf, WEBHOOK_EVENTS, type EventResource, type WebhookEvent } from "./events.ts";
import type { EventQuery } from "./model.ts";
import { envelopeJson, EVENT_SEQUENCE } from "./outbox.ts";
import { firstRow } from "../../db/client.ts";
import { larger } from "../../db/dialect.ts";

type EventRow = typeof events.$inferSelect;

/**
 * The highest event id pruned per organisation (number_sequences): an `after` below it asks for
 * events that are gone (a 410), whatever the organisation's ids looked like before.
 */
export const PRUNED_SEQUENCE = "event_pruned";

/** An event as the feed and GET /events/{id} show it: the webhook body of the same event, parsed. */
export function presentEvent(row: EventRow) {
  const json = envelopeJson(
    { id: row.seq, type: row.type, createdAt: row.createdAt, resourceType: row.resourceType, resourceId: row.resourceId, links: row.links, paymentId: row.paymentId },
    row.data,
  );
  return JSON.parse(json) as {
    id: string;
    event: WebhookEvent;
    type: WebhookEvent;
    timestamp: string;
    created_at: string;
    resource: { type: string; id: string };
    data: Record<string, unknown>;
    links: Record<string, string>;
    payment_id?: string;
  };
}

/**
 * `filter[type]`: an event name, or `<resource>.*` for every event of a resource type; else a
 * 422 keyed `filter.type`, as every list keys its filters. A resource type is matched on its own
 * column: the feed's order (seq) is then the order of the index walked, with no sort step.
 */
function typeCondition(filter: string): SQL {
  const names: readonly string[] = WEBHOOK_EVENTS;
  const resources = [...new Set(names.map((name) => name.slice(0, name.indexOf("."))))];
  if (filter.endsWith(".*") && resources.includes(filter.slice(0, -2))) return eq(events.resourceType, filter.slice(0, -2));
  if (names.includes(filter)) return eq(events.type, filter);
  throw ValidationFailed.field(
    "filter.type",
    `The filter.type must be an event name of GET /api/v1/meta/webhook-events or a resource type followed by .* (${resources.map((r) => `${r}.*`).join(", ")}).`,
  );
}

const counter = async (tx: Tx, orgId: string, kind: string): Promise<number> =>
  (await firstRow(tx
    .select({ value: numberSequences.lastValue })
    .from(numberSequences)
    .where(and(eq(numberSequences.organizationId, orgId), eq(numberSequences.kind, kind), eq(numberSequences.year, 0)))))?.value ?? 0;

export const RESYNC =
  "Copy what you need again through the lists, then read the feed from the id of its newest event (docs/events.md#keeping-a-copy-in-sync).";

/**
 * Whether the feed can answer from `after`: not when an event after it was pruned (410
 * `events_expired`), nor when no event of the organisation has that id yet (a 422: an id of
 * another database, restored since, or of before per-organisation ids; docs/events.md#event-ids).
 */
async function checkPosition(tx: Tx, orgId: string, after: number, field: string, newest: number): Promise<void> {
  if (after > newest) {
    throw ValidationFailed.field(field, `No event of this organisation has the id ${after} (the newest is ${newest}). ${RESYNC}`);
  }
  const pruned = await counter(tx, orgId, PRUNED_SEQUENCE);
  if (after < pruned) {
    throw new EventsExpired(
      `The events after ${after} are no longer kept: events up to ${pruned} were removed after the retention period (KONTOR_EVENT_RETENTION_DAYS). ${RESYNC}`,
    );
  }
}

/** A feed position as sent (`after`, `cursor`): absent or empty is the start. */
const positionOf = (value: string | undefined): number | null => (value === undefined || value === "" ? null : Number(value));

export const eventFeed = {
  async list(scope: Scope, query: EventQuery, url: string, abilities: ReadonlySet<string>) {
    const perPage = query.per_page ?? DEFAULT_PER_PAGE;
    const fromAfter = positionOf(query.after);
    const fromCursor = positionOf(query.cursor);
    if (fromAfter !== null && fromCursor !== null && fromAfter !== fromCursor) {
      throw ValidationFailed.field("cursor", "The cursor and after fields name the same place; send one of them.");
    }
    // no position (or an empty one, as `cursor=` starts every list's walk): from the oldest event kept
    const given = fromAfter ?? fromCursor;
    const after = given ?? 0;
    const field = fromAfter !== null ? "after" : "cursor";
    const filters: (SQL | undefined)[] = [eq(events.organizationId, scope.org.id)];
    if (query["filter[type]"] !== undefined && query["filter[type]"] !== "") filters.push(typeCondition(query["filter[type]"]));
    if (query["filter[resource_id]"] !== undefined && query["filter[resource_id]"] !== "") filters.push(eq(events.resourceId, query["filter[resource_id]"]));
    const readable = (Object.keys(RESOURCE_VIEW_ABILITY) as EventResource[]).filter((type) => abilities.has(RESOURCE_VIEW_ABILITY[type]));
    if (readable.length < Object.keys(RESOURCE_VIEW_ABILITY).length) filters.push(inArray(events.resourceType, readable));

    return await snapshot(scope.db, async (tx) => {
      // the organisation's newest event id, kept or pruned: what a position is checked against and what meta.newest_id says
      const newest = await counter(tx, scope.org.id, EVENT_SEQUENCE);
      if (given !== null) await checkPosition(tx, scope.org.id, given, field, newest);
      const none = readable.length === 0;
      const countWhere = async (...more: SQL[]) => (none ? 0 : (await firstRow(tx.select({ n: count() }).from(events).where(and(...filters, ...more))))!.n);
      // one more than a page: whether there is a next one
      const rows = none ? [] : (await tx.select().from(events).where(and(...filters, gt(events.seq, after))).orderBy(asc(events.seq)).limit(perPage + 1));
      const page = rows.slice(0, perPage);
      const nextCursor = rows.length > perPage ? String(page.at(-1)!.seq) : null;
      const total = await countWhere();
      const before = after === 0 ? 0 : await countWhere(lte(events.seq, after));

      // links keep the parameter the client pages with: `cursor` (as every list), or `after`
      const byCursor = query.cursor !== undefined;
      const at = (position: number | null) => {
        const u = new URL(url);
        u.searchParams.delete("after");
        u.searchParams.delete("cursor");
        if (byCursor) u.searchParams.set("cursor", position === null ? "" : String(position));
        else if (position !== null) u.searchParams.set("after", String(position));
        return u.toString();
      };
      const current = Math.floor(before / perPage) + 1;
      // the pages of this walk from here to the newest event: the last starts `ahead` pages on
      const ahead = Math.max(0, Math.ceil((total - before) / perPage) - 1);
      let last = at(after === 0 ? null : after);
      if (ahead > 0) {
        const lastAfter = await firstRow(tx
          .select({ seq: events.seq })
          .from(events)
          .where(and(...filters))
          .orderBy(asc(events.seq))
          .limit(1)
          .offset(before + ahead * perPage - 1));
        if (lastAfter) last = at(lastAfter.seq);
      }
      const from = page.length > 0 ? before + 1 : null;
      return {
        data: page.map(presentEvent),
        links: { first: at(null), last, prev: null, next: nextCursor === null ? null : at(Number(nextCursor)) },
        meta: {
          current_page: current,
          from,
          last_page: current + ahead,
          per_page: perPage,
          to: from === null ? null : from + page.length - 1,
          total,
          next_cursor: nextCursor,
          // what a copy made now resumes from, even when every event was pruned and this page is empty
          newest_id: String(newest),
        },
      };
    });
  },

  /** One event by its id; 404 for an unknown id or another organisation's, 403 when its resource type is one the token may not view. */
  async get(scope: Scope, id: string, abilities: ReadonlySet<string>) {
    if (!/^[0-9]{1,15}$/.test(id)) throw new NotFound();
    const row = await firstRow(scope.db
      .select()
      .from(events)
      .where(and(eq(events.organizationId, scope.org.id), eq(events.seq, Number(id)))));
    if (!row) throw new NotFound();
    const ability = RESOURCE_VIEW_ABILITY[resourceOf(row.type)];
    if (!abilities.has(ability)) throw new Forbidden(`This event is about a ${row.resourceType}: reading it requires the ${ability} ability.`);
    return { data: presentEvent(row) };
  },
};

const PRUNE_BATCH = 5000;

/**
 * Deletes the events older than `days` days (KONTOR_EVENT_RETENTION_DAYS; the webhook worker,
 * hourly); returns how many. In batches, each its own transaction, so that a first prune of a
 * large feed never holds the write lock for long. Each organisation's highest pruned id is kept
 * (PRUNED_SEQUENCE), so that an `after` before it is told the events are gone.
 */
export async function pruneEvents(db: Db, days: number, now = Date.now()): Promise<number> {
  const cutoff = isoDaysBefore(now, days);
  let pruned = 0;
  for (;;) {
    const batch = await unitOfWork(db, async (tx) => {
      const old = tx.select({ id: events.id }).from(events).where(lt(events.createdAt, cutoff)).limit(PRUNE_BATCH);
      const gone = await tx.delete(events).where(inArray(events.id, old)).returning({ orgId: events.organizationId, seq: events.seq });
      const highest = new Map<string, number>();
      for (const { orgId, seq } of gone) highest.set(orgId, Math.max(highest.get(orgId) ?? 0, seq));
      for (const [orgId, seq] of highest) {
        await tx.insert(numberSequences)
          .values({ organizationId: orgId, kind: PRUNED_SEQUENCE, year: 0, lastValue: seq })
          .onConflictDoUpdate({
            target: [numberSequences.organizationId, numberSequences.kind, numberSequences.year],
            set: { lastValue: sql`${larger(numberSequences.lastValue, sql`excluded.last_value`)}` },
          });
      }
      return gone.length;
    });
    pruned += batch;
    if (batch < PRUNE_BATCH) return pruned;
    const pause = prunePauseMs();
    if (pause > 0) Bun.sleepSync(pause);
  }
}

/** A test's hook: a pause between two batches, so a test can kill a prune midway (KONTOR_TEST_PRUNE_PAUSE_MS); unset, none. */
const prunePauseMs = () => Number(process.env.KONTOR_TEST_PRUNE_PAUSE_MS ?? 0);
