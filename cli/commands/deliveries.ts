/**
 * `kontor deliveries list|replay` (docs/webhooks.md#deliveries-and-replay): the declarations, with the option parsers and
 * usage checks; what they do is in cli/actions/deliveries.ts, imported when one runs.
 */
import { InvalidArgumentError, Option, type Command } from "commander";
import { DELIVERY_STATUSES } from "../../db/values.ts";
import { parseDuration } from "../../server/config.ts";
import { isoFromMicros, normalizeTimestamp } from "../../server/lib/time.ts";
import type { ListOptions, ReplayOptions } from "../actions/deliveries.ts";
import { withGlobals } from "../globals.ts";

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

const withFilters = (command: Command) =>
  command
    .option("--webhook <id>", "only this webhook's deliveries")
    .option("--since <age>", "only deliveries created within this age (2h, 30m, 7d) or since a timestamp", parseSince)
    .option("--org <org>", "only this organisation's deliveries (id or name)");

const actions = () => import("../actions/deliveries.ts");

export function registerDeliveryCommands(program: Command): void {
  const deliveries = program.command("deliveries").description("inspect webhook deliveries and queue them again");

  withFilters(withGlobals(deliveries.command("list").description("list webhook deliveries, newest first")))
    .addOption(new Option("--status <status>", "only deliveries in this status").choices(DELIVERY_STATUSES))
    .option("--limit <n>", "show at most this many", parseLimit, 100)
    .action(async (options: ListOptions) => (await actions()).list(options));

  withFilters(
    withGlobals(
      deliveries
        .command("replay")
        .description("queue deliveries again as a fresh series of attempts (same ids): the given IDs, or every failed one")
        .argument("[ids...]", "delivery ids"),
    ),
  )
    .option("--failed", "every failed delivery, narrowed by --since, --webhook and --org")
    .action(async (ids: string[], options: ReplayOptions, command: Command) => {
      if (ids.length === 0 && !options.failed) command.error("error: give delivery IDs or --failed", { exitCode: 2 });
      if (ids.length > 0 && options.failed) command.error("error: give delivery IDs or --failed, not both", { exitCode: 2 });
      if (!options.failed && (options.since || options.webhook || options.org)) {
        command.error("error: --since, --webhook and --org select failed deliveries: use them with --failed", { exitCode: 2 });
      }
      await (await actions()).replay(ids, options);
    });
}
