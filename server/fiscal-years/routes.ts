import { Elysia, t } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { errors } from "../http/responses.ts";
import { NoFields, Wrapped } from "../lib/schemas.ts";
import { FiscalYearModel } from "./model.ts";
import { fiscalYearService } from "./service.ts";

const tags = ["Fiscal years"];
const FiscalYear = Wrapped(FiscalYearModel.fiscalYear);

export const fiscalYearRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/fiscal-years" })
    .use(kernel)
    .get("", async ({ scope }) => ({ data: await fiscalYearService.list(scope) }), {
      ability: "accounting.view",
      response: { 200: t.Object({ data: t.Array(FiscalYearModel.fiscalYear) }, { title: "FiscalYearList" }) },
      detail: { tags, summary: "List the fiscal years, each with its dates, from the first posting's to the current one, oldest first" },
    })
    .get("/:year", async ({ scope, params }) => ({ data: await fiscalYearService.get(scope, params.year) }), {
      ability: "accounting.view",
      params: FiscalYearModel.params,
      response: { 200: FiscalYear, ...errors(404) },
      detail: { tags, summary: "Show a fiscal year: its dates, status and result (404 before the organisation's first fiscal year)" },
    })
    .post("/:year/close", ({ scope, params, once }) => once(async () => ({ data: await fiscalYearService.close(scope, params.year) })), {
      ability: "accounting.close-year",
      params: FiscalYearModel.params,
      body: NoFields,
      response: { 200: FiscalYear, ...errors(404, 409, 422) },
      detail: {
        tags,
        summary:
          "Close a year that has ended: posts its closing entries (the year's result to retained earnings) and locks it; earlier years must be closed first (409)",
      },
    })
    .post("/:year/reopen", ({ scope, params, once }) => once(async () => ({ data: await fiscalYearService.reopen(scope, params.year) })), {
      ability: "accounting.reopen-year",
      params: FiscalYearModel.params,
      body: NoFields,
      response: { 200: FiscalYear, ...errors(404, 409, 422) },
      detail: { tags, summary: "Reopen the last closed year: reverses its closing entries and unlocks it (409 when a later year is closed)" },
    });
