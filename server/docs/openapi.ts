/**
 * The OpenAPI 3.0 document. @elysiajs/swagger reads the route table (the same TypeBox
 * schemas that validate requests); this module completes it once per process: the bearer
 * scheme, each operation's ability, the error responses every operation shares, and the
 * few TypeBox/JSON-Schema constructs OpenAPI 3.0 spells differently (null, const, examples).
 */
import { Elysia } from "elysia";
import { swagger } from "@elysiajs/swagger";
import { stringify } from "yaml";
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import viewer from "./viewer.js" with { type: "file" };
import { IDEMPOTENCY_PARAMETER } from "../http/idempotency.ts";

const RAW_SPEC_PATH = "/docs/openapi.raw.json";

const ERROR_REF = { $ref: "#/components/schemas/Error" };
const VALIDATION_REF = { $ref: "#/components/schemas/ValidationError" };
const errorResponse = (description: string, schema: object = ERROR_REF, headers?: object) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { "application/json": { schema } },
});
const RATE_HEADERS = {
  "X-RateLimit-Limit": { description: "Requests allowed per minute", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in this minute", schema: { type: "integer" } },
};
const STANDARD_ERRORS: Record<string, object> = {
  "400": errorResponse("Malformed JSON body"),
  "401": errorResponse("Missing or invalid token"),
  "403": errorResponse("The token lacks the ability, or the organisation has no api_access"),
  "404": errorResponse("Not found (or another organisation's)"),
  "409": errorResponse("Conflict with the resource's current state"),
  "413": errorResponse("Body larger than 1 MiB"),
  "415": errorResponse("Body is not JSON"),
  "422": errorResponse("Validation error", VALIDATION_REF),
  "429": errorResponse("Rate limit exceeded", ERROR_REF, {
    ...RATE_HEADERS,
    "Retry-After": { description: "Seconds until the next window", schema: { type: "integer" } },
  }),
};
const DESCRIPTIONS: Record<string, string> = { "200": "OK", "201": "Created", "202": "Accepted", "204": "No content", "503": "Unavailable" };

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
    else out[key] = toOpenApiSchema(value);
  }
  for (const union of ["anyOf", "oneOf"] as const) {
    const members = out[union] as Record<string, unknown>[] | undefined;
    if (!Array.isArray(members)) continue;
    const nonNull = members.filter((m) => m.type !== "null");
    if (nonNull.length < members.length) {
      delete out[union];
      if (nonNull.length === 1) Object.assign(out, nonNull[0], { nullable: true });
      else Object.assign(out, { [union]: nonNull, nullable: true });
    }
    // Elysia's numeric coercion for query strings: document it as the integer it is
    const integer = nonNull.find((m) => m.type === "integer");
    if (integer && nonNull.every((m) => m.type === "integer" || m.format === "integer")) {
      delete out[union];
      Object.assign(out, integer);
    }
  }
  if (out.type === "const" || out.const !== undefined) delete out.type;
  return out;
}

function finish(raw: any, version: string) {
  const doc: any = {
    openapi: "3.0.3",
    info: {
      title: "Kontor API",
      version,
      license: { name: "MIT", url: "https://opensource.org/licenses/MIT" },
      description:
        "Self-hosted invoicing and accounting integration API. Every operation under /api/v1 needs a bearer token " +
        "(`Authorization: Bearer <id>|<secret>`) holding the ability named in the operation (`x-ability`).",
    },
    servers: [{ url: "/" }],
    tags: raw.tags,
    paths: {},
    components: {
      securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "`<id>|<secret>` token" } },
      schemas: {
        Error: { type: "object", required: ["message"], properties: { message: { type: "string" } } },
        ValidationError: {
          type: "object",
          required: ["message", "errors"],
          properties: {
            message: { type: "string" },
            errors: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
          },
        },
      },
    },
  };
  for (const [path, operations] of Object.entries<any>(raw.paths)) {
    if (path.startsWith("/docs")) continue;
    const item: Record<string, unknown> = {};
    for (const [method, op] of Object.entries<any>(operations)) {
      const secured = Array.isArray(op.security) ? op.security.length > 0 : false;
      const ability = op["x-ability"] as string | undefined;
      const responses: Record<string, object> = {};
      for (const [code, response] of Object.entries<any>(op.responses ?? {})) {
        if (STANDARD_ERRORS[code]) {
          responses[code] = STANDARD_ERRORS[code]!;
          continue;
        }
        const schema = response?.content?.["application/json"]?.schema;
        responses[code] =
          code === "204" || !schema
            ? { description: DESCRIPTIONS[code] ?? "OK" }
            : { description: DESCRIPTIONS[code] ?? "OK", headers: secured ? RATE_HEADERS : undefined, content: { "application/json": { schema: toOpenApiSchema(schema) } } };
        if (!(responses[code] as any).headers) delete (responses[code] as any).headers;
      }
      if (secured) {
        for (const code of ["401", "403", "429"]) responses[code] ??= STANDARD_ERRORS[code]!;
      } else if (path.startsWith("/api/v1")) responses["429"] ??= STANDARD_ERRORS["429"]!;
      const requestSchema = op.requestBody?.content?.["application/json"]?.schema;
      if (requestSchema) for (const code of ["400", "413", "415", "422"]) responses[code] ??= STANDARD_ERRORS[code]!;
      if (op.parameters?.some((p: any) => p.in === "query")) responses["422"] ??= STANDARD_ERRORS["422"]!;
      if (path.includes("{")) responses["404"] ??= STANDARD_ERRORS["404"]!;

      const parameters = (op.parameters ?? []).map((p: any) => {
        const { examples, ...rest } = p;
        return { ...rest, schema: toOpenApiSchema(p.schema) };
      });
      // every POST takes an Idempotency-Key (server/http/idempotency.ts): a reused key is a 422, one in flight a 409
      if (method === "post" && secured) {
        parameters.push(IDEMPOTENCY_PARAMETER);
        for (const code of ["409", "422"]) responses[code] ??= STANDARD_ERRORS[code]!;
      }
      const description = [ability ? `**Ability:** \`${ability === "any" ? "any valid token" : ability}\`` : null, op.description]
        .filter(Boolean)
        .join("\n\n");
      item[method] = {
        operationId: op.operationId,
        summary: op.summary,
        ...(description ? { description } : {}),
        tags: op.tags,
        ...(ability ? { "x-ability": ability } : {}),
        security: secured ? [{ bearerAuth: [] }] : [],
        ...(parameters.length ? { parameters } : {}),
        ...(requestSchema
          ? { requestBody: { required: true, content: { "application/json": { schema: toOpenApiSchema(requestSchema) } } } }
          : {}),
        responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
      };
    }
    doc.paths[path] = item;
  }
  return doc;
}

export const docsRoutes = (version: string, root: () => { handle: (r: Request) => Promise<Response> }) => {
  let cached: { json: string; yaml: string } | null = null;
  return new Elysia({ name: "kontor-docs" })
    .use(
      swagger({
        path: "/docs",
        specPath: RAW_SPEC_PATH,
        provider: "scalar",
        // the page's single script is Kontor's own viewer, which loads the bundled Swagger UI
        scalarCDN: "/docs/assets/viewer.js",
        documentation: {
          info: { title: "Kontor API", version, description: "Kontor API reference" },
          tags: [
            { name: "Meta", description: "Index, health and the lists of abilities and webhook events" },
            { name: "Tokens", description: "Personal and organisation API tokens" },
            { name: "Customers", description: "Customers and their contact persons" },
            { name: "Suppliers", description: "Suppliers, matched from expense vendors" },
            { name: "Invoices", description: "Invoices, credit notes, their lines, payments and state transitions" },
            { name: "VAT rates", description: "The organisation's VAT rates" },
            { name: "Expenses", description: "Expenses and their approval workflow" },
            { name: "Accounts", description: "The chart of accounts (read-only)" },
            { name: "Bank accounts", description: "Bank accounts (read-only)" },
            { name: "Webhooks", description: "Webhook subscriptions and their deliveries" },
            { name: "Audit log", description: "Every change, who made it and when" },
          ],
        },
      }),
    )
    .get("/docs/openapi.json", async ({ request }) => new Response((await load(request)).json, { headers: { "content-type": "application/json" } }), {
      detail: { hide: true },
    })
    .get("/docs/openapi.yaml", async ({ request }) => new Response((await load(request)).yaml, { headers: { "content-type": "application/yaml" } }), {
      detail: { hide: true },
    })
    .get("/docs/assets/viewer.js", () => asset(viewer, "text/javascript"), { detail: { hide: true } })
    .get("/docs/assets/swagger-ui-bundle.js", () => asset(swaggerBundle, "text/javascript"), { detail: { hide: true } })
    .get("/docs/assets/swagger-ui.css", () => asset(swaggerCss, "text/css"), { detail: { hide: true } });

  async function load(request: Request) {
    if (cached) return cached;
    const origin = new URL(request.url).origin;
    const raw = await (await root().handle(new Request(`${origin}${RAW_SPEC_PATH}`))).json();
    const doc = finish(raw, version);
    cached = { json: JSON.stringify(doc, null, 2), yaml: stringify(doc, { aliasDuplicateObjects: false }) };
    return cached;
  }
};

function asset(path: string, type: string): Response {
  return new Response(Bun.file(path), { headers: { "content-type": type, "cache-control": "public, max-age=86400" } });
}
