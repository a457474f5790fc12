/** POST /api/v1/invoices/{id}/interest-note (docs/reminders.md#interest-notes): a draft interest note for a late invoice. */
import { Elysia } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { created, errors } from "../http/responses.ts";
import { IdParams, Wrapped } from "../lib/schemas.ts";
import { InvoiceModel } from "../invoices/model.ts";
import { InterestModel } from "./model.ts";

export const interestRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/invoices" }).use(kernel).post(
    "/:id/interest-note",
    // the interest code is loaded by the first note (a thread that makes none never loads it)
    async ({ scope, params, body, set, once }) => {
      const { interestService } = await import("./note.ts");
      return once(async () => {
        const note = await interestService.createNote(scope, params.id, body?.as_of);
        return created(set, `/api/v1/invoices/${note.id}`, note);
      });
    },
    {
      ability: "invoicing.create",
      params: IdParams,
      body: InterestModel.note,
      response: { 201: Wrapped(InvoiceModel.invoice), ...errors(404, 409, 422) },
      detail: {
        tags: ["Invoices"],
        summary: "Create a draft interest note for a late invoice: statutory interest and the fixed compensation not charged yet, related_invoice_id set",
        description:
          "Business customers: interest from the day after the due date at the published statutory rate of the organisation's country (day by day, actual/365, split at each rate change and each payment or credit note), and the fixed compensation (€40, the organisation's higher amount, or for another currency the amount it set) once per invoice. Consumers: only what the Belgian Code of Economic Law, Book XIX, allows, from 14 days after the first free reminder. Earlier interest notes of the invoice (drafts included) are subtracted. 422 when nothing is chargeable, saying why; 409 for a draft, cancelled or non-invoice document. Finalize it like an invoice: it is numbered INT-…, posted to late-payment income and paid like an invoice.",
      },
    },
  );
