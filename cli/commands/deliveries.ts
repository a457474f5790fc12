/**
 * `kontor deliveries list|replay` (contract 2): the operator's view of the webhook outbox.
 * The CLI works on the database as a whole, so both commands see every organisation unless
 * `--org` or `--webhook` narrows them; replays are audited with the cli actor.
 */
import { InvalidArgumentError, Option, type Command } from "commander";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { webhooks } from "../../db/schema.ts";
import { parseDuration } from "../../server/config.ts";
import { ApiError } from "../../server/lib/errors.ts";
import { isoFromMicros, normalizeTimestamp } from "../../server/lib/time.ts";
import { CLI_ACTOR, findOrganization } from "../../server/orgs/service.ts";
import { findDeliveries, findDeliveryIds, presentDelivery, replayDeliveries, type DeliverySearch } from "../../server/webhooks/deliveries.ts";
import { DELIVERY_STATUSES, type DeliveryStatus } from "../../server/webhooks/model.ts";
import { open, type GlobalOptions } from "../context.ts";
import { withGlobals } from "../main.ts";
import { printJson, printTable } from "../output.ts";
import { progressBar } from "../progress.ts";

type Filters = { org?: string; webhook?: string; since?: string };
type ListOptions = GlobalOptions & Filters & { status?: DeliveryStatus; limit: number };
type ReplayOptions = GlobalOptions & Filters & { failed?: boolean };

/** "2h", "30m", "7d" back from now, or an ISO 8601 timestamp; the stored timestamp form. */
function parseSince(value: string): string {
  const ms = parseDuration(value);
  if (ms !== null) return isoFromMicros((Date.now() - ms) * 1000);
  const timestamp = normalizeTimestamp(value);
  if (timestamp) return timestamp;
  throw new InvalidArgumentError("use an age like 2h, 30m, 7d or an ISO 8601 timestamp");
}

function parseLimit(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("must be a whole number of at least 1");
  return n;
}

/** The filters as a search; an unknown --org or --webhook is a user error, not an empty list. */
function search(db: Db, filters: Filters): DeliverySearch {
  if (filters.webhook && !db.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.id, filters.webhook)).get()) {
    throw new ApiError(404, `No webhook ${filters.webhook}.`);
  }
  return { orgId: filters.org ? findOrganization(db, filters.org).id : undefined, webhookId: filters.webhook, createdSince: filters.since };
}

const withFilters = (command: Command) =>
  command
    .option("--webhook <id>", "only this webhook's deliveries")
    .option("--since <age>", "only deliveries created within this age (2h, 30m, 7d) or since a timestamp", parseSince)
    .option("--org <org>", "only this organisation's deliveries (id or name)");

export function registerDeliveryCommands(program: Command): void {
  const deliveries = program.command("deliveries").description("inspect webhook deliveries and queue them again");

  withFilters(withGlobals(deliveries.command("list").description("list webhook deliveries, newest first")))
    .addOption(new Option("--status <status>", "only deliveries in this status").choices(DELIVERY_STATUSES))
    .option("--limit <n>", "show at most this many", parseLimit, 100)
    .action((options: ListOptions) => {
      const { db } = open(options);
      const { rows, total } = findDeliveries(db, { ...search(db, options), status: options.status, limit: options.limit });
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
    });

  withFilters(
    withGlobals(
      deliveries
        .command("replay")
        .description("queue deliveries again as a fresh series of attempts (same ids): the given IDs, or every failed one")
        .argument("[ids...]", "delivery ids"),
    ),
  )
    .option("--failed", "every failed delivery, narrowed by --since, --webhook and --org")
    .action((ids: string[], options: ReplayOptions, command: Command) => {
      if (ids.length === 0 && !options.failed) command.error("error: give delivery IDs or --failed", { exitCode: 2 });
      if (ids.length > 0 && options.failed) command.error("error: give delivery IDs or --failed, not both", { exitCode: 2 });
      if (!options.failed && (options.since || options.webhook || options.org)) {
        command.error("error: --since, --webhook and --org select failed deliveries: use them with --failed", { exitCode: 2 });
      }
      const { db } = open(options);
      const selected = options.failed ? findDeliveryIds(db, { ...search(db, options), status: "failed" }) : ids;
      const progress = progressBar("Replaying");
      const replayed = replayDeliveries(db, selected, CLI_ACTOR, progress?.update);
      progress?.finish();
      if (options.json) printJson({ replayed, ids: [...new Set(selected)] });
      else if (replayed === 0) console.log("Nothing to replay.");
      else console.log(`Queued ${replayed} ${replayed === 1 ? "delivery" : "deliveries"} again; a running worker sends them within a second.`);
    });
}
