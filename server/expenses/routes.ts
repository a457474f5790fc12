import { Elysia, t } from "elysia";
import { documentBody, documentOf, type Kernel } from "../http/kernel.ts";
import { MAX_DOCUMENT_BYTES } from "../inbound/decode.ts";
import { DEFAULT_IMPORT_CATEGORY, expenseDocument, importSupplierDocument, receivedFileOf } from "./import.ts";
import { created, errors, noContent } from "../http/responses.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { IdParams, NoFields, ResponseSchema, Text, Wrapped } from "../lib/schemas.ts";
import { PaymentParams } from "../settlement/model.ts";
import { ExpenseModel, ReceivedDocumentModel } from "./model.ts";
import { receivedDocumentList, receivedDocumentService } from "./received-documents.ts";
import { expenseList, expenseService } from "./service.ts";

const tags = ["Expenses"];
const Expense = Wrapped(ExpenseModel.expense);

export const expenseRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/expenses" })
    .use(kernel)
    .get("", ({ scope, query, url }) => expenseService.list(scope, query, url), {
      ability: "expenses.view",
      query: listQuerySchema(expenseList),
      response: { 200: listResponse(ExpenseModel.expense), ...errors(422) },
      detail: { tags, summary: "List expenses" },
    })
    .post(
      "/import",
      // the parse holds a multiple of the file in memory: one of the server's import slots (503 when none frees within 10 s)
      ({ scope, body, query, set, once, importSlots }) =>
        importSlots.run(async () => {
          // a PDF's embedded XML is read before the work (pdf-lib parses asynchronously; the work is one synchronous transaction)
          const file = await receivedFileOf(documentOf(body));
          return once(async () => {
            const imported = await importSupplierDocument(scope, file, query);
            const at = imported.kind === "expense" ? "expenses" : "received-documents";
            return created(set, `/api/v1/${at}/${imported.data.id}`, imported.data);
          });
        }),
      {
        ability: "expenses.create",
        body: documentBody({
          mediaTypes: ["application/xml", "text/xml", "application/pdf"],
          maxBytes: MAX_DOCUMENT_BYTES,
          description:
            "A UBL 2.1 Invoice or CreditNote (EN 16931, e.g. Peppol BIS Billing 3.0 or XRechnung), or a UN/CEFACT CII CrossIndustryInvoice (EN 16931, XRechnung, Factur-X XML), as received; " +
            "or a PDF carrying one as an embedded file (Factur-X / ZUGFeRD / XRechnung: factur-x.xml, zugferd-invoice.xml or xrechnung.xml)",
        }),
        query: t.Object(
          { category: t.Optional(Text({ minLength: 1, maxLength: 100, description: `The expense's category (default ${DEFAULT_IMPORT_CATEGORY})` })) },
          { additionalProperties: false },
        ),
        response: { 201: Wrapped(t.Union([ExpenseModel.expense, ReceivedDocumentModel])), ...errors(409, 422, 503) },
        detail: {
          tags,
          summary: "Import a supplier's e-invoice (UBL 2.1, UN/CEFACT CII, or a PDF carrying one) as a pending expense",
          description:
            "The document must be well-formed UBL 2.1 or CII (told apart by the root element), declare EN 16931 (CustomizationID, or the CII guideline) and have totals that reconcile; else a 422 naming the " +
            "element and saying why. The supplier is matched by VAT number, then Peppol id, then name, and created when missing. " +
            "A supplier's document already imported (same supplier, type and number) is a 409 naming the expense. " +
            "A PDF is read in process for its embedded e-invoice (factur-x.xml, zugferd-invoice.xml, ZUGFeRD-invoice.xml or xrechnung.xml, any case), which is " +
            "imported as if sent alone; the PDF itself is kept as the original. A PDF without one, or one that cannot be read (damaged, encrypted, beyond " +
            "the size, object or page limits), is a 422 naming body. " +
            "The original is served byte for byte by GET /api/v1/expenses/{id}/document. amount_due is the document's PayableAmount (BT-115): " +
            "its total less PrepaidAmount plus PayableRoundingAmount, shown as prepaid_amount and rounding_amount. " +
            "A valid document whose totals are all 0.00 cannot be an expense (minimum 0.01): it is kept as a received document " +
            "(201 with the ReceivedDocument; Location /api/v1/received-documents/{id}). " +
            "Every text the expense or supplier keeps is within the API's own limit of its field (docs/api.md, Limits), else a 422 naming the element and its business term; at most 1,000 lines. " +
            "At most KONTOR_IMPORT_CONCURRENCY files (default 2) are parsed at once by the server; a further upload waits up to 10 s, then is a 503 with Retry-After.",
        },
      },
    )
    .get(
      "/:id/document",
      async ({ scope, params }) => {
        const document = await expenseDocument(scope, params.id);
        return new Response(document.body, { headers: { "content-type": document.contentType } });
      },
      {
        ability: "expenses.view",
        params: IdParams,
        response: { 200: ResponseSchema(t.String({ description: "The imported UBL document, byte for byte", "x-media-type": "application/xml", "x-alternatives": { "application/pdf": "The imported PDF (Factur-X, ZUGFeRD, XRechnung in a PDF), byte for byte" } })), ...errors(404) },
        detail: { tags, summary: "The original e-invoice of an imported expense, byte for byte (404 for an expense entered by hand)" },
      },
    )
    .get("/:id", async ({ scope, params }) => ({ data: await expenseService.get(scope, params.id) }), {
      ability: "expenses.view",
      params: IdParams,
      response: { 200: Expense, ...errors(404) },
      detail: { tags, summary: "Show an expense" },
    })
    .post(
      "",
      ({ scope, body, set, once }) => once(async () => {
        const expense = await expenseService.create(scope, body);
        return created(set, `/api/v1/expenses/${expense.id}`, expense);
      }),
      {
        ability: "expenses.create",
        body: ExpenseModel.create,
        response: { 201: Expense, ...errors(409, 422) },
        detail: { tags, summary: "Create an expense (pending)" },
      },
    )
    .put("/:id", async ({ scope, params, body }) => ({ data: await expenseService.update(scope, params.id, body) }), {
      ability: "expenses.edit",
      params: IdParams,
      body: ExpenseModel.update,
      response: { 200: Expense, ...errors(404, 409, 422) },
      detail: { tags, summary: "Update a pending or rejected expense (a rejected one returns to pending; 409 when approved)" },
    })
    .delete(
      "/:id",
      async ({ scope, params, set }) => {
        await expenseService.remove(scope, params.id);
        return noContent(set);
      },
      {
        ability: "expenses.delete",
        params: IdParams,
        response: { 204: t.Void(), ...errors(404, 409) },
        detail: { tags, summary: "Delete an expense (409 when approved)" },
      },
    )
    .post("/:id/approve", ({ scope, params, once }) => once(async () => ({ data: await expenseService.approve(scope, params.id) })), {
      ability: "expenses.approve",
      params: IdParams,
      body: NoFields,
      response: { 200: Expense, ...errors(404, 409, 422) },
      detail: { tags, summary: "Approve a pending expense (the body may be omitted)" },
    })
    .post("/:id/reject", ({ scope, params, body, once }) => once(async () => ({ data: await expenseService.reject(scope, params.id, body) })), {
      ability: "expenses.approve",
      params: IdParams,
      body: t.Optional(ExpenseModel.reject),
      response: { 200: Expense, ...errors(404, 409, 422) },
      detail: { tags, summary: "Reject a pending expense, optionally with a reason (shown as rejection_reason; the body may be omitted)" },
    })
    .post(
      "/:id/record-payment",
      ({ scope, params, body, set, once }) => once(async () => {
        const expense = await expenseService.recordPayment(scope, params.id, body);
        return created(set, `/api/v1/expenses/${expense.id}`, expense);
      }),
      {
        ability: "expenses.approve",
        params: IdParams,
        body: ExpenseModel.payment,
        response: { 201: Expense, ...errors(404, 409, 422) },
        detail: {
          tags,
          summary: "Record a payment of an approved expense (at most the amount due): 201 with the expense; posts payables against the bank",
        },
      },
    )
    .delete(
      "/:id/payments/:pid",
      async ({ scope, params, set }) => {
        await expenseService.deletePayment(scope, params.id, params.pid);
        return noContent(set);
      },
      {
        ability: "expenses.approve",
        params: PaymentParams,
        response: { 204: t.Void(), ...errors(404, 409) },
        detail: { tags, summary: "Delete a payment of an expense; its posting is reversed on its own date (409 in a closed fiscal year)" },
      },
    );

const receivedTags = ["Received documents"];

/** Supplier documents kept though they cannot be expenses (all totals 0.00); read only: POST /api/v1/expenses/import keeps them. */
export const receivedDocumentRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/received-documents" })
    .use(kernel)
    .get("", ({ scope, query, url }) => receivedDocumentService.list(scope, query, url), {
      ability: "expenses.view",
      query: listQuerySchema(receivedDocumentList),
      response: { 200: listResponse(ReceivedDocumentModel), ...errors(422) },
      detail: { tags: receivedTags, summary: "List received documents (valid supplier documents with nothing to book, e.g. a free delivery)" },
    })
    .get(
      "/:id/document",
      async ({ scope, params }) => {
        const document = await receivedDocumentService.document(scope, params.id);
        return new Response(document.body, { headers: { "content-type": document.contentType } });
      },
      {
        ability: "expenses.view",
        params: IdParams,
        response: { 200: ResponseSchema(t.String({ description: "The received UBL document, byte for byte", "x-media-type": "application/xml", "x-alternatives": { "application/pdf": "The received PDF carrying it, byte for byte" } })), ...errors(404) },
        detail: { tags: receivedTags, summary: "The original of a received document, byte for byte" },
      },
    )
    .get("/:id", async ({ scope, params }) => ({ data: await receivedDocumentService.get(scope, params.id) }), {
      ability: "expenses.view",
      params: IdParams,
      response: { 200: Wrapped(ReceivedDocumentModel), ...errors(404) },
      detail: { tags: receivedTags, summary: "Show a received document" },
    });
