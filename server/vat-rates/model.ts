/** VAT rates as `GET /api/v1/vat-rates` shows them (docs/api.md#reference-data). */
import { t } from "elysia";
import { VAT_CATEGORIES } from "../documents/model.ts";
import { Money, Nullable, Uuid } from "../lib/schemas.ts";

export const VatRateModel = {
  vatRate: t.Object(
    {
      id: Uuid,
      name: t.String(),
      rate: t.String({ ...Money, description: "Percent, e.g. 21.00", examples: ["21.00"] }),
      is_default: t.Boolean(),
      category: t.UnionEnum([...VAT_CATEGORIES], {
        description:
          "EN 16931 VAT category (UNCL5305): S standard or reduced, Z zero rated, E exempt, AE reverse charge, K intra-EU supply, G export outside the EU, O outside the scope of VAT",
      }),
      exemption_reason_code: Nullable(
        t.String({ description: "VATEX code where the category needs an exemption reason (E, AE, K, G, O)", examples: ["VATEX-EU-AE"] }),
      ),
    },
    { title: "VatRate" },
  ),
} as const;
