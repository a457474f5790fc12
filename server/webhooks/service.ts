/**
 * Webhook subscriptions (api-spec 2.9, 4.9; contract 7.1). Every change is audited in its own
 * transaction. The secret leaves the server only in the answers of create and regenerate.
 */
import { eq } from "drizzle-orm";
import { webhooks } from "../../db/schema.ts";
import { audit } from "../audit/service.ts";
import type { Config } from "../config.ts";
import { ValidationFailed } from "../lib/errors.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { findInOrg, transaction, type Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";
import { MAX_URL_LENGTH, type WebhookCreate, type WebhookUpdate } from "./model.ts";
import { scheduleNudge } from "./outbox.ts";
import { parkDeliveries, unparkDeliveries } from "./queue.ts";
import { generateSecret } from "./signing.ts";

type WebhookRow = typeof webhooks.$inferSelect;
/** The part of the configuration that decides which URLs are accepted. */
export type UrlPolicy = Pick<Config, "webhookAllowHttp">;

export function presentWebhook(row: WebhookRow) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    is_active: row.isActive,
    last_triggered_at: row.lastTriggeredAt,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

const withSecret = (row: WebhookRow) => ({ ...presentWebhook(row), secret: row.secret });

/** C0 controls, DEL and C1 controls: the URL parser would silently drop some (tab, newline) and encode others. */
const CONTROL = /\p{Cc}/u;

/**
 * The URL as stored: the WHATWG parser's normalised `href` (scheme and host lower-cased, default
 * port dropped, path resolved and percent-encoded, leading and trailing spaces removed, so
 * " https:x.example.com" is stored as "https://x.example.com/"). Refused, each a 422 on `url`:
 * what does not parse, a scheme other than https (or http where allowed), control characters,
 * credentials (`user:pass@host`: a receiver does not need them, and "https://a.example.com:443@evil.com/"
 * reads like a.example.com but goes to evil.com), port 0, and more than 2048 characters once
 * normalised. Private destinations are not refused here: what a name resolves to can change, so
 * that is checked at every attempt.
 */
export function normaliseUrl(url: string, policy: UrlPolicy): string {
  const fail = (message: string): never => {
    throw ValidationFailed.field("url", message);
  };
  if (CONTROL.test(url)) fail("The url must not contain control characters.");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail("The url field must be a valid URL.");
  }
  const schemes = policy.webhookAllowHttp ? ["https:", "http:"] : ["https:"];
  if (!schemes.includes(parsed.protocol)) fail(policy.webhookAllowHttp ? "The url must be an HTTPS or HTTP URL." : "The url must be an HTTPS URL.");
  if (parsed.hostname === "") fail("The url field must name a host.");
  if (parsed.username !== "" || parsed.password !== "") fail("The url must not contain a user name or password.");
  if (parsed.port === "0") fail("The url must not use port 0.");
  const href = parsed.href;
  if (href.length > MAX_URL_LENGTH) fail(`The url must not be greater than ${MAX_URL_LENGTH} characters once normalised.`);
  return href;
}

/** Event names are checked by the schema; repeated names are folded into one subscription. */
const distinct = (events: string[]) => [...new Set(events)];

export const webhookListSpec: ListSpec<typeof webhooks> = {
  table: webhooks,
  sorts: { created_at: webhooks.createdAt },
  defaultSort: "-created_at",
  updatedAt: webhooks.updatedAt,
};

export const webhookService = {
  listSpec: webhookListSpec,
  list(scope: Scope, query: ListQuery, url: string) {
    return listPage(scope, webhookListSpec, query, url, (rows) => rows.map(presentWebhook));
  },
  get(scope: Scope, id: string) {
    return presentWebhook(findInOrg(scope.db, webhooks, scope.org.id, id));
  },
  create(scope: Scope, input: WebhookCreate, policy: UrlPolicy) {
    const url = normaliseUrl(input.url, policy);
    return transaction(scope.db, (tx) => {
      const now = nowIso();
      const row: WebhookRow = {
        id: newId(),
        organizationId: scope.org.id,
        url,
        events: distinct(input.events),
        isActive: input.is_active ?? true,
        secret: generateSecret(),
        lastTriggeredAt: null,
        createdAt: now,
        updatedAt: now,
      };
      tx.insert(webhooks).values(row).run();
      audit(tx, scope, "webhook.created", "webhook", row.id);
      return withSecret(row);
    });
  },
  update(scope: Scope, id: string, input: WebhookUpdate, policy: UrlPolicy) {
    const url = input.url === undefined ? undefined : normaliseUrl(input.url, policy);
    return transaction(scope.db, (tx) => {
      const before = findInOrg(tx, webhooks, scope.org.id, id);
      const set: Partial<WebhookRow> = { updatedAt: nowIso() };
      if (url !== undefined) set.url = url;
      if (input.events !== undefined) set.events = distinct(input.events);
      if (input.is_active !== undefined) set.isActive = input.is_active;
      tx.update(webhooks).set(set).where(eq(webhooks.id, id)).run();
      audit(tx, scope, "webhook.updated", "webhook", id);
      // its queued deliveries wait while it is inactive, parked out of the claim's way (queue.ts)
      if (before.isActive && input.is_active === false) parkDeliveries(tx, scope.org.id, id);
      if (!before.isActive && input.is_active === true) {
        unparkDeliveries(tx, scope.org.id, id);
        scheduleNudge(); // what waited may go now
      }
      return presentWebhook(findInOrg(tx, webhooks, scope.org.id, id));
    });
  },
  /** Its queued deliveries and their attempts go with it (the subscription is gone). */
  remove(scope: Scope, id: string): void {
    transaction(scope.db, (tx) => {
      findInOrg(tx, webhooks, scope.org.id, id);
      tx.delete(webhooks).where(eq(webhooks.id, id)).run();
      audit(tx, scope, "webhook.deleted", "webhook", id);
    });
  },
  /** The old secret stops at once: every later attempt, retries included, signs with the new one. */
  regenerateSecret(scope: Scope, id: string) {
    return transaction(scope.db, (tx) => {
      findInOrg(tx, webhooks, scope.org.id, id);
      tx.update(webhooks).set({ secret: generateSecret(), updatedAt: nowIso() }).where(eq(webhooks.id, id)).run();
      audit(tx, scope, "webhook.secret_regenerated", "webhook", id);
      return withSecret(findInOrg(tx, webhooks, scope.org.id, id));
    });
  },
};
