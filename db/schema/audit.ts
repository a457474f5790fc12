/** The audit log (server/audit; every entry written by recordChange). */
import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { ACTOR_TYPES } from "../values.ts";
import { createdAt, id } from "./columns.ts";
import { orgId } from "./orgs.ts";

export const auditLog = sqliteTable(
  "audit_log",
  {
    id: id(),
    organizationId: orgId(),
    action: text("action").notNull(),
    resourceType: text("resource_type").notNull(),
    resourceId: text("resource_id").notNull(),
    actorType: text("actor_type", { enum: ACTOR_TYPES }).notNull(),
    actorId: text("actor_id"),
    ip: text("ip"),
    /** the X-Request-Id of the API request that made the change (null for the CLI and older entries) */
    requestId: text("request_id"),
    createdAt: createdAt(),
  },
  (t) => [
    index("audit_org_created").on(t.organizationId, t.createdAt, t.id),
    // each filter followed by the list order (newest first, id tiebreak): no sort step
    index("audit_org_resource").on(t.organizationId, t.resourceId, t.createdAt, t.id),
    index("audit_org_type").on(t.organizationId, t.resourceType, t.createdAt, t.id),
    index("audit_org_action").on(t.organizationId, t.action, t.createdAt, t.id),
  ],
);
