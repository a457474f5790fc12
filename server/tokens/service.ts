/**
 * Token minting and revocation, for the API and the CLI alike. No token can mint a token
 * with more power than its own, nor one that outlives it; `*` is for organisation tokens alone.
 * The API's token lists are list.ts (list code loads the request schemas; the CLI's commands
 * here need none).
 */
import { eq, isNull, sql } from "drizzle-orm";
import type { Tx } from "../../db/client.ts";
import { apiTokens } from "../../db/schema.ts";
import { ABILITIES, isAbility, WILDCARD } from "../auth/abilities.ts";
import type { Auth } from "../auth/authenticate.ts";
import { hashSecret, newSecret } from "../auth/tokens.ts";
import { recordChange } from "../changes/record.ts";
import { FieldErrorBag, NotFound, ValidationFailed } from "../lib/errors.ts";
import { inOrg, unitOfWork, updateInOrg, type Scope } from "../lib/scope.ts";
import { isoFromMicros, newId, nowIso, nowMicros } from "../lib/time.ts";
import type { TokenCreateInput, TokenType } from "./model.ts";
import { firstRow, sqlRows } from "../../db/client.ts";

type TokenRow = typeof apiTokens.$inferSelect;

export function presentToken(row: TokenRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    abilities: row.abilities,
    last_used_at: row.lastUsedAt,
    expires_at: row.expiresAt,
    created_at: row.createdAt,
    created_by: { user_id: row.createdByUserId, token_id: row.createdByTokenId },
  };
}

/** Who is minting: an API token (its power caps the new token) or the CLI (no cap). */
export type Minter = { auth: Auth } | { cli: true };

export async function createToken(
  scope: Scope,
  minter: Minter,
  type: TokenType,
  owner: { userId: string | null; createdByUserId: string | null },
  input: TokenCreateInput,
) {
  const bag = new FieldErrorBag();
  const caller = "auth" in minter ? minter.auth.abilities : new Set<string>(ABILITIES);
  let abilities = input.abilities ?? (type === "organization" && !("auth" in minter) ? [WILDCARD] : [...caller]);
  abilities = [...new Set(abilities)];
  const unknown = abilities.filter((a) => a !== WILDCARD && !isAbility(a));
  if (unknown.length) bag.add("abilities", `Unknown abilities: ${unknown.join(", ")}.`);
  if (abilities.includes(WILDCARD)) {
    if (type === "personal") bag.add("abilities", "The * ability is only available for organisation tokens.");
    else if (abilities.length > 1) abilities = [WILDCARD];
  }
  if (abilities.length === 0) bag.add("abilities", "The abilities field must have at least 1 item.");
  bag.throwIfAny();
  // a wildcard is only as powerful as "every ability", which the caller must hold
  const requested = abilities.includes(WILDCARD) ? [...ABILITIES] : abilities;
  const excess = requested.filter((a) => !caller.has(a));
  if (excess.length) {
    throw ValidationFailed.field("abilities", `The token cannot have abilities its creator lacks: ${excess.join(", ")}.`);
  }

  const id = newId();
  const secret = newSecret();
  const nowUs = nowMicros();
  const expiryRequested = input.expires_in_days ? isoFromMicros(nowUs + input.expires_in_days * 86_400_000_000) : null;
  const row = await unitOfWork(scope.db, async (tx) => {
    const parent = "auth" in minter ? (await firstRow(tx.select().from(apiTokens).where(inOrg(apiTokens, scope.org.id, eq(apiTokens.id, minter.auth.tokenId))))) : undefined;
    const row: TokenRow = {
      id,
      organizationId: scope.org.id,
      type,
      userId: owner.userId,
      // an organisation token has no user: what it mints is on behalf of the user behind it
      createdByUserId: owner.createdByUserId ?? parent?.createdByUserId ?? null,
      createdByTokenId: parent?.id ?? null,
      name: input.name,
      secretHash: hashSecret(secret),
      abilities,
      lastUsedAt: null,
      expiresAt: earlierExpiry(expiryRequested, parent?.expiresAt ?? null),
      revokedAt: null,
      createdAt: isoFromMicros(nowUs),
    };
    await tx.insert(apiTokens).values(row);
    await recordChange(tx, scope, { action: "token.created", resource: { type: "token", id } });
    return row;
  });
  return { id, token: `${id}|${secret}`, name: row.name, type, abilities, expires_at: row.expiresAt };
}

/**
 * A minted token never outlives its minter: the earlier of the requested expiry and the
 * minter's (no expiry requested: the minter's). Timestamps share one format, so they compare as text.
 */
function earlierExpiry(requested: string | null, parent: string | null): string | null {
  if (parent === null) return requested;
  return requested !== null && requested < parent ? requested : parent;
}

/** Personal tokens are the user's own; organisation tokens are the organisation's. */
export function ownership(type: TokenType, userId: string | null) {
  return type === "personal" ? eq(apiTokens.userId, userId ?? "") : isNull(apiTokens.userId);
}

/**
 * Revokes a token (`type` null: any of the organisation's, for the CLI). With `cascade`, also
 * every token it minted, recursively, whatever their type (what a leaked token made is as
 * suspect as the token), each audited; an already revoked token is then accepted, so its
 * remaining descendants can be revoked after the fact. Without `cascade`, minted tokens keep
 * working. Returns the ids revoked besides `id`.
 */
export async function revokeToken(
  scope: Scope,
  type: TokenType | null,
  userId: string | null,
  id: string,
  options: { cascade?: boolean } = {},
): Promise<string[]> {
  return await unitOfWork(scope.db, async (tx) => {
    const conditions = [eq(apiTokens.id, id)];
    if (!options.cascade) conditions.push(isNull(apiTokens.revokedAt));
    if (type) conditions.push(eq(apiTokens.type, type), ownership(type, userId));
    const row = await firstRow(tx
      .select({ id: apiTokens.id, revokedAt: apiTokens.revokedAt })
      .from(apiTokens)
      .where(inOrg(apiTokens, scope.org.id, ...conditions)));
    if (!row) throw new NotFound();
    const now = nowIso();
    const revoke = async (tokenId: string) => {
      await updateInOrg(tx, apiTokens, scope.org.id, tokenId, { revokedAt: now });
      await recordChange(tx, scope, { action: "token.revoked", resource: { type: "token", id: tokenId } });
    };
    if (row.revokedAt === null) await revoke(id);
    if (!options.cascade) return [];
    const descendants = await mintedBy(tx, scope.org.id, id);
    for (const child of descendants) await revoke(child);
    return descendants;
  });
}

/** The unrevoked tokens minted by `id`, recursively (through revoked ones too), oldest first. */
async function mintedBy(tx: Tx, orgId: string, id: string): Promise<string[]> {
  const rows = await sqlRows<{ id: string }>(tx, sql`
    WITH RECURSIVE tree(id) AS (
      SELECT t.id FROM api_tokens t WHERE t.id = ${id}
      UNION
      SELECT t.id FROM api_tokens t JOIN tree ON t.created_by_token_id = tree.id WHERE t.organization_id = ${orgId}
    )
    SELECT t.id FROM api_tokens t JOIN tree ON tree.id = t.id
    WHERE t.id <> ${id} AND t.revoked_at IS NULL
    ORDER BY t.created_at, t.id`);
  return rows.map((r) => r.id);
}
