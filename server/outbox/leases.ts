/**
 * An outbox table's leases, the same for every channel (worker.ts): a row is due when it is
 * pending, its next attempt has come and it has no live lease; a claim gives it this worker's
 * lease (`leased_by`, `lease_until`); only the holder of both moves it on; at stop the leases
 * still held are handed back.
 */
import { and, eq, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { unindexed } from "../../db/dialect.ts";
import type { Db } from "../../db/client.ts";
import { unitOfWork } from "../lib/scope.ts";

/** The columns every outbox table has. */
export type OutboxTable = SQLiteTable & { id: SQLiteColumn; status: SQLiteColumn; nextAttemptAt: SQLiteColumn; leasedBy: SQLiteColumn; leaseUntil: SQLiteColumn };

/**
 * Due at `now`: pending, next attempt reached, no live lease. `nextAttemptAtIndexed: false`
 * keeps the engine from choosing the (status, next_attempt_at) index, for a query that wants
 * another one (an organisation's own range).
 */
export function dueAt(table: OutboxTable, now: number, nextAttemptAtIndexed = true): SQL {
  return and(
    eq(table.status, "pending"),
    nextAttemptAtIndexed ? lte(table.nextAttemptAt, now) : sql`${unindexed(table.nextAttemptAt)} <= ${now}`,
    or(isNull(table.leaseUntil), lt(table.leaseUntil, now)),
  )!;
}

/** Whether this worker still holds the lease it claimed the row with (it was not re-claimed or handed back since). */
export function holdsLease(row: { leasedBy: string | null; leaseUntil: number | null }, workerId: string, claimedUntil: number | null): boolean {
  return row.leasedBy === workerId && row.leaseUntil === claimedUntil;
}

/** Hands back every lease this worker still holds (its stop): those rows are due again at once. Returns how many. */
export async function releaseLeases(db: Db, table: OutboxTable, workerId: string): Promise<number> {
  return await unitOfWork(db, async (tx) =>
    (await tx
      .update(table)
      .set({ leasedBy: null, leaseUntil: null } as never)
      // status first: the table's due index narrows it to the pending rows
      .where(and(eq(table.status, "pending"), eq(table.leasedBy, workerId)))
      .returning({ id: table.id })).length,
  );
}
