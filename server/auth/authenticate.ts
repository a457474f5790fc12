/** Resolves a bearer token to who is calling. */
import { preparedSql, singleRead, unitOfWork, type Db, type Tx } from "../../db/client.ts";
import { effectiveAbilities, type Role } from "./abilities.ts";
import { parseTokenString, secretMatches } from "./tokens.ts";
import type { Organization } from "../lib/scope.ts";
import { nowIso } from "../lib/time.ts";

export type Auth = {
  tokenId: string;
  tokenType: "personal" | "organization";
  /** the token's own abilities as stored (may contain `*`) */
  tokenAbilities: string[];
  /** what the token may do now */
  abilities: Set<string>;
  userId: string | null;
  role: Role | null;
  org: Organization;
  /**
   * Rate-limit bucket: the user for personal tokens (a user's tokens share one budget); each
   * organisation token its own (docs/api.md#rate-limit), so a connector's budget is not spent by another.
   */
  rateKey: string;
};

type Row = {
  id: string;
  type: "personal" | "organization";
  user_id: string | null;
  created_by_user_id: string | null;
  created_by_token_id: string | null;
  secret_hash: string;
  abilities: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  org_id: string;
  org_name: string;
  currency: string;
  country: string;
  api_access: number;
  role: Role | null;
};

/** last_used_at is written at most once a minute per token, to keep reads read-only. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Resolved tokens remembered at most; past it the memory starts afresh. */
const MAX_REMEMBERED_TOKENS = 10_000;

/** `validBefore`: epoch ms (of nowIso's clock) before which the token has certainly not expired: a second before its expiry. */
type Resolved = { auth: Auth; expiresAt: string | null; validBefore: number };

export function createAuthenticator(db: Db) {
  const lookup = (tx: Tx) => preparedSql<Row, [string]>(tx, "auth: token", `
    SELECT t.id, t.type, t.user_id, t.created_by_user_id, t.created_by_token_id, t.secret_hash, t.abilities, t.expires_at, t.revoked_at, t.last_used_at,
           o.id AS org_id, o.name AS org_name, o.currency, o.country, o.api_access, u.role
    FROM api_tokens t
    JOIN organizations o ON o.id = t.organization_id
    LEFT JOIN users u ON u.id = t.user_id
    WHERE t.id = ?`);
  const rateKeyOf = (row: Row): string => (row.type === "personal" ? `user:${row.user_id}` : `token:${row.id}`);
  const touch = (tx: Tx) => preparedSql<never, [string, string]>(tx, "auth: last used", "UPDATE api_tokens SET last_used_at = ? WHERE id = ?");
  const lastTouched = new Map<string, number>();

  /**
   * The token's row joined to its organisation and user costs more than the rest of a small
   * read, so what a token string resolved to is remembered — keyed by the whole string, so its
   * secret was checked — until anything commits (the connection's clock): a revocation, a role change
   * or api_access switched off counts from the very next request. Expiry is checked every time.
   */
  let remembered = new Map<string, Resolved>();
  let rememberedAt = "";

  const resolve = async (token: string): Promise<Resolved | null> => {
    const parsed = parseTokenString(token);
    if (!parsed) return null;
    const row = await singleRead(db, (tx) => lookup(tx).get(parsed.id));
    if (!row || !secretMatches(parsed.secret, row.secret_hash)) return null;
    if (row.revoked_at !== null) return null;
    // a personal token whose user is gone (removed users' tokens are deleted too)
    if (row.type === "personal" && (row.user_id === null || row.role === null)) return null;
    const tokenAbilities = JSON.parse(row.abilities) as string[];
    const auth: Auth = {
      tokenId: row.id,
      tokenType: row.type,
      tokenAbilities,
      abilities: effectiveAbilities(tokenAbilities, row.type === "personal" ? row.role : null),
      userId: row.user_id,
      role: row.type === "personal" ? row.role : null,
      org: { id: row.org_id, name: row.org_name, currency: row.currency, country: row.country, apiAccess: row.api_access === 1 },
      rateKey: rateKeyOf(row),
    };
    return { auth, expiresAt: row.expires_at, validBefore: row.expires_at === null ? Infinity : Date.parse(row.expires_at) - 1000 || 0 };
  };

  return async function authenticate(authorization: string | null): Promise<Auth | null> {
    if (!authorization) return null;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) return null;
    const token = m[1]!;
    const version = db.connection.clock.mark();
    if (version !== rememberedAt || remembered.size >= MAX_REMEMBERED_TOKENS) {
      remembered = new Map();
      rememberedAt = version;
    }
    let resolved = remembered.get(token);
    if (!resolved) {
      const fresh = await resolve(token);
      if (!fresh) return null;
      remembered.set(token, (resolved = fresh));
    }
    // the exact comparison (nowIso, microseconds) from a second before the expiry on: formatting the time cost more than the rest
    if (performance.timeOrigin + performance.now() >= resolved.validBefore && resolved.expiresAt !== null && resolved.expiresAt <= nowIso()) return null;

    const { auth } = resolved;
    const nowMs = Date.now();
    if (nowMs - (lastTouched.get(auth.tokenId) ?? 0) > LAST_USED_RESOLUTION_MS) {
      lastTouched.set(auth.tokenId, nowMs);
      const now = nowIso();
      // a unit of its own, to take its turn with the other threads' writes
      await unitOfWork(db, (tx) => touch(tx).run(now, auth.tokenId));
    }
    return auth;
  };
}
