/**
 * Who is acting, for which organisation. Every service takes a Scope instead of an HTTP
 * context, so the CLI calls the same code; every query filters by `scope.org.id` through
 * the helpers below (`inOrg` for reads, `findInOrg`, `updateInOrg`, `deleteInOrg`), never by
 * a handler remembering to.
 */
import { and, eq, getTableName, sql, type Placeholder, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable, SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import { firstRow, preparedRows, type Db, type Tx } from "../../db/client.ts";
export { snapshot, unitOfWork } from "../../db/client.ts";
import type { ActorType } from "../../db/values.ts";
import { NotFound } from "./errors.ts";

/** `requestId`: the X-Request-Id of the request that acts (null for the CLI), kept in its audit entries. */
export type Actor = { type: ActorType; id: string | null; ip: string | null; requestId: string | null };

export type Organization = {
  id: string;
  name: string;
  currency: string;
  country: string;
  apiAccess: boolean;
};

export type Scope = { db: Db; org: Organization; actor: Actor };

export type OrgTable = SQLiteTable & { organizationId: SQLiteColumn; id: SQLiteColumn };

/** `organization_id = ? AND …`: the one place tenant isolation is written. */
export function inOrg(table: OrgTable, orgId: string | Placeholder, ...conditions: (SQL | undefined)[]): SQL {
  return and(eq(table.organizationId, orgId), ...conditions)!;
}

/** The row with this id in this organisation, or a 404 (another organisation's row included). */
export async function findInOrg<T extends OrgTable>(tx: Tx, table: T, orgId: string, id: string): Promise<T["$inferSelect"]> {
  const query = preparedRows(tx, `findInOrg:${getTableName(table)}`, table, (tx) =>
    tx
      .select()
      .from(table as SQLiteTable)
      .where(inOrg(table, sql.placeholder("orgId"), eq(table.id, sql.placeholder("id")))),
  );
  const row = await query.get({ orgId, id });
  if (!row) throw new NotFound();
  return row as T["$inferSelect"];
}

/**
 * Sets columns of the row with this id in this organisation, or a 404. Callers load the row
 * first (its state decides what may change); the 404 is the backstop, not the check.
 */
export async function updateInOrg<T extends OrgTable>(tx: Tx, table: T, orgId: string, id: string, set: SQLiteUpdateSetSource<T>): Promise<void> {
  const row = await firstRow(tx
    .update(table as SQLiteTable)
    .set(set as SQLiteUpdateSetSource<SQLiteTable>)
    .where(inOrg(table, orgId, eq(table.id, id)))
    .returning({ id: table.id }));
  if (!row) throw new NotFound();
}

/** Deletes the row with this id in this organisation, or a 404 (see updateInOrg). */
export async function deleteInOrg(tx: Tx, table: OrgTable, orgId: string, id: string): Promise<void> {
  const row = await firstRow(tx.delete(table).where(inOrg(table, orgId, eq(table.id, id))).returning({ id: table.id }));
  if (!row) throw new NotFound();
}

/**
 * A nested resource (a contact person of a customer, a payment of an invoice, a delivery of
 * a webhook): the row with this id under that parent, in this organisation, or a 404.
 */
export async function findChildInOrg<T extends OrgTable>(
  tx: Tx,
  table: T,
  parentColumn: SQLiteColumn,
  orgId: string,
  parentId: string,
  id: string,
): Promise<T["$inferSelect"]> {
  const row = await firstRow(tx
    .select()
    .from(table as SQLiteTable)
    .where(inOrg(table, orgId, eq(parentColumn, parentId), eq(table.id, id))));
  if (!row) throw new NotFound();
  return row as T["$inferSelect"];
}
