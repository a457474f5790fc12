import { Elysia } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { errors } from "../http/responses.ts";
import { csvResponse, wantsCsv } from "../http/csv.ts";
import { agedReceivablesCsv, balanceSheetCsv, profitAndLossCsv, trialBalanceCsv, vatReportCsv } from "./csv-views.ts";
import { ReportModel, ReportQuery } from "./model.ts";
import { agedReceivables } from "./aged-receivables.ts";
import { balanceSheet } from "./balance-sheet.ts";
import { profitAndLoss } from "./profit-and-loss.ts";
import { trialBalance } from "./trial-balance.ts";
import { vatReport } from "./vat-report.ts";

const tags = ["Reports"];

/** JSON `{data}`, or CSV when the request's Accept asks for text/csv. */
function answer<R>(accept: string | undefined, filename: string, report: R, csv: (report: R) => string): { data: R } {
  // typed as the JSON answer: Elysia checks a promised union against each status's schema alone, and sends a Response as it is
  return (wantsCsv(accept) ? csvResponse(filename, csv(report)) : { data: report }) as { data: R };
}

export const reportRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/reports" })
    .use(kernel)
    .get(
      "/trial-balance",
      async ({ scope, query, headers }) => {
        const report = await trialBalance(scope, query);
        return answer(headers.accept, `trial-balance-${report.date}.csv`, report, trialBalanceCsv);
      },
      {
        ability: "reporting.view",
        query: ReportQuery.atDate,
        response: { 200: ReportModel.trialBalance, ...errors(422) },
        detail: { tags, summary: "Trial balance at the end of a day: each account's net balance; total debits equal total credits" },
      },
    )
    .get(
      "/profit-and-loss",
      async ({ scope, query, headers }) => {
        const report = await profitAndLoss(scope, query);
        return answer(headers.accept, `profit-and-loss-${report.from}-${report.to}.csv`, report, profitAndLossCsv);
      },
      {
        ability: "reporting.view",
        query: ReportQuery.fiscalPeriod,
        response: { 200: ReportModel.profitAndLoss, ...errors(422) },
        detail: { tags, summary: "Profit and loss over a period: revenue and expense accounts, closing entries left out" },
      },
    )
    .get(
      "/balance-sheet",
      async ({ scope, query, headers }) => {
        const report = await balanceSheet(scope, query);
        return answer(headers.accept, `balance-sheet-${report.date}.csv`, report, balanceSheetCsv);
      },
      {
        ability: "reporting.view",
        query: ReportQuery.atDate,
        response: { 200: ReportModel.balanceSheet, ...errors(422) },
        detail: { tags, summary: "Balance sheet at the end of a day: assets = liabilities + equity, the result not yet closed included" },
      },
    )
    .get(
      "/aged-receivables",
      async ({ scope, query, headers }) => {
        const report = await agedReceivables(scope, query);
        return answer(headers.accept, `aged-receivables-${report.date}.csv`, report, agedReceivablesCsv);
      },
      {
        ability: "reporting.view",
        query: ReportQuery.aging,
        response: { 200: ReportModel.agedReceivables, ...errors(422) },
        detail: { tags, summary: "Aged receivables per customer: open invoices less open credit notes, by days past due on the date; the customers owing most first, a page at a time" },
      },
    )
    .get(
      "/vat",
      async ({ scope, query, headers }) => {
        const report = await vatReport(scope, query);
        return answer(headers.accept, `vat-${report.from}-${report.to}.csv`, report, vatReportCsv);
      },
      {
        ability: "reporting.view",
        query: ReportQuery.period,
        response: { 200: ReportModel.vat, ...errors(422) },
        detail: { tags, summary: "VAT over a period: sales and purchases per category and rate (base and VAT); the Belgian return's grids for a Belgian organisation" },
      },
    );
