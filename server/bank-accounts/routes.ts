import { Elysia } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { errors } from "../http/responses.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { IdParams, Wrapped } from "../lib/schemas.ts";
import { BankAccountModel } from "./model.ts";
import { bankAccountList, bankAccountService } from "./service.ts";

const tags = ["Bank accounts"];

/** Read-only: other methods on these paths are answered 405 by the kernel; the CLI adds accounts. */
export const bankAccountRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/bank-accounts" })
    .use(kernel)
    .get("", ({ scope, query, url }) => bankAccountService.list(scope, query, url), {
      ability: "banking.view",
      query: listQuerySchema(bankAccountList),
      response: { 200: listResponse(BankAccountModel.bankAccount), ...errors(422) },
      detail: { tags, summary: "List bank accounts" },
    })
    .get("/:id", async ({ scope, params }) => ({ data: await bankAccountService.get(scope, params.id) }), {
      ability: "banking.view",
      params: IdParams,
      response: { 200: Wrapped(BankAccountModel.bankAccount), ...errors(404) },
      detail: { tags, summary: "Show a bank account" },
    });
