/** `kontor token …`: the declarations; what they do is in cli/actions/tokens.ts, imported when one runs. */
import { InvalidArgumentError, type Command } from "commander";
import type { CreateTokenOptions } from "../actions/tokens.ts";
import { withGlobals, type GlobalOptions } from "../globals.ts";

const actions = () => import("../actions/tokens.ts");

export function registerTokenCommands(program: Command): void {
  const token = program.command("token").description("manage API tokens");
  withGlobals(token.command("create").description("mint a personal (--user) or organisation (--organisation) token"))
    .requiredOption("--org <org>", "organisation id or name")
    .option("--user <user>", "user id or email: a personal token")
    .option("--organisation", "an organisation token")
    .requiredOption("--name <name>", "token name")
    .option("--abilities <list>", "comma-separated abilities, or * (organisation tokens)")
    .option("--expires-in-days <days>", "1 to 365", (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 365) throw new InvalidArgumentError("must be a whole number from 1 to 365");
      return n;
    })
    .action(async (options: CreateTokenOptions) => {
      if (!!options.user === !!options.organisation) {
        token.commands.find((c) => c.name() === "create")!.error("error: give exactly one of --user USER or --organisation", { exitCode: 2 });
      }
      await (await actions()).create(options);
    });
  withGlobals(token.command("list").description("list an organisation's tokens"))
    .requiredOption("--org <org>", "organisation id or name")
    .action(async (options: GlobalOptions & { org: string }) => (await actions()).list(options));
  withGlobals(token.command("revoke").description("revoke a token").argument("<id>", "token id"))
    .option("--cascade", "also revoke every token it minted, recursively (an already revoked token is accepted)")
    .action(async (id: string, options: GlobalOptions & { cascade?: boolean }) => (await actions()).revoke(id, options));
}
