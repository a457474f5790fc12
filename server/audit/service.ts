/**
 * The audit log's write side: one entry per change. Its read side (the list the API serves) is
 * server/audit/list.ts, so that what records a change (server/changes/record.ts, and so every
 * CLI command that changes something) loads no list or schema code.
 */
import { auditLog } from "../../db/schema.ts";
import type { Tx } from "../../db/client.ts";
import type { Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";

/**
 * Appends an audit entry, inside the transaction of the change it records, so a change
 * without its entry (or an entry without its change) cannot be committed. Services call
 * `recordChange` (server/changes/record.ts), which calls this.
 * Entries are never updated or deleted: migration 0004 makes SQLite refuse both.
 */
export async function audit(tx: Tx, scope: Scope, action: string, resourceType: string, resourceId: string): Promise<void> {
  await tx.insert(auditLog)
    .values({
      id: newId(),
      organizationId: scope.org.id,
      action,
      resourceType,
      resourceId,
      actorType: scope.actor.type,
      actorId: scope.actor.id,
      ip: scope.actor.ip,
      requestId: scope.actor.requestId,
      createdAt: nowIso(),
    });
}
