/** External ids (docs/api.md#external-ids-and-metadata): a client's own id of a resource, unique per organisation and resource type. */
import { eq, ne } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Tx } from "../../db/client.ts";
import { ExternalIdTaken } from "./errors.ts";
import { inOrg } from "./scope.ts";
import { firstRow, preparedSql } from "../../db/client.ts";

/**
 * An external id as stored and looked up: in Unicode NFC, so that "café" typed as one character
 * or as "e" and a combining accent is one id (the schema refuses invisible format characters).
 */
export function normalizeExternalId<T extends string | null>(value: T): T {
  return (value === null ? null : value.normalize("NFC")) as T;
}

type ExternalIdTable = SQLiteTable & { organizationId: SQLiteColumn; id: SQLiteColumn; externalId: SQLiteColumn };

/**
 * Refuses an external id another row of the table holds in the organisation (a 409 naming the
 * holder), before the write: the table's partial unique index is the backstop. `selfId` is the
 * row being updated, which may keep its own.
 */
export async function checkExternalId(tx: Tx, table: ExternalIdTable, resource: string, orgId: string, externalId: string | null | undefined, selfId?: string): Promise<void> {
  if (externalId === null || externalId === undefined) return;
  const holder = (await firstRow(tx
    .select({ id: table.id })
    .from(table as SQLiteTable)
    .where(inOrg(table, orgId, eq(table.externalId, externalId), selfId === undefined ? undefined : ne(table.id, selfId))))) as { id: string } | undefined;
  if (holder) throw new ExternalIdTaken(resource, externalId, holder.id);
}

/** The tables holding external ids, and the resource each names in a notice. */
const EXTERNAL_ID_TABLES = [
  ["customers", "customer"],
  ["suppliers", "supplier"],
  ["invoices", "invoice"],
  ["expenses", "expense"],
] as const;

/**
 * Data migration: stored external ids in NFC, as new ones are stored. An id whose NFC form
 * another row of the organisation and table already holds (or takes in this run) is left as it
 * was, and reported: which one keeps the id is the operator's call, not the upgrade's.
 */
export async function normalizeStoredExternalIds(tx: Tx, notice: (text: string) => void): Promise<void> {
  for (const [table, resource] of EXTERNAL_ID_TABLES) {
    const rows = await preparedSql<{ id: string; orgId: string; externalId: string }, []>(
      tx,
      `external ids of ${table}`,
      `SELECT id, organization_id AS "orgId", external_id AS "externalId" FROM "${table}" WHERE external_id IS NOT NULL ORDER BY organization_id, created_at, id`,
    ).all();
    // the ids each organisation holds once this run is done: those already in NFC first
    const taken = new Map<string, string>();
    const keyOf = (orgId: string, id: string) => `${orgId}\u0000${id}`;
    for (const row of rows) if (row.externalId === row.externalId.normalize("NFC")) taken.set(keyOf(row.orgId, row.externalId), row.id);
    const update = preparedSql<never, [string, string]>(tx, `external id of ${table}`, `UPDATE "${table}" SET external_id = ? WHERE id = ?`);
    for (const row of rows) {
      const normal = row.externalId.normalize("NFC");
      if (normal === row.externalId) continue;
      const holder = taken.get(keyOf(row.orgId, normal));
      if (holder !== undefined) {
        notice(
          `external ids: ${resource} ${row.id} of organisation ${row.orgId} keeps its external_id ${JSON.stringify(row.externalId)} as it is: in Unicode NFC it is ${JSON.stringify(normal)}, ` +
            `the external_id of ${resource} ${holder}. Give one of them another id (PUT its external_id).`,
        );
        continue;
      }
      await update.run(normal, row.id);
      taken.set(keyOf(row.orgId, normal), row.id);
    }
  }
}
