import { InvalidArgumentError, type Command } from "commander";
import { and, eq, isNull } from "drizzle-orm";
import { apiTokens, users } from "../../db/schema.ts";
import { ApiError } from "../../server/lib/errors.ts";
import { CLI_ACTOR, findOrganization, findUser } from "../../server/orgs/service.ts";
import { createToken, presentToken, revokeToken } from "../../server/tokens/service.ts";
import { open, type GlobalOptions } from "../context.ts";
import { withGlobals } from "../main.ts";
import { printJson, printLine, printRecord, printTable } from "../output.ts";

type CreateOptions = GlobalOptions & {
  org: string;
  user?: string;
  organisation?: boolean;
  name: string;
  abilities?: string;
  expiresInDays?: number;
};

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
    .action((options: CreateOptions) => {
      if (!!options.user === !!options.organisation) {
        token.commands.find((c) => c.name() === "create")!.error("error: give exactly one of --user USER or --organisation", { exitCode: 2 });
      }
      const { db } = open(options);
      const org = findOrganization(db, options.org);
      const user = options.user ? findUser(db, options.user) : null;
      if (user && user.organizationId !== org.id) throw new ApiError(422, `${user.email} is not a member of ${org.name}.`);
      const abilities = options.abilities?.split(",").map((a) => a.trim()).filter(Boolean);
      const result = createToken(
        { db, org, actor: CLI_ACTOR },
        // a personal token is capped by its user's role at use; the CLI itself caps nothing
        { cli: true },
        user ? "personal" : "organization",
        { userId: user?.id ?? null, createdByUserId: user?.id ?? null },
        { name: options.name, abilities, expires_in_days: options.expiresInDays ?? null },
      );
      const out = { id: result.id, token: result.token, abilities: result.abilities, expires_at: result.expires_at };
      if (options.json) printJson(out);
      else {
        printRecord(out);
        printLine("\nStore the token now: it is not shown again.");
      }
    });
  withGlobals(token.command("list").description("list an organisation's tokens"))
    .requiredOption("--org <org>", "organisation id or name")
    .action((options: GlobalOptions & { org: string }) => {
      const { db } = open(options);
      const org = findOrganization(db, options.org);
      const rows = db
        .select()
        .from(apiTokens)
        .where(and(eq(apiTokens.organizationId, org.id), isNull(apiTokens.revokedAt)))
        .orderBy(apiTokens.createdAt)
        .all()
        .map((row) => ({ ...presentToken(row), user_id: row.userId }));
      if (options.json) printJson(rows);
      else {
        const emails = new Map(
          db.select({ id: users.id, email: users.email }).from(users).where(eq(users.organizationId, org.id)).all().map((u) => [u.id, u.email]),
        );
        // the user by email (a removed user by id), and the minting token: what an admin looks for
        const createdBy = ({ user_id, token_id }: { user_id: string | null; token_id: string | null }) =>
          [user_id && (emails.get(user_id) ?? user_id), token_id && `via token ${token_id}`].filter(Boolean).join(" ") || "cli";
        printTable(rows, [
          ["ID", (r) => r.id],
          ["TYPE", (r) => r.type],
          ["NAME", (r) => r.name],
          ["USER", (r) => r.user_id],
          ["ABILITIES", (r) => (r.abilities.length > 4 ? `${r.abilities.length} abilities` : r.abilities)],
          ["EXPIRES", (r) => r.expires_at],
          ["LAST USED", (r) => r.last_used_at],
          ["CREATED BY", (r) => createdBy(r.created_by)],
        ]);
      }
    });
  withGlobals(token.command("revoke").description("revoke a token").argument("<id>", "token id"))
    .option("--cascade", "also revoke every token it minted, recursively (an already revoked token is accepted)")
    .action((id: string, options: GlobalOptions & { cascade?: boolean }) => {
      const { db } = open(options);
      const row = db.select().from(apiTokens).where(eq(apiTokens.id, id)).get();
      if (!row || (row.revokedAt && !options.cascade)) throw new ApiError(404, `No active token ${id}.`);
      const org = findOrganization(db, row.organizationId);
      const minted = revokeToken({ db, org, actor: CLI_ACTOR }, null, null, id, { cascade: !!options.cascade });
      if (options.json) printJson(options.cascade ? { id, revoked: true, minted_revoked: minted } : { id, revoked: true });
      else printLine(`Revoked token ${id}${options.cascade ? ` and ${minted.length} token(s) minted from it` : ""}.`);
    });
}
