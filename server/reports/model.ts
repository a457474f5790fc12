/** The reports (reporting.view): JSON by default, CSV with `Accept: text/csv`. */
import { t, type TSchema } from "elysia";
import { ACCOUNT_TYPES } from "../accounts/model.ts";
import { VAT_CATEGORIES } from "../documents/model.ts";
import { DateString, Money, Nullable, ResponseSchema, Uuid } from "../lib/schemas.ts";

const Currency = t.Optional(t.String({ pattern: "^[A-Z]{3}$", description: "ISO 4217; default: the organisation's currency (each currency is reported on its own: Kontor keeps no exchange rates)" }));
const Day = (description: string) => t.Optional(t.String({ ...DateString, description }));

export const ReportQuery = {
  atDate: t.Object({ date: Day("Balances at the end of this day; default today"), currency: Currency }, { additionalProperties: false }),
  aging: t.Object(
    {
      date: Day(
        "The receivables as they stood at the end of this day, aged on it: the documents issued on or before it, less the payments dated and the credit notes issued on or before it. Default: today's open documents",
      ),
      currency: Currency,
      // x-param: the name a coerced integer's 422 is keyed by (server/http/kernel.ts)
      page: t.Optional(t.Integer({ minimum: 1, maximum: 1_000_000, "x-param": "page", description: "Page of customers (default 1)" })),
      per_page: t.Optional(t.Integer({ minimum: 1, maximum: 1000, "x-param": "per_page", description: "Customers per page, 1–1000 (default 100)" })),
    },
    { additionalProperties: false },
  ),
  period: t.Object(
    { from: Day("First day; default 1 January of the year of `to`"), to: Day("Last day; default today"), currency: Currency },
    { additionalProperties: false },
  ),
  fiscalPeriod: t.Object(
    { from: Day("First day; default the first day of the fiscal year that holds `to`"), to: Day("Last day; default today"), currency: Currency },
    { additionalProperties: false },
  ),
};

const AccountRef = { account_id: Uuid, code: t.String(), name: t.String() };
const AccountAmount = t.Object({ ...AccountRef, amount: Money }, { title: "ReportAccountAmount" });
const VatRow = t.Object({ category: t.UnionEnum([...VAT_CATEGORIES]), rate: Money, base: Money, vat: Money }, { title: "VatReportRow" });

/** The JSON body, and that the same report is served as CSV for `Accept: text/csv`. */
const report = <T extends TSchema>(schema: T, csv: string) => ResponseSchema(t.Object({ data: schema }, { "x-alternatives": { "text/csv": csv } }));

export const ReportModel = {
  trialBalance: report(
    t.Object(
      {
        date: DateString,
        currency: t.String(),
        accounts: t.Array(
          t.Object({ ...AccountRef, type: t.UnionEnum([...ACCOUNT_TYPES]), debit: Money, credit: Money }, { title: "TrialBalanceAccount" }),
          { description: "Every account with a balance, by code: its net balance on the debit or the credit side" },
        ),
        total_debit: Money,
        total_credit: Money,
      },
      { title: "TrialBalance" },
    ),
    "account_code,account_name,type,debit,credit; a last row of totals",
  ),
  profitAndLoss: report(
    t.Object(
      {
        from: DateString,
        to: DateString,
        currency: t.String(),
        revenue: t.Array(AccountAmount),
        expenses: t.Array(AccountAmount),
        total_revenue: Money,
        total_expenses: Money,
        net_result: t.String({ ...Money, description: "total_revenue − total_expenses (closing entries left out)" }),
      },
      { title: "ProfitAndLoss" },
    ),
    "section,account_code,account_name,amount; then the totals and the net result",
  ),
  balanceSheet: report(
    t.Object(
      {
        date: DateString,
        currency: t.String(),
        assets: t.Array(AccountAmount),
        liabilities: t.Array(AccountAmount),
        equity: t.Array(AccountAmount),
        current_result: t.String({ ...Money, description: "Revenue less expenses not yet closed into retained earnings; part of total_equity" }),
        total_assets: Money,
        total_liabilities: Money,
        total_equity: Money,
      },
      { title: "BalanceSheet", description: "total_assets = total_liabilities + total_equity" },
    ),
    "section,account_code,account_name,amount; then the current result and the totals",
  ),
  agedReceivables: report(
    t.Object(
      {
        date: DateString,
        currency: t.String(),
        customers: t.Array(
          t.Object(
            {
              customer_id: Uuid,
              name: t.String(),
              current: Money,
              days_1_30: Money,
              days_31_60: Money,
              days_61_90: Money,
              over_90: Money,
              total: Money,
            },
            { title: "AgedReceivablesCustomer" },
          ),
          { description: "The customers owing most first (ties by id), a page at a time; open credit notes count negative" },
        ),
        totals: t.Object(
          { current: Money, days_1_30: Money, days_31_60: Money, days_61_90: Money, over_90: Money, total: Money },
          { title: "AgedReceivablesTotals", description: "Over all customers, not only this page" },
        ),
        meta: t.Object(
          { current_page: t.Integer(), per_page: t.Integer(), last_page: t.Integer(), total: t.Integer({ description: "Customers with an open balance" }) },
          { title: "AgedReceivablesPage" },
        ),
      },
      { title: "AgedReceivables" },
    ),
    "customer_id,name,current,days_1_30,days_31_60,days_61_90,over_90,total; a last row of totals",
  ),
  vat: report(
    t.Object(
      {
        from: DateString,
        to: DateString,
        currency: t.String(),
        sales: t.Array(VatRow, { description: "Per VAT category and rate: invoices less credit notes" }),
        purchases: t.Array(VatRow, { description: "Per VAT category and rate: approved expenses" }),
        total_sales_vat: Money,
        total_purchases_vat: Money,
        vat_balance: t.String({ ...Money, description: "Output VAT less input VAT: positive is owed to the tax authority" }),
        belgian_return: Nullable(
          t.Object(
            { grids: t.Record(t.String({ pattern: "^[0-9]{2}$" }), Money, { description: "Grid number → amount; see docs/books.md for the mapping" }) },
            { title: "BelgianVatReturn", description: "The grids of the Belgian periodic VAT return (organisations in BE); null elsewhere" },
          ),
        ),
      },
      { title: "VatReport" },
    ),
    "side,category,rate,base,vat; then the totals and, for a Belgian organisation, grid,amount rows",
  ),
} as const;
