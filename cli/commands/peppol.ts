/**
 * `kontor peppol poll`: the declaration; what it does is in cli/actions/peppol.ts, imported when
 * it runs. The worker polls on its schedule; this is the same poll, at once, for an operator.
 */
import type { Command } from "commander";
import type { PollOptions } from "../actions/peppol.ts";
import { withGlobals } from "../globals.ts";

export function registerPeppolCommands(program: Command): void {
  const peppol = program.command("peppol").description("the organisations' Peppol access points");
  withGlobals(
    peppol
      .command("poll")
      .description("import what the access points received (supplier invoices become pending expenses) and acknowledge it"),
  )
    .option("--org <org>", "only this organisation (id or name)")
    .action(async (options: PollOptions) => (await import("../actions/peppol.ts")).poll(options));
}
