import { t } from "elysia";
import { documented, Nullable, strictObject, Timestamp, Uuid, withoutDefault } from "../lib/schemas.ts";
import { WEBHOOK_EVENTS } from "../changes/events.ts";

import { DELIVERY_STATUSES } from "../../db/values.ts";
export { DELIVERY_STATUSES, type DeliveryStatus } from "../../db/values.ts";

export const MAX_URL_LENGTH = 2048;

const EventName = t.UnionEnum([...WEBHOOK_EVENTS], { description: "An event name of GET /api/v1/meta/webhook-events" });
const Url = t.String({
  maxLength: MAX_URL_LENGTH,
  description:
    "HTTPS endpoint (plain http only when KONTOR_WEBHOOK_ALLOW_HTTP is on), stored normalised as a URL parser writes it " +
    '(" https:Example.com" is stored as "https://example.com/"). At most 2048 characters, as sent and once normalised. ' +
    "No user name or password, no port 0, no control characters.",
  examples: ["https://erp.example.com/hooks/kontor"],
  // the service's URL check is the check; it also takes forms a parser normalises, which these do not describe
  ...documented({ format: "uri", pattern: "^https?://" }),
});
// a list of distinct names; duplicates are folded, so the cap only bounds the request
const Events = t.Array(EventName, { minItems: 1, maxItems: 50, description: "At least one event name" });
const IsActive = t.Boolean({ description: "Inactive webhooks get nothing queued; what was queued waits until reactivated" });

const webhook = t.Object(
  {
    id: Uuid,
    url: t.String(),
    events: t.Array(t.String()),
    is_active: t.Boolean(),
    last_triggered_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: "Webhook" },
);

const delivery = t.Object(
  {
    id: Uuid,
    event: t.String(),
    status: t.UnionEnum([...DELIVERY_STATUSES]),
    attempts: t.Integer({ description: "Attempts made in the current series (a redeliver starts a new one)" }),
    last_status_code: Nullable(t.Integer()),
    last_error: Nullable(t.String()),
    next_attempt_at: Nullable(
      t.String({
        format: "date-time",
        description: "When the next attempt is due; null unless pending, and while the webhook is inactive (it is due at once when reactivated)",
        examples: ["2026-11-22T10:15:30.123456Z"],
      }),
    ),
    delivered_at: Nullable(Timestamp),
    created_at: Timestamp,
  },
  { title: "WebhookDelivery" },
);

const attempt = t.Object(
  {
    id: Uuid,
    attempted_at: Timestamp,
    status_code: Nullable(t.Integer()),
    duration_ms: t.Integer(),
    error: Nullable(t.String()),
    response_body: Nullable(t.String({ description: "The first 1 KiB of the receiver's answer" })),
  },
  { title: "WebhookDeliveryAttempt" },
);

const WindowBound = (side: string) =>
  t.String({
    maxLength: 40,
    description: `Deliveries created ${side} (an ISO 8601 timestamp, or a date: its midnight UTC); default: no bound`,
    examples: ["2026-11-22T10:00:00Z"],
  });

export const WebhookModel = {
  redeliverMatching: strictObject(
    {
      status: withoutDefault(t.UnionEnum(["failed", "delivered"], { description: "The deliveries to send again: `failed` (after an outage) or `delivered`" })),
      from: t.Optional(WindowBound("at or after this")),
      to: t.Optional(WindowBound("before this")),
    },
    { title: "WebhookRedeliver" },
  ),
  redelivered: t.Object(
    { redelivered: t.Integer({ description: "Deliveries queued again, each a fresh series of attempts under its own id" }) },
    { title: "WebhookRedelivered" },
  ),
  create: strictObject({ url: Url, events: Events, is_active: t.Optional(IsActive) }, { title: "WebhookCreate" }),
  update: strictObject({ url: t.Optional(Url), events: t.Optional(Events), is_active: t.Optional(IsActive) }, { title: "WebhookUpdate" }),
  webhook,
  webhookWithSecret: t.Composite(
    [
      webhook,
      t.Object({
        secret: t.String({
          description:
            "Signing secret, shown only here: `whsec_` + 33 random bytes in base64 (also valid base64url). " +
            "X-Webhook-Signature is keyed with this whole string, webhook-signature (Standard Webhooks) with the decoded bytes.",
        }),
      }),
    ],
    { title: "WebhookWithSecret" },
  ),
  delivery,
  deliveryDetail: t.Composite(
    [
      delivery,
      t.Object({
        attempts_log: t.Array(attempt),
        payload: t.Object(
          {
            id: t.Optional(t.String({ description: "The event's id, as the feed and the webhook-id header have it (absent from deliveries queued before events had per-organisation ids)" })),
            event: t.String(),
            type: t.Optional(t.String({ description: "The same as `event`" })),
            timestamp: Timestamp,
            created_at: t.Optional(t.String({ ...Timestamp, description: "The same as `timestamp`" })),
            resource: t.Optional(t.Object({ type: t.String(), id: t.String() })),
            data: t.Object({}, { additionalProperties: true }),
            links: t.Optional(
              t.Record(t.String(), t.String(), { description: "Related URLs (invoice.finalized: the invoice's `pdf` and `ubl`), relative to Kontor's base URL" }),
            ),
            payment_id: t.Optional(t.String({ description: "invoice.payment_recorded: the id of the payment recorded" })),
          },
          { description: "The body sent, as frozen when the event happened: the event as GET /api/v1/events/{id} shows it (docs/webhooks.md#the-body)" },
        ),
      }),
    ],
    { title: "WebhookDeliveryDetail" },
  ),
} as const;

export type WebhookCreate = typeof WebhookModel.create.static;
export type RedeliverMatching = typeof WebhookModel.redeliverMatching.static;
export type WebhookUpdate = typeof WebhookModel.update.static;
