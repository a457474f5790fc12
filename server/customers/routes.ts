import { t } from "elysia";
import { partyRoutes } from "../contacts/party-routes.ts";
import type { Kernel } from "../http/kernel.ts";
import { batchBody, batchResponse, batchRunner } from "../http/batch.ts";
import { created, errors, noContent } from "../http/responses.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { IdParams, Wrapped } from "../lib/schemas.ts";
import { ContactPersonModel, CustomerModel } from "./model.ts";
import { contactPersonService, customerService, type CustomerFollower } from "./service.ts";

const tags = ["Customers"];
const PersonParams = t.Object({ id: t.String(), cpid: t.String() });
const CustomerBatch = batchBody(CustomerModel.create, "CustomerBatch");
const createCustomers = batchRunner(CustomerModel.create);

/** `follow`: what follows a customer's change in what embeds it live, its draft invoices (server/app.ts gives it). */
export const customerRoutes = (kernel: Kernel, follow: CustomerFollower) =>
  partyRoutes(kernel, {
    prefix: "/api/v1/customers",
    tag: "Customers",
    noun: "customer",
    service: { ...customerService, update: async (scope, id, body) => await customerService.update(scope, id, body, follow) },
    model: { create: CustomerModel.create, update: CustomerModel.update, listed: CustomerModel.customer, shown: CustomerModel.customerWithContacts },
    showDetail: " with its contact persons",
    blockedBy: "invoices",
  })
    .post(
      "/batch",
      ({ scope, body, once }) => once(() => createCustomers(body.items, (item) => customerService.create(scope, item))),
      {
        ability: "contacts.create",
        body: CustomerBatch,
        response: { 200: batchResponse(CustomerModel.customerWithContacts, "CustomerBatchResult"), ...errors(422) },
        detail: {
          tags,
          summary: "Create up to 100 customers in one request",
          description:
            "Each item is the body of POST /customers, checked and created on its own (its own transaction): the answer is 200 with one result per item, " +
            "in order, `{status: 201, data}` or the refusal the single create would have answered (`{status: 422, code, message, errors}`, " +
            "or 403, 404, 409 with `{code, message}`, and `holder_id` for a taken external_id). " +
            "One request against the rate limit; under one Idempotency-Key the whole batch is replayed.",
        },
      },
    )
    .get("/:id/contact-persons", ({ scope, params, query, url }) => contactPersonService.list(scope, params.id, query, url), {
      ability: "contacts.view",
      params: IdParams,
      query: listQuerySchema(contactPersonService.listSpec),
      response: { 200: listResponse(ContactPersonModel.contactPerson), ...errors(404, 422) },
      detail: { tags, summary: "List a customer's contact persons" },
    })
    .post(
      "/:id/contact-persons",
      ({ scope, params, body, set, once }) => once(async () => {
        const person = await contactPersonService.create(scope, params.id, body, follow);
        return created(set, `/api/v1/customers/${params.id}/contact-persons/${person.id}`, person);
      }),
      {
        ability: "contacts.create",
        params: IdParams,
        body: ContactPersonModel.create,
        response: { 201: Wrapped(ContactPersonModel.contactPerson), ...errors(404, 422) },
        detail: { tags, summary: "Add a contact person" },
      },
    )
    .put(
      "/:id/contact-persons/:cpid",
      async ({ scope, params, body }) => ({ data: await contactPersonService.update(scope, params.id, params.cpid, body, follow) }),
      {
        ability: "contacts.edit",
        params: PersonParams,
        body: ContactPersonModel.update,
        response: { 200: Wrapped(ContactPersonModel.contactPerson), ...errors(404, 422) },
        detail: { tags, summary: "Update a contact person" },
      },
    )
    .delete(
      "/:id/contact-persons/:cpid",
      async ({ scope, params, set }) => {
        await contactPersonService.remove(scope, params.id, params.cpid, follow);
        return noContent(set);
      },
      {
        ability: "contacts.delete",
        params: PersonParams,
        response: { 204: t.Void(), ...errors(404) },
        detail: { tags, summary: "Remove a contact person" },
      },
    );
