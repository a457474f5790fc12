#!/usr/bin/env bun
/**
 * The `kontor` command (docs/operations.md#the-cli). Exit codes: 0 success, 1 user error (message on
 * stderr), 2 usage error. Every command takes --db PATH and --json.
 *
 * Starting is cheap: this module loads commander and the commands' declarations (cli/commands/,
 * so that every --help lists its options) and nothing of the server. Each command imports what
 * it does (cli/actions/) when it runs; `--version`, `--help` and usage errors load none of it.
 */
import { fstatSync, writeSync } from "node:fs";
import { Command, CommanderError, type OutputConfiguration } from "commander";
import { VERSION } from "../server/version.ts";
import { registerBackupCommands } from "./commands/backup.ts";
import { registerBankAccountCommands } from "./commands/bank-accounts.ts";
import { registerCoreCommands } from "./commands/core.ts";
import { registerDeliveryCommands } from "./commands/deliveries.ts";
import { registerReminderCommands } from "./commands/reminders.ts";
import { registerExportCommands } from "./commands/export.ts";
import { registerListingCommands } from "./commands/listings.ts";
import { registerOrgCommands } from "./commands/orgs.ts";
import { registerPeppolCommands } from "./commands/peppol.ts";
import { registerRecurringCommands } from "./commands/recurring.ts";
import { registerRateCommands } from "./commands/rates.ts";
import { registerTokenCommands } from "./commands/tokens.ts";
import { registerVatReturnCommands } from "./commands/vat-returns.ts";
import { UserError } from "./globals.ts";
import { printError, terminalSafe } from "./output.ts";

export function buildProgram(): Command {
  const program = new Command("kontor")
    .description("Kontor: self-hosted invoicing and accounting API")
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride()
    .configureOutput(commanderOutput());
  registerCoreCommands(program);
  registerOrgCommands(program);
  registerTokenCommands(program);
  registerDeliveryCommands(program);
  registerReminderCommands(program);
  registerBankAccountCommands(program);
  registerExportCommands(program);
  registerListingCommands(program);
  registerBackupCommands(program);
  registerPeppolCommands(program);
  registerRecurringCommands(program);
  registerRateCommands(program);
  registerVatReturnCommands(program);
  return program;
}

/**
 * Where commander writes (--version, --help, usage errors). Its own messages quote what was
 * typed ("unknown option '…'"): escaped like the rest. Written straight to the descriptor, and
 * `process.stdout` and `process.stderr` asked only when the descriptor may be a terminal: Bun
 * builds those streams when first touched, some 20 ms, a third of `kontor --version`. Commander's
 * defaults ask them for the help's width and colours, which only a terminal has: a pipe or a
 * file is no character device, so for those the answers are known without asking.
 */
function commanderOutput(): OutputConfiguration {
  const defaults = new Command().configureOutput();
  const mayBeTerminal = (fd: number) => {
    try {
      return fstatSync(fd).isCharacterDevice();
    } catch {
      return false;
    }
  };
  const write = (fd: number, text: string) => {
    const bytes = Buffer.from(terminalSafe(text, { keepNewlines: true }));
    for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
  };
  // what commander's defaults answer for no terminal (its typings say number): the default width
  const noWidth = undefined as unknown as number;
  return {
    writeOut: (text) => write(1, text),
    writeErr: (text) => write(2, text),
    getOutHelpWidth: () => (mayBeTerminal(1) ? defaults.getOutHelpWidth!() : noWidth),
    getErrHelpWidth: () => (mayBeTerminal(2) ? defaults.getErrHelpWidth!() : noWidth),
    getOutHasColors: () => (mayBeTerminal(1) ? defaults.getOutHasColors!() : colourForced()),
    getErrHasColors: () => (mayBeTerminal(2) ? defaults.getErrHasColors!() : colourForced()),
  };
}

/** Commander's colour rule for output that is no terminal (its `useColor`, not exported): the environment's say alone. */
function colourForced(): boolean {
  const { NO_COLOR, FORCE_COLOR, CLICOLOR_FORCE } = process.env;
  if (NO_COLOR || FORCE_COLOR === "0" || FORCE_COLOR === "false") return false;
  return Boolean(FORCE_COLOR) || CLICOLOR_FORCE !== undefined;
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
