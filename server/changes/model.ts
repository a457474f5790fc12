import { t, type TSchema } from "elysia";
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from "../lib/list.ts";
import { ResponseSchema, strictObject, Timestamp, withoutDefault } from "../lib/schemas.ts";
import { resourceOf, WEBHOOK_EVENTS, type EventResource, type WebhookEvent } from "./events.ts";

/** An event id: its place in the organisation's feed, decimal digits (a string, so that no client rounds it). */
const EventId = t.String({
  pattern: "^[0-9]{1,15}$",
  description: "The event's id in its organisation: 1, 2, 3, … in commit order (docs/events.md#event-ids); the webhook-id of its deliveries",
  examples: ["1042"],
});

const pascal = (words: string) => words.split(/[._]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");
/** `InvoiceEvent` for "invoice", `ContactPersonEvent` for "contact_person". */
export const eventSchemaName = (resource: string) => `${pascal(resource)}Event`;

const RESOURCES = [...new Set(WEBHOOK_EVENTS.map(resourceOf))];
const article = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

/**
 * The envelope of some events of one resource type (`InvoiceEvent`): a superset of the webhook
 * body `{event, timestamp, data}` (docs/webhooks.md#the-body), the same object in the feed, in
 * GET /events/{id} and as the webhook body. `data` is the resource's own schema.
 */
function envelope(title: string, resource: EventResource, names: WebhookEvent[], data: TSchema) {
  const type = () => withoutDefault(t.UnionEnum(names as [WebhookEvent, ...WebhookEvent[]], { description: "The event name (GET /api/v1/meta/webhook-events)" }));
  const noun = resource.replaceAll("_", " ");
  return t.Object(
    {
      id: EventId,
      event: type(),
      type: type(),
      timestamp: t.String({ ...Timestamp, description: "When the change committed: the same as `created_at`" }),
      created_at: Timestamp,
      resource: t.Object(
        { type: t.Literal(resource, { description: "The resource type `data` holds: the first part of the event name" }), id: t.String() },
        { description: "The resource the event is about" },
      ),
      data,
      links: t.Record(t.String(), t.String(), {
        description: "Related URLs, relative to Kontor's base URL (invoice.finalized: the invoice's `pdf` and `ubl`); empty when there are none",
      }),
      ...(resource === "invoice" ? { payment_id: t.Optional(t.String({ description: "invoice.payment_recorded: the id of the payment recorded" })) } : {}),
    },
    {
      title,
      description: `An event about ${article(noun)} (${names.join(", ")}): \`data\` is the ${noun} as its GET showed it after the change; for a deletion, its last state.`,
    },
  );
}

/** Without a resource's schema (unit tests of this folder), `data` is any object. */
const anyData = () => t.Object({}, { additionalProperties: true, description: "The resource as its GET showed it after the change" });

/**
 * The schemas of the events routes, typed by the resource schemas the composition root hands
 * in (server/app.ts: the features sit above this folder): `Event` is a `oneOf` of one envelope
 * per resource type, with a discriminator on `type` mapping each event name to its envelope.
 */
export function eventModel(dataSchemas: Partial<Record<EventResource, TSchema>> = {}, byEvent: Partial<Record<WebhookEvent, TSchema>> = {}) {
  // one envelope per resource type, and one of its own for an event whose `data` says more (invoice.reminder_sent)
  const groups = RESOURCES.flatMap((resource) => {
    const names = WEBHOOK_EVENTS.filter((name) => resourceOf(name) === resource);
    const shared = names.filter((name) => byEvent[name] === undefined);
    return [
      ...(shared.length > 0 ? [{ title: eventSchemaName(resource), names: shared, schema: envelope(eventSchemaName(resource), resource, shared, dataSchemas[resource] ?? anyData()) }] : []),
      ...names
        .filter((name) => byEvent[name] !== undefined)
        .map((name) => ({ title: `${pascal(name)}Event`, names: [name], schema: envelope(`${pascal(name)}Event`, resource, [name], byEvent[name]!) })),
    ];
  });
  const envelopes = Object.fromEntries(groups.flatMap((g) => g.names.map((name) => [name, g.schema as TSchema]))) as Record<WebhookEvent, TSchema>;
  const mapping = Object.fromEntries(groups.flatMap((g) => g.names.map((name) => [name, `#/components/schemas/${g.title}`])));
  // a union told apart by `type`: the document spells it as a oneOf with this discriminator (server/docs/openapi.ts)
  // typed loosely for Elysia (the feed's rows are presented by presentEvent, not checked at run time)
  const event: TSchema = t.Union(
    groups.map((g) => g.schema),
    { title: "Event", description: "An event: the envelope of its resource type, told apart by `type`", discriminator: { propertyName: "type", mapping } },
  );
  return {
    envelopes,
    event,
    query: EventQuerySchema,
    one: ResponseSchema(t.Object({ data: event })),
    list: ResponseSchema(
      t.Object(
        {
          data: t.Array(event),
          links: t.Object(
            {
              first: t.String({ description: "The first page: the oldest events kept" }),
              last: t.String({ description: "The page of this walk that holds the newest event now" }),
              prev: t.Union([t.String(), t.Null()], { description: "Always null: the feed pages forward" }),
              next: t.Union([t.String(), t.Null()], { description: "The next page; null when this page reached the newest event" }),
            },
            { title: "EventListLinks" },
          ),
          meta: t.Object(
            {
              current_page: t.Integer({ description: "Pages of `per_page` events kept before this one, plus one" }),
              from: t.Union([t.Integer(), t.Null()], { description: "The position of this page's first event among the events kept; null on an empty page" }),
              last_page: t.Integer({ description: "`current_page` plus the pages from here to the newest event now" }),
              per_page: t.Integer(),
              to: t.Union([t.Integer(), t.Null()]),
              total: t.Integer({ description: "The events kept that match the filters now (pruned events are not counted; it grows as changes are made)" }),
              next_cursor: t.Union([t.String(), t.Null()], {
                description: "`after` (or `cursor`) of the next page; null when this page reached the newest event (resume later with the id of the last event read)",
              }),
              newest_id: t.String({
                description:
                  "The id of the organisation's newest event now, kept or pruned (\"0\" before its first): where a copy made after this answer resumes (docs/events.md#keeping-a-copy-in-sync)",
              }),
            },
            { title: "EventListMeta" },
          ),
        },
        { title: "EventList" },
      ),
    ),
  } as const;
}

const position = (description: string) => t.String({ pattern: "^[0-9]{0,15}$", examples: ["1042"], description });

const EventQuerySchema = strictObject({
  after: t.Optional(position("Only events after this one (an event id, or `meta.next_cursor` of the previous page); empty or absent: from the oldest kept")),
  cursor: t.Optional(position("The same as `after`, under the name every list's cursor has (`meta.next_cursor`); `cursor=` (empty) starts a walk")),
  per_page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PER_PAGE, "x-param": "per_page", description: `Page size, 1–${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE})` })),
  "filter[type]": t.Optional(
    t.String({
      maxLength: 100,
      description: "An event name (`invoice.finalized`), or every event of a resource type with `.*` (`invoice.*`)",
      examples: ["invoice.*"],
    }),
  ),
  "filter[resource_id]": t.Optional(t.String({ maxLength: 255, description: "Only events about this resource (its id)" })),
});

export type EventQuery = typeof EventQuerySchema.static;
