/** `kontor token …` (declared in cli/commands/tokens.ts). */
import "../../server/http/elysia-production.ts";
import { and, eq, isNull } from "drizzle-orm";
import { apiTokens, users } from "../../db/schema.ts";
import { ApiError } from "../../server/lib/errors.ts";
import { CLI_ACTOR, findOrganization, findUser } from "../../server/orgs/service.ts";
import { createToken, presentToken, revokeToken } from "../../server/tokens/service.ts";
import { open } from "../context.ts";
import type { GlobalOptions } from "../globals.ts";
import { printJson, printLine, printRecord, printTable } from "../output.ts";
import { firstRow } from "../../db/client.ts";

export type CreateTokenOptions = GlobalOptions & {
  org: string;
  user?: string;
  organisation?: boolean;
  name: string;
  abilities?: string;
  expiresInDays?: number;
};

/** Exactly one of --user and --organisation, which the declaration checked. */
export async function create(options: CreateTokenOptions): Promise<void> {
  const { db } = await open(options);
  const org = await findOrganization(db, options.org);
  const user = options.user ? await findUser(db, options.user) : null;
  if (user && user.organizationId !== org.id) throw new ApiError(422, `${user.email} is not a member of ${org.name}.`);
  const abilities = options.abilities?.split(",").map((a) => a.trim()).filter(Boolean);
  const result = await createToken(
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
}

export async function list(options: GlobalOptions & { org: string }): Promise<void> {
  const { db } = await open(options);
  const org = await findOrganization(db, options.org);
  const rows = (await db
    .select()
    .from(apiTokens)
    .where(and(eq(apiTokens.organizationId, org.id), isNull(apiTokens.revokedAt)))
    .orderBy(apiTokens.createdAt))
    .map((row) => ({ ...presentToken(row), user_id: row.userId }));
  if (options.json) printJson(rows);
  else {
    const emails = new Map(
      (await db.select({ id: users.id, email: users.email }).from(users).where(eq(users.organizationId, org.id))).map((u) => [u.id, u.email]),
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
}

export async function revoke(id: string, options: GlobalOptions & { cascade?: boolean }): Promise<void> {
  const { db } = await open(options);
  const row = await firstRow(db.select().from(apiTokens).where(eq(apiTokens.id, id)));
  if (!row || (row.revokedAt && !options.cascade)) throw new ApiError(404, `No active token ${id}.`);
  const org = await findOrganization(db, row.organizationId);
  const minted = await revokeToken({ db, org, actor: CLI_ACTOR }, null, null, id, { cascade: !!options.cascade });
  if (options.json) printJson(options.cascade ? { id, revoked: true, minted_revoked: minted } : { id, revoked: true });
  else printLine(`Revoked token ${id}${options.cascade ? ` and ${minted.length} token(s) minted from it` : ""}.`);
}
