/**
 * The reports, read from the running balances the journal's triggers keep (account_days: debits
 * and credits per account, currency and day; vat_days: VAT base and amount per day, side, category
 * and rate), never from the postings: a report sums days, so it costs the same at a million
 * invoices as at ten. Aged receivables read the open documents (a partial index holds them).
 * Each report is in one currency (default the organisation's): Kontor keeps no exchange rates.
 */
import { and, asc, between, desc, eq, lte, ne, sql, type SQL } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { plainRows, prepared, type Tx } from "../../db/client.ts";
import { accountDays, accounts, awaitingPayment, customerReceivables, customers, invoices, receivableDueDays, signedAmountDue, vatDays } from "../../db/schema.ts";
import type { AccountType } from "../accounts/model.ts";
import { shownBalance } from "../ledger/balances.ts";
import type { VatCategory } from "../documents/model.ts";
import { ValidationFailed } from "../lib/errors.ts";
import { formatCents } from "../lib/money.ts";
import { isCurrencyCode } from "../lib/iso-codes.ts";
import { snapshot, type Scope } from "../lib/scope.ts";
import { fiscalCalendar, fiscalYearOf } from "../lib/fiscal-year.ts";
import { dayOf, periodOf } from "../lib/period.ts";
import { addDays, today } from "../lib/time.ts";
import { rangeContributions } from "../vat-returns/contributions.ts";
import { shownGrids, withBalance } from "../vat-returns/grids.ts";

type AccountBalance = { accountId: string; code: string; name: string; type: AccountType; debit: number; credit: number };

function currencyOf(scope: Scope, currency: string | undefined): string {
  const chosen = currency ?? scope.org.currency;
  if (!isCurrencyCode(chosen)) throw ValidationFailed.field("currency", "The currency must be an ISO 4217 code (e.g. EUR).");
  return chosen;
}

/** The VAT report's period: by default from 1 January of `to`'s year (VAT keeps to calendar years, whatever the fiscal year). */
const calendarPeriod = (query: { from?: string; to?: string }) => periodOf(query, (to) => `${to.slice(0, 4)}-01-01`);

/** The profit and loss's period: by default from the first day of the fiscal year that holds `to` (docs/books.md#fiscal-years). */
const fiscalPeriod = (tx: Tx, orgId: string, query: { from?: string; to?: string }) =>
  periodOf(query, (to) => fiscalYearOf(fiscalCalendar(tx, orgId), to).start);

/**
 * Debits and credits per account over the days in range, in one currency; `closing: false`
 * leaves the year-end closing entries out (a profit and loss shows what the year earned).
 */
function accountSums(tx: Tx, orgId: string, currency: string, from: string | null, to: string, withClosing: boolean): AccountBalance[] {
  return tx
    .select({
      accountId: accountDays.accountId,
      code: accounts.code,
      name: accounts.name,
      type: accounts.type,
      debit: sql<number>`sum(${accountDays.debitCents})`,
      credit: sql<number>`sum(${accountDays.creditCents})`,
    })
    .from(accountDays)
    .innerJoin(accounts, eq(accounts.id, accountDays.accountId))
    .where(
      and(
        eq(accountDays.organizationId, orgId),
        eq(accountDays.currency, currency),
        from === null ? lte(accountDays.date, to) : between(accountDays.date, from, to),
        withClosing ? undefined : eq(accountDays.isClosing, false),
      ),
    )
    .groupBy(accountDays.accountId)
    .orderBy(asc(accounts.code))
    .all();
}

/** An account's balance as its type shows it: debit-normal for assets and expenses, credit-normal otherwise. */
const shown = (a: AccountBalance) => shownBalance(a.type, a.debit - a.credit);
const amountRow = (a: AccountBalance) => ({ account_id: a.accountId, code: a.code, name: a.name, amount: formatCents(shown(a)) });
const sum = (values: number[]) => values.reduce((s, v) => s + v, 0);

/** Revenue less expenses over the days in range, closing entries left out (a fiscal year's result). */
export function netResult(tx: Tx, orgId: string, currency: string, from: string, to: string): number {
  const rows = accountSums(tx, orgId, currency, from, to, false);
  return sum(rows.filter((a) => a.type === "revenue").map(shown)) - sum(rows.filter((a) => a.type === "expense").map(shown));
}

export async function trialBalance(scope: Scope, query: { date?: string; currency?: string }) {
  const date = dayOf("date", query.date, today());
  const currency = currencyOf(scope, query.currency);
  return await snapshot(scope.db, (tx) => {
    const rows = accountSums(tx, scope.org.id, currency, null, date, true)
      .map((a) => ({ a, net: a.debit - a.credit }))
      .filter((r) => r.net !== 0);
    return {
      date,
      currency,
      accounts: rows.map(({ a, net }) => ({
        account_id: a.accountId,
        code: a.code,
        name: a.name,
        type: a.type,
        debit: formatCents(Math.max(net, 0)),
        credit: formatCents(Math.max(-net, 0)),
      })),
      total_debit: formatCents(sum(rows.map((r) => Math.max(r.net, 0)))),
      total_credit: formatCents(sum(rows.map((r) => Math.max(-r.net, 0)))),
    };
  });
}

export async function profitAndLoss(scope: Scope, query: { from?: string; to?: string; currency?: string }) {
  return await snapshot(scope.db, (tx) => {
    const { from, to } = fiscalPeriod(tx, scope.org.id, query);
    const currency = currencyOf(scope, query.currency);
    const rows = accountSums(tx, scope.org.id, currency, from, to, false).filter((a) => shown(a) !== 0);
    const revenue = rows.filter((a) => a.type === "revenue");
    const expenses = rows.filter((a) => a.type === "expense");
    const totalRevenue = sum(revenue.map(shown));
    const totalExpenses = sum(expenses.map(shown));
    return {
      from,
      to,
      currency,
      revenue: revenue.map(amountRow),
      expenses: expenses.map(amountRow),
      total_revenue: formatCents(totalRevenue),
      total_expenses: formatCents(totalExpenses),
      net_result: formatCents(totalRevenue - totalExpenses),
    };
  });
}

export async function balanceSheet(scope: Scope, query: { date?: string; currency?: string }) {
  const date = dayOf("date", query.date, today());
  const currency = currencyOf(scope, query.currency);
  return await snapshot(scope.db, (tx) => {
    const rows = accountSums(tx, scope.org.id, currency, null, date, true);
    const of = (type: AccountType) => rows.filter((a) => a.type === type && shown(a) !== 0);
    // closed years' results sit in retained earnings already (their closing entries zeroed them)
    const currentResult = sum(of("revenue").map(shown)) - sum(of("expense").map(shown));
    const totalAssets = sum(of("asset").map(shown));
    const totalLiabilities = sum(of("liability").map(shown));
    const totalEquity = sum(of("equity").map(shown)) + currentResult;
    return {
      date,
      currency,
      assets: of("asset").map(amountRow),
      liabilities: of("liability").map(amountRow),
      equity: of("equity").map(amountRow),
      current_result: formatCents(currentResult),
      total_assets: formatCents(totalAssets),
      total_liabilities: formatCents(totalLiabilities),
      total_equity: formatCents(totalEquity),
    };
  });
}

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
      Object.fromEntries(BUCKETS.map((b) => [b, sql<number>`coalesce(sum(iif(${bucketOf(column, b)}, ${amount}, 0)), 0)`.as(b)])) as Record<Bucket, SQL.Aliased<number>>;
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
              sql`${invoices.customerId} IN (SELECT value FROM json_each(${p("ids")}))`,
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
function agingAsOf(tx: Tx, at: AgingAt): CustomerAging[] {
  const p = (name: keyof AgingAt) => sql.placeholder(name);
  // the lookups are skipped for documents with nothing paid or credited (most open ones)
  const paid = sql`iif(i."paid_cents" = 0, 0, coalesce((SELECT sum(pm."amount_cents") FROM "payments" pm WHERE pm."invoice_id" = i."id" AND pm."payment_date" <= ${p("date")}), 0))`;
  // issued by then: what it asks less what was paid (refunded) and credited by then
  const owedIssued = sql`CASE WHEN i."type" = 'credit_note' THEN
      ${paid} - i."total_cents"
      + iif(i."credited_cents" <> 0 AND EXISTS (SELECT 1 FROM "invoices" r WHERE r."id" = i."related_invoice_id" AND r."issue_date" <= ${p("date")}), i."credited_cents", 0)
    ELSE i."total_cents" - ${paid}
      - iif(i."credited_cents" = 0, 0, coalesce((SELECT sum(c."credited_cents") FROM "invoices" c
          WHERE c."organization_id" = i."organization_id" AND c."related_invoice_id" = i."id" AND c."type" = 'credit_note'
            AND c."status" NOT IN ('draft', 'cancelled') AND c."issue_date" <= ${p("date")}), 0))
    END`;
  // issued later but paid (or refunded) before: money received in advance, as the ledger has it
  const owedLater = sql`CASE WHEN i."type" = 'credit_note' THEN ${paid} ELSE -${paid} END`;
  const documents = (owed: SQL, issued: SQL) => sql`SELECT i."customer_id" AS "customer_id", i."due_date" AS "due_date", ${owed} AS "owed" FROM "invoices" i
      WHERE i."organization_id" = ${p("orgId")} AND i."currency" = ${p("currency")} AND ${issued} AND i."status" NOT IN ('draft', 'cancelled')`;
  const due = sql.raw(`d."due_date"`);
  const buckets = sql.join(
    BUCKETS.map((b) => sql`coalesce(sum(iif(${bucketOf(due, b)}, d."owed", 0)), 0) AS ${sql.identifier(b)}`),
    sql`, `,
  );
  const query = sql`WITH d AS (
      ${documents(owedIssued, sql`i."issue_date" <= ${p("date")}`)}
      UNION ALL
      ${documents(owedLater, sql`i."issue_date" > ${p("date")} AND i."paid_cents" > 0 AND EXISTS (SELECT 1 FROM "payments" pm WHERE pm."invoice_id" = i."id" AND pm."payment_date" <= ${p("date")})`)}
    )
    SELECT d."customer_id" AS "customerId", c."name" AS "name", ${buckets}
    FROM d JOIN "customers" c ON c."id" = d."customer_id"
    GROUP BY d."customer_id" HAVING sum(d."owed") <> 0`;
  return plainRows<CustomerAging>(tx, { toSQL: () => dialect.sqlToQuery(query) }).all(at);
}

/**
 * What customers owe, by how long it is overdue on `date`. Without a date: today, the documents
 * open now (invoices less credit notes, each for its amount due), read from running totals
 * (server/reports/receivables.ts), not from every open document. With a date: the receivables as
 * they were at the end of that day (agingAsOf), a year-end list. The customers owing most come
 * first, a page at a time (a large organisation has tens of thousands of debtors); the totals are
 * over all of them.
 */
export async function agedReceivables(scope: Scope, query: { date?: string; currency?: string; page?: number; per_page?: number }) {
  const date = dayOf("date", query.date, today());
  const currency = currencyOf(scope, query.currency);
  const perPage = query.per_page ?? AGING_PER_PAGE.default;
  const page = query.page ?? 1;
  const at = { orgId: scope.org.id, currency, date, d30: addDays(date, -30), d60: addDays(date, -60), d90: addDays(date, -90) };
  return await snapshot(scope.db, (tx) => {
    let totals: Record<Bucket, number>;
    let count: number;
    let shown: { customerId: string; name: string }[];
    let owed: Map<string, Record<Bucket, number>>;
    if (query.date === undefined) {
      const reads = agingQueries(tx);
      totals = reads.totals.get(at)!;
      count = reads.count.get(at)!.n;
      shown = reads.page.all({ ...at, limit: perPage, offset: (page - 1) * perPage });
      owed = new Map(reads.customers.all({ ...at, ids: JSON.stringify(shown.map((c) => c.customerId)) }).map((r) => [r.customerId, r]));
    } else {
      const all = agingAsOf(tx, at);
      const totalOf = (r: Record<Bucket, number>) => sum(BUCKETS.map((b) => r[b]));
      all.sort((a, b) => totalOf(b) - totalOf(a) || (a.customerId < b.customerId ? -1 : a.customerId > b.customerId ? 1 : 0));
      totals = Object.fromEntries(BUCKETS.map((b) => [b, sum(all.map((r) => r[b]))])) as Record<Bucket, number>;
      count = all.length;
      shown = all.slice((page - 1) * perPage, page * perPage);
      owed = new Map(all.map((r) => [r.customerId, r]));
    }
    const money = (r: Record<Bucket, number>) => {
      const out = Object.fromEntries(BUCKETS.map((b) => [b, formatCents(r[b])])) as Record<Bucket | "total", string>;
      out.total = formatCents(sum(BUCKETS.map((b) => r[b])));
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

type VatSum = { side: "sales" | "purchases"; category: VatCategory; rateBp: number; base: number; vat: number; noteBase: number; noteVat: number };

/**
 * The grids of the Belgian periodic VAT return (form 625) over the report's dates, by the VAT
 * return's grid table (server/vat-returns/grids.ts): what each document dated in them contributes,
 * summed per grid, with 71 or 72. A filed return may differ: it reports documents posted after a
 * filing in the next open period (GET /api/v1/vat-returns/{period}).
 */
function belgianGrids(tx: Tx, orgId: string, from: string, to: string): Record<string, string> {
  const sums: Record<string, number> = {};
  for (const c of rangeContributions(tx, orgId, from, to, `${from}..${to}`).contributions) sums[c.grid] = (sums[c.grid] ?? 0) + c.cents;
  return Object.fromEntries(shownGrids(withBalance(sums)).map(([g, c]) => [g, formatCents(c)]));
}

export async function vatReport(scope: Scope, query: { from?: string; to?: string; currency?: string }) {
  const { from, to } = calendarPeriod(query);
  const currency = currencyOf(scope, query.currency);
  return await snapshot(scope.db, (tx) => {
    const rows: VatSum[] = tx
      .select({
        side: vatDays.side,
        category: vatDays.category,
        rateBp: vatDays.rateBp,
        base: sql<number>`sum(${vatDays.baseCents})`,
        vat: sql<number>`sum(${vatDays.vatCents})`,
        noteBase: sql<number>`sum(${vatDays.creditBaseCents})`,
        noteVat: sql<number>`sum(${vatDays.creditVatCents})`,
      })
      .from(vatDays)
      .where(and(eq(vatDays.organizationId, scope.org.id), eq(vatDays.currency, currency), between(vatDays.date, from, to)))
      .groupBy(vatDays.side, vatDays.category, vatDays.rateBp)
      .orderBy(vatDays.side, vatDays.category, sql`${vatDays.rateBp} DESC`)
      .all()
      .filter((r) => r.base !== 0 || r.vat !== 0 || r.noteBase !== 0);
    const present = (side: VatSum["side"]) =>
      rows.filter((r) => r.side === side).map((r) => ({ category: r.category, rate: formatCents(r.rateBp), base: formatCents(r.base), vat: formatCents(r.vat) }));
    const salesVat = sum(rows.filter((r) => r.side === "sales").map((r) => r.vat));
    const purchasesVat = sum(rows.filter((r) => r.side === "purchases").map((r) => r.vat));
    return {
      from,
      to,
      currency,
      sales: present("sales"),
      purchases: present("purchases"),
      total_sales_vat: formatCents(salesVat),
      total_purchases_vat: formatCents(purchasesVat),
      vat_balance: formatCents(salesVat - purchasesVat),
      belgian_return: scope.org.country === "BE" && currency === "EUR" ? { grids: belgianGrids(tx, scope.org.id, from, to) } : null,
    };
  });
}
