import { Elysia } from "elysia";
import { attachment } from "../http/attachment.ts";
import type { Kernel } from "../http/kernel.ts";
import { errors } from "../http/responses.ts";
import { Wrapped } from "../lib/schemas.ts";
import { IntervatXml, ListingModel } from "./model.ts";
import { listingService, type ListingFile } from "./service.ts";

const tags = ["Listings"];
const xmlFile = (file: ListingFile) =>
  new Response(file.body, { headers: { "content-type": "application/xml; charset=utf-8", "content-disposition": attachment(file.name, "xml") } });

export const listingRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/listings" })
    .use(kernel)
    .get("/clients/:year", async ({ scope, params }) => ({ data: await listingService.clients(scope, params.year) }), {
      ability: "reporting.view",
      params: ListingModel.yearParams,
      response: { 200: Wrapped(ListingModel.clients), ...errors(422) },
      detail: {
        tags,
        summary: "The annual client listing of a calendar year that has ended: each Belgian VAT number invoiced more than 250.00 net in the year, its turnover and VAT, and warnings",
        description:
          "Credit notes are deducted; interest notes, exempt supplies, intra-Community supplies and exports are not counted (docs/books.md#the-listings). " +
          "A year not yet ended is a 422 on `year`; an organisation without a Belgian VAT number a 422 on `vat_number`.",
      },
    })
    .get("/clients/:year/xml", async ({ scope, params }) => xmlFile(await listingService.clientsXml(scope, params.year)), {
      ability: "reporting.view",
      params: ListingModel.yearParams,
      response: { 200: IntervatXml("client listing (ClientListingConsignment, NewLK-in_v0_9.xsd)"), ...errors(409, 422) },
      detail: { tags, summary: "The annual client listing as Intervat XML (ClientListingConsignment), to file by 31 March of the next year; a year with nobody to list files none (409)" },
    })
    .get("/intra-community/:period", async ({ scope, params }) => ({ data: await listingService.intraCommunity(scope, params.period) }), {
      ability: "reporting.view",
      params: ListingModel.periodParams,
      response: { 200: Wrapped(ListingModel.intra), ...errors(422) },
      detail: {
        tags,
        summary: "The intra-Community listing of a VAT period that has ended: per customer VAT number and code (L goods, S services), the net amount; its total equals the return's 44 + 46 less their credit notes in 48",
        description: "A period of the other kind than the organisation's vat_period, or one not yet ended, is a 422 on `period`; an organisation without a Belgian VAT number a 422 on `vat_number`.",
      },
    })
    .get("/intra-community/:period/xml", async ({ scope, params }) => xmlFile(await listingService.intraCommunityXml(scope, params.period)), {
      ability: "reporting.view",
      params: ListingModel.periodParams,
      response: { 200: IntervatXml("intra-Community listing (IntraConsignment, NewICO-in_v0_9.xsd)"), ...errors(409, 422) },
      detail: { tags, summary: "The intra-Community listing as Intervat XML (IntraConsignment); a period without any line files none (409)" },
    });
