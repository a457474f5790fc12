/** VAT rates as `GET /api/v1/vat-rates` shows them (contract section 3). */
import { t } from "elysia";
import { Money, Uuid } from "../lib/schemas.ts";

export const VatRateModel = {
  vatRate: t.Object(
    {
      id: Uuid,
      name: t.String(),
      rate: t.String({ ...Money, description: "Percent, e.g. 21.00", examples: ["21.00"] }),
      is_default: t.Boolean(),
    },
    { title: "VatRate" },
  ),
} as const;
