import { Elysia, t, type TSchema } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { errors } from "../http/responses.ts";
import { ErrorBody } from "../lib/schemas.ts";
import { WEBHOOK_EVENTS, type EventResource, type WebhookEvent } from "./events.ts";
import { eventFeed } from "./feed.ts";
import { eventModel } from "./model.ts";

/**
 * The events feed and one event. Any token of the organisation may read them (`any`): what it
 * reads is limited to the resource types its abilities let it view, as a webhook's events are
 * (feed.ts). `dataSchemas`: each resource type's schema, for the typed `Event` of the document;
 * `byEvent`: the `data` of an event that carries more than its resource (invoice.reminder_sent).
 */
export const eventRoutes = (kernel: Kernel, dataSchemas: Record<EventResource, TSchema>, byEvent: Partial<Record<WebhookEvent, TSchema>> = {}) => {
  const model = eventModel(dataSchemas, byEvent);
  return new Elysia({ prefix: "/api/v1/events" })
    .use(kernel)
    .get("", ({ scope, query, url, auth }) => eventFeed.list(scope, query, url, auth.abilities), {
      ability: "any",
      query: model.query,
      response: { 200: model.list, 410: ErrorBody, ...errors(422) },
      detail: {
        tags: ["Events"],
        summary: "List the organisation's events in commit order, after an event id",
        description:
          "Every change that has a webhook event, in the order the changes committed, each the same object as the webhook body of the " +
          "same event (same `id`); deletions are tombstones whose `data` is the last state. Page with `after` or `cursor` (`meta.next_cursor`, " +
          "`links.next`; `cursor=` starts a walk): a client that remembers the id of the last event it processed and asks for what came after " +
          "never misses or repeats one. Events are kept KONTOR_EVENT_RETENTION_DAYS days (30 by default): an `after` whose following events " +
          "were removed is a 410 `events_expired`, whose message says how to copy everything again. A token reads only the events of the " +
          "resources its abilities let it view.",
        // the deliveries that carry the same events, for the document's `x-webhooks` (server/docs/openapi.ts)
        "x-webhooks": Object.fromEntries(WEBHOOK_EVENTS.map((name) => [name, model.envelopes[name]])),
      },
    })
    .get("/:id", ({ scope, params, auth }) => eventFeed.get(scope, params.id, auth.abilities), {
      ability: "any",
      params: t.Object({ id: t.String({ description: "The event id (the feed's `id`, a webhook's `webhook-id`)" }) }),
      response: { 200: model.one, ...errors(404) },
      detail: {
        tags: ["Events"],
        summary: "Show one event by its id",
        description:
          "The event as the feed and the webhook body show it. 404 for an unknown id, for one of another organisation, and for one " +
          "pruned after the retention period; 403 when its resource type is one the token may not view.",
      },
    });
};
