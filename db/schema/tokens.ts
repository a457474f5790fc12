/** API tokens (server/tokens; the CLI mints the first, server/auth reads them on every request). */
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { TOKEN_TYPES } from "../values.ts";
import { createdAt, id } from "./columns.ts";
import { orgId, users } from "./orgs.ts";

export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: id(),
    organizationId: orgId(),
    type: text("type", { enum: TOKEN_TYPES }).notNull(),
    /** Set for personal tokens; deleting the user deletes them (they stop working). */
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    /**
     * The user on whose behalf the token was made: directly, or through the token that minted
     * it (inherited from that token). Kept loose so the token survives the user.
     */
    createdByUserId: text("created_by_user_id"),
    /**
     * The token that minted this one (null when made by the CLI). Kept loose: a removed user's
     * personal tokens are deleted, while what they minted stays and still names them.
     */
    createdByTokenId: text("created_by_token_id"),
    name: text("name").notNull(),
    secretHash: text("secret_hash").notNull(),
    abilities: text("abilities", { mode: "json" }).$type<string[]>().notNull(),
    lastUsedAt: text("last_used_at"),
    expiresAt: text("expires_at"),
    revokedAt: text("revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("api_tokens_org_type_created").on(t.organizationId, t.type, t.createdAt, t.id),
    // a revocation's cascade walks from a token to what it minted
    index("api_tokens_created_by_token").on(t.createdByTokenId),
  ],
);
