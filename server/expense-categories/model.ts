/** Which expense account an expense category posts to when an expense is approved. */
import { t } from "elysia";
import { strictObject, Uuid } from "../lib/schemas.ts";

export const ExpenseCategoryModel = {
  mapping: t.Object(
    {
      category: t.String({ description: "Lower case, trimmed: categories are matched so" }),
      account_id: t.String({ ...Uuid, description: "An expense account of the chart, or a fixed-asset account (investment goods)" }),
    },
    { title: "ExpenseCategoryAccount" },
  ),
  set: strictObject({ account_id: t.String({ ...Uuid, description: "An active expense account of the organisation, or an active asset account without a system role (a fixed asset: investment goods, grid 83 of the Belgian VAT return)" }) }, { title: "ExpenseCategoryAccountSet" }),
  params: t.Object({ category: t.String({ description: "The category, as expenses name it (matched case-insensitively, trimmed)" }) }),
} as const;
