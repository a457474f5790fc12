/**
 * What customers owe, from the running totals that triggers on invoices keep (migration 0020):
 * per customer and per due date, of the open documents' signed amounts due. `rebuildReceivables`
 * computes them from the documents themselves: for a database that had documents before the
 * triggers (a data migration), or whose invoices were written with the triggers off (the bench).
 */
import { sql } from "drizzle-orm";
import { runSql, type Tx } from "../../db/client.ts";
import { awaitingPayment, customerReceivables, invoices, receivableDueDays, signedAmountDue } from "../../db/schema.ts";

export async function rebuildReceivables(tx: Tx): Promise<void> {
  await tx.delete(customerReceivables);
  await tx.delete(receivableDueDays);
  await runSql(tx, sql`INSERT INTO ${customerReceivables} ("organization_id", "currency", "customer_id", "open_cents")
    SELECT "organization_id", "currency", "customer_id", sum(${signedAmountDue}) FROM ${invoices} WHERE ${awaitingPayment}
    GROUP BY "organization_id", "customer_id", "currency"`);
  await runSql(tx, sql`INSERT INTO ${receivableDueDays} ("organization_id", "currency", "due_date", "open_cents")
    SELECT "organization_id", "currency", "due_date", sum(${signedAmountDue}) FROM ${invoices} WHERE ${awaitingPayment}
    GROUP BY "organization_id", "currency", "due_date"`);
}
