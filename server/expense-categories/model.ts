/** Which expense account an expense category posts to when an expense is approved. */
import { t } from "elysia";
import { strictObject, Uuid } from "../lib/schemas.ts";

export const ExpenseCategoryModel = {
  mapping: t.Object(
    {
      category: t.String({ description: "Lower case, trimmed: categories are matched so" }),
      account_id: t.String({ ...Uuid, description: "An expense account of the chart" }),
    },
    { title: "ExpenseCategoryAccount" },
  ),
  set: strictObject({ account_id: t.String({ ...Uuid, description: "An active expense account of the organisation" }) }, { title: "ExpenseCategoryAccountSet" }),
  params: t.Object({ category: t.String({ description: "The category, as expenses name it (matched case-insensitively, trimmed)" }) }),
} as const;
