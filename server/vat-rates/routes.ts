import { Elysia, t } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { snapshot } from "../lib/scope.ts";
import { VatRateModel } from "./model.ts";
import { listVatRates, presentVatRate } from "./service.ts";

/** A handful of rates per organisation, seeded from its country: one unpaginated list. */
export const vatRateRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/vat-rates" })
    .use(kernel)
    .get("", async ({ scope }) => ({ data: (await snapshot(scope.db, (tx) => listVatRates(tx, scope.org.id))).map(presentVatRate) }), {
      ability: "accounting.view",
      response: { 200: t.Object({ data: t.Array(VatRateModel.vatRate) }) },
      detail: { tags: ["VAT rates"], summary: "List the organisation's VAT rates (the default first)" },
    });
