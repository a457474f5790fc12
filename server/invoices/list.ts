/** The invoice list: its sorts, filters and search (docs/invoicing.md#lists-and-search), and the customer-name lookups behind them. */
import { gte, notInArray, or, sql, type SQL } from "drizzle-orm";
import { t } from "elysia";
import { preparedQuery, type Tx } from "../../db/client.ts";
import { AWAITING_PAYMENT, awaitingPayment, customers, invoices } from "../../db/schema.ts";
import { LookUp, searchParam, type ListSpec } from "../lib/list.ts";
import { Currency, DateString, ExternalId, Uuid } from "../lib/schemas.ts";
import { normalizeExternalId } from "../lib/external-ids.ts";
import { inOrg } from "../lib/scope.ts";
import { today } from "../lib/time.ts";
import { INVOICE_STATUSES, INVOICE_TYPES } from "./model.ts";
import { everyWordQuery, phraseQuery, searchHits } from "../../db/search.ts";
import { inJsonArray, jsonArrayOf, unindexed } from "../../db/dialect.ts";

export const invoiceList: ListSpec<typeof invoices> = {
  table: invoices,
  sorts: {
    issue_date: invoices.issueDate,
    due_date: invoices.dueDate,
    total: invoices.totalCents,
    number: invoices.number,
    status: invoices.status,
    created_at: invoices.createdAt,
    updated_at: invoices.updatedAt,
  },
  defaultSort: "-issue_date",
  filters: {
    status: { column: invoices.status, schema: t.UnionEnum([...INVOICE_STATUSES]) },
    type: { column: invoices.type, schema: t.UnionEnum([...INVOICE_TYPES]) },
    customer_id: { column: invoices.customerId, schema: Uuid },
    currency: { column: invoices.currency, schema: Currency },
    number: { column: invoices.number, schema: t.String({ maxLength: 50, description: "Exact number (INV-2026-00001, or a draft's DRAFT-…)" }) },
    order_reference: { column: invoices.orderReference, schema: t.String({ maxLength: 200, description: "Exact order reference (BT-13)" }) },
    external_id: { column: invoices.externalId, schema: ExternalId, map: normalizeExternalId },
    issue_date_from: { column: invoices.issueDate, op: "gte", schema: t.String({ ...DateString, description: "Issued on or after this date" }) },
    issue_date_to: { column: invoices.issueDate, op: "lte", schema: t.String({ ...DateString, description: "Issued on or before this date" }) },
    overdue: {
      schema: t.UnionEnum(["true", "false"], { description: "true: finalized, sent or partially paid, and due before today" }),
      where: (value, bind) => {
        const dueBefore = (dueDate: SQL) => sql`${awaitingPayment} AND ${dueDate} < ${bind("today", today())}`;
        if (value === "false") return or(notInArray(invoices.status, [...AWAITING_PAYMENT]), gte(invoices.dueDate, bind("today", today())));
        // The page reads the invoices awaiting payment in list order (the unary + keeps the
        // planner from seeking on due_date and sorting all of them); the count is the range of
        // due dates before today in the index of the invoices awaiting payment by due date.
        return { rows: dueBefore(sql`${unindexed(invoices.dueDate)}`), count: dueBefore(sql`${invoices.dueDate}`) };
      },
    },
  },
  // the number (its parts in order, the last as a prefix: "INV-2026-004", "00042") or the
  // customer's name (every word as a prefix: "acme gm"). A name is matched among the
  // organisation's customers, not once per invoice (migration 0011), before the list query
  // (customersNamed)
  search: (words) => ({
    where: sql`(${inJsonArray(invoices.customerId, searchParam("customers"))} OR ${searchHits(invoices, "invoices_fts", searchParam("number"), { phrase: true })})`,
    params: { customers: customersNamed(words), number: phraseQuery(words) },
  }),
  updatedAt: invoices.updatedAt,
  metadata: invoices.metadata,
};

/**
 * The ids of the organisation's customers whose name has every word as a prefix, as a JSON
 * array, read when the list runs. They are remembered in the connection's memory until
 * anything commits: a search paged through, and its count, match the name once, where the
 * match is a large part of a search's work.
 */
function customersNamed(words: string[]): LookUp {
  const name = everyWordQuery(words, "name");
  return new LookUp(name, (tx, orgId) =>
    tx.connection.memory.rememberAsync(`invoice search: customers named\u0000${orgId}\u0000${name}`, () => customerIdsNamed(tx, orgId, name)),
  );
}

async function customerIdsNamed(tx: Tx, orgId: string, name: string): Promise<string> {
  const query = preparedQuery(tx, "invoice search: customers named", (tx) =>
    tx
      .select({ ids: jsonArrayOf(customers.id) })
      .from(customers)
      .where(inOrg(customers, sql.placeholder("orgId"), sql`${searchHits(customers, "customers_fts", sql.placeholder("name"), { column: "name" })}`))
      .prepare(),
  );
  return (await query.get({ orgId, name }))!.ids;
}
