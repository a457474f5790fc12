/**
 * `kontor deliveries list|replay` (declared in cli/commands/deliveries.ts): the operator's view
 * of the webhook outbox. The CLI works on the database as a whole, so both commands see every
 * organisation unless `--org` or `--webhook` narrows them; replays are audited with the cli actor.
 */
import "../../server/http/elysia-production.ts";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import type { DeliveryStatus } from "../../db/values.ts";
import { webhooks } from "../../db/schema.ts";
import { ApiError } from "../../server/lib/errors.ts";
import { CLI_ACTOR, findOrganization } from "../../server/orgs/service.ts";
import { findDeliveries, findDeliveryIds, presentDelivery, replayDeliveries, type DeliverySearch } from "../../server/webhooks/deliveries.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";
import { printJson, printTable } from "../output.ts";
import { progressBar } from "../progress.ts";
import { firstRow } from "../../db/client.ts";

export type Filters = { org?: string; webhook?: string; since?: string };
export type ListOptions = GlobalOptions & Filters & { status?: DeliveryStatus; limit: number };
export type ReplayOptions = GlobalOptions & Filters & { failed?: boolean };

/** The filters as a search; an unknown --org or --webhook is a user error, not an empty list. */
async function search(db: Db, filters: Filters): Promise<DeliverySearch> {
  if (filters.webhook && !(await firstRow(db.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.id, filters.webhook))))) {
    throw new ApiError(404, `No webhook ${filters.webhook}.`);
  }
  return { orgId: filters.org ? (await findOrganization(db, filters.org)).id : undefined, webhookId: filters.webhook, createdSince: filters.since };
}

export async function list(options: ListOptions): Promise<void> {
  const { db } = await open(options);
  const { rows, total } = await findDeliveries(db, { ...await search(db, options), status: options.status, limit: options.limit });
  const out = rows.map((row) => ({ ...presentDelivery(row), webhook_id: row.webhookId }));
  if (options.json) printJson(out);
  else
    printTable(out, [
      ["ID", (d) => d.id],
      ["WEBHOOK", (d) => d.webhook_id],
      ["EVENT", (d) => d.event],
      ["STATUS", (d) => d.status],
      ["ATTEMPTS", (d) => d.attempts],
      ["CODE", (d) => d.last_status_code],
      ["LAST ERROR", (d) => (d.last_error && d.last_error.length > 48 ? `${d.last_error.slice(0, 47)}…` : d.last_error)],
      ["NEXT ATTEMPT", (d) => d.next_attempt_at],
      ["CREATED", (d) => d.created_at],
    ]);
  // on stderr, so --json stays one document
  if (total > rows.length) console.error(`(the newest ${rows.length} of ${total}; --limit shows more)`);
}

/** The given ids, or with --failed every failed delivery the filters select (the declaration checked which). */
export async function replay(ids: string[], options: ReplayOptions): Promise<void> {
  const { db } = await open(options);
  const selected = options.failed ? await findDeliveryIds(db, { ...await search(db, options), status: "failed" }) : ids;
  const progress = progressBar("Replaying");
  const replayed = await replayDeliveries(db, selected, CLI_ACTOR, progress?.update);
  progress?.finish();
  if (options.json) printJson({ replayed, ids: [...new Set(selected)] });
  else if (replayed === 0) console.log("Nothing to replay.");
  else console.log(`Queued ${replayed} ${replayed === 1 ? "delivery" : "deliveries"} again; a running worker sends them within a second.`);
}
