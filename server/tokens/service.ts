/**
 * Token minting and revocation, for the API and the CLI alike. No token can mint a token
 * with more power than its own; `*` is for organisation tokens alone.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Db, Tx } from "../../db/client.ts";
import { apiTokens, users } from "../../db/schema.ts";
import { ABILITIES, isAbility, WILDCARD } from "../auth/abilities.ts";
import type { Auth } from "../auth/authenticate.ts";
import { hashSecret, newSecret } from "../auth/tokens.ts";
import { audit } from "../audit/service.ts";
import { FieldErrorBag, NotFound, ValidationFailed } from "../lib/errors.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import { inOrg, transaction, type Scope } from "../lib/scope.ts";
import { isoFromMicros, newId, nowIso, nowMicros } from "../lib/time.ts";
import type { TokenCreateInput } from "./model.ts";

type TokenType = "personal" | "organization";
type TokenRow = typeof apiTokens.$inferSelect;

export const tokenList: ListSpec<typeof apiTokens> = {
  table: apiTokens,
  sorts: { created_at: apiTokens.createdAt },
  defaultSort: "-created_at",
  updatedAt: apiTokens.createdAt,
};

export function presentToken(row: TokenRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    abilities: row.abilities,
    last_used_at: row.lastUsedAt,
    expires_at: row.expiresAt,
    created_at: row.createdAt,
  };
}

/** Who is minting: an API token (its power caps the new token) or the CLI (no cap). */
export type Minter = { auth: Auth } | { cli: true };

export function createToken(
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
  const expiresAt = input.expires_in_days ? isoFromMicros(nowUs + input.expires_in_days * 86_400_000_000) : null;
  const row: TokenRow = {
    id,
    organizationId: scope.org.id,
    type,
    userId: owner.userId,
    createdByUserId: owner.createdByUserId,
    name: input.name,
    secretHash: hashSecret(secret),
    abilities,
    lastUsedAt: null,
    expiresAt,
    revokedAt: null,
    createdAt: isoFromMicros(nowUs),
  };
  transaction(scope.db, (tx) => {
    tx.insert(apiTokens).values(row).run();
    audit(tx, scope, "token.created", "token", id);
  });
  return { id, token: `${id}|${secret}`, name: row.name, type, abilities, expires_at: expiresAt };
}

/** Personal tokens are the user's own; organisation tokens are the organisation's. */
function ownership(type: TokenType, userId: string | null) {
  return type === "personal" ? eq(apiTokens.userId, userId ?? "") : isNull(apiTokens.userId);
}

export function listTokens(scope: Scope, type: TokenType, userId: string | null, query: ListQuery, url: string) {
  return listPage(scope, tokenList, query, url, (rows) => rows.map(presentToken), [
    eq(apiTokens.type, type),
    ownership(type, userId),
    isNull(apiTokens.revokedAt),
  ]);
}

export function revokeToken(scope: Scope, type: TokenType | null, userId: string | null, id: string): void {
  transaction(scope.db, (tx) => {
    const conditions = [eq(apiTokens.id, id), isNull(apiTokens.revokedAt)];
    if (type) conditions.push(eq(apiTokens.type, type), ownership(type, userId));
    const row = tx.select({ id: apiTokens.id }).from(apiTokens).where(inOrg(apiTokens, scope.org.id, ...conditions)).get();
    if (!row) throw new NotFound();
    tx.update(apiTokens).set({ revokedAt: nowIso() }).where(eq(apiTokens.id, id)).run();
    audit(tx, scope, "token.revoked", "token", id);
  });
}

export function findTokenOrg(db: Db, id: string) {
  return db.select().from(apiTokens).where(eq(apiTokens.id, id)).get();
}

export function userExists(tx: Tx, orgId: string, userId: string): boolean {
  return !!tx.select({ id: users.id }).from(users).where(and(eq(users.id, userId), eq(users.organizationId, orgId))).get();
}
