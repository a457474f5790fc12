#!/usr/bin/env bun
/**
 * The `kontor` command (contract section 2). Exit codes: 0 success, 1 user error (message on
 * stderr), 2 usage error. Every command takes --db PATH and --json.
 *
 * Starting is cheap: this module loads commander and the commands' declarations (cli/commands/,
 * so that every --help lists its options) and nothing of the server. Each command imports what
 * it does (cli/actions/) when it runs; `--version`, `--help` and usage errors load none of it.
 */
import { Command, CommanderError } from "commander";
import { VERSION } from "../server/version.ts";
import { registerBackupCommands } from "./commands/backup.ts";
import { registerBankAccountCommands } from "./commands/bank-accounts.ts";
import { registerCoreCommands } from "./commands/core.ts";
import { registerDeliveryCommands } from "./commands/deliveries.ts";
import { registerExportCommands } from "./commands/export.ts";
import { registerOrgCommands } from "./commands/orgs.ts";
import { registerTokenCommands } from "./commands/tokens.ts";
import { UserError } from "./globals.ts";
import { printError, terminalSafe } from "./output.ts";

export function buildProgram(): Command {
  const program = new Command("kontor")
    .description("Kontor: self-hosted invoicing and accounting API")
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride()
    // commander's own messages quote what was typed ("unknown option '…'"): escaped like the rest
    .configureOutput({
      writeOut: (text) => process.stdout.write(terminalSafe(text, { keepNewlines: true })),
      writeErr: (text) => process.stderr.write(terminalSafe(text, { keepNewlines: true })),
    });
  registerCoreCommands(program);
  registerOrgCommands(program);
  registerTokenCommands(program);
  registerDeliveryCommands(program);
  registerBankAccountCommands(program);
  registerExportCommands(program);
  registerBackupCommands(program);
  return program;
}

async function main() {
  const program = buildProgram();
  for (const command of allCommands(program)) command.exitOverride();
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    process.exit(await exitCodeOf(error));
  }
}

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap(allCommands)];
}

async function exitCodeOf(error: unknown): Promise<number> {
  if (error instanceof CommanderError) {
    if (error.code === "commander.helpDisplayed" || error.code === "commander.version" || error.code === "commander.help") return 0;
    return error.exitCode === 0 ? 0 : 2; // commander already printed the usage error
  }
  // an ApiError comes from a command's action, which has loaded the module already
  const { ApiError } = await import("../server/lib/errors.ts");
  if (error instanceof ApiError) {
    const details = error.errors ? Object.values(error.errors).flat() : [];
    printError(`error: ${details.length ? details.join(" ") : error.message}`);
    return 1;
  }
  if (error instanceof UserError) {
    printError(`error: ${error.message}`);
    return 1;
  }
  printError(`error: ${(error as Error)?.message ?? String(error)}`);
  return 1;
}

if (import.meta.main) await main();
