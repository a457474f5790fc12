import { Elysia, t } from "elysia";
import { attachment } from "../http/attachment.ts";
import type { Kernel } from "../http/kernel.ts";
import { errors } from "../http/responses.ts";
import { InvoiceModel } from "../invoices/model.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { DateString, IdParams, Money, Nullable, ResponseSchema, Wrapped } from "../lib/schemas.ts";
import { MissingRates, ReminderModel } from "./model.ts";
import { showPolicy, updatePolicy } from "./policy.ts";
import { invoiceReminders, listReminders, pauseInvoiceReminders, reminderList, reminderPdf, showReminder } from "./read.ts";

const tags = ["Reminders"];
const PdfDocument = ResponseSchema(t.String({ description: "PDF", format: "binary", "x-media-type": "application/pdf", "x-attachment": true }));
const Decimal = t.String(Money);
/** The interest feature's late claim on an invoice (server/interest/claim.ts), as of today. */
const LateClaimShown = t.Object(
  {
    invoice_id: t.String(),
    as_of: DateString,
    customer_type: t.UnionEnum(["organization", "individual"]),
    currency: t.String(),
    principal_periods: t.Array(t.Object({ from: DateString, to: DateString, days: t.Integer(), rate: t.String(), base: Decimal, interest: Decimal })),
    interest: Decimal,
    compensation: Decimal,
    already_charged: t.Object({ interest: Decimal, compensation: Decimal }),
    chargeable: t.Object({ interest: Decimal, compensation: Decimal }),
    chargeable_from: Nullable(DateString),
    law: t.String(),
    missing_rates: MissingRates,
  },
  { title: "LateClaim" },
);
delete (LateClaimShown.properties.customer_type as { default?: unknown }).default;

export const reminderRoutes = (kernel: Kernel) =>
  new Elysia()
    .use(kernel)
    .get("/api/v1/reminder-policy", async ({ scope }) => ({ data: await showPolicy(scope) }), {
      ability: "organization.view",
      response: { 200: Wrapped(ReminderModel.policy) },
      detail: { tags, summary: "Show the reminder policy (the defaults, disabled, until saved)" },
    })
    .put("/api/v1/reminder-policy", async ({ scope, body }) => ({ data: await updatePolicy(scope, body) }), {
      ability: "organization.edit",
      body: ReminderModel.policyUpdate,
      response: { 200: Wrapped(ReminderModel.policy), ...errors(422) },
      detail: { tags, summary: "Replace the reminder policy: its levels, channel and texts, and whether runs send it" },
    })
    .get("/api/v1/reminders", ({ scope, query, url }) => listReminders(scope, query, url), {
      ability: "invoicing.view",
      query: listQuerySchema(reminderList),
      response: { 200: listResponse(ReminderModel.reminder), ...errors(422) },
      detail: { tags, summary: "List the reminders recorded by runs, newest first" },
    })
    .get("/api/v1/reminders/preview", async ({ scope, query }) => (await import("./run.ts")).previewReminders(scope, query.date, { limit: query.limit, after: query.after }), {
      ability: "invoicing.view",
      query: ReminderModel.previewQuery,
      response: {
        200: ResponseSchema(
          t.Object(
            {
              organization_id: t.String(),
              date: DateString,
              enabled: t.Boolean({ description: "Whether runs send this policy; the preview shows what it would send either way" }),
              data: t.Array(ReminderModel.planned, { description: "At most `limit` reminders (1,000 by default), in the order a run records them: by due date, then id" }),
              next_after: Nullable(
                t.String({ description: "Where the next page starts: send it back as `after` with the same date; null on the last page (a page before it may be empty)" }),
              ),
            },
            { title: "ReminderPreview" },
          ),
        ),
        ...errors(422),
      },
      detail: { tags, summary: "What a reminder run at this date would send (nothing is written)" },
    })
    .get("/api/v1/reminders/:id", async ({ scope, params }) => ({ data: await showReminder(scope, params.id) }), {
      ability: "invoicing.view",
      params: IdParams,
      response: { 200: Wrapped(ReminderModel.reminder), ...errors(404) },
      detail: { tags, summary: "Show a reminder" },
    })
    .get(
      "/api/v1/reminders/:id/pdf",
      async ({ scope, params, renderTurns }) => {
        // one render at a time per thread, as an invoice's PDF (server/lib/render-turns.ts)
        const file = await renderTurns.run(() => reminderPdf(scope, params.id));
        return new Response(file.pdf, { headers: { "content-type": "application/pdf", "content-disposition": attachment(file.number, "pdf") } });
      },
      {
        ability: "invoicing.view",
        params: IdParams,
        response: { 200: PdfDocument, ...errors(404) },
        detail: { tags, summary: "The reminder as a letter (PDF) in the customer's language: the invoice, the interest and compensation charged, how to pay" },
      },
    )
    .get("/api/v1/invoices/:id/reminders", ({ scope, params }) => invoiceReminders(scope, params.id), {
      ability: "invoicing.view",
      params: IdParams,
      response: {
        200: ResponseSchema(t.Object({ data: t.Array(ReminderModel.reminder), late_claim: LateClaimShown }, { title: "InvoiceReminders" })),
        ...errors(404, 409),
      },
      detail: {
        tags,
        summary: "An invoice's reminders, in level order, with its late claim (interest and compensation) as of today",
        description: "A document that cannot be late (a draft, a cancelled invoice, a credit note) is a 409 naming its state.",
      },
    })
    .put("/api/v1/invoices/:id/reminders-pause", async ({ scope, params, body }) => ({ data: await pauseInvoiceReminders(scope, params.id, body) }), {
      ability: "invoicing.edit",
      params: IdParams,
      body: ReminderModel.pause,
      response: { 200: Wrapped(InvoiceModel.invoice), ...errors(404, 422) },
      detail: { tags, summary: "Pause or resume an invoice's reminders (allowed in every state: it is not part of the document)" },
    });
