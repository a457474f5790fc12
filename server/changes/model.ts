import { t } from "elysia";
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from "../lib/list.ts";
import { ResponseSchema, strictObject, Timestamp, withoutDefault } from "../lib/schemas.ts";
import { WEBHOOK_EVENTS } from "./events.ts";

/** An event id: the feed's key, decimal digits (a string, so that no client rounds it). */
const EventId = t.String({ pattern: "^[0-9]{1,18}$", description: "An event id (its position in the feed: ids grow in commit order)", examples: ["1042"] });

const event = t.Object(
  {
    id: EventId,
    type: withoutDefault(t.UnionEnum([...WEBHOOK_EVENTS], { description: "The event name, as webhooks send it (GET /api/v1/meta/webhook-events)" })),
    created_at: Timestamp,
    resource: t.Object(
      { type: t.String({ description: "The resource type `data` holds: the first part of the event name", examples: ["invoice"] }), id: t.String() },
      { description: "The resource the event is about" },
    ),
    data: t.Object({}, {
      additionalProperties: true,
      description: "The resource as its GET showed it after the change, as the webhook payload's `data`; for a deletion, its last state (a tombstone)",
    }),
    links: t.Optional(
      t.Record(t.String(), t.String(), { description: "Related URLs (invoice.finalized: the invoice's `pdf` and `ubl`), relative to Kontor's base URL" }),
    ),
    payment_id: t.Optional(t.String({ description: "invoice.payment_recorded: the id of the payment recorded" })),
  },
  { title: "Event" },
);

export const EventModel = {
  event,
  query: strictObject({
    after: t.Optional(t.String({ ...EventId, description: "Only events after this one (an event id, or `meta.next_cursor` of the previous page); default: from the oldest kept" })),
    cursor: t.Optional(t.String({ ...EventId, description: "The same as `after`, under the name every list's cursor has (`meta.next_cursor`)" })),
    per_page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PER_PAGE, "x-param": "per_page", description: `Page size, 1–${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE})` })),
    "filter[type]": t.Optional(
      t.String({
        maxLength: 100,
        description: "An event name (`invoice.paid`), or every event of a resource type with `.*` (`invoice.*`)",
        examples: ["invoice.*"],
      }),
    ),
    "filter[resource_id]": t.Optional(t.String({ maxLength: 255, description: "Only events about this resource (its id)" })),
  }),
  list: ResponseSchema(
    t.Object(
      {
        data: t.Array(event),
        links: t.Object({ next: t.Union([t.String(), t.Null()], { description: "The next page; null when this page reached the newest event" }) }, { title: "EventListLinks" }),
        meta: t.Object(
          {
            per_page: t.Integer(),
            next_cursor: t.Union([t.String(), t.Null()], {
              description: "`after` of the next page; null when this page reached the newest event (resume later with the id of the last event read)",
            }),
          },
          { title: "EventListMeta" },
        ),
      },
      { title: "EventList" },
    ),
  ),
} as const;

export type EventQuery = typeof EventModel.query.static;
