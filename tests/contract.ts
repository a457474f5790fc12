/**
 * Contract check: every response the test suite sees is validated against the OpenAPI
 * document the server publishes (/docs/openapi.json), so the document and the server
 * cannot drift. Hooked into tests/helpers.ts `request`; a mismatch fails the test that
 * made the request, naming the operation, the status and the schema errors. Objects are
 * checked closed: a field the document does not describe is a mismatch too.
 */
import Ajv, { type ValidateFunction } from "ajv";
import addFormats from "ajv-formats";

type Operation = { pattern: RegExp; path: string; method: string; responses: Record<string, any> };

export type ContractChecker = (method: string, url: string, status: number, body: unknown, contentType: string, headers?: Headers) => void;

let loaded: Promise<{ operations: Operation[]; validators: Map<string, ValidateFunction>; ajv: Ajv; doc: any }> | null = null;

/** The published OpenAPI document, loaded once per test process. */
export function openApiDocument(handle: (request: Request) => Promise<Response>): Promise<any> {
  return load(handle).then((l) => l.doc);
}

function load(handle: (request: Request) => Promise<Response>) {
  loaded ??= (async () => {
    const doc: any = await (await handle(new Request("http://localhost/docs/openapi.json"))).json();
    // OpenAPI 3.0 `nullable` is understood by Ajv; `example(s)` and x-* are annotations
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    // responses are checked closed (closeObjects): the shared components too
    const components = { ...doc.components, schemas: Object.fromEntries(Object.entries<any>(doc.components?.schemas ?? {}).map(([name, schema]) => [name, closeObjects(schema)])) };
    ajv.addSchema({ $id: "openapi", components }, "openapi");
    const operations: Operation[] = [];
    // shared error responses are components (`#/components/responses/NotFound`)
    const response = (r: any) => (typeof r?.$ref === "string" ? doc.components.responses[r.$ref.split("/").pop()] : r);
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const pattern = new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`);
      for (const [method, op] of Object.entries<any>(item)) {
        const responses = Object.fromEntries(Object.entries<any>(op.responses).map(([code, r]) => [code, response(r)]));
        operations.push({ pattern, path, method: method.toUpperCase(), responses });
      }
    }
    return { operations, validators: new Map<string, ValidateFunction>(), ajv, doc };
  })();
  return loaded;
}

/**
 * A response schema as the check reads it: every object schema that lists its properties and
 * says nothing about others gets `additionalProperties: false`, so a field the document does
 * not describe (a leaked `secret`, a renamed field) fails the check instead of passing. Objects
 * that declare `additionalProperties` themselves (a free-form payload, a map) keep it. Walks the
 * subschema keywords only, so a property that happens to be named "properties" is not mistaken
 * for one.
 */
export function closeObjects(schema: any): any {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return schema;
  const out: any = { ...schema };
  if (schema.properties && typeof schema.properties === "object") {
    out.properties = Object.fromEntries(Object.entries<any>(schema.properties).map(([name, sub]) => [name, closeObjects(sub)]));
    if (!("additionalProperties" in schema)) out.additionalProperties = false;
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") out.additionalProperties = closeObjects(schema.additionalProperties);
  if (schema.items) out.items = Array.isArray(schema.items) ? schema.items.map(closeObjects) : closeObjects(schema.items);
  for (const keyword of ["allOf", "anyOf", "oneOf"]) if (Array.isArray(schema[keyword])) out[keyword] = schema[keyword].map(closeObjects);
  if (schema.not) out.not = closeObjects(schema.not);
  return out;
}

/** Rewrites local `#/components/...` refs so they resolve against the registered document. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema && typeof schema === "object") {
    return Object.fromEntries(
      Object.entries(schema).map(([k, v]) => [k, k === "$ref" && typeof v === "string" && v.startsWith("#/") ? `openapi${v}` : rebase(v)]),
    );
  }
  return schema;
}

export async function createContractChecker(handle: (request: Request) => Promise<Response>): Promise<ContractChecker> {
  const { operations, validators, ajv, doc } = await load(handle);
  return (method, url, status, body, contentType, headers) => {
    // Elysia serves `/customers/` as `/customers`
    const path = new URL(url).pathname.replace(/(.)\/$/, "$1");
    if (!path.startsWith("/api/v1") && path !== "/health") return;
    const operation = operations.find((o) => o.method === method && o.pattern.test(path));
    if (!operation) {
      // unknown routes and wrong methods: still the documented error shape
      if (status === 404 || status === 405) assertErrorShape(method, path, status, body);
      else if (status !== 401 && status !== 429) throw new Error(`contract: ${method} ${path} answered ${status} but has no operation in the OpenAPI document`);
      else assertErrorShape(method, path, status, body);
      return;
    }
    const response = operation.responses[String(status)];
    if (!response) {
      throw new Error(
        `contract: ${method} ${operation.path} answered ${status}, which its OpenAPI operation does not document (documented: ${Object.keys(operation.responses).join(", ")}); body: ${JSON.stringify(body)?.slice(0, 300)}`,
      );
    }
    // headers the document promises (X-RateLimit-*, Location on a 201) are there
    for (const [name, declared] of Object.entries<any>(response.headers ?? {})) {
      const header = typeof declared?.$ref === "string" ? doc.components.headers[declared.$ref.split("/").pop()] : declared;
      if (headers && header?.required && !headers.has(name)) throw new Error(`contract: ${method} ${operation.path} ${status} lacks its ${name} header`);
    }
    const schema = response.content?.["application/json"]?.schema;
    const otherMediaTypes = Object.keys(response.content ?? {}).filter((type) => type !== "application/json");
    if (!schema && otherMediaTypes.length > 0) {
      // a document (PDF, XML, an export): its media type is one the document says
      if (!otherMediaTypes.some((type) => contentType.startsWith(type))) {
        throw new Error(`contract: ${method} ${operation.path} ${status} is documented as ${otherMediaTypes.join(" or ")} but was ${contentType}`);
      }
      return;
    }
    if (!schema) {
      if (status !== 204 && body !== undefined) throw new Error(`contract: ${method} ${operation.path} ${status} returned a body the document does not describe`);
      return;
    }
    if (!contentType.includes("json")) {
      // a form the response is also documented in (a report as CSV)
      if (Object.keys(response.content ?? {}).some((type) => type !== "application/json" && contentType.startsWith(type))) return;
      throw new Error(`contract: ${method} ${operation.path} ${status} is documented as JSON but was ${contentType}`);
    }
    const key = `${operation.method} ${operation.path} ${status}`;
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(rebase(closeObjects(schema)) as object);
      validators.set(key, validate);
    }
    if (!validate(body)) {
      throw new Error(
        `contract: ${key} body does not match the OpenAPI schema: ${ajv.errorsText(validate.errors, { separator: "; " })}; body: ${JSON.stringify(body)?.slice(0, 500)}`,
      );
    }
  };
}

function assertErrorShape(method: string, path: string, status: number, body: unknown) {
  const ok = !!body && typeof body === "object" && typeof (body as { message?: unknown }).message === "string";
  if (!ok) throw new Error(`contract: ${method} ${path} ${status} is not a JSON error {message}: ${JSON.stringify(body)}`);
}
