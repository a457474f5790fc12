import { Elysia, t } from "elysia";
import { attachment } from "../http/attachment.ts";
import type { Kernel } from "../http/kernel.ts";
import { batchBody, batchResponse, batchRunner } from "../http/batch.ts";
import { created, errors, noContent } from "../http/responses.ts";
import type { Auth } from "../auth/authenticate.ts";
import { Forbidden } from "../lib/errors.ts";
import type { Scope } from "../lib/scope.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { CII_PROFILES } from "../documents/cii.ts";
import { UBL_PROFILES } from "../documents/ubl.ts";
import { documentService } from "./document.ts";
import { IdParams, NoFields, ResponseSchema, Wrapped } from "../lib/schemas.ts";
import { PaymentParams } from "../settlement/model.ts";
import { InvoiceModel, type InvoiceCreate } from "./model.ts";
import { invoiceList } from "./list.ts";
import { Delivery, deliveryListSpec, SendBody } from "./deliveries.ts";
import { cancelInvoice } from "./commands/cancel.ts";
import { createInvoice } from "./commands/create.ts";
import { creditInvoice } from "./commands/credit-note.ts";
import { finalizeInvoice } from "./commands/finalize.ts";
import { deleteInvoicePayment, recordInvoicePayment } from "./commands/payments.ts";
import { removeDraft } from "./commands/remove.ts";
import { sendDocument } from "./commands/send.ts";
import { updateInvoice } from "./commands/update.ts";
import { invoiceDeliveries, listInvoices, showInvoiceById } from "./queries.ts";

const tags = ["Invoices"];
const Invoice = Wrapped(InvoiceModel.invoice);
const location = (id: string) => `/api/v1/invoices/${id}`;
/** Non-JSON answers: server/docs/openapi.ts documents them under their media type, with their Content-Disposition (`x-attachment`). */
const UblDocument = ResponseSchema(t.String({ description: "UBL 2.1 XML", "x-media-type": "application/xml", "x-attachment": true }));
const CiiDocument = ResponseSchema(t.String({ description: "UN/CEFACT CII D16B XML", "x-media-type": "application/xml", "x-attachment": true }));
/** `?profile=`: an enum without Elysia's own default (the first value), which OpenAPI would show as one; absent is the default in words. */
const profileQuery = <const V extends readonly [string, ...string[]]>(values: V, description: string) => {
  const schema = t.UnionEnum([...values] as unknown as [...V], { description });
  delete schema.default;
  return t.Object({ profile: t.Optional(schema) }, { additionalProperties: false });
};
const xmlFile = (file: { body: string; number: string }) =>
  new Response(file.body, { headers: { "content-type": "application/xml; charset=utf-8", "content-disposition": attachment(file.number, "xml") } });
const PdfDocument = ResponseSchema(t.String({ description: "PDF", format: "binary", "x-media-type": "application/pdf", "x-attachment": true }));

const createInvoices = batchRunner(InvoiceModel.create);

/** POST /invoices and each item of its batch: `finalize: true` needs what POST /invoices/{id}/finalize needs. */
function createAllowed(scope: Scope, auth: Auth, input: InvoiceCreate) {
  if (input.finalize === true && !auth.abilities.has("invoicing.finalize")) throw new Forbidden("This action requires the invoicing.finalize ability.");
  return createInvoice(scope, input);
}

/** A state transition (docs/invoicing.md#states-and-payments): no fields, 200 with the invoice, 409 from a wrong state. */
const transition = (ability: "invoicing.finalize" | "invoicing.edit", summary: string) => ({
  ability,
  params: IdParams,
  body: NoFields,
  response: { 200: Invoice, ...errors(404, 409, 422) },
  detail: { tags, summary },
});

export const invoiceRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/invoices" })
    .use(kernel)
    .get("", ({ scope, query, url }) => listInvoices(scope, query, url), {
      ability: "invoicing.view",
      query: listQuerySchema(invoiceList),
      response: { 200: listResponse(InvoiceModel.invoice), ...errors(422) },
      detail: { tags, summary: "List invoices and credit notes, each with its customer, lines and payments" },
    })
    .get("/:id", async ({ scope, params }) => ({ data: await showInvoiceById(scope, params.id) }), {
      ability: "invoicing.view",
      params: IdParams,
      response: { 200: Invoice, ...errors(404) },
      detail: { tags, summary: "Show an invoice with its customer, lines and payments" },
    })
    .get(
      "/:id/ubl",
      async ({ scope, params, query }) => xmlFile(await documentService.ubl(scope, params.id, query.profile)),
      {
        ability: "invoicing.view",
        params: IdParams,
        query: profileQuery(UBL_PROFILES, "peppol (the default): Peppol BIS Billing 3.0; xrechnung: XRechnung 3.0, for German public buyers"),
        response: { 200: UblDocument, ...errors(404, 409, 422) },
        detail: {
          tags,
          summary: "The Peppol BIS Billing 3.0 or XRechnung 3.0 e-invoice (UBL 2.1 Invoice, or CreditNote for a credit note)",
          description:
            "A finalized, sent, paid or cancelled document. What EN 16931 needs that Kontor does not know " +
            "(e.g. the customer's peppol_id, the organisation's VAT number or a buyer or order reference) is a 422 naming the fields. " +
            "With profile=xrechnung: XRechnung's CustomizationID, and what XRechnung needs besides (the buyer_reference as the buyer's Leitweg-ID, " +
            "the organisation's contact_name, phone and email, a bank account) is a 422 naming the fields. " +
            "A draft is checked as it would be issued: what its e-invoice would lack is the same 422, else a 409 (it is produced at finalize). " +
            "GET /invoices/{id} shows a draft's `readiness`: what finalize would refuse.",
        },
      },
    )
    .get(
      "/:id/cii",
      async ({ scope, params, query }) => xmlFile(await documentService.cii(scope, params.id, query.profile)),
      {
        ability: "invoicing.view",
        params: IdParams,
        query: profileQuery(CII_PROFILES, "en16931 (the default): EN 16931, the profile Factur-X and ZUGFeRD name EN 16931; xrechnung: XRechnung 3.0"),
        response: { 200: CiiDocument, ...errors(404, 409, 422) },
        detail: {
          tags,
          summary: "The e-invoice as a UN/CEFACT Cross Industry Invoice (CII D16B, EN 16931; type 380, or 381 for a credit note)",
          description:
            "The same document as GET /invoices/{id}/ubl in the other syntax EN 16931 allows (France's and Germany's e-invoices, the XML of a Factur-X / ZUGFeRD PDF). " +
            "What EN 16931 needs that Kontor does not know is a 422 naming the fields (a Peppol id is not needed: the electronic address is the Peppol id, else the e-mail address); " +
            "with profile=xrechnung, also what XRechnung needs, as for the UBL. A draft is checked as it would be issued: what it would lack is the same 422, else a 409.",
        },
      },
    )
    .get(
      "/:id/pdf",
      async ({ scope, params, renderTurns }) => {
        const file = await documentService.pdf(scope, params.id, renderTurns);
        return new Response(file.body, { headers: { "content-type": "application/pdf", "content-disposition": attachment(file.number, "pdf") } });
      },
      {
        ability: "invoicing.view",
        params: IdParams,
        response: { 200: PdfDocument, ...errors(404) },
        detail: {
          tags,
          summary: "The PDF of the invoice or credit note, in the customer's language",
          description:
            "A4, fonts embedded, with the VAT breakdown, the payment reference, the IBAN and, for euro documents with an amount due, " +
            "an EPC QR code (SEPA credit transfer) a banking app can scan. A draft carries a visible draft mark; a cancelled document " +
            "a cancelled mark and no amount due, payment block or QR code; a credit note its own wording (the amount to be refunded). A finalized " +
            "document renders to the same bytes every time.",
        },
      },
    )
    .get(
      "/:id/facturx",
      async ({ scope, params, renderTurns }) => {
        const file = await documentService.facturx(scope, params.id, renderTurns);
        return new Response(file.body, { headers: { "content-type": "application/pdf", "content-disposition": attachment(file.number, "pdf") } });
      },
      {
        ability: "invoicing.view",
        params: IdParams,
        response: { 200: PdfDocument, ...errors(404, 409, 422) },
        detail: {
          tags,
          summary: "The Factur-X / ZUGFeRD PDF: the PDF as PDF/A-3b with the CII e-invoice embedded as factur-x.xml (profile EN 16931)",
          description:
            "The document's PDF (as GET /invoices/{id}/pdf draws it) made a PDF/A-3b file: fonts embedded, an sRGB output intent, XMP metadata " +
            "with the PDF/A identification and the Factur-X extension schema (fx:ConformanceLevel EN 16931), and the invoice's UN/CEFACT CII " +
            "(GET /invoices/{id}/cii, byte for byte) attached as factur-x.xml with AFRelationship Alternative. Factur-X 1.07 and ZUGFeRD 2.3 " +
            "readers take it. The same readiness as the UBL: what EN 16931 needs and the document lacks is a 422 naming it; a draft that " +
            "lacks nothing is a 409. A document renders to the same bytes every time.",
        },
      },
    )
    .post(
      "",
      ({ scope, auth, body, set, once }) => once(async () => {
        const invoice = await createAllowed(scope, auth, body);
        return created(set, location(invoice.id), invoice);
      }),
      {
        ability: "invoicing.create",
        body: InvoiceModel.create,
        response: { 201: Invoice, ...errors(409, 422) },
        detail: { tags, summary: "Create an invoice (a draft numbered INV-<year>-00001… at finalize unless a number is given; finalized at once with finalize: true)" },
      },
    )
    .post("/batch", ({ scope, auth, body, once }) => once(() => createInvoices(body.items, (item) => createAllowed(scope, auth, item))), {
      ability: "invoicing.create",
      body: batchBody(InvoiceModel.create, "InvoiceBatch"),
      response: { 200: batchResponse(InvoiceModel.invoice, "InvoiceBatchResult"), ...errors(422) },
      detail: {
        tags,
        summary: "Create up to 100 invoices in one request (each may be finalized at once)",
        description:
          "Each item is the body of POST /invoices (`finalize: true` included), checked and created on its own (its own transaction): the answer is 200 " +
          "with one result per item, in order, `{status: 201, data}` or the refusal the single create would have answered (`{status: 422, code, message, errors}`, " +
          "or 403, 404, 409 with `{code, message}`, and `holder_id` for a taken external_id). One request against the rate limit; under one Idempotency-Key the whole batch is replayed.",
      },
    })
    .put("/:id", async ({ scope, params, body }) => ({ data: await updateInvoice(scope, params.id, body) }), {
      ability: "invoicing.edit",
      params: IdParams,
      body: InvoiceModel.update,
      response: { 200: Invoice, ...errors(404, 409, 422) },
      detail: { tags, summary: "Update a draft (lines, when sent, replace its lines; 409 once finalized)" },
    })
    .delete(
      "/:id",
      async ({ scope, params, set }) => {
        await removeDraft(scope, params.id);
        return noContent(set);
      },
      {
        ability: "invoicing.delete",
        params: IdParams,
        response: { 204: t.Void(), ...errors(404, 409) },
        detail: { tags, summary: "Delete a draft (409 once finalized)" },
      },
    )
    .post(
      "/:id/finalize",
      ({ scope, params, once }) => once(async () => ({ data: await finalizeInvoice(scope, params.id) })),
      transition(
        "invoicing.finalize",
        "Finalize a draft: its lines, totals, customer and number are locked; a 422 names every field its PDF or, when it must be one, its e-invoice lacks",
      ),
    )
    .post(
      "/:id/send",
      ({ scope, params, body, config, set, once }) => once(async () => {
        const outcome = await sendDocument(scope, params.id, body ?? {}, config);
        if (outcome.kind === "marked") return { data: outcome.invoice };
        set.status = 202;
        return { data: outcome.delivery };
      }),
      {
        ability: "invoicing.edit",
        params: IdParams,
        body: SendBody,
        response: { 200: Invoice, 202: Wrapped(Delivery), ...errors(404, 409, 422) },
        detail: {
          tags,
          summary: "Send the document: by e-mail or over Peppol (202, queued), or only mark it sent (200)",
          description:
            "Without `channel` (or with `manual`) the document is marked sent: `sent_at` set, and a `finalized` one becomes `sent`; the invoice is answered. " +
            "With `email`, `peppol` or `preferred` (the customer's `preferred_channel`; default peppol when it has a peppol_id, else email) a delivery is queued " +
            "and answered with 202; the worker sends it, retries a temporary refusal with backoff and records every attempt (GET /invoices/{id}/deliveries). " +
            "The document becomes `sent` when the channel accepted it (event invoice.sent); a delivery refused for good fires invoice.delivery_failed. " +
            "Any issued document can be sent and sent again, whatever its settlement (finalized, sent, partially paid, paid; a credit note that settled its invoice too), " +
            "as it was issued; a draft or a cancelled one is a 409. E-mail goes to `to`, else the customer's email (none: a 422 naming `to`), with the PDF and, " +
            "when the document is issued as an e-invoice, its UBL attached. Peppol goes to the buyer's peppol_id as issued, through the organisation's access point; " +
            "a document the access point would refuse is a 422 at once.",
        },
      },
    )
    .get("/:id/deliveries", ({ scope, params, query, url }) => invoiceDeliveries(scope, params.id, query, url), {
      ability: "invoicing.view",
      params: IdParams,
      query: listQuerySchema(deliveryListSpec),
      response: { 200: listResponse(Delivery), ...errors(404, 422) },
      detail: { tags, summary: "The document's deliveries (e-mail, Peppol), newest first, each with its attempts" },
    })
    .post(
      "/:id/cancel",
      ({ scope, params, once }) => once(async () => ({ data: await cancelInvoice(scope, params.id) })),
      transition("invoicing.finalize", "Cancel a finalized or sent invoice that has no payments"),
    )
    .post(
      "/:id/record-payment",
      ({ scope, params, body, set, once }) => once(async () => {
        const invoice = await recordInvoicePayment(scope, params.id, body);
        return created(set, location(invoice.id), invoice);
      }),
      {
        ability: "invoicing.record-payment",
        params: IdParams,
        body: InvoiceModel.payment,
        response: { 201: Invoice, ...errors(404, 409, 422) },
        detail: { tags, summary: "Record a payment (at most the amount due): 201 with the invoice, now partially_paid or paid" },
      },
    )
    .delete(
      "/:id/payments/:pid",
      async ({ scope, params, set }) => {
        await deleteInvoicePayment(scope, params.id, params.pid);
        return noContent(set);
      },
      {
        ability: "invoicing.record-payment",
        params: PaymentParams,
        response: { 204: t.Void(), ...errors(404, 409) },
        detail: { tags, summary: "Delete a payment; the status follows the remaining payments (409 when cancelled)" },
      },
    )
    .post(
      "/:id/credit-note",
      ({ scope, params, body, set, once }) => once(async () => {
        const creditNote = await creditInvoice(scope, params.id, body ?? {});
        return created(set, location(creditNote.id), creditNote);
      }),
      {
        ability: "invoicing.create",
        params: IdParams,
        body: InvoiceModel.creditNote,
        response: { 201: Invoice, ...errors(404, 409, 422) },
        detail: {
          tags,
          summary: "Create a draft credit note of the invoice, related_invoice_id set: the lines given, else the invoice's copied when nothing else credits it",
          description:
            "At most what is left to credit: the invoice's total less its other credit notes (drafts included, cancelled ones aside); more is a 422 on lines, nothing left a 409. Once finalized, the credit note settles the invoice for what is still due on it (amount_credited); the rest is a refund owed to the customer, the credit note's amount_due, recorded with POST /invoices/{id}/record-payment on the credit note.",
        },
      },
    );
