import { Elysia, t } from "elysia";
import type { Kernel } from "../http/kernel.ts";
import { errors, noContent, noStore } from "../http/responses.ts";
import { Forbidden } from "../lib/errors.ts";
import { listQuerySchema, listResponse } from "../lib/list.ts";
import { IdParams } from "../lib/schemas.ts";
import { TokenModel } from "./model.ts";
import { listTokens, tokenList } from "./list.ts";
import { createToken, revokeToken } from "./service.ts";
import type { Auth } from "../auth/authenticate.ts";

const detail = (summary: string) => ({ tags: ["Tokens"], summary });

const RevokeQuery = t.Object(
  {
    cascade: t.Optional(
      t.Union([t.Literal("true"), t.Literal("false")], {
        description: "true: also revoke every token this one minted, recursively (default false: they keep working)",
      }),
    ),
  },
  { additionalProperties: false },
);

/** Personal tokens are managed by a user for themselves: an organisation token has no user. */
function requirePersonal(auth: Auth): void {
  if (auth.tokenType !== "personal") throw new Forbidden("Personal tokens are managed with a personal token.");
}

/** Organisation tokens: a personal token of an owner/admin, or an organisation token holding `*`. */
function requireOrgTokenManager(auth: Auth): void {
  const allowed =
    auth.tokenType === "organization"
      ? auth.tokenAbilities.includes("*")
      : (auth.role === "owner" || auth.role === "admin") && auth.abilities.has("organization.manage-users");
  if (!allowed) {
    throw new Forbidden("Organisation tokens are managed by an owner or admin (organization.manage-users) or an organisation token with *.");
  }
}

export const tokenRoutes = (kernel: Kernel) =>
  new Elysia({ prefix: "/api/v1" })
    .use(kernel)
    .get(
      "/tokens",
      ({ scope, auth, query, url }) => {
        requirePersonal(auth);
        return listTokens(scope, "personal", auth.userId, query, url);
      },
      { ability: "any", query: listQuerySchema(tokenList), response: { 200: listResponse(TokenModel.token), ...errors(422) }, detail: detail("List your personal tokens") },
    )
    .post(
      "/tokens",
      ({ scope, auth, body, set, once }) => once(async () => {
        requirePersonal(auth);
        const token = await createToken(scope, { auth }, "personal", { userId: auth.userId, createdByUserId: auth.userId }, body);
        noStore(set);
        set.status = 201;
        set.headers["location"] = `/api/v1/tokens/${token.id}`;
        return token;
      }),
      { ability: "any", body: TokenModel.create, response: { 201: TokenModel.created, ...errors(422) }, detail: detail("Create a personal token") },
    )
    .delete(
      "/tokens/:id",
      async ({ scope, auth, params, query, set }) => {
        requirePersonal(auth);
        await revokeToken(scope, "personal", auth.userId, params.id, { cascade: query.cascade === "true" });
        return noContent(set);
      },
      { ability: "any", params: IdParams, query: RevokeQuery, response: { 204: t.Void(), ...errors(404) }, detail: detail("Revoke a personal token") },
    )
    .get(
      "/org-tokens",
      ({ scope, auth, query, url }) => {
        requireOrgTokenManager(auth);
        return listTokens(scope, "organization", null, query, url);
      },
      {
        ability: "organization.manage-users",
        query: listQuerySchema(tokenList),
        response: { 200: listResponse(TokenModel.token), ...errors(422) },
        detail: detail("List organisation tokens"),
      },
    )
    .post(
      "/org-tokens",
      ({ scope, auth, body, set, once }) => once(async () => {
        requireOrgTokenManager(auth);
        const token = await createToken(scope, { auth }, "organization", { userId: null, createdByUserId: auth.userId }, body);
        noStore(set);
        set.status = 201;
        set.headers["location"] = `/api/v1/org-tokens/${token.id}`;
        return token;
      }),
      {
        ability: "organization.manage-users",
        body: TokenModel.create,
        response: { 201: TokenModel.created, ...errors(422) },
        detail: detail("Create an organisation token"),
      },
    )
    .delete(
      "/org-tokens/:id",
      async ({ scope, auth, params, query, set }) => {
        requireOrgTokenManager(auth);
        await revokeToken(scope, "organization", null, params.id, { cascade: query.cascade === "true" });
        return noContent(set);
      },
      { ability: "organization.manage-users", params: IdParams, query: RevokeQuery, response: { 204: t.Void(), ...errors(404) }, detail: detail("Revoke an organisation token") },
    );
