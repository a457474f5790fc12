/** The events feed (server/changes: recordChange writes it). */
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt } from "./columns.ts";
import { orgId } from "./orgs.ts";

/**
 * The events feed (GET /api/v1/events): one row per change that has an event, written by
 * recordChange in the change's own transaction. `seq` is the event's id as the API shows it,
 * drawn from the organisation's counter (number_sequences, kind "event"): writes take turns, so
 * an organisation's ids grow in commit order, with no gaps that tell of other organisations, and
 * the counter outlives a prune so that an id is never reused, which is what lets `?after=<id>`
 * resume a feed without missing or repeating an event. `id` (the rowid) is internal.
 */
export const events = sqliteTable(
  "events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizationId: orgId(),
    /** the event name, e.g. "invoice.created" */
    type: text("type").notNull(),
    /** the resource `data` holds: its type ("invoice", the event name's first part) and id */
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    /** the resource as its GET shows it after the change (a deletion: its last state), JSON */
    data: text("data").notNull(),
    links: text("links", { mode: "json" }).$type<Record<string, string>>(),
    /** invoice.payment_recorded: the payment the change recorded */
    paymentId: text("payment_id"),
    /** the event's id in its organisation: 1, 2, 3, … in commit order */
    seq: integer("seq").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("events_org_seq").on(t.organizationId, t.seq),
    index("events_org_type").on(t.organizationId, t.type, t.seq),
    index("events_org_resource").on(t.organizationId, t.resourceId, t.seq),
    index("events_created").on(t.createdAt),
  ],
);
