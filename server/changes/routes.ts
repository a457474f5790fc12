import { Elysia } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { errors } from "../http/responses.ts";
import { eventFeed } from "./feed.ts";
import { EventModel } from "./model.ts";

/**
 * The events feed. Any token of the organisation may read it (`any`): what it reads is limited
 * to the resource types its abilities let it view, as a webhook's events are (feed.ts).
 */
export const eventRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/events" })
    .use(kernel)
    .get("", ({ scope, query, url, auth }) => eventFeed.list(scope, query, url, auth.abilities), {
      ability: "any",
      query: EventModel.query,
      response: { 200: EventModel.list, ...errors(422) },
      detail: {
        tags: ["Events"],
        summary: "List the organisation's events in commit order, after an event id",
        description:
          "Every change that has a webhook event, in the order the changes committed, with the same names and `data` as webhook payloads; " +
          "deletions are tombstones whose `data` is the last state. Page with `after` (`meta.next_cursor`, `links.next`): a client that " +
          "remembers the id of the last event it processed and asks for what came after never misses or repeats one. Events are kept " +
          "KONTOR_EVENT_RETENTION_DAYS days (30 by default). A token reads only the events of the resources its abilities let it view.",
      },
    });
