import { Elysia } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { errors } from "../http/responses.ts";
import { Wrapped } from "../lib/schemas.ts";
import { OrganizationModel } from "./model.ts";
import { showOrganization, updateOrganization } from "./identity.ts";

const tags = ["Organization"];

/** The caller's own organisation: one resource, no id in the path (the token names it). */
export const organizationRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1/organization" })
    .use(kernel)
    .get("", async ({ scope }) => ({ data: await showOrganization(scope) }), {
      ability: "organization.view",
      response: { 200: Wrapped(OrganizationModel.organization) },
      detail: { tags, summary: "Show the organisation's identity (the seller on its documents)" },
    })
    .put("", async ({ scope, body }) => ({ data: await updateOrganization(scope, body) }), {
      ability: "organization.edit",
      body: OrganizationModel.update,
      response: { 200: Wrapped(OrganizationModel.organization), ...errors(422) },
      detail: { tags, summary: "Update the organisation's identity (currency is read-only)" },
    });
