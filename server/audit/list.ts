/** The audit log's read side: its entries as the API lists them (the write side is service.ts). */
import { t } from "elysia";
import { auditLog } from "../../db/schema.ts";
import { listPage, type ListQuery, type ListSpec } from "../lib/list.ts";
import type { Scope } from "../lib/scope.ts";

type AuditRow = typeof auditLog.$inferSelect;

export function presentAuditEntry(row: AuditRow) {
  return {
    id: row.id,
    action: row.action,
    resource_type: row.resourceType,
    resource_id: row.resourceId,
    actor: { type: row.actorType, id: row.actorId },
    ip: row.ip,
    request_id: row.requestId,
    created_at: row.createdAt,
  };
}

const Name = t.String({ maxLength: 255 });

/** Newest first; each filter has an index that also yields that order. */
export const auditList: ListSpec<typeof auditLog> = {
  table: auditLog,
  sorts: { created_at: auditLog.createdAt },
  defaultSort: "-created_at",
  filters: {
    resource_type: { column: auditLog.resourceType, schema: t.String({ ...Name, examples: ["expense"] }) },
    resource_id: { column: auditLog.resourceId, schema: Name },
    action: { column: auditLog.action, schema: t.String({ ...Name, examples: ["expense.approved"] }) },
  },
  // entries never change: "changed since" is "written since"
  updatedAt: auditLog.createdAt,
};

export function listAuditLog(scope: Scope, query: ListQuery, url: string) {
  return listPage(scope, auditList, query, url, (rows) => rows.map(presentAuditEntry));
}
