import { Elysia, t } from "elysia";
import { attachment } from "../http/attachment.ts";
import type { Kernel } from "../http/kernel.ts";
import { errors } from "../http/responses.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { IdParams, ResponseSchema, Wrapped } from "../lib/schemas.ts";
import { PaymentRunModel } from "./model.ts";
import { paymentRunList, paymentRunService } from "./service.ts";

const tags = ["Payment runs"];
const PaymentRun = Wrapped(PaymentRunModel.paymentRun);
const Pain001 = ResponseSchema(t.String({ description: "ISO 20022 pain.001.001.09 (SEPA credit transfer initiation)", "x-media-type": "application/xml", "x-attachment": true }));

export const paymentRunRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/payment-runs" })
    .use(kernel)
    .post(
      "",
      ({ scope, body, set, once }) =>
        once(async () => {
          const run = await paymentRunService.create(scope, body);
          set.status = 201;
          set.headers["location"] = `/api/v1/payment-runs/${run.id}`;
          return { data: run };
        }),
      {
        ability: "banking.create",
        body: PaymentRunModel.create,
        response: { 201: PaymentRun, ...errors(422) },
        detail: {
          tags,
          summary: "Pay the approved expenses due by a date: records the run and produces its SEPA credit transfer file (pain.001.001.09)",
          description:
            "Selects approved supplier invoices with an amount due, a payee IBAN and a due date on or before `due_by`, in the bank account's currency (EUR), " +
            "that are in no other payment run; an expense stays in its run (the run is `open`) until it is paid. A statement's debit line carrying an item's " +
            "`end_to_end_id` pays that expense on import. Nothing to pay is a 422.",
        },
      },
    )
    .get("", ({ scope, query, url }) => paymentRunService.list(scope, query, url), {
      ability: "banking.view",
      query: listQuerySchema(paymentRunList),
      response: { 200: listResponse(PaymentRunModel.paymentRun), ...errors(422) },
      detail: { tags, summary: "List payment runs" },
    })
    .get("/:id", async ({ scope, params }) => ({ data: await paymentRunService.get(scope, params.id) }), {
      ability: "banking.view",
      params: IdParams,
      response: { 200: PaymentRun, ...errors(404) },
      detail: { tags, summary: "Show a payment run with its credit transfers" },
    })
    .get(
      "/:id/file",
      async ({ scope, params }) => {
        const file = await paymentRunService.file(scope, params.id);
        return new Response(file.body, { headers: { "content-type": "application/xml; charset=utf-8", "content-disposition": attachment(file.name, "xml") } });
      },
      {
        ability: "banking.view",
        params: IdParams,
        response: { 200: Pain001, ...errors(404) },
        detail: { tags, summary: "The run's SEPA credit transfer file (pain.001.001.09) to upload to the bank" },
      },
    );
