/** `kontor reminders run` (declared in cli/commands/reminders.ts). */
import { findOrganization } from "../../server/orgs/service.ts";
import { runReminders } from "../../server/reminders/run.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";
import { printJson, printTable } from "../output.ts";

export type RunOptions = GlobalOptions & { date?: string; dryRun?: boolean; org?: string };

export function run(options: RunOptions): void {
  const { db } = open(options);
  const orgId = options.org ? findOrganization(db, options.org).id : undefined;
  const runs = runReminders(db, { date: options.date, dryRun: options.dryRun, orgId });
  if (options.json) return printJson(runs);
  const rows = runs.flatMap((run) => run.data.map((r) => ({ ...r, date: run.date })));
  if (rows.length === 0) return console.log(options.dryRun ? "Nothing to send." : "Nothing sent.");
  printTable(rows, [
    ["DATE", (r) => r.date],
    ["INVOICE", (r) => r.invoice_number],
    ["LEVEL", (r) => r.level],
    ["DAYS", (r) => r.days_after_due],
    ["CHANNEL", (r) => r.channel],
    ["INTEREST", (r) => r.interest],
    ["COMPENSATION", (r) => r.compensation],
    ["PROBLEM", (r) => r.problem ?? ""],
  ]);
}
