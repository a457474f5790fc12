import { Elysia, t } from "elysia";
import { attachment } from "../http/attachment.ts";
import type { Kernel } from "../http/kernel.ts";
import { created, errors } from "../http/responses.ts";
import { ResponseSchema, Wrapped } from "../lib/schemas.ts";
import { VatReturnModel } from "./model.ts";
import { vatReturnService } from "./service.ts";

const tags = ["VAT returns"];
const VatReturn = Wrapped(VatReturnModel.vatReturn);
const IntervatXml = ResponseSchema(t.String({ description: "Intervat VATConsignment XML (FPS Finance schema NewTVA-in_v0_9.xsd)", "x-media-type": "application/xml", "x-attachment": true }));

export const vatReturnRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/vat-returns" })
    .use(kernel)
    .get("/:period", async ({ scope, params }) => ({ data: await vatReturnService.show(scope, params.period) }), {
      ability: "reporting.view",
      params: VatReturnModel.params,
      response: { 200: VatReturn, ...errors(422) },
      detail: {
        tags,
        summary: "The Belgian periodic VAT return of a period: its grids, the documents behind each, the warnings, and whether it was filed",
        description:
          "A period of the organisation's kind (vat_period) that has ended; 422 on period otherwise, and on vat_number when the organisation has no Belgian VAT number. " +
          "A filed period shows the grids as filed. Grid rules: docs/books.md#the-vat-return.",
      },
    })
    .get(
      "/:period/xml",
      async ({ scope, params, query }) => {
        const file = await vatReturnService.xml(scope, params.period, query.ask_restitution === "true");
        return new Response(file.body, { headers: { "content-type": "application/xml; charset=utf-8", "content-disposition": attachment(file.filename, "xml") } });
      },
      {
        ability: "reporting.view",
        params: VatReturnModel.params,
        query: VatReturnModel.xmlQuery,
        response: { 200: IntervatXml, ...errors(422) },
        detail: {
          tags,
          summary: "The return as the Intervat VATConsignment XML to upload: as filed once filed (byte for byte), else as it would be filed now",
          description: "A negative grid is a 422 on period (the schema refuses negative amounts: correct the books first).",
        },
      },
    )
    .post(
      "/:period/file",
      ({ scope, params, body, set, once }) =>
        once(async () => created(set, `/api/v1/vat-returns/${params.period}`, await vatReturnService.file(scope, params.period, body?.ask_restitution === true))),
      {
        ability: "accounting.edit",
        params: VatReturnModel.params,
        body: VatReturnModel.fileBody,
        response: { 201: VatReturn, ...errors(409, 422) },
        detail: {
          tags,
          summary: "File the return: keeps its grids and XML as filed and closes the period for VAT (documents dated in it that post later go to the next open period)",
          description: "A second filing is a 409 (no unfiling; corrections go in a later return).",
        },
      },
    );
