import { Elysia } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { errors } from "../http/responses.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { IdParams, Wrapped } from "../lib/schemas.ts";
import { AccountModel } from "./model.ts";
import { accountList, accountService } from "./service.ts";

const tags = ["Accounts"];

/** Read-only: other methods on these paths are answered 405 by the kernel. */
export const accountRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/accounts" })
    .use(kernel)
    .get("", ({ scope, query, url }) => accountService.list(scope, query, url), {
      ability: "accounting.view",
      query: listQuerySchema(accountList),
      response: { 200: listResponse(AccountModel.account), ...errors(422) },
      detail: { tags, summary: "List the chart of accounts" },
    })
    .get("/:id", ({ scope, params }) => ({ data: accountService.get(scope, params.id) }), {
      ability: "accounting.view",
      params: IdParams,
      response: { 200: Wrapped(AccountModel.account), ...errors(404) },
      detail: { tags, summary: "Show an account" },
    });
