/** Audit log entries, append-only (docs/api.md#audit-log). */
import { t } from "elysia";
import { Nullable, Timestamp, Uuid } from "../lib/schemas.ts";

/** Who made a change: a user (through a personal token), an organisation token, or the CLI. */
import { ACTOR_TYPES } from "../../db/values.ts";
export { ACTOR_TYPES, type ActorType } from "../../db/values.ts";

export const AuditModel = {
  entry: t.Object(
    {
      id: Uuid,
      action: t.String({ examples: ["expense.approved"] }),
      resource_type: t.String({ examples: ["expense"] }),
      resource_id: t.String(),
      actor: t.Object({
        type: t.UnionEnum([...ACTOR_TYPES], { description: "user: a personal token; token: an organisation token; cli: the kontor command" }),
        id: Nullable(t.String({ description: "The user's or the organisation token's id; null for the CLI" })),
      }),
      ip: Nullable(t.String()),
      request_id: Nullable(
        t.String({ description: "The X-Request-Id of the API request that made the change, as in the server's request log; null for the CLI and for entries written before Kontor kept it" }),
      ),
      created_at: Timestamp,
    },
    { title: "AuditEntry" },
  ),
} as const;
