/** External ids (issue 28): a client's own id of a resource, unique per organisation and resource type. */
import { eq, ne } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Tx } from "../../db/client.ts";
import { ExternalIdTaken } from "./errors.ts";
import { inOrg } from "./scope.ts";

type ExternalIdTable = SQLiteTable & { organizationId: SQLiteColumn; id: SQLiteColumn; externalId: SQLiteColumn };

/**
 * Refuses an external id another row of the table holds in the organisation (a 409 naming the
 * holder), before the write: the table's partial unique index is the backstop. `selfId` is the
 * row being updated, which may keep its own.
 */
export function checkExternalId(tx: Tx, table: ExternalIdTable, resource: string, orgId: string, externalId: string | null | undefined, selfId?: string): void {
  if (externalId === null || externalId === undefined) return;
  const holder = tx
    .select({ id: table.id })
    .from(table as SQLiteTable)
    .where(inOrg(table, orgId, eq(table.externalId, externalId), selfId === undefined ? undefined : ne(table.id, selfId)))
    .get() as { id: string } | undefined;
  if (holder) throw new ExternalIdTaken(resource, externalId, holder.id);
}
