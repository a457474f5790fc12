/** `kontor recurring run`: the declaration; what it does is in cli/actions/recurring.ts, imported when it runs. */
import { InvalidArgumentError, type Command } from "commander";
import type { RunOptions } from "../actions/recurring.ts";
import { isValidDate } from "../../server/lib/time.ts";
import { withGlobals } from "../globals.ts";

function parseDate(value: string): string {
  if (!isValidDate(value)) throw new InvalidArgumentError("use a date YYYY-MM-DD");
  return value;
}

const actions = () => import("../actions/recurring.ts");

export function registerRecurringCommands(program: Command): void {
  const recurring = program.command("recurring").description("recurring invoices (docs/recurring.md)");
  withGlobals(
    recurring
      .command("run")
      .description("generate every due period's invoice now, exactly once (what the worker does daily), and print what was generated, caught up and refused"),
  )
    .option("--date <date>", "the run's date: periods starting on or before it are generated, issued on it (default: today, UTC)", parseDate)
    .option("--org <org>", "only this organisation's recurring invoices (id or name)")
    .action(async (options: RunOptions) => (await actions()).run(options));
}
