/** `kontor recurring run` (declared in cli/commands/recurring.ts): runs server/recurring/run.ts on demand and prints its report. */
// first: Elysia reads NODE_ENV once, when it loads (the invoices' schemas load it)
import "../../server/http/elysia-production.ts";
import { findOrganization } from "../../server/orgs/service.ts";
import { futureRunDate, runRecurring } from "../../server/recurring/run.ts";
import { today } from "../../server/lib/time.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";
import { printJson, printLine, printTable } from "../output.ts";

export type RunOptions = GlobalOptions & { date?: string; org?: string };

/**
 * KONTOR_TEST_RECURRING_PAUSE_MS: the tests' hook (tests/recurring/recurring.test.ts) to kill a run between
 * two periods' commits; unset, a run never waits.
 */
const pauseMs = Number(process.env.KONTOR_TEST_RECURRING_PAUSE_MS ?? 0);

export async function run(options: RunOptions): Promise<void> {
  if (options.date !== undefined && options.date > today()) throw futureRunDate(options.date);
  const { db } = await open(options);
  const orgId = options.org === undefined ? undefined : (await findOrganization(db, options.org)).id;
  const report = await runRecurring(db, {
    date: options.date,
    orgId,
    afterPeriod: pauseMs > 0 ? () => Bun.sleepSync(pauseMs) : undefined,
  });
  if (options.json) return printJson(report);
  const caughtUp = report.generated.filter((g) => g.caught_up).length;
  const refused = report.generated.filter((g) => g.finalize_error !== null);
  printLine(`Recurring invoices on ${report.date}: ${report.generated.length} generated (${caughtUp} caught up), ${refused.length} left as drafts, ${report.failed.length} failed.`);
  if (report.generated.length > 0) {
    printTable(report.generated, [
      ["INVOICE", (g) => g.number],
      ["STATUS", (g) => g.status],
      ["PERIOD", (g) => `${g.period_start}..${g.period_end}`],
      ["ISSUED", (g) => g.issue_date],
      ["CAUGHT UP", (g) => (g.caught_up ? "yes" : "")],
      ["RECURRING INVOICE", (g) => g.recurring_invoice_id],
      ["PROBLEM", (g) => g.finalize_error ?? g.send_error ?? ""],
    ]);
  }
  for (const failed of report.failed) printLine(`Not generated: ${failed.recurring_invoice_id} period ${failed.period_start}: ${failed.error}`);
}
