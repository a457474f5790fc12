/**
 * The request pipeline shared by every feature module: the request's id, authentication and
 * rate limiting (onRequest, before any body is read), JSON body parsing with its 400/413/415,
 * the guard macro each route declares (`ability: "contacts.view"`), the one error handler, and
 * the request's log line and metrics as its answer leaves (onAfterHandle, and the error handler).
 */
import { createHash } from "node:crypto";
import { Elysia, StatusMap, t, ValidationError } from "elysia";
import type { Runtime } from "../runtime.ts";
import type { Ability } from "../auth/abilities.ts";
import { createAuthenticator, type Auth } from "../auth/authenticate.ts";
import {
  ApiError,
  BadRequest,
  Forbidden,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  RouteNotFound,
  TooManyRequests,
  Unauthenticated,
  UnsupportedMediaType,
  ValidationFailed,
} from "../lib/errors.ts";
import type { Actor, Scope } from "../lib/scope.ts";
import { createIdempotency, type AnswerSet } from "./idempotency.ts";
import { createRateLimiter } from "./rate-limit.ts";
import { jsonAnswer } from "./representation.ts";
import { toValidationFailed } from "./validation.ts";
import { loneSurrogate, surrogateMessage } from "../lib/characters.ts";
import { readAtMost } from "../lib/bounded-read.ts";
import { UNMATCHED_ROUTE, type ThreadMetrics } from "../metrics/thread.ts";

export const MAX_BODY_BYTES = 1024 * 1024;
/** Bounds of a body's shape, checked before it is parsed (refuseOversizedShape). */
export const BODY_SHAPE_LIMITS = { maxDepth: 32, maxValues: 10_000 };
const API_PREFIX = "/api/v1";

/**
 * What the kernel learns of a request before its handler runs. It is kept on Elysia's context of
 * the request (the one object every hook and the handler receive), under `kontor`.
 * `status`: the status of an answer the error handler built (Elysia's `set.status` does not
 * see it); `startedAt`: performance.now() at arrival.
 */
type RequestFacts = { requestId: string; startedAt: number; ip: string | null; auth: Auth | null; rawBody: string; status?: number };
type WithFacts = { kontor?: RequestFacts };
/** The facts kept on a context (`factsOf((context as WithFacts).kontor)`: see HOOKS_TAKE_FIELDS). */
const factsOf = (kept: RequestFacts | undefined): RequestFacts => kept ?? { requestId: "", startedAt: performance.now(), ip: null, auth: null, rawBody: "" };

/**
 * HOOKS_TAKE_FIELDS: the hooks below read the fields of Elysia's context they need and never
 * hand the context itself to a function. Elysia reads each hook's source to decide what to
 * prepare for every route (sucrose): a hook that passes `context` on to a function makes it
 * parse every request's cookies (an await, so every handler turns async), copy its headers into
 * an object and parse its query, for every route, whether any route reads them or not. On a
 * shown invoice that was about a tenth of its time (docs/performance.md);
 * tests/http/pipeline-inference.test.ts holds them to it.
 */

/**
 * A client's X-Request-Id is kept when it is a plain token (so a proxy's or a client's id can be
 * followed through the logs), else replaced: it is written to logs and the audit log, where a
 * long value or one with spaces, quotes or line breaks could forge or bloat a line.
 */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
export const requestIdOf = (sent: string | null): string => (sent !== null && SANE_REQUEST_ID.test(sent) ? sent : crypto.randomUUID());

type RouteInfo = { method: string; path: string; pattern: RegExp };

/**
 * A request body that is a file, not JSON: a supplier's e-invoice, a bank statement. Only the
 * routes whose body schema is a `documentBody` take one, in the media types it names and up to
 * its size; every other route keeps the JSON rules (415, 1 MiB). The handler gets the bytes as
 * sent (an e-invoice is archived byte for byte; a CODA file is usually latin-1).
 */
export type DocumentUpload = { bytes: Uint8Array; mediaType: string; charset: string | null };
type DocumentRule = { mediaTypes: string[]; maxBytes: number };
const DOCUMENT_RULE = "x-document-body";

/** The body schema of a route that takes a document: what validates it (anything the kernel read) and what OpenAPI shows. */
export function documentBody(rule: DocumentRule & { description: string }) {
  return t.Any({
    type: "string",
    format: "binary",
    description: rule.description,
    [DOCUMENT_RULE]: { mediaTypes: rule.mediaTypes, maxBytes: rule.maxBytes },
  });
}

/** A document body the kernel refused (415, 413, empty), kept until the route's guard has run. */
class RefusedDocument {
  constructor(readonly error: ApiError) {}
}

/** The document a `documentBody` route received; throws the kernel's refusal of it, if any. */
export function documentOf(body: unknown): DocumentUpload {
  if (body instanceof RefusedDocument) throw body.error;
  return body as DocumentUpload;
}

/** The document rule of a body schema, if it is a `documentBody`. */
export const documentRuleOf = (body: unknown): DocumentRule | undefined =>
  body && typeof body === "object" ? ((body as Record<string, unknown>)[DOCUMENT_RULE] as DocumentRule | undefined) : undefined;

/** `metrics`: where the thread counts its requests (server/metrics/thread.ts). */
export function createKernel({ db, config, log, shared, renderTurns, importSlots }: Runtime, metrics: ThreadMetrics) {
  assertElysiaQuietErrors();
  const authenticate = createAuthenticator(db);
  const rateLimit = createRateLimiter(config.rateLimitPerMinute, shared.rateLimit);
  const idempotency = createIdempotency(db);
  let routes: RouteInfo[] = [];
  /** "POST /api/v1/expenses/import" → its document rule, by Elysia's route pattern (`context.route`) */
  let documentRoutes = new Map<string, DocumentRule>();
  /** "GET /api/v1/customers": the routes whose query takes `per_page` (refuseNonIntegerPaging) */
  let pagedRoutes = new Set<string>();

  /** Known paths answer 405 for a wrong method instead of 404; routes with a document body take one. */
  const setRouteTable = (table: { method: string; path: string; hooks?: { body?: unknown; query?: unknown; parse?: unknown[] } }[]) => {
    // a GET or HEAD has no body to parse, and Elysia makes a route's handler async (a promise and
    // a turn of the microtask queue for every answer) when it has any parse hook: set before the
    // first request, when Elysia composes each route's handler
    for (const r of table) if ((r.method === "GET" || r.method === "HEAD") && r.hooks?.parse) r.hooks.parse = [];
    pagedRoutes = new Set(
      table.filter((r) => (r.hooks?.query as { properties?: Record<string, unknown> } | undefined)?.properties?.per_page !== undefined).map((r) => `${r.method} ${r.path}`),
    );
    documentRoutes = new Map(
      table.flatMap((r) => {
        const rule = documentRuleOf(r.hooks?.body);
        return rule ? [[`${r.method} ${r.path}`, rule] as const] : [];
      }),
    );
    routes = table.map((r) => ({
      method: r.method,
      path: r.path,
      pattern: new RegExp(`^${r.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+")}/?$`),
    }));
  };

  /**
   * The request URL as clients see it, for absolute `links`: KONTOR_BASE_URL, else the address
   * the server listens on. Never the request's Host header, which any client can forge.
   */
  const publicUrl = (url: string, server: { hostname?: string; port?: number } | null): string =>
    `${config.baseUrl ?? originOf(server)}${url.slice(url.indexOf("/", url.indexOf("//") + 2))}`;
  // the address a server listens on does not change: asked of it once (Bun's getters cost ~3 µs a request)
  let listening: { server: object | null; origin: string } | null = null;
  const originOf = (server: { hostname?: string; port?: number } | null): string => {
    if (listening === null || listening.server !== server) {
      listening = { server, origin: listeningOrigin(server?.hostname ?? config.host, server?.port ?? config.port) };
    }
    return listening.origin;
  };

  /**
   * The matched route's pattern (`/api/v1/invoices/:id`), never the raw path: one label per
   * route, not per URL. A request refused before routing (401, 429) is matched here.
   */
  const routeOf = (request: Request, matched: string | undefined): string => {
    if (matched) return matched;
    const path = pathOf(request.url);
    return routes.find((r) => r.method === request.method && r.pattern.test(path))?.path ?? UNMATCHED_ROUTE;
  };

  /** The request's metrics and log line, once its answer is known: `status`, the status the client gets (statusOf). */
  const recordAnswer = (request: Request, matched: string | undefined, facts: RequestFacts, status: number) => {
    const seconds = (performance.now() - facts.startedAt) / 1000;
    const route = routeOf(request, matched);
    metrics.request(request.method, route, status, seconds);
    log.info("request", {
      request_id: facts.requestId,
      method: request.method,
      route,
      status,
      duration_ms: Math.round(seconds * 1e6) / 1000,
      organization_id: facts.auth?.org.id ?? null,
      token_id: facts.auth?.tokenId ?? null,
    });
  };

  /**
   * A POST handler's work, done once per Idempotency-Key: looked up, done and its answer stored in
   * one transaction (server/http/idempotency.ts). Made here, not in the guard's resolve: Elysia
   * takes a hook whose source holds `=> call(` for an async one and awaits it on every request.
   */
  const onceFor =
    (keyed: Parameters<typeof idempotency.once>[0], set: AnswerSet) =>
    // typed as the work's answer: Elysia checks a promised union against each status's schema
    // alone, and sends a replayed Response as it is
    <T>(work: () => T | Promise<T>): Promise<T> =>
      idempotency.once(keyed, set, work) as Promise<T>;

  const kernel = new Elysia({ name: "kontor-kernel" })
    .decorate({ db, config, renderTurns, importSlots })
    .onRequest(async (context) => {
      const { request, server, set } = context;
      const requestId = requestIdOf(request.headers.get("x-request-id"));
      set.headers["x-request-id"] = requestId;
      const facts: RequestFacts = { requestId, startedAt: performance.now(), ip: null, auth: null, rawBody: "" };
      (context as WithFacts).kontor = facts;
      const path = pathOf(request.url);
      if (!path.startsWith(API_PREFIX)) return;
      const ip = server?.requestIP(request)?.address ?? null;
      const auth = await authenticate(request.headers.get("authorization"));
      Object.assign(facts, { ip, auth });
      const decision = rateLimit(auth ? auth.rateKey : `ip:${ip ?? "unknown"}`);
      set.headers["x-ratelimit-limit"] = String(decision.limit);
      set.headers["x-ratelimit-remaining"] = String(decision.remaining);
      set.headers["x-ratelimit-reset"] = String(decision.resetAt);
      if (!decision.allowed) {
        metrics.rateLimited();
        throw new TooManyRequests(decision.retryAfterSeconds);
      }
      // every API route but the index needs a token: answer 401 before reading any body
      if (!auth && path !== API_PREFIX && path !== `${API_PREFIX}/`) throw new Unauthenticated(request.headers.has("authorization"));
      refuseMalformedQuery(request.url);
      // no id holds a NUL character (PostgreSQL's text cannot): such a path names nothing
      if (/%00/i.test(path)) throw new NotFound();
    })
    .onParse({ as: "global" }, async (context) => {
      const { request } = context;
      const document = documentRoutes.get(`${request.method} ${(context as { route?: string }).route}`);
      if (document) {
        // a refusal waits for the guard: a token without the route's ability hears 403, not 415
        return readDocument(request, document, factsOf((context as WithFacts).kontor)).catch((error: unknown) => {
          if (error instanceof ApiError) return new RefusedDocument(error);
          throw error;
        });
      }
      const length = Number(request.headers.get("content-length") ?? "0");
      if (length > MAX_BODY_BYTES) throw new PayloadTooLarge(MAX_BODY_BYTES);
      const text = await readLimited(request, MAX_BODY_BYTES);
      factsOf((context as WithFacts).kontor).rawBody = text;
      if (text.trim() === "") return null;
      const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      if (type !== "application/json" && !type.endsWith("+json")) throw new UnsupportedMediaType();
      // before parsing: the cost of a deep body is in what is built from it, not in reading it
      refuseOversizedShape(text, BODY_SHAPE_LIMITS);
      let body: unknown;
      try {
        body = parseJson(text);
      } catch {
        throw new BadRequest("The request body is not valid JSON.");
      }
      refuseProtoKeys(body);
      refuseLoneSurrogates(body);
      return body;
    })
    .macro({
      /** Declares the ability a route needs; "any" means any valid token of an organisation with api_access. */
      ability: (required: Ability | "any") => ({
        detail: { "x-ability": required, security: [{ bearerAuth: [] }] } as Record<string, unknown>,
        transform(context) {
          const { auth } = factsOf((context as WithFacts).kontor);
          if (!auth) throw new Unauthenticated(context.request.headers.has("authorization"));
          if (!auth.org.apiAccess) throw new Forbidden("API access is not enabled for this organisation.");
          if (required !== "any" && !auth.abilities.has(required)) {
            throw new Forbidden(`This action requires the ${required} ability.`);
          }
          if (pagedRoutes.has(`${context.request.method} ${(context as { route?: string }).route}`)) refuseNonIntegerPaging(context.request.url);
        },
        resolve(context) {
          const { request, server, set } = context;
          const { auth, ip, rawBody, requestId } = factsOf((context as WithFacts).kontor);
          const actor: Actor =
            auth!.tokenType === "personal"
              ? { type: "user", id: auth!.userId, ip, requestId }
              : { type: "token", id: auth!.tokenId, ip, requestId };
          const scope: Scope = { db, org: auth!.org, actor };
          const keyed = { method: request.method, url: request.url, headers: request.headers, rawBody, tokenId: auth!.tokenId };
          return {
            auth: auth!,
            scope,
            url: publicUrl(request.url, server),
            once: onceFor(keyed, set as AnswerSet),
          };
        },
      }),
    })
    .onError({ as: "global" }, (context) => {
      const { code, error, set, request } = context;
      const facts = factsOf((context as WithFacts).kontor);
      const matched = (context as { route?: string }).route;
      let apiError: ApiError;
      // Elysia wraps what a parse hook throws in a ParseError
      const cause = (error as { cause?: unknown }).cause;
      if (error instanceof ApiError) apiError = error;
      else if (code === "PARSE" && cause instanceof ApiError) apiError = cause;
      else if (code === "VALIDATION" && error.type !== "response") apiError = toValidationFailed(validationErrors(error));
      else if (code === "NOT_FOUND") {
        const path = pathOf(request.url);
        const allowed = routes.filter((r) => r.pattern.test(path)).map((r) => r.method);
        apiError = allowed.length === 0 ? new RouteNotFound() : !allowed.includes(request.method) ? new MethodNotAllowed([...new Set(allowed)]) : new NotFound();
      } else if (code === "PARSE") apiError = new BadRequest("The request body is not valid JSON.");
      else {
        log.error("request failed", {
          request_id: facts.requestId,
          method: request.method,
          route: routeOf(request, matched),
          // no route when it failed before routing; the path (never the query) says where
          path: pathOf(request.url),
          error: describeError(error),
        });
        apiError = new ApiError(500, "Server error.");
      }
      facts.status = apiError.status;
      const headers = headersOf(set);
      for (const [k, v] of Object.entries(apiError.headers ?? {})) headers.set(k, v);
      headers.set("content-type", "application/json");
      const body = JSON.stringify(apiError.toJSON());
      recordAnswer(request, matched, facts, apiError.status);
      handOver(set);
      return new Response(body, { status: apiError.status, headers });
    })
    // counted and logged as the answer leaves the pipeline, not after it is sent: an after-response
    // hook keeps every request's context alive until it has run, and under load that held 30–60 MB
    // more (docs/performance.md)
    .onAfterHandle({ as: "global" }, (context) => {
      const { request, responseValue, set, route } = context as typeof context & { responseValue: unknown };
      const facts = factsOf((context as WithFacts).kontor);
      const status = statusOf(facts, set, responseValue);
      // a JSON answer (not a Response: a document, a 204, a replay) gets its ETag and compression here, once for every route
      if (responseValue !== null && typeof responseValue === "object" && !(responseValue instanceof Response)) {
        const answer = jsonAnswer(request, status, JSON.stringify(responseValue), headersOf(set));
        facts.status = answer.status;
        recordAnswer(request, route, facts, answer.status);
        handOver(set);
        return answer;
      }
      recordAnswer(request, route, facts, status);
    });

  return Object.assign(kernel, { setRouteTable });
}

export type Kernel = ReturnType<typeof createKernel>;

/**
 * Elysia checks coerced query integers one property at a time and loses the property's
 * name on the way; list schemas tag those properties with `x-param` so the error is keyed.
 */
/** An error's stack, and its causes' (a failed query's database error is its cause). */
function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 5; e = (e as Error).cause, depth++) {
    parts.push((e as Error)?.stack ?? String(e));
  }
  return parts.join("\ncaused by: ");
}

function validationErrors(error: { type: string; all: unknown; validator?: unknown }) {
  const all = error.all as { path: string }[];
  if (error.type !== "property") return all as any;
  const validator = error.validator as { schema?: Record<string, unknown> } & Record<string, unknown>;
  const param = (validator?.schema ?? validator)?.["x-param"];
  return typeof param === "string" ? all.map((e) => ({ ...e, path: `/${param}${e.path}` })) : all;
}


/**
 * The status the client got: the error handler's (kept in the facts), that of a Response a
 * handler returned (an idempotent replay, a document), else Elysia's `set.status`.
 */
function statusOf(facts: RequestFacts, set: { status?: number | string }, responseValue: unknown): number {
  if (facts.status !== undefined) return facts.status;
  if (responseValue instanceof Response) return responseValue.status;
  const status = set.status;
  return typeof status === "number" ? status : ((StatusMap as Record<string, number>)[status ?? ""] ?? 200);
}

/**
 * Once the kernel's Response carries the headers and status the pipeline set: Elysia copies a
 * non-empty `set` into a new Response otherwise, its headers once more and its body as a stream
 * read from the first (a few microseconds of every answer, docs/performance.md).
 */
function handOver(set: { headers: Record<string, unknown>; status?: number | string }): void {
  set.headers = {};
  set.status = 200;
}

/** The headers the pipeline set for the answer (rate limits, request id, Location, …). */
function headersOf(set: { headers: Record<string, unknown> }): Headers {
  const headers = new Headers();
  for (const k in set.headers) {
    const v = set.headers[k];
    if (typeof v === "string" || typeof v === "number") headers.set(k, String(v));
  }
  return headers;
}

/** http://host:port of a listening address; a wildcard address is reached on loopback. */
export function listeningOrigin(hostname: string, port: number): string {
  const host = hostname === "0.0.0.0" ? "127.0.0.1" : hostname === "::" ? "::1" : hostname;
  return `http://${host.includes(":") ? `[${host}]` : host}${port === 80 || port === 0 ? "" : `:${port}`}`;
}

function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const q = url.indexOf("?", start);
  return start === -1 ? "/" : url.slice(start, q === -1 ? undefined : q);
}

/** Fails the start when Elysia loaded outside production mode (server/http/elysia-production.ts). */
export function assertElysiaQuietErrors(): void {
  const probe = new ValidationError("body", t.Object({}), { probe: [1] });
  if (probe.message.includes("\n")) {
    throw new Error("Elysia was loaded before server/http/elysia-production.ts: its validation errors would copy whole bodies");
  }
}

/**
 * JSON.parse, except that a number literal whose double is not the decimal the client wrote
 * (more significant digits than a double holds, or out of its range: 1.999999999999999999
 * parses as 2, 1e-400 as 0) is kept as its source text. The field's own check then sees what
 * was sent, and refuses it (money: more than two fraction digits, a 422) instead of silently
 * taking the rounded double. A body without a number of 16 or more characters or with an
 * exponent cannot hold such a literal, and skips the slower reviver.
 */
export function parseJson(text: string): unknown {
  if (!/(?:^|[:,[])\s*-?(?:[\d.]{16}|[\d.]+[eE])/.test(text)) return JSON.parse(text);
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === "number" && context?.source !== undefined && decimalKey(context.source) !== decimalKey(String(value)) ? context.source : value,
  );
}

/** A decimal literal as sign, significant digits and exponent ("1.50" and "15e-1" → "15e-1"); zero is "0". */
function decimalKey(literal: string): string {
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (!m) return literal;
  const fraction = m[3] ?? "";
  const digits = `${m[2]}${fraction}`.replace(/^0+/, "");
  if (digits === "") return "0";
  const significant = digits.replace(/0+$/, "");
  const exponent = BigInt(m[4] ?? "0") - BigInt(fraction.length) + BigInt(digits.length - significant.length);
  return `${m[1]}${significant}e${exponent}`;
}

/**
 * 422 for a body whose arrays and objects nest deeper than `maxDepth`, or that holds more than
 * `maxValues` values, found by one scan of the text before JSON.parse. Neither is a body the
 * API takes (its largest, an invoice of 500 lines, holds about 2,600 values at depth 3), and
 * building objects from one, validating it and describing what is wrong with it costs what the
 * text does not show: 20,000 nested arrays are 40 kB, and took seconds and gigabytes.
 */
export function refuseOversizedShape(text: string, { maxDepth, maxValues }: { maxDepth: number; maxValues: number }): void {
  let depth = 0;
  let values = 1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > maxDepth) {
        throw ValidationFailed.field("body", `The request body must not nest arrays and objects more than ${maxDepth} levels deep.`);
      }
      values++;
    } else if (c === 93 || c === 125) depth--;
    else if (c === 44 && ++values > maxValues) {
      throw ValidationFailed.field("body", `The request body must not hold more than ${maxValues} values.`);
    }
  }
}

/**
 * JSON.parse makes "__proto__" an own key like any other, but schema checks and spreads treat
 * it as the prototype: it would pass as "no unknown field". Refused like every unknown field.
 */
function refuseProtoKeys(value: unknown, path = ""): void {
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => refuseProtoKeys(item, `${path}${i}.`));
    return;
  }
  if (Object.hasOwn(value, "__proto__")) throw ValidationFailed.field(`${path}__proto__`, `The ${path}__proto__ field is not accepted.`);
  for (const key in value) refuseProtoKeys((value as Record<string, unknown>)[key], `${path}${key}.`);
}

/**
 * 422 for a string of the body, or a key, that holds a lone UTF-16 surrogate (`"\ud800"`: half
 * of a character), naming the field as a schema error would (`lines.0.description`). Checked on
 * every value, whatever its field's schema: text stored with one could never be read back by a
 * strict JSON parser, and every page and event holding it would fail (RFC 8259 8.2).
 */
function refuseLoneSurrogates(value: unknown, path = ""): void {
  if (typeof value === "string") {
    const found = loneSurrogate(value);
    if (found) {
      const field = path === "" ? "body" : path.slice(0, -1);
      throw ValidationFailed.field(field, surrogateMessage(field, found));
    }
    return;
  }
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => refuseLoneSurrogates(item, `${path}${i}.`));
    return;
  }
  for (const key in value) {
    const found = loneSurrogate(key);
    // the field is named with the half character replaced: the answer itself must be strict JSON
    if (found) throw ValidationFailed.field(`${path}${key.toWellFormed()}`, surrogateMessage(`${path}${key.toWellFormed()}`, found));
    refuseLoneSurrogates((value as Record<string, unknown>)[key], `${path}${key}.`);
  }
}

/**
 * 422 for a `page` or `per_page` not written as an integer (an optional minus and digits, so that
 * -1 still hears its range): Elysia reads a query integer with Number(), which takes 1e2, 0x64
 * and 100.0 as 100. For the routes that take them (lists), before Elysia's coercion.
 */
export function refuseNonIntegerPaging(url: string): void {
  const query = new URL(url).searchParams;
  for (const key of ["page", "per_page"]) {
    const value = query.get(key);
    if (value !== null && value !== "" && !/^-?[0-9]+$/.test(value)) throw ValidationFailed.field(key, `The ${key} field must be an integer.`);
  }
}

/**
 * 422 for a query parameter whose percent-encoding is not UTF-8, naming it (`filter.name`, as a
 * schema error would): `%ED%A0%80` (a lone surrogate as WTF-8) or a broken sequence would
 * otherwise be read as U+FFFD, a search or filter other than the one sent.
 */
export function refuseMalformedQuery(url: string): void {
  const start = url.indexOf("?");
  if (start === -1) return;
  for (const part of url.slice(start + 1).split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const rawKey = (eq === -1 ? part : part.slice(0, eq)).replace(/\+/g, " ");
    const rawValue = (eq === -1 ? "" : part.slice(eq + 1)).replace(/\+/g, " ");
    const key = strictDecode(rawKey);
    const name = (key ?? lenientDecode(rawKey)).replace(/\[([^\]]*)\]/g, ".$1");
    if (key === null || strictDecode(rawValue) === null) {
      throw ValidationFailed.field(name, `The ${name} field is not UTF-8 once percent-decoded (a lone UTF-16 surrogate such as %ED%A0%80, or a broken sequence): send text as UTF-8.`);
    }
  }
}

const strictDecode = (text: string): string | null => {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
};
/** For naming a parameter whose own name is malformed: what decodes, with U+FFFD for what does not. */
const lenientDecode = (text: string): string => new TextDecoder().decode(Uint8Array.from(unescape(text), (c) => c.charCodeAt(0) & 0xff));

/**
 * A document body (see DocumentUpload): one of the route's media types (else 415), at most its
 * size (else 413), not empty (422). The idempotency key's request hash covers its bytes.
 */
async function readDocument(request: Request, rule: DocumentRule, facts: RequestFacts): Promise<DocumentUpload> {
  const [type, ...params] = (request.headers.get("content-type") ?? "").split(";").map((p) => p.trim());
  const mediaType = type!.toLowerCase();
  if (!rule.mediaTypes.includes(mediaType)) {
    throw new UnsupportedMediaType(`The request body must be a file of type ${rule.mediaTypes.join(", ")} (Content-Type).`);
  }
  // what the sender announced: refused at once beyond the limit, else the size of the buffer the body is read into
  const announced = Number(request.headers.get("content-length") ?? Number.NaN);
  if (announced > rule.maxBytes) throw new PayloadTooLarge(rule.maxBytes);
  const bytes = await readBytesLimited(request, rule.maxBytes, announced);
  if (bytes.byteLength === 0) throw ValidationFailed.field("body", "The request body is empty: send the file itself.");
  facts.rawBody = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
  const charset = params.find((p) => /^charset=/i.test(p))?.slice("charset=".length).replace(/"/g, "").trim().toLowerCase() || null;
  return { bytes, mediaType, charset };
}

/** Reads the body as text, refusing (413) once it grows past `limit` bytes. */
async function readLimited(request: Request, limit: number): Promise<string> {
  return new TextDecoder().decode(await readBytesLimited(request, limit));
}

/** Reads the body's bytes, refusing (413) once they grow past `limit`. */
async function readBytesLimited(request: Request, limit: number, announced?: number): Promise<Uint8Array> {
  const bytes = await readAtMost(request.body, limit, announced);
  if (bytes === null) throw new PayloadTooLarge(limit);
  return bytes;
}
