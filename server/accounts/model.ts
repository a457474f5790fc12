/** The chart of accounts (api-spec 2.7), read-only. */
import { t } from "elysia";
import { Nullable, Timestamp, Uuid } from "../lib/schemas.ts";

export const ACCOUNT_TYPES = ["asset", "liability", "equity", "revenue", "expense"] as const;

export const AccountModel = {
  account: t.Object(
    {
      id: Uuid,
      code: t.String(),
      name: t.String(),
      type: t.UnionEnum([...ACCOUNT_TYPES]),
      parent_id: Nullable(Uuid),
      is_active: t.Boolean(),
      description: t.String(),
      created_at: Timestamp,
      updated_at: Timestamp,
    },
    { title: "Account" },
  ),
} as const;
