/**
 * Webhook subscriptions (docs/webhooks.md#subscribing). Every change is audited in its own
 * transaction. The secret leaves the server only in the answers of create and regenerate; it
 * is stored sealed with the server's key (server/lib/secret-box.ts).
 */
import { count, eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { webhooks } from "../../db/schema.ts";
import { recordChange } from "../changes/record.ts";
import type { Config } from "../config.ts";
import { Forbidden, ValidationFailed } from "../lib/errors.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { deleteInOrg, findInOrg, snapshot, unitOfWork, updateInOrg, type Scope } from "../lib/scope.ts";
import { isSealed, loadSecretBox, type SecretBox } from "../lib/secret-box.ts";
import { newId, nowIso } from "../lib/time.ts";
import { RESOURCE_VIEW_ABILITY, resourceOf } from "../changes/events.ts";
import { MAX_URL_LENGTH, type WebhookCreate, type WebhookUpdate } from "./model.ts";
import { parkDeliveries, unparkDeliveries } from "./queue.ts";
import { generateSecret } from "./signing.ts";
import { metadataHostRefusal, refusedHost } from "../lib/hosts.ts";
import { firstRow } from "../../db/client.ts";

type WebhookRow = typeof webhooks.$inferSelect;
/** The part of the configuration that decides which URLs are accepted. */
export type UrlPolicy = Pick<Config, "webhookAllowHttp" | "webhookAllowPrivate">;

/**
 * Webhooks one organisation may have: each multiplies the deliveries of its events, and so the
 * work the organisation puts on the worker (worker.ts; docs/webhooks.md).
 */
export const MAX_WEBHOOKS_PER_ORGANIZATION = 20;

/**
 * The abilities of the caller, for `requireEventAccess`; null for the operator (the CLI), whom
 * no ability limits.
 */
export type Reader = ReadonlySet<string> | null;

/**
 * A webhook reaches no further than its manager could read directly (docs/webhooks.md): its
 * events carry resources, so subscribing to them or changing them, moving the webhook to
 * another URL, reading a delivery's payload and redelivering need, besides the route's
 * organization.* ability, the view ability of every resource type those events carry.
 */
export function requireEventAccess(abilities: Reader, events: Iterable<string>): void {
  if (abilities === null) return;
  const missing = new Set<string>();
  const families = new Set<string>(); // "invoice.*": the events that need a missing ability
  for (const event of events) {
    const resource = resourceOf(event);
    const ability = RESOURCE_VIEW_ABILITY[resource] as string | undefined;
    // an event name no longer known (left by an older version) is never emitted: it carries nothing
    if (ability === undefined || abilities.has(ability)) continue;
    missing.add(ability);
    families.add(`${resource}.*`);
  }
  if (missing.size === 0) return;
  const and = (items: Set<string>) => [...items].join(" and ");
  const plural = missing.size > 1;
  throw new Forbidden(
    `Missing the ${and(missing)} abilit${plural ? "ies" : "y"}: the webhook's ${and(families)} events carry data that ` +
      `needs ${plural ? "them" : "it"}, and a webhook reaches no further than its token could read directly.`,
  );
}

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

/** The answer of create and regenerate: the secret as generated, before it was sealed. */
const withSecret = (row: WebhookRow, secret: string) => ({ ...presentWebhook(row), secret });

/** C0 controls, DEL and C1 controls: the URL parser would silently drop some (tab, newline) and encode others. */
const CONTROL = /\p{Cc}/u;

/**
 * The URL as stored: the WHATWG parser's normalised `href` (scheme and host lower-cased, default
 * port dropped, path resolved and percent-encoded, leading and trailing spaces removed, so
 * " https:x.example.com" is stored as "https://x.example.com/"). Refused, each a 422 on `url`:
 * what does not parse, a scheme other than https (or http where allowed), control characters,
 * credentials (`user:pass@host`: a receiver does not need them, and "https://a.example.com:443@evil.com/"
 * reads like a.example.com but goes to evil.com), port 0, more than 2048 characters once
 * normalised, and (unless private destinations are allowed) a host that is a loopback, private,
 * link-local or metadata address literally, or `localhost`; and, whatever the policy, a cloud
 * metadata service's name or address (server/lib/hosts.ts, METADATA_HOSTS). What a name resolves to can change,
 * so that, like the scheme, is checked again at every attempt (send.ts).
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
  // first: a metadata host is refused in the same words as every other outbound URL's (server/lib/hosts.ts)
  const metadata = metadataHostRefusal("url", parsed.hostname);
  if (metadata) fail(metadata);
  const refused = policy.webhookAllowPrivate ? null : refusedHost(parsed.hostname);
  if (refused) fail(`The url must not point to a private, loopback or other internal address (${refused}).`);
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
    return snapshot(scope.db, async (tx) => presentWebhook(await findInOrg(tx, webhooks, scope.org.id, id)));
  },
  async create(scope: Scope, input: WebhookCreate, policy: UrlPolicy, secrets: SecretBox, abilities: Reader) {
    requireEventAccess(abilities, input.events);
    const url = normaliseUrl(input.url, policy);
    return await unitOfWork(scope.db, async (tx) => {
      const existing = (await firstRow(tx.select({ n: count() }).from(webhooks).where(eq(webhooks.organizationId, scope.org.id))))!.n;
      if (existing >= MAX_WEBHOOKS_PER_ORGANIZATION) {
        throw ValidationFailed.field("webhooks", `An organisation can have at most ${MAX_WEBHOOKS_PER_ORGANIZATION} webhooks; delete one before creating another.`);
      }
      const now = nowIso();
      const id = newId();
      const secret = generateSecret();
      const row: WebhookRow = {
        id,
        organizationId: scope.org.id,
        url,
        events: distinct(input.events),
        isActive: input.is_active ?? true,
        secret: secrets.seal(secret, id),
        lastTriggeredAt: null,
        createdAt: now,
        updatedAt: now,
      };
      await tx.insert(webhooks).values(row);
      await recordChange(tx, scope, { action: "webhook.created", resource: { type: "webhook", id: row.id } });
      return withSecret(row, secret);
    });
  },
  async update(scope: Scope, id: string, input: WebhookUpdate, policy: UrlPolicy, abilities: Reader) {
    const url = input.url === undefined ? undefined : normaliseUrl(input.url, policy);
    const events = input.events === undefined ? undefined : distinct(input.events);
    return await unitOfWork(scope.db, async (tx) => {
      const before = await findInOrg(tx, webhooks, scope.org.id, id);
      const eventsChange = events !== undefined && (events.length !== before.events.length || events.some((e) => !before.events.includes(e)));
      if ((url !== undefined && url !== before.url) || eventsChange) requireEventAccess(abilities, [...before.events, ...(events ?? [])]);
      const set: Partial<WebhookRow> = { updatedAt: nowIso() };
      if (url !== undefined) set.url = url;
      if (events !== undefined) set.events = events;
      if (input.is_active !== undefined) set.isActive = input.is_active;
      await updateInOrg(tx, webhooks, scope.org.id, id, set);
      await recordChange(tx, scope, { action: "webhook.updated", resource: { type: "webhook", id } });
      // its queued deliveries wait while it is inactive, parked out of the claim's way (queue.ts)
      if (before.isActive && input.is_active === false) await parkDeliveries(tx, scope.org.id, id);
      if (!before.isActive && input.is_active === true) {
        await unparkDeliveries(tx, scope.org.id, id);
        tx.connection.outbox.queued(); // what waited may go now
      }
      return presentWebhook(await findInOrg(tx, webhooks, scope.org.id, id));
    });
  },
  /** Its queued deliveries and their attempts go with it (the subscription is gone). */
  async remove(scope: Scope, id: string): Promise<void> {
    await unitOfWork(scope.db, async (tx) => {
      await deleteInOrg(tx, webhooks, scope.org.id, id);
      await recordChange(tx, scope, { action: "webhook.deleted", resource: { type: "webhook", id } });
    });
  },
  /**
   * The old secret stops at once: every later attempt, retries included, signs with the new one.
   * Whoever holds the secret can sign events its receiver trusts, so it takes what reading them would.
   */
  async regenerateSecret(scope: Scope, id: string, secrets: SecretBox, abilities: Reader) {
    return await unitOfWork(scope.db, async (tx) => {
      const row = await findInOrg(tx, webhooks, scope.org.id, id);
      requireEventAccess(abilities, row.events);
      const secret = generateSecret();
      await updateInOrg(tx, webhooks, scope.org.id, id, { secret: secrets.seal(secret, id), updatedAt: nowIso() });
      await recordChange(tx, scope, { action: "webhook.secret_regenerated", resource: { type: "webhook", id } });
      return withSecret(await findInOrg(tx, webhooks, scope.org.id, id), secret);
    });
  },
};

/** The server's secret box, with what an older Kontor stored in plaintext sealed: for a server's or worker's start. */
export async function openSecrets(db: Db, config: Config): Promise<SecretBox> {
  const secrets = loadSecretBox(config);
  await sealPlaintextSecrets(db, secrets);
  return secrets;
}

/**
 * Seals the secrets an older Kontor stored in plaintext, at start (`kontor serve`, `kontor
 * worker`): one transaction, and nothing written when every secret is sealed already, so it
 * can run on every start. Returns how many it sealed.
 */
export async function sealPlaintextSecrets(db: Db, secrets: SecretBox): Promise<number> {
  // a few rows per organisation: read whole, so that "sealed" has the one definition of secret-box.ts
  const plaintext = async (tx: Tx) => (await tx.select({ id: webhooks.id, secret: webhooks.secret }).from(webhooks)).filter((row) => !isSealed(row.secret));
  if ((await snapshot(db, plaintext)).length === 0) return 0;
  return await unitOfWork(db, async (tx) => {
    const rows = await plaintext(tx);
    for (const row of rows) await tx.update(webhooks).set({ secret: secrets.seal(row.secret, row.id) }).where(eq(webhooks.id, row.id));
    return rows.length;
  });
}
