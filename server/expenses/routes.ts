import { Elysia, t } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { created, errors, noContent } from "../http/responses.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { IdParams, NoFields, Wrapped } from "../lib/schemas.ts";
import { PaymentParams } from "../payments/model.ts";
import { ExpenseModel } from "./model.ts";
import { expenseList, expenseService } from "./service.ts";

const tags = ["Expenses"];
const Expense = Wrapped(ExpenseModel.expense);

export const expenseRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/expenses" })
    .use(kernel)
    .get("", ({ scope, query, url }) => expenseService.list(scope, query, url), {
      ability: "expenses.view",
      query: listQuerySchema(expenseList),
      response: { 200: listResponse(ExpenseModel.expense), ...errors(422) },
      detail: { tags, summary: "List expenses" },
    })
    .get("/:id", ({ scope, params }) => ({ data: expenseService.get(scope, params.id) }), {
      ability: "expenses.view",
      params: IdParams,
      response: { 200: Expense, ...errors(404) },
      detail: { tags, summary: "Show an expense" },
    })
    .post(
      "",
      ({ scope, body, set, once }) => once(() => {
        const expense = expenseService.create(scope, body);
        return created(set, `/api/v1/expenses/${expense.id}`, expense);
      }),
      {
        ability: "expenses.create",
        body: ExpenseModel.create,
        response: { 201: Expense, ...errors(422) },
        detail: { tags, summary: "Create an expense (pending)" },
      },
    )
    .put("/:id", ({ scope, params, body }) => ({ data: expenseService.update(scope, params.id, body) }), {
      ability: "expenses.edit",
      params: IdParams,
      body: ExpenseModel.update,
      response: { 200: Expense, ...errors(404, 409, 422) },
      detail: { tags, summary: "Update a pending or rejected expense (a rejected one returns to pending; 409 when approved)" },
    })
    .delete(
      "/:id",
      ({ scope, params, set }) => {
        expenseService.remove(scope, params.id);
        return noContent(set);
      },
      {
        ability: "expenses.delete",
        params: IdParams,
        response: { 204: t.Void(), ...errors(404, 409) },
        detail: { tags, summary: "Delete an expense (409 when approved)" },
      },
    )
    .post("/:id/approve", ({ scope, params, once }) => once(() => ({ data: expenseService.approve(scope, params.id) })), {
      ability: "expenses.approve",
      params: IdParams,
      body: NoFields,
      response: { 200: Expense, ...errors(404, 409, 422) },
      detail: { tags, summary: "Approve a pending expense (the body may be omitted)" },
    })
    .post("/:id/reject", ({ scope, params, body, once }) => once(() => ({ data: expenseService.reject(scope, params.id, body) })), {
      ability: "expenses.approve",
      params: IdParams,
      body: t.Optional(ExpenseModel.reject),
      response: { 200: Expense, ...errors(404, 409, 422) },
      detail: { tags, summary: "Reject a pending expense, optionally with a reason (shown as rejection_reason; the body may be omitted)" },
    })
    .post(
      "/:id/record-payment",
      ({ scope, params, body, set, once }) => once(() => {
        const expense = expenseService.recordPayment(scope, params.id, body);
        return created(set, `/api/v1/expenses/${expense.id}`, expense);
      }),
      {
        ability: "expenses.approve",
        params: IdParams,
        body: ExpenseModel.payment,
        response: { 201: Expense, ...errors(404, 409, 422) },
        detail: {
          tags,
          summary: "Record a payment of an approved expense (at most the amount due): 201 with the expense; posts payables against the bank",
        },
      },
    )
    .delete(
      "/:id/payments/:pid",
      ({ scope, params, set }) => {
        expenseService.deletePayment(scope, params.id, params.pid);
        return noContent(set);
      },
      {
        ability: "expenses.approve",
        params: PaymentParams,
        response: { 204: t.Void(), ...errors(404, 409) },
        detail: { tags, summary: "Delete a payment of an expense; its posting is reversed on its own date (409 in a closed fiscal year)" },
      },
    );
