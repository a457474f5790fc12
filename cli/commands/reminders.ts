/** `kontor reminders run` (docs/reminders.md#reminder-runs): the declaration; what it does is in cli/actions/reminders.ts, imported when it runs. */
import { InvalidArgumentError, type Command } from "commander";
import { isValidDate } from "../../server/lib/time.ts";
import type { RunOptions } from "../actions/reminders.ts";
import { withGlobals } from "../globals.ts";

function parseDate(value: string): string {
  if (!isValidDate(value)) throw new InvalidArgumentError("use a date YYYY-MM-DD");
  return value;
}

export function registerReminderCommands(program: Command): void {
  const reminders = program.command("reminders").description("payment reminders");
  withGlobals(
    reminders
      .command("run")
      .description("run the reminder policies now: each level due and not yet recorded is recorded once and sent (or, --dry-run, only shown)")
      .option("--date <date>", "the run's local date (default: each organisation's today)", parseDate)
      .option("--dry-run", "show what would be sent; write nothing")
      .option("--org <org>", "only this organisation (id or name)"),
  ).action(async (options: RunOptions) => (await import("../actions/reminders.ts")).run(options));
}
