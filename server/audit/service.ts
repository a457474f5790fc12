import { auditLog } from "../../db/schema.ts";
import type { Tx } from "../../db/client.ts";
import type { Scope } from "../lib/scope.ts";
import { newId, nowIso } from "../lib/time.ts";

/**
 * Appends an audit entry. Call it inside the transaction of the change it records, so a
 * change without its entry (or an entry without its change) cannot be committed.
 */
export function audit(tx: Tx, scope: Scope, action: string, resourceType: string, resourceId: string): void {
  tx.insert(auditLog)
    .values({
      id: newId(),
      organizationId: scope.org.id,
      action,
      resourceType,
      resourceId,
      actorType: scope.actor.type,
      actorId: scope.actor.id,
      ip: scope.actor.ip,
      createdAt: nowIso(),
    })
    .run();
}
