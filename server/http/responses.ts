/**
 * Response helpers shared by every route. Error responses common to all authenticated
 * operations (401, 403, 429, and 400/413/415 for bodies) are added to the OpenAPI document
 * centrally (server/docs/openapi.ts); routes declare only the ones specific to them.
 */
import type { TSchema } from "elysia";
import { ErrorBody, ValidationErrorBody } from "../lib/schemas.ts";

export function errors(...codes: (404 | 405 | 409 | 422 | 503)[]): Record<number, TSchema> {
  return Object.fromEntries(codes.map((c) => [c, c === 422 ? ValidationErrorBody : ErrorBody]));
}

type SetContext = { status?: number | string; headers: Record<string, string | number> };

/** 201 with `{data}` and a Location header. */
export function created<T>(set: SetContext, location: string, data: T): { data: T } {
  set.status = 201;
  set.headers["location"] = location;
  return { data };
}

/** 204, no body. */
export function noContent(set: SetContext): Response {
  set.status = 204;
  return new Response(null, { status: 204 });
}

/** Responses that carry a new secret (a token, a webhook secret) must never be stored by a cache. */
export function noStore(set: SetContext): void {
  set.headers["cache-control"] = "no-store";
}
