/**
 * The OpenAPI 3.0 document, built once per process from the route table: the same TypeBox
 * schemas that validate requests. @elysiajs/swagger's utilities map paths and parameters; this
 * module adds what the route table does not say: the bearer scheme, each operation's ability,
 * operationId and description, the error responses and headers operations share, named schemas
 * as components (every schema with a `title`, see `named` in server/lib/schemas.ts), and the few
 * TypeBox/JSON-Schema constructs OpenAPI 3.0 spells differently (null, const, examples).
 *
 * One document is served, /docs/openapi.json and the same as YAML. The plugin's own route
 * (which served its unfinished, invalid document beside it) and its page are not used: /docs is
 * a page of our own that loads Kontor's copy of Swagger UI.
 */
import { Elysia } from "elysia";
import { mapProperties, toOpenAPIPath } from "@elysiajs/swagger/utils";
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import viewer from "./viewer.js" with { type: "file" };
import { IDEMPOTENCY_PARAMETER } from "../http/idempotency.ts";
import { documentRuleOf } from "../http/kernel.ts";
import { ErrorCodeField } from "../lib/schemas.ts";

/** A route as the app's route table holds it (`app.routes`). */
export type RouteEntry = { method: string; path: string; hooks: Record<string, any> };

/** Every tag an operation names, declared (tests/openapi/openapi.test.ts checks), in the order the reference shows them. */
const TAGS = [
  { name: "Meta", description: "Index, health and the lists of abilities and webhook events" },
  { name: "Organization", description: "The organisation's identity: the seller on its invoices (name, address, VAT number, bank account)" },
  { name: "Tokens", description: "Personal and organisation API tokens" },
  { name: "Customers", description: "Customers and their contact persons" },
  { name: "Suppliers", description: "Suppliers, matched from expense vendors" },
  { name: "Invoices", description: "Invoices, credit notes, their lines, payments and state transitions" },
  { name: "Recurring invoices", description: "Templates that generate an invoice per period, exactly once (docs/recurring.md)" },
  { name: "VAT rates", description: "The organisation's VAT rates" },
  { name: "Expenses", description: "Expenses and their approval workflow" },
  { name: "Received documents", description: "Valid supplier e-invoices with nothing to book (all totals 0.00), kept byte for byte" },
  { name: "Accounts", description: "The chart of accounts (read-only) and the expense account each expense category posts to" },
  { name: "Bank accounts", description: "Bank accounts (read-only) and their imported statements" },
  { name: "Bank transactions", description: "Lines of imported bank statements and their reconciliation" },
  { name: "Payment runs", description: "Paying approved expenses with a SEPA credit transfer file (pain.001.001.09)" },
  { name: "Journal", description: "The double-entry journal: entries posted by documents and payments, manual entries, reversals and the export (CSV, Beancount)" },
  { name: "Fiscal years", description: "Fiscal years: closing one (no more postings dated in it) and reopening it" },
  { name: "Reports", description: "Trial balance, profit and loss, balance sheet, aged receivables and VAT, as JSON or CSV" },
  { name: "VAT returns", description: "The Belgian periodic VAT return: its grids and sources, its Intervat XML, and filing it" },
  { name: "Listings", description: "The Belgian annual client listing and intra-Community listing, as JSON or as the Intervat XML to file" },
  { name: "Webhooks", description: "Webhook subscriptions and their deliveries" },
  { name: "Audit log", description: "Every change, who made it and when" },
  { name: "Events", description: "Every change in commit order, as webhooks carry it: the feed a connector syncs from" },
  { name: "Reminders", description: "The reminder policy, payment reminders sent by the daily run, and pausing them per invoice" },
];

const ref = (kind: "schemas" | "responses" | "headers" | "parameters", name: string) => ({ $ref: `#/components/${kind}/${name}` });

const integer = { type: "integer" };
const HEADERS: Record<string, object> = {
  "X-RateLimit-Limit": { description: "Requests allowed per minute", required: true, schema: integer },
  "X-RateLimit-Remaining": { description: "Requests left in this minute", required: true, schema: integer },
  "X-RateLimit-Reset": { description: "When the budget is full again: Unix epoch seconds (as GitHub's API says it)", required: true, schema: integer },
  ETag: {
    description: "A strong validator of the JSON body (a gzip-coded body: the same tag ending -gzip); send it back as If-None-Match for a 304",
    required: false,
    schema: { type: "string" },
  },
  "Retry-After": { description: "Seconds until the next window", required: true, schema: integer },
  "X-Request-Id": {
    description: "The request's id: the client's X-Request-Id when it sent a plain one (1–128 of A–Z a–z 0–9 . _ : -), else a new UUID; in the log line and the audit entry too",
    required: true,
    schema: { type: "string" },
  },
  Location: { description: "The path of the resource created (record-payment: of the invoice)", required: true, schema: { type: "string" } },
  "Content-Disposition": {
    description:
      'attachment, named after the document\'s number (a draft\'s provisional DRAFT-…): `attachment; filename="INV-2026-00001.pdf"`. ' +
      "Characters other than letters, digits, . _ - become _; a name that is not all ASCII also comes as `filename*=UTF-8''…` (RFC 6266, RFC 8187)",
    required: true,
    schema: { type: "string" },
  },
};

/** The error responses operations share, as components.responses; all of them are /api/v1's. */
const ERRORS: Record<string, { name: string; description: string; validation?: true; retryAfter?: true }> = {
  "400": { name: "BadRequest", description: "Malformed JSON body" },
  "401": { name: "Unauthenticated", description: "Missing or invalid token" },
  "403": { name: "Forbidden", description: "The token lacks the ability, or the organisation has no api_access" },
  "404": { name: "NotFound", description: "Not found (or another organisation's)" },
  "410": {
    name: "EventsExpired",
    description: "`events_expired`: events after this position were removed after the retention period; the message says how to copy everything again",
  },
  "409": { name: "Conflict", description: "Conflict with the resource's current state, or an Idempotency-Key still in use" },
  "413": { name: "PayloadTooLarge", description: "Body larger than 1 MiB" },
  "415": { name: "UnsupportedMediaType", description: "Body is not JSON" },
  "422": { name: "ValidationFailed", description: "Validation error", validation: true },
  "429": { name: "TooManyRequests", description: "Rate limit exceeded", retryAfter: true },
};
const DESCRIPTIONS: Record<string, string> = { "200": "OK", "201": "Created", "202": "Accepted", "204": "No content", "503": "Unavailable" };

/**
 * operationIds are verb phrases, derived from method and path (`GET /invoices` listInvoices,
 * `GET /invoices/{id}` getInvoice, `POST /invoices/{id}/record-payment` recordInvoicePayment,
 * `GET /customers/{id}/contact-persons` listCustomerContactPersons); a GET is `list…` only when
 * it answers a list (`data` an array), else `get…` (`GET /reminder-policy` getReminderPolicy).
 * These are the paths the rule does not read well; docs/api.md#operation-names lists the renames.
 */
const OPERATION_IDS: Record<string, string> = {
  "GET /health": "checkHealth",
  "GET /api/v1": "getApiIndex",
  "GET /api/v1/meta/abilities": "listAbilities",
  "GET /api/v1/meta/webhook-events": "listWebhookEvents",
  "GET /api/v1/audit-log": "listAuditEntries",
  "GET /api/v1/events": "listEvents",
  "GET /api/v1/events/{id}": "getEvent",
  "DELETE /api/v1/tokens/{id}": "revokeToken",
  "DELETE /api/v1/org-tokens/{id}": "revokeOrgToken",
  "POST /api/v1/invoices/{id}/credit-note": "createInvoiceCreditNote",
  "POST /api/v1/invoices/{id}/interest-note": "createInvoiceInterestNote",
  "PUT /api/v1/invoices/{id}/reminders-pause": "setInvoiceRemindersPaused",
  "POST /api/v1/customers/batch": "createCustomerBatch",
  "POST /api/v1/invoices/batch": "createInvoiceBatch",
  "PUT /api/v1/organization": "updateOrganization",
  "GET /api/v1/journal-entries/export": "exportJournalEntries",
  "POST /api/v1/journal-entries/{id}/reverse": "reverseJournalEntry",
  "PUT /api/v1/expense-categories/{category}": "mapExpenseCategory",
  "DELETE /api/v1/expense-categories/{category}": "unmapExpenseCategory",
  "POST /api/v1/fiscal-years/{year}/close": "closeFiscalYear",
  "POST /api/v1/fiscal-years/{year}/reopen": "reopenFiscalYear",
  "POST /api/v1/bank-accounts/{id}/statements": "importBankStatement",
  "GET /api/v1/received-documents/{id}/document": "getReceivedDocumentOriginal",
  "GET /api/v1/reminders/preview": "previewReminders",
  "GET /api/v1/reports/trial-balance": "getTrialBalanceReport",
  "GET /api/v1/reports/profit-and-loss": "getProfitAndLossReport",
  "GET /api/v1/reports/balance-sheet": "getBalanceSheetReport",
  "GET /api/v1/reports/aged-receivables": "getAgedReceivablesReport",
  "GET /api/v1/reports/vat": "getVatReport",
  "GET /api/v1/listings/clients/{year}": "getClientListing",
  "GET /api/v1/listings/clients/{year}/xml": "getClientListingXml",
  "GET /api/v1/listings/intra-community/{period}": "getIntraCommunityListing",
  "GET /api/v1/listings/intra-community/{period}/xml": "getIntraCommunityListingXml",
};

const pascal = (segment: string) => segment.split("-").map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");
const singular = (segment: string) => (segment.endsWith("ies") ? `${segment.slice(0, -3)}y` : segment.endsWith("s") ? segment.slice(0, -1) : segment);

/**
 * A segment is a collection when it is listed (a GET on it) or followed by an id; a last
 * segment that is neither is an action (finalize, record-payment): verb, then the resource.
 * `lists` says whether the operation answers a list (a GET's `data` is an array).
 */
export function operationId(method: string, path: string, collections: ReadonlySet<string>, lists = false): string {
  const exception = OPERATION_IDS[`${method.toUpperCase()} ${path}`];
  if (exception) return exception;
  const segments = path.replace(/^\/api\/v1/, "").split("/").filter(Boolean);
  const last = segments.at(-1);
  if (!last) throw new Error(`OpenAPI: no operationId rule for ${method} ${path}`);
  const nouns: string[] = [];
  let prefix = "/api/v1";
  for (const [i, segment] of segments.entries()) {
    prefix += `/${segment}`;
    if (segment.startsWith("{")) continue;
    if (i === segments.length - 1 && !collections.has(prefix)) {
      const [verb, ...rest] = segment.split("-");
      return `${verb}${nouns.join("")}${rest.map(pascal).join("")}`;
    }
    nouns.push(pascal(singular(segment)));
  }
  const m = method.toLowerCase();
  if (!last.startsWith("{")) {
    // a list keeps its plural (listInvoices); a single thing at a fixed path its own name (getReminderPolicy, getInvoicePdf)
    if (m === "get") return `${lists ? "list" : "get"}${nouns.slice(0, -1).join("")}${pascal(last)}`;
    if (m === "post") return `create${nouns.join("")}`;
  }
  const verb = { get: "get", put: "update", patch: "update", delete: "delete" }[m];
  if (!verb) throw new Error(`OpenAPI: no operationId rule for ${method} ${path}`);
  return `${verb}${nouns.join("")}`;
}

/** Rewrites JSON-Schema constructs into their OpenAPI 3.0 spelling, recursively. */
export function toOpenApiSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toOpenApiSchema);
  if (!node || typeof node !== "object") return node;
  const input = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === "examples" && Array.isArray(value)) out.example = value[0];
    else if (key === "const") out.enum = [value];
    else if (key === "patternProperties" && value && typeof value === "object") {
      out.additionalProperties = toOpenApiSchema(Object.values(value)[0]);
    } else if (key === "default" && value === 0 && input.format === "integer") continue;
    // run-time switches and the documented-only keywords (merged below) are not schema
    else if (key === "noValidate" || key === "x-param" || key === "x-openapi" || key === "x-alternatives" || key === "x-one-of") continue;
    else out[key] = toOpenApiSchema(value);
  }
  for (const union of ["anyOf", "oneOf"] as const) {
    const members = out[union] as Record<string, unknown>[] | undefined;
    if (!Array.isArray(members)) continue;
    const nonNull = members.filter((m) => m.type !== "null");
    if (nonNull.length < members.length) {
      delete out[union];
      if (nonNull.length === 1) {
        Object.assign(out, nonNull[0], { nullable: true });
        // OpenAPI 3.0.3: `nullable` does not widen an `enum`; null must be one of its values
        if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
      }
      else Object.assign(out, { [union]: nonNull, nullable: true });
    }
    // Elysia's numeric coercion for query strings: document it as the integer it is
    const integer = nonNull.find((m) => m.type === "integer");
    if (integer && nonNull.every((m) => m.type === "integer" || m.format === "integer")) {
      delete out[union];
      Object.assign(out, integer);
    }
  }
  // a union whose members exclude one another (`"x-one-of": true`, e.g. a batch result by status, or a
  // discriminator, e.g. an event by its type): oneOf says so to generators
  if ((input["x-one-of"] === true || input.discriminator) && Array.isArray(out.anyOf)) {
    out.oneOf = out.anyOf;
    delete out.anyOf;
  }
  if (out.type === "const" || out.const !== undefined) delete out.type;
  // keywords the server checks in code of its own (`documented` in server/lib/schemas.ts)
  if (input["x-openapi"] && typeof input["x-openapi"] === "object") Object.assign(out, input["x-openapi"]);
  return out;
}

/**
 * The schema without `default`s, which TypeBox's `t.UnionEnum` gives every enumeration (its
 * first value) and Elysia fills into absent request fields. In a response a default means
 * nothing (the server sends the field), and on an optional request field client generators
 * (openapi-typescript) make the field required; the server fills it itself, so the default is
 * said in the field's description instead (unless the description says it already).
 */
function withoutDefaults(node: unknown, use: "request" | "response", optional = false): unknown {
  if (Array.isArray(node)) return node.map((n) => withoutDefaults(n, use));
  if (!node || typeof node !== "object") return node;
  const { default: value, ...out } = node as Record<string, unknown>;
  if (value !== undefined && use === "request" && optional && !/\bdefault\b/i.test(String(out.description ?? ""))) {
    const said = out.description ? `${String(out.description).replace(/\.?$/, ".")} ` : "";
    out.description = `${said}Default: \`${typeof value === "string" ? value : JSON.stringify(value)}\`.`;
  }
  if (out.properties && typeof out.properties === "object") {
    const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([name, sub]) => [name, withoutDefaults(sub, use, !required.has(name))]));
  }
  for (const key of ["items", "additionalProperties", "not", "anyOf", "oneOf", "allOf"]) if (out[key] && typeof out[key] === "object") out[key] = withoutDefaults(out[key], use);
  return out;
}

/** JSON with sorted keys: two schemas are the same when these are equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * Replaces every schema with a title, innermost first, by a `$ref` to the component of that
 * name. Walks subschemas only (an example or a property named "title" is not a schema). Two
 * different schemas under one name would make one of them wrong in every client: that throws.
 */
function hoist(node: unknown, components: Record<string, unknown>): unknown {
  if (!node || typeof node !== "object" || Array.isArray(node)) return node;
  const out: Record<string, unknown> = { ...(node as Record<string, unknown>) };
  if (out.properties && typeof out.properties === "object") {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([name, sub]) => [name, hoist(sub, components)]));
  }
  for (const key of ["items", "additionalProperties", "not"]) if (out[key] && typeof out[key] === "object") out[key] = hoist(out[key], components);
  for (const key of ["anyOf", "oneOf", "allOf"]) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((s) => hoist(s, components));
  if (typeof out.title !== "string") return out;
  const { title: name, ...schema } = out;
  const existing = components[name as string];
  if (existing !== undefined && canonical(existing) !== canonical(schema)) {
    throw new Error(`OpenAPI: two different schemas are named ${name}`);
  }
  components[name as string] = schema;
  return ref("schemas", name as string);
}

/** A 200 whose `data` is an array: a list (listInvoices), not a single thing (getReminderPolicy). */
const answersList = (schema: any) => schema?.properties?.data?.type === "array";
const isVoid = (schema: any) => !schema || ["void", "undefined", "null"].includes(schema.type);
const OPTIONAL = Symbol.for("TypeBox.Optional");
const KIND = Symbol.for("TypeBox.Kind");

/** The document for the routes of the app (its route table, `app.routes`). */
export function buildDocument(routes: readonly RouteEntry[], version: string) {
  const schemas: Record<string, unknown> = {
    // not `Error`: generated clients (hey-api, orval) would shadow the language's own Error class
    ApiError: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: toOpenApiSchema(ErrorCodeField),
        message: { type: "string" },
        holder_id: { type: "string", description: "On a 409 for a taken external_id: the id of the resource that holds it" },
      },
    },
    ValidationError: {
      type: "object",
      required: ["code", "message", "errors"],
      properties: {
        code: toOpenApiSchema(ErrorCodeField),
        message: { type: "string" },
        errors: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
      },
    },
  };
  const responses: Record<string, unknown> = {};
  const headers: Record<string, unknown> = {};
  const schema = (typebox: unknown, use: "request" | "response") => hoist(withoutDefaults(toOpenApiSchema(typebox), use), schemas);
  const header = (name: string) => {
    headers[name] = HEADERS[name];
    return ref("headers", name);
  };
  /** Every response under /api/v1 carries them, errors included (the kernel sets them before anything else). */
  const rateHeaders = () => ({
    "X-RateLimit-Limit": header("X-RateLimit-Limit"),
    "X-RateLimit-Remaining": header("X-RateLimit-Remaining"),
    "X-RateLimit-Reset": header("X-RateLimit-Reset"),
    "X-Request-Id": header("X-Request-Id"),
  });
  const errorResponse = (code: string) => {
    const error = ERRORS[code]!;
    responses[error.name] ??= {
      description: error.description,
      headers: { ...rateHeaders(), ...(error.retryAfter ? { "Retry-After": header("Retry-After") } : {}) },
      content: { "application/json": { schema: ref("schemas", error.validation ? "ValidationError" : "ApiError") } },
    };
    return ref("responses", error.name);
  };

  const documented = routes.filter((r) => !r.hooks.detail?.hide && (r.path.startsWith("/api/v1") || r.path === "/health"));
  const paths = documented.map((r) => toOpenAPIPath(r.path));
  // for operationId: a collection is listed (a GET not ending in an id) or followed by an id
  const collections = new Set<string>();
  for (const [i, path] of paths.entries()) {
    if (documented[i]!.method === "GET" && !path.endsWith("}")) collections.add(path);
    for (const m of path.matchAll(/\/\{[^}]+\}/g)) collections.add(path.slice(0, m.index));
  }
  const operationIds = new Set<string>();
  const doc: any = {
    openapi: "3.0.3",
    info: {
      title: "Kontor API",
      version,
      // self-hosted: whoever runs the server answers for its API
      contact: { name: "The administrators of this Kontor server" },
      license: { name: "MIT", url: "https://opensource.org/licenses/MIT" },
      description:
        "Self-hosted invoicing and accounting integration API. Every operation under /api/v1 needs a bearer token " +
        "(`Authorization: Bearer <id>|<secret>`) holding the ability named in the operation (`x-ability`). Every " +
        "response under /api/v1, errors included, carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`. " +
        "JSON answers of 1 KiB or more are gzip-compressed for a client that sends `Accept-Encoding: gzip`; a GET's JSON 200 carries an " +
        "`ETag`, and `If-None-Match` with it answers 304 without a body. Every error body has a stable `code`.",
    },
    servers: [{ url: "/" }],
    tags: TAGS,
    paths: {} as Record<string, Record<string, unknown>>,
  };

  for (const [i, route] of documented.entries()) {
    const path = paths[i]!;
    const method = route.method.toLowerCase();
    const hooks = route.hooks;
    const detail = hooks.detail ?? {};
    const api = path.startsWith("/api/v1");
    const secured = Array.isArray(detail.security) && detail.security.length > 0;
    const ability = detail["x-ability"] as string | undefined;

    const declared: Record<string, unknown> = hooks.response && KIND in hooks.response ? { 200: hooks.response } : (hooks.response ?? {});
    const out: Record<string, unknown> = {};
    for (const [code, body] of Object.entries(declared)) {
      if (ERRORS[code]) {
        out[code] = errorResponse(code);
        continue;
      }
      const json = !isVoid(body) && mediaTypeOf(body) === "application/json";
      const responseHeaders = {
        ...(api ? rateHeaders() : {}),
        ...(method === "get" && code === "200" && json ? { ETag: header("ETag") } : {}),
        ...(code === "201" ? { Location: header("Location") } : {}),
        // an upload that found every import slot busy (server/lib/import-slots.ts)
        ...(api && code === "503" ? { "Retry-After": header("Retry-After") } : {}),
        ...(isAttachment(body) ? { "Content-Disposition": header("Content-Disposition") } : {}),
      };
      out[code] = {
        description: DESCRIPTIONS[code] ?? "OK",
        ...(Object.keys(responseHeaders).length ? { headers: responseHeaders } : {}),
        ...(code === "204" || isVoid(body) ? {} : { content: { [mediaTypeOf(body)]: { schema: schema(body, "response") }, ...alternativesOf(body) } }),
      };
    }
    const errorCodes: string[] = [];
    if (secured) errorCodes.push("401", "403", "429");
    else if (api) errorCodes.push("429");
    const body = hooks.body;
    if (body) errorCodes.push("400", "413", "415", "422");
    if (hooks.query) errorCodes.push("422");
    if (path.includes("{")) errorCodes.push("404");
    const parameters: object[] = [...mapProperties("path", hooks.params, {}), ...mapProperties("query", hooks.query, {})].map(
      ({ examples, description, ...p }) => {
        // said once, on the parameter
        const { description: inSchema, ...paramSchema } = toOpenApiSchema(p.schema) as Record<string, unknown>;
        return { ...p, ...(description ?? inSchema ? { description: description ?? inSchema } : {}), schema: paramSchema };
      },
    );
    // parameters a schema cannot say by its properties (`filter[metadata]`, deepObject: server/lib/list.ts)
    parameters.push(...((hooks.query?.["x-query-parameters"] as object[] | undefined) ?? []));
    for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
      if (!parameters.some((p: any) => p.in === "path" && p.name === name)) parameters.unshift({ name, in: "path", required: true, schema: { type: "string" } });
    }
    // every POST takes an Idempotency-Key (server/http/idempotency.ts): a reused key is a 422, one in flight a 409
    if (method === "post" && secured) {
      parameters.push(ref("parameters", "IdempotencyKey"));
      errorCodes.push("409", "422");
    }
    for (const code of errorCodes) out[code] ??= errorResponse(code);
    // the kernel's conditional GET (server/http/representation.ts)
    if (out["200"] && (out["200"] as { headers?: Record<string, unknown> }).headers?.ETag) {
      out["304"] = { description: "Not modified: the If-None-Match ETag is current; no body", headers: { ...(api ? rateHeaders() : {}), ETag: header("ETag") } };
    }

    const id = operationId(method, path, collections, answersList(declared["200"]));
    if (operationIds.has(id)) throw new Error(`OpenAPI: two operations are named ${id}`);
    operationIds.add(id);
    const description = [detail.description, ability ? `**Ability:** \`${ability === "any" ? "any valid token" : ability}\`` : null]
      .filter(Boolean)
      .join("\n\n");
    if (!description) throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} has no description`);
    doc.paths[path] ??= {};
    doc.paths[path][method] = {
      operationId: id,
      summary: detail.summary,
      description,
      tags: detail.tags,
      ...(ability ? { "x-ability": ability } : {}),
      security: secured ? [{ bearerAuth: [] }] : [],
      ...(parameters.length ? { parameters } : {}),
      // actions without fields take an optional body (`NoFields`)
      ...(body ? { requestBody: { required: !(OPTIONAL in body), content: requestContent(body, (typebox) => schema(typebox, "request")) } } : {}),
      responses: Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b))),
    };
  }
  const webhooks = webhookDeliveries(documented, (typebox) => schema(typebox, "response"));
  if (webhooks) doc["x-webhooks"] = webhooks;
  doc.components = {
    securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "`<id>|<secret>` token" } },
    schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
    responses,
    headers,
    parameters: { IdempotencyKey: IDEMPOTENCY_PARAMETER, ...shareQueryParameters(doc.paths) },
  };
  return doc;
}

/**
 * The webhook deliveries, under the `x-webhooks` extension (OpenAPI 3.0 has no `webhooks`; 3.1's
 * has the same shape): one POST per event name, its body the event's envelope, with the headers
 * every delivery carries. A route declares the events it also delivers as `detail["x-webhooks"]`
 * (name → body schema); the headers and their meaning are those of docs/webhooks.md.
 */
function webhookDeliveries(routes: readonly RouteEntry[], schema: (typebox: unknown) => unknown): Record<string, unknown> | null {
  const declared = routes.map((r) => r.hooks.detail?.["x-webhooks"] as Record<string, unknown> | undefined).find(Boolean);
  if (!declared) return null;
  const header = (name: string, description: string, example?: string) => ({
    name,
    in: "header",
    required: true,
    description,
    schema: { type: "string", ...(example ? { example } : {}) },
  });
  const parameters = [
    header("webhook-id", "Standard Webhooks: the event's id, the body's `id`. The same on every attempt, replay and subscribed webhook: de-duplicate on it", "1042"),
    header("webhook-timestamp", "Standard Webhooks: this attempt's time, Unix epoch seconds (refuse old ones to stop replays)", "1764148323"),
    header("webhook-signature", "Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the bytes the secret after `whsec_` decodes to"),
    header("X-Webhook-Id", "The delivery's id (one per event and webhook): the same on every attempt and replay of this delivery; its log is GET /api/v1/webhooks/{id}/deliveries/{delivery id}"),
    header("X-Webhook-Event", "The event name, as the body's `type`", "invoice.finalized"),
    header("X-Webhook-Signature", "Hex HMAC-SHA256 of the raw body, keyed with the whole secret (`whsec_…`) as text (docs/webhooks.md#verifying-a-delivery)"),
    header("User-Agent", "`Kontor-Webhook/1.0`", "Kontor-Webhook/1.0"),
  ];
  return Object.fromEntries(
    Object.entries(declared).map(([name, body]) => [
      name,
      {
        post: {
          // what the receiver implements: receiveInvoiceFinalizedEvent
          operationId: `receive${name.split(/[._]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("")}Event`,
          summary: `Delivery of ${name}`,
          description: `Sent to every active webhook subscribed to \`${name}\`: the same object as the event in GET /api/v1/events and GET /api/v1/events/{id} (docs/webhooks.md).`,
          tags: ["Webhooks"],
          // signed with the webhook's secret (the headers below), not sent with a token
          security: [],
          parameters,
          requestBody: { required: true, content: { "application/json": { schema: schema(body) } } },
          responses: {
            "200": { description: "Any 2xx answer acknowledges the delivery; anything else, a redirect or no answer within the timeout is retried (docs/webhooks.md#retries)" },
          },
        },
      },
    ]),
  );
}

/**
 * A query parameter that is the same in every operation that has it (page, per_page,
 * filter[updated_since], …) becomes one component (`Page`, `PerPage`, `FilterUpdatedSince`);
 * those that differ per list (sort, filter[status]) stay in their operations.
 */
function shareQueryParameters(paths: Record<string, Record<string, { parameters?: any[] }>>): Record<string, unknown> {
  const uses = new Map<string, { forms: Set<string>; count: number; parameter: unknown }>();
  const operations = Object.values(paths).flatMap((item) => Object.values(item));
  for (const p of operations.flatMap((op) => op.parameters ?? [])) {
    if (p.in !== "query") continue;
    const use = uses.get(p.name) ?? { forms: new Set<string>(), count: 0, parameter: p };
    use.forms.add(canonical(p));
    use.count++;
    uses.set(p.name, use);
  }
  const shared: Record<string, unknown> = {};
  for (const [name, use] of uses) {
    if (use.forms.size !== 1 || use.count < 2) continue;
    const component = name.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join("");
    shared[component] = use.parameter;
    for (const op of operations) op.parameters = op.parameters?.map((p) => (p.in === "query" && p.name === name ? ref("parameters", component) : p));
  }
  return shared;
}

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Kontor API</title>
  </head>
  <body>
    <script src="/docs/assets/viewer.js"></script>
  </body>
</html>
`;

/** The two texts of the document as it is served; the YAML written on first use (it takes about half a second, and the YAML library is loaded then). */
export type ServedDocument = { readonly json: string; yaml(): Promise<string> };

let served: ServedDocument | null = null;

/**
 * The document of the app's routes, built by the first app of the process as it is created,
 * before it can answer anything, and served unchanged by every app of the process from then on.
 * Built later it would describe what requests had done to the schemas: Elysia compiles a route
 * on its first request and, doing so, writes `additionalProperties: false` into each top-level
 * object schema that does not say (`getSchemaValidator`), so a document built after
 * `GET /org-tokens` and before `GET /tokens` had two different `TokenList` schemas (a 500 until
 * restart), and two threads could serve two documents. Once per process, not per app: the
 * schemas are module constants every app of the process shares (the tests make many apps).
 */
export function servedDocument(routes: readonly RouteEntry[], version: string): ServedDocument {
  if (served) return served;
  const json = JSON.stringify(buildDocument(routes, version), null, 2);
  // the JSON's own values (no undefined, no shared object), so the YAML cannot say anything else
  const document = deepFreeze(JSON.parse(json));
  let yaml: Promise<string> | null = null;
  served = { json, yaml: () => (yaml ??= import("./yaml.ts").then(({ toYaml }) => toYaml(document))) };
  return served;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** The page, its assets and the document (`document`: built by `servedDocument` when the app is created). */
export const docsRoutes = (document: () => ServedDocument) => {
  const hidden = { detail: { hide: true } };
  return new Elysia({ name: "kontor-docs" })
    .get("/docs", () => new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }), hidden)
    .get("/docs/openapi.json", () => new Response(document().json, { headers: { "content-type": "application/json" } }), hidden)
    .get("/docs/openapi.yaml", async () => new Response(await document().yaml(), { headers: { "content-type": "application/yaml" } }), hidden)
    .get("/docs/assets/viewer.js", () => asset(viewer, "text/javascript"), hidden)
    .get("/docs/assets/swagger-ui-bundle.js", () => asset(swaggerBundle, "text/javascript"), hidden)
    .get("/docs/assets/swagger-ui.css", () => asset(swaggerCss, "text/css"), hidden);
};

function asset(path: string, type: string): Response {
  return new Response(Bun.file(path), { headers: { "content-type": type, "cache-control": "public, max-age=86400" } });
}

/**
 * The other media types a response is also served in, by the request's Accept header
 * (`x-alternatives` on the schema: media type → what that form holds), e.g. a report as CSV.
 */
function alternativesOf(body: unknown): Record<string, { schema: object }> {
  const alternatives = ((body as Record<string, unknown>)["x-alternatives"] ?? {}) as Record<string, string>;
  return Object.fromEntries(Object.entries(alternatives).map(([type, description]) => [type, { schema: { type: "string", description } }]));
}

/**
 * A request body's media types and schema: JSON, or the file types of a `documentBody` (an
 * e-invoice, a bank statement), each with the schema of a binary string.
 */
function requestContent(body: unknown, schema: (typebox: unknown) => unknown): Record<string, { schema: unknown }> {
  const rule = documentRuleOf(body);
  if (!rule) return { "application/json": { schema: schema(body) } };
  const { description } = body as { description?: string };
  const binary = { type: "string", format: "binary", ...(description ? { description } : {}) };
  return Object.fromEntries(rule.mediaTypes.map((type) => [type, { schema: binary }]));
}

/** A response that is a file to save (`x-attachment`: an invoice's PDF and UBL), sent with its Content-Disposition. */
function isAttachment(body: unknown): boolean {
  return (body as Record<string, unknown> | undefined)?.["x-attachment"] === true;
}

/** A response schema's media type: JSON unless it says otherwise (`x-media-type`, e.g. a PDF). */
function mediaTypeOf(body: unknown): string {
  return ((body as Record<string, unknown>)["x-media-type"] as string | undefined) ?? "application/json";
}
