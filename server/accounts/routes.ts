import { Elysia, t } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { created, errors, noContent } from "../http/responses.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { IdParams, Wrapped } from "../lib/schemas.ts";
import { AccountModel } from "./model.ts";
import { accountList, accountService } from "./service.ts";

const tags = ["Accounts"];

/** The chart of accounts, editable (docs/books.md#editing-the-chart); PATCH is answered 405 by the kernel. */
export const accountRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/accounts" })
    .use(kernel)
    .get("", ({ scope, query, url }) => accountService.list(scope, query, url), {
      ability: "accounting.view",
      query: listQuerySchema(accountList),
      response: { 200: listResponse(AccountModel.account), ...errors(422) },
      detail: { tags, summary: "List the chart of accounts" },
    })
    .get("/:id", async ({ scope, params }) => ({ data: await accountService.get(scope, params.id) }), {
      ability: "accounting.view",
      params: IdParams,
      response: { 200: Wrapped(AccountModel.account), ...errors(404) },
      detail: { tags, summary: "Show an account" },
    })
    .post(
      "",
      ({ scope, body, set, once }) =>
        once(async () => {
          const account = await accountService.create(scope, body);
          return created(set, `/api/v1/accounts/${account.id}`, account);
        }),
      {
        ability: "accounting.create",
        body: AccountModel.create,
        response: { 201: Wrapped(AccountModel.account), ...errors(422) },
        detail: { tags, summary: "Add an account to the chart (422 naming code when the code is taken, parent_id when the parent does not fit)" },
      },
    )
    .put("/:id", async ({ scope, params, body }) => ({ data: await accountService.update(scope, params.id, body) }), {
      ability: "accounting.edit",
      params: IdParams,
      body: AccountModel.update,
      response: { 200: Wrapped(AccountModel.account), ...errors(404, 409, 422) },
      detail: {
        tags,
        summary: "Rename, archive (is_active false) or restore an account (409 archiving one with a balance, a system role's last account, or one a bank account or expense category uses)",
      },
    })
    .delete(
      "/:id",
      async ({ scope, params, set }) => {
        await accountService.remove(scope, params.id);
        return noContent(set);
      },
      {
        ability: "accounting.delete",
        params: IdParams,
        response: { 204: t.Void(), ...errors(404, 409) },
        detail: { tags, summary: "Delete an account never posted to (409 otherwise, or when a system role, bank account, expense category or sub-account needs it)" },
      },
    );
