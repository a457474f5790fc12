import { Elysia, t } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { errors, noContent } from "../http/responses.ts";
import { Wrapped } from "../lib/schemas.ts";
import { ExpenseCategoryModel } from "./model.ts";
import { expenseCategoryService } from "./service.ts";

const tags = ["Accounts"];

export const expenseCategoryRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/expense-categories" })
    .use(kernel)
    .get("", async ({ scope }) => ({ data: await expenseCategoryService.list(scope) }), {
      ability: "accounting.view",
      response: { 200: t.Object({ data: t.Array(ExpenseCategoryModel.mapping) }, { title: "ExpenseCategoryAccountList" }) },
      detail: { tags, summary: "The expense account each category posts to (a category not listed posts to the purchases account: 6800 General expenses, or 643 in the be chart)" },
    })
    .put("/:category", async ({ scope, params, body }) => ({ data: await expenseCategoryService.set(scope, params.category, body) }), {
      ability: "accounting.edit",
      params: ExpenseCategoryModel.params,
      body: ExpenseCategoryModel.set,
      response: { 200: Wrapped(ExpenseCategoryModel.mapping), ...errors(404, 422) },
      detail: { tags, summary: "Map a category to an expense account; later approvals post there (what is posted stays)" },
    })
    .delete(
      "/:category",
      async ({ scope, params, set }) => {
        await expenseCategoryService.remove(scope, params.category);
        return noContent(set);
      },
      {
        ability: "accounting.edit",
        params: ExpenseCategoryModel.params,
        response: { 204: t.Void(), ...errors(404) },
        detail: { tags, summary: "Remove a category's mapping: it posts to the purchases account again (6800, or 643 in the be chart)" },
      },
    );
