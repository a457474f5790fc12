import { Elysia, t } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { created, errors, noContent, noStore } from "../http/responses.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { IdParams, NoFields, Wrapped } from "../lib/schemas.ts";
import type { SecretBox } from "../lib/secret-box.ts";
import { deliveryService, MAX_BULK_REDELIVER, redeliverMatching } from "./deliveries.ts";
import { WebhookModel } from "./model.ts";
import { webhookService } from "./service.ts";

const tags = ["Webhooks"];
const DeliveryParams = t.Object({ id: t.String(), did: t.String() });

/**
 * Routes that write or read what a webhook's events carry (create, changing url or events, a
 * delivery's payload, redeliver) also check the caller's view abilities in the service
 * (requireEventAccess); `secrets` seals the secrets they generate.
 */
export const webhookRoutes = (kernel: Kernel, secrets: SecretBox) =>
  new Elysia({ prefix: "/api/v1/webhooks" })
    .use(kernel)
    .get("", ({ scope, query, url }) => webhookService.list(scope, query, url), {
      ability: "organization.view",
      query: listQuerySchema(webhookService.listSpec),
      response: { 200: listResponse(WebhookModel.webhook), ...errors(422) },
      detail: { tags, summary: "List webhooks" },
    })
    .get("/:id", async ({ scope, params }) => ({ data: await webhookService.get(scope, params.id) }), {
      ability: "organization.view",
      params: IdParams,
      response: { 200: Wrapped(WebhookModel.webhook), ...errors(404) },
      detail: { tags, summary: "Show a webhook (never its secret)" },
    })
    .post(
      "",
      ({ scope, config, auth, body, set, once }) => once(async () => {
        const webhook = await webhookService.create(scope, body, config, secrets, auth.abilities);
        noStore(set);
        return created(set, `/api/v1/webhooks/${webhook.id}`, webhook);
      }),
      {
        ability: "organization.edit",
        body: WebhookModel.create,
        response: { 201: Wrapped(WebhookModel.webhookWithSecret), ...errors(422) },
        detail: { tags, summary: "Create a webhook; the answer holds its secret, shown only here" },
      },
    )
    .put("/:id", async ({ scope, config, auth, params, body }) => ({ data: await webhookService.update(scope, params.id, body, config, auth.abilities) }), {
      ability: "organization.edit",
      params: IdParams,
      body: WebhookModel.update,
      response: { 200: Wrapped(WebhookModel.webhook), ...errors(404, 422) },
      detail: { tags, summary: "Update a webhook's URL, events or is_active" },
    })
    .delete(
      "/:id",
      async ({ scope, params, set }) => {
        await webhookService.remove(scope, params.id);
        return noContent(set);
      },
      {
        ability: "organization.edit",
        params: IdParams,
        response: { 204: t.Void(), ...errors(404) },
        detail: { tags, summary: "Delete a webhook with its queued deliveries" },
      },
    )
    .post(
      "/:id/regenerate-secret",
      ({ scope, auth, params, set, once }) => once(async () => {
        const webhook = await webhookService.regenerateSecret(scope, params.id, secrets, auth.abilities);
        noStore(set);
        return { data: webhook };
      }),
      {
        ability: "organization.edit",
        params: IdParams,
        body: NoFields,
        response: { 200: Wrapped(WebhookModel.webhookWithSecret), ...errors(404, 422) },
        detail: { tags, summary: "Replace the signing secret; the old one stops at once" },
      },
    )
    .get("/:id/deliveries", ({ scope, params, query, url }) => deliveryService.list(scope, params.id, query, url), {
      ability: "organization.view",
      params: IdParams,
      query: listQuerySchema(deliveryService.listSpec),
      response: { 200: listResponse(WebhookModel.delivery), ...errors(404, 422) },
      detail: { tags, summary: "List a webhook's deliveries" },
    })
    .get("/:id/deliveries/:did", async ({ scope, auth, params }) => ({ data: await deliveryService.get(scope, params.id, params.did, auth.abilities) }), {
      ability: "organization.view",
      params: DeliveryParams,
      response: { 200: Wrapped(WebhookModel.deliveryDetail), ...errors(404) },
      detail: { tags, summary: "Show a delivery with its attempts and payload" },
    })
    .post(
      "/:id/redeliver",
      ({ scope, auth, params, body, set, once }) => once(async () => {
        set.status = 202;
        return { data: { redelivered: await redeliverMatching(scope, params.id, body, auth.abilities) } };
      }),
      {
        ability: "organization.edit",
        params: IdParams,
        body: WebhookModel.redeliverMatching,
        response: { 202: Wrapped(WebhookModel.redelivered), ...errors(404, 422) },
        detail: {
          tags,
          summary: "Queue again every delivery in a status created in a window (after an outage: failed ones), oldest first",
          description: `Each is audited as delivery.redelivered. At most ${MAX_BULK_REDELIVER} per call: a wider window is a 422 (narrow \`from\` and \`to\`).`,
        },
      },
    )
    .post(
      "/:id/deliveries/:did/redeliver",
      ({ scope, auth, params, set, once }) => once(async () => {
        set.status = 202;
        return { data: await deliveryService.redeliver(scope, params.id, params.did, auth.abilities) };
      }),
      {
        ability: "organization.edit",
        params: DeliveryParams,
        body: NoFields,
        response: { 202: Wrapped(WebhookModel.delivery), ...errors(404, 422) },
        detail: { tags, summary: "Queue a delivery again as a fresh series of attempts (same id)" },
      },
    );
