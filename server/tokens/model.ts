import { t } from "elysia";
import { ABILITIES, WILDCARD } from "../auth/abilities.ts";
import { documented, strictObject, Text, Timestamp, Nullable, Uuid } from "../lib/schemas.ts";

/** Personal tokens belong to a user; organisation tokens to the organisation. */
import { TOKEN_TYPES } from "../../db/values.ts";
export { TOKEN_TYPES, type TokenType } from "../../db/values.ts";

export const TokenModel = {
  create: strictObject(
    {
      name: Text({ minLength: 1, maxLength: 255 }),
      abilities: t.Optional(
        // createToken checks these (unknown abilities, an empty list) with messages of its own
        t.Array(Text({ maxLength: 100, ...documented({ enum: [...ABILITIES, WILDCARD] }) }), {
          maxItems: 100,
          ...documented({ minItems: 1 }),
          description: "Abilities (GET /api/v1/meta/abilities); default: every ability the caller has. `*` only for organisation tokens.",
        }),
      ),
      expires_in_days: t.Optional(
        Nullable(
          t.Integer({
            minimum: 1,
            maximum: 365,
            description: "Days until the token expires; null or omitted: never. A token minted by a token never expires later than it (its expiry is the earlier of the two)",
          }),
        ),
      ),
    },
    { title: "TokenCreate" },
  ),
  created: t.Object(
    {
      id: Uuid,
      token: t.String({ description: "`<id>|<secret>`; shown only in this response" }),
      name: t.String(),
      type: t.UnionEnum([...TOKEN_TYPES]),
      abilities: t.Array(t.String()),
      expires_at: Nullable(Timestamp),
    },
    { title: "TokenCreated" },
  ),
  token: t.Object(
    {
      id: Uuid,
      name: t.String(),
      type: t.UnionEnum([...TOKEN_TYPES]),
      abilities: t.Array(t.String()),
      last_used_at: Nullable(Timestamp),
      expires_at: Nullable(Timestamp),
      created_at: Timestamp,
      created_by: t.Object(
        {
          user_id: Nullable(Uuid),
          token_id: Nullable(Uuid),
        },
        {
          description:
            "Who made the token: `user_id` the user on whose behalf (directly, or through the minting token), `token_id` the token that minted it; both null when made by the CLI without a user",
        },
      ),
    },
    { title: "Token" },
  ),
} as const;

export type TokenCreateInput = typeof TokenModel.create.static;
