/** `kontor reminders run` (declared in cli/commands/reminders.ts). */
import { findOrganization } from "../../server/orgs/service.ts";
import { runReminders } from "../../server/reminders/run.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";
import { printJson, printTable } from "../output.ts";

export type RunOptions = GlobalOptions & { date?: string; dryRun?: boolean; org?: string };

export async function run(options: RunOptions): Promise<void> {
  const { db } = await open(options);
  const orgId = options.org ? (await findOrganization(db, options.org)).id : undefined;
  // days without a statutory rate: a warning on stderr (stdout keeps the table or the JSON)
  const log = { warn: (message: string, fields: Record<string, unknown> = {}) => console.error(`warning: ${message}: ${fields.invoice} level ${fields.level}: ${fields.problem}`) };
  const runs = await runReminders(db, { date: options.date, dryRun: options.dryRun, orgId, log });
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
    ["TOTAL", (r) => r.total_to_pay],
    ["PROBLEM", (r) => r.problem ?? ""],
  ]);
}
