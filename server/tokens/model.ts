import { t } from "elysia";
import { strictObject, Timestamp, Nullable, Uuid } from "../lib/schemas.ts";

export const TokenModel = {
  create: strictObject({
    name: t.String({ minLength: 1, maxLength: 255 }),
    abilities: t.Optional(
      t.Array(t.String({ maxLength: 100 }), {
        maxItems: 100,
        description: "Abilities (GET /api/v1/meta/abilities); default: every ability the caller has. `*` only for organisation tokens.",
      }),
    ),
    expires_in_days: t.Optional(Nullable(t.Integer({ minimum: 1, maximum: 365 }))),
  }),
  created: t.Object({
    id: Uuid,
    token: t.String({ description: "`<id>|<secret>`; shown only in this response" }),
    name: t.String(),
    type: t.UnionEnum(["personal", "organization"]),
    abilities: t.Array(t.String()),
    expires_at: Nullable(Timestamp),
  }),
  token: t.Object({
    id: Uuid,
    name: t.String(),
    type: t.UnionEnum(["personal", "organization"]),
    abilities: t.Array(t.String()),
    last_used_at: Nullable(Timestamp),
    expires_at: Nullable(Timestamp),
    created_at: Timestamp,
  }),
} as const;

export type TokenCreateInput = typeof TokenModel.create.static;
