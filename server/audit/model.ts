/** Audit log entries (contract section 5). */
import { t } from "elysia";
import { Nullable, Timestamp, Uuid } from "../lib/schemas.ts";

export const AuditModel = {
  entry: t.Object(
    {
      id: Uuid,
      action: t.String({ examples: ["expense.approved"] }),
      resource_type: t.String({ examples: ["expense"] }),
      resource_id: t.String(),
      actor: t.Object({
        type: t.UnionEnum(["user", "token", "cli"], { description: "user: a personal token; token: an organisation token; cli: the kontor command" }),
        id: Nullable(t.String({ description: "The user's or the organisation token's id; null for the CLI" })),
      }),
      ip: Nullable(t.String()),
      created_at: Timestamp,
    },
    { title: "AuditEntry" },
  ),
} as const;
