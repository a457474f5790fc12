import { Elysia, t } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { created, errors, noContent } from "../http/responses.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { IdParams, NoFields, Wrapped } from "../lib/schemas.ts";
import { RecurringInvoiceModel } from "./model.ts";
import { recurringInvoiceList, recurringInvoiceService } from "./service.ts";

const tags = ["Recurring invoices"];
const RecurringInvoice = Wrapped(RecurringInvoiceModel.recurringInvoice);

export const recurringInvoiceRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/recurring-invoices" })
    .use(kernel)
    .get("", ({ scope, query, url }) => recurringInvoiceService.list(scope, query, url), {
      ability: "invoicing.view",
      query: listQuerySchema(recurringInvoiceList),
      response: { 200: listResponse(RecurringInvoiceModel.recurringInvoice), ...errors(422) },
      detail: { tags, summary: "List recurring invoices" },
    })
    .get("/:id", async ({ scope, params }) => ({ data: await recurringInvoiceService.get(scope, params.id) }), {
      ability: "invoicing.view",
      params: IdParams,
      response: { 200: RecurringInvoice, ...errors(404) },
      detail: { tags, summary: "Show a recurring invoice" },
    })
    .post(
      "",
      ({ scope, body, set, once }) =>
        once(async () => {
          const template = await recurringInvoiceService.create(scope, body);
          return created(set, `/api/v1/recurring-invoices/${template.id}`, template);
        }),
      {
        ability: "invoicing.create",
        body: RecurringInvoiceModel.create,
        response: { 201: RecurringInvoice, ...errors(422) },
        detail: {
          tags,
          summary: "Create a recurring invoice: an invoice generated per period, exactly once (docs/recurring.md)",
          description:
            "The worker's daily run (or `kontor recurring run`) generates each period's invoice on the period's start, issued on the run's date, " +
            "naming its service period (service_period_start, service_period_end) and linked back by recurring_invoice_id; invoice.created as for any invoice.",
        },
      },
    )
    .put("/:id", async ({ scope, params, body }) => ({ data: await recurringInvoiceService.update(scope, params.id, body) }), {
      ability: "invoicing.edit",
      params: IdParams,
      body: RecurringInvoiceModel.update,
      response: { 200: RecurringInvoice, ...errors(404, 422) },
      detail: { tags, summary: "Update a recurring invoice; the change applies from the next period" },
    })
    .delete(
      "/:id",
      async ({ scope, params, set }) => {
        await recurringInvoiceService.remove(scope, params.id);
        return noContent(set);
      },
      {
        ability: "invoicing.delete",
        params: IdParams,
        response: { 204: t.Void(), ...errors(404) },
        detail: { tags, summary: "Delete a recurring invoice (the invoices it generated stay)" },
      },
    )
    .post("/:id/pause", ({ scope, params, once }) => once(async () => ({ data: await recurringInvoiceService.pause(scope, params.id) })), {
      ability: "invoicing.edit",
      params: IdParams,
      body: NoFields,
      response: { 200: RecurringInvoice, ...errors(404, 409, 422) },
      detail: { tags, summary: "Pause a recurring invoice: no period is generated until it is resumed" },
    })
    .post("/:id/resume", ({ scope, params, query, once }) => once(async () => ({ data: await recurringInvoiceService.resume(scope, params.id, query.catch_up === "true") })), {
      ability: "invoicing.edit",
      params: IdParams,
      query: RecurringInvoiceModel.resumeQuery,
      body: NoFields,
      response: { 200: RecurringInvoice, ...errors(404, 409, 422) },
      detail: {
        tags,
        summary: "Resume a paused recurring invoice",
        description:
          "The periods that started while it was paused are skipped (next_issue_date: the first period starting today or later) unless catch_up=true: then the next run generates them, each issued on the run's date.",
      },
    });
