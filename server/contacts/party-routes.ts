/**
 * The five CRUD routes customers and suppliers share (suppliers have the
 * customer's fields and rules). Each kind names its path, its tag and what it shows; customers
 * chain their contact-person routes onto the instance this returns.
 */
import { Elysia, t, type TSchema } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { created, errors, noContent } from "../http/responses.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { IdParams, Wrapped } from "../lib/schemas.ts";
import { PartyModel } from "./party-model.ts";
import type { PartyService } from "./party-service.ts";

export type PartyRoutesOptions<Shown> = {
  /** e.g. "/api/v1/suppliers" */
  prefix: string;
  tag: string;
  noun: "customer" | "supplier";
  service: PartyService<Shown>;
  /** the kind's named schemas (CustomerCreate, …): bodies, a list's items, and what `service.get/create/update` return */
  model: { create: typeof PartyModel.create; update: typeof PartyModel.update; listed: TSchema; shown: TSchema };
  /** appended to "Show a <noun>", e.g. " with its contact persons" */
  showDetail?: string;
  /** what makes a delete a 409, e.g. "invoices" */
  blockedBy: string;
};

export const partyRoutes = <Shown extends { id: string }>(kernel: Kernel, options: PartyRoutesOptions<Shown>) => {
  const { prefix, noun, service, model } = options;
  const { shown } = model;
  const tags = [options.tag];
  const plural = `${noun}s`;
  return new Elysia({ prefix })
    .use(kernel)
    .get("", ({ scope, query, url }) => service.list(scope, query, url), {
      ability: "contacts.view",
      query: listQuerySchema(service.listSpec),
      response: { 200: listResponse(model.listed, `${shown.title}List`), ...errors(422) },
      detail: { tags, summary: `List ${plural}` },
    })
    .get("/:id", async ({ scope, params }) => ({ data: await service.get(scope, params.id) }), {
      ability: "contacts.view",
      params: IdParams,
      response: { 200: Wrapped(shown), ...errors(404) },
      detail: { tags, summary: `Show a ${noun}${options.showDetail ?? ""}` },
    })
    .post(
      "",
      ({ scope, body, set, once }) => once(async () => {
        const party = await service.create(scope, body);
        return created(set, `${prefix}/${party.id}`, party);
      }),
      {
        ability: "contacts.create",
        body: model.create,
        response: { 201: Wrapped(shown), ...errors(409, 422) },
        detail: { tags, summary: `Create a ${noun} (409 naming the holder when its external_id is taken)` },
      },
    )
    .put("/:id", async ({ scope, params, body }) => ({ data: await service.update(scope, params.id, body) }), {
      ability: "contacts.edit",
      params: IdParams,
      body: model.update,
      response: { 200: Wrapped(shown), ...errors(404, 409, 422) },
      detail: { tags, summary: `Update a ${noun} (409 naming the holder when its external_id is taken)` },
    })
    .delete(
      "/:id",
      async ({ scope, params, set }) => {
        await service.remove(scope, params.id);
        return noContent(set);
      },
      {
        ability: "contacts.delete",
        params: IdParams,
        response: { 204: t.Void(), ...errors(404, 409) },
        detail: { tags, summary: `Delete a ${noun} (409 when it has ${options.blockedBy})` },
      },
    );
};
