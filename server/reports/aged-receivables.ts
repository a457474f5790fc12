/**
 * Aged receivables: what each customer owes (invoices less credit notes, each for its amount due),
 * by how long it is overdue on a day — current, 1–30, 31–60, 61–90, over 90 days past the due
 * date — the customers owing most first, a page at a time (a large organisation has tens of
 * thousands of debtors), the totals over all of them. Without `date`: today, the documents open
 * now, read from the running totals (server/reports/receivables.ts), not from every open
 * document. With `date`: the receivables as they stood at the end of that day (`agingAsOf`), a
 * year-end list. Parameters: `date` (default today), `currency` (default the organisation's),
 * `page` (default 1), `per_page` (default 100, at most 1000). Refused (422): a `date` that is not
 * YYYY-MM-DD, a `currency` that is not an ISO 4217 code (page bounds: the route's schema).
 */
import { and, asc, desc, eq, ne, sql, type SQL } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { plainRows, prepared, type Tx } from "../../db/client.ts";
import { awaitingPayment, customerReceivables, customers, invoices, receivableDueDays, signedAmountDue } from "../../db/schema.ts";
import { formatCents, sumCents } from "../lib/money.ts";
import { dayOf } from "../lib/period.ts";
import { snapshot, type Scope } from "../lib/scope.ts";
import { addDays, today } from "../lib/time.ts";
import { reportCurrency } from "./currency.ts";
import { inJsonArray } from "../../db/dialect.ts";

const BUCKETS = ["current", "days_1_30", "days_31_60", "days_61_90", "over_90"] as const;
type Bucket = (typeof BUCKETS)[number];
export const AGING_PER_PAGE = { default: 100, max: 1000 };

/** A bucket's condition on a due date `column`, `date` and the days 30, 60, 90 before it as placeholders. */
function bucketOf(column: SQL | typeof invoices.dueDate, b: Bucket): SQL {
  const p = (name: string) => sql.placeholder(name);
  switch (b) {
    case "current":
      return sql`${column} >= ${p("date")}`;
    case "days_1_30":
      return sql`${column} < ${p("date")} AND ${column} >= ${p("d30")}`;
    case "days_31_60":
      return sql`${column} < ${p("d30")} AND ${column} >= ${p("d60")}`;
    case "days_61_90":
      return sql`${column} < ${p("d60")} AND ${column} >= ${p("d90")}`;
    case "over_90":
      return sql`${column} < ${p("d90")}`;
  }
}

/**
 * The three reads of an aging, prepared once per connection: the totals by bucket from the due
 * dates' running totals; a page of the customers owing most from theirs; and that page's
 * customers by bucket from their open documents (the aging index: a few rows each).
 */
function agingQueries(tx: Tx) {
  return prepared(tx, "reports: aging", (tx) => {
    const p = (name: string) => sql.placeholder(name);
    const byBucket = (column: SQL | typeof invoices.dueDate, amount: SQL) =>
      Object.fromEntries(BUCKETS.map((b) => [b, sql<number>`coalesce(sum(CASE WHEN ${bucketOf(column, b)} THEN ${amount} ELSE 0 END), 0)`.as(b)])) as Record<Bucket, SQL.Aliased<number>>;
    const days = sql`${receivableDueDays.dueDate}`;
    return {
      totals: plainRows<Record<Bucket, number>>(
        tx,
        tx
          .select(byBucket(days, sql`${receivableDueDays.openCents}`))
          .from(receivableDueDays)
          .where(and(eq(receivableDueDays.organizationId, p("orgId")), eq(receivableDueDays.currency, p("currency")))),
      ),
      count: plainRows<{ n: number }>(
        tx,
        tx
          .select({ n: sql<number>`count(*)`.as("n") })
          .from(customerReceivables)
          .where(and(eq(customerReceivables.organizationId, p("orgId")), eq(customerReceivables.currency, p("currency")), ne(customerReceivables.openCents, 0))),
      ),
      page: plainRows<{ customerId: string; name: string }>(
        tx,
        tx
          .select({ customerId: sql<string>`${customerReceivables.customerId}`.as("customerId"), name: sql<string>`${customers.name}`.as("name") })
          .from(customerReceivables)
          .innerJoin(customers, eq(customers.id, customerReceivables.customerId))
          .where(and(eq(customerReceivables.organizationId, p("orgId")), eq(customerReceivables.currency, p("currency")), ne(customerReceivables.openCents, 0)))
          .orderBy(desc(customerReceivables.openCents), asc(customerReceivables.customerId))
          .limit(p("limit"))
          .offset(p("offset")),
      ),
      customers: plainRows<{ customerId: string } & Record<Bucket, number>>(
        tx,
        tx
          .select({ customerId: sql<string>`${invoices.customerId}`.as("customerId"), ...byBucket(invoices.dueDate, signedAmountDue) })
          .from(invoices)
          .where(
            and(
              eq(invoices.organizationId, p("orgId")),
              // written out, not bound: SQLite reads a partial index only for its own condition
              awaitingPayment,
              eq(invoices.currency, p("currency")),
              sql`${inJsonArray(invoices.customerId, p("ids"))}`,
            ),
          )
          .groupBy(invoices.customerId),
      ),
    };
  });
}

const dialect = new SQLiteSyncDialect();

type AgingAt = { orgId: string; currency: string; date: string; d30: string; d60: string; d90: string };
type CustomerAging = { customerId: string; name: string } & Record<Bucket, number>;

/**
 * Every customer's aging as it stood at the end of `at.date`, from the documents themselves: those
 * issued on or before it (cancelled ones never were: their postings are reversed on their own
 * dates), less the payments dated on or before it and the allocations of the credit notes issued
 * on or before it (a credit note's allocation counts on its side only while its invoice was issued
 * too); a payment dated before its document was issued counts as money received in advance. So it
 * agrees with the receivables account's balance on that date. Read through the index
 * of the organisation's documents by currency and issue date; slower than the running totals,
 * which hold only today.
 */
async function agingAsOf(tx: Tx, at: AgingAt): Promise<CustomerAging[]> {
  const p = (name: keyof AgingAt) => sql.placeholder(name);
  // the lookups are skipped for documents with nothing paid or credited (most open ones)
  const paid = sql`CASE WHEN i."paid_cents" = 0 THEN 0 ELSE coalesce((SELECT sum(pm."amount_cents") FROM "payments" pm WHERE pm."invoice_id" = i."id" AND pm."payment_date" <= ${p("date")}), 0) END`;
  // issued by then: what it asks less what was paid (refunded) and credited by then
  const owedIssued = sql`CASE WHEN i."type" = 'credit_note' THEN
      ${paid} - i."total_cents"
      + CASE WHEN i."credited_cents" <> 0 AND EXISTS (SELECT 1 FROM "invoices" r WHERE r."id" = i."related_invoice_id" AND r."issue_date" <= ${p("date")}) THEN i."credited_cents" ELSE 0 END
    ELSE i."total_cents" - ${paid}
      - CASE WHEN i."credited_cents" = 0 THEN 0 ELSE coalesce((SELECT sum(c."credited_cents") FROM "invoices" c
          WHERE c."organization_id" = i."organization_id" AND c."related_invoice_id" = i."id" AND c."type" = 'credit_note'
            AND c."status" NOT IN ('draft', 'cancelled') AND c."issue_date" <= ${p("date")}), 0) END
    END`;
  // issued later but paid (or refunded) before: money received in advance, as the ledger has it
  const owedLater = sql`CASE WHEN i."type" = 'credit_note' THEN ${paid} ELSE -${paid} END`;
  const documents = (owed: SQL, issued: SQL) => sql`SELECT i."customer_id" AS "customer_id", i."due_date" AS "due_date", ${owed} AS "owed" FROM "invoices" i
      WHERE i."organization_id" = ${p("orgId")} AND i."currency" = ${p("currency")} AND ${issued} AND i."status" NOT IN ('draft', 'cancelled')`;
  const due = sql.raw(`d."due_date"`);
  const buckets = sql.join(
    BUCKETS.map((b) => sql`coalesce(sum(CASE WHEN ${bucketOf(due, b)} THEN d."owed" ELSE 0 END), 0) AS ${sql.identifier(b)}`),
    sql`, `,
  );
  const query = sql`WITH d AS (
      ${documents(owedIssued, sql`i."issue_date" <= ${p("date")}`)}
      UNION ALL
      ${documents(owedLater, sql`i."issue_date" > ${p("date")} AND i."paid_cents" > 0 AND EXISTS (SELECT 1 FROM "payments" pm WHERE pm."invoice_id" = i."id" AND pm."payment_date" <= ${p("date")})`)}
    )
    SELECT d."customer_id" AS "customerId", c."name" AS "name", ${buckets}
    FROM d JOIN "customers" c ON c."id" = d."customer_id"
    GROUP BY d."customer_id", c."id" HAVING sum(d."owed") <> 0`;
  return await plainRows<CustomerAging>(tx, { toSQL: () => dialect.sqlToQuery(query) }).all(at);
}

export async function agedReceivables(scope: Scope, query: { date?: string; currency?: string; page?: number; per_page?: number }) {
  const date = dayOf("date", query.date, today());
  const currency = reportCurrency(scope, query.currency);
  const perPage = query.per_page ?? AGING_PER_PAGE.default;
  const page = query.page ?? 1;
  const at = { orgId: scope.org.id, currency, date, d30: addDays(date, -30), d60: addDays(date, -60), d90: addDays(date, -90) };
  return await snapshot(scope.db, async (tx) => {
    let totals: Record<Bucket, number>;
    let count: number;
    let shown: { customerId: string; name: string }[];
    let owed: Map<string, Record<Bucket, number>>;
    if (query.date === undefined) {
      const reads = agingQueries(tx);
      totals = (await reads.totals.get(at))!;
      count = (await reads.count.get(at))!.n;
      shown = await reads.page.all({ ...at, limit: perPage, offset: (page - 1) * perPage });
      owed = new Map((await reads.customers.all({ ...at, ids: JSON.stringify(shown.map((c) => c.customerId)) })).map((r) => [r.customerId, r]));
    } else {
      const all = await agingAsOf(tx, at);
      const totalOf = (r: Record<Bucket, number>) => sumCents(BUCKETS.map((b) => r[b]));
      all.sort((a, b) => totalOf(b) - totalOf(a) || (a.customerId < b.customerId ? -1 : a.customerId > b.customerId ? 1 : 0));
      totals = Object.fromEntries(BUCKETS.map((b) => [b, sumCents(all.map((r) => r[b]))])) as Record<Bucket, number>;
      count = all.length;
      shown = all.slice((page - 1) * perPage, page * perPage);
      owed = new Map(all.map((r) => [r.customerId, r]));
    }
    const money = (r: Record<Bucket, number>) => {
      const out = Object.fromEntries(BUCKETS.map((b) => [b, formatCents(r[b])])) as Record<Bucket | "total", string>;
      out.total = formatCents(sumCents(BUCKETS.map((b) => r[b])));
      return out;
    };
    return {
      date,
      currency,
      customers: shown.map((c) => ({ customer_id: c.customerId, name: c.name, ...money(owed.get(c.customerId)!) })),
      totals: money(totals),
      meta: { current_page: page, per_page: perPage, last_page: Math.max(1, Math.ceil(count / perPage)), total: count },
    };
  });
}
