/**
 * The OpenAPI document as tools read it (contract section 8): named schemas referenced with
 * $ref, human operationIds, descriptions, the headers every response carries, the checks the
 * server makes, and one document. Redocly lints it in CI (`bun run lint:openapi`).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { t } from "elysia";
import fc from "fast-check";
import { ABILITIES } from "../../server/auth/abilities.ts";
import { parse as parseYaml } from "yaml";
import { buildDocument } from "../../server/docs/openapi.ts";
import { toYaml } from "../../server/docs/yaml.ts";
import { toCents } from "../../server/lib/money.ts";
import { createContractChecker } from "../contract.ts";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());

const doc: any = await (await env.app.handle(new Request("http://localhost/docs/openapi.json"))).json();
const operations = Object.entries<any>(doc.paths).flatMap(([path, item]) =>
  Object.entries<any>(item).map(([method, op]) => ({ path, method, op, name: `${method.toUpperCase()} ${path}` })),
);
const target = (ref: string) => ref.split("/").slice(1).reduce((node: any, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
const resolve = (node: any) => (typeof node?.$ref === "string" ? target(node.$ref) : node);
const op = (method: string, path: string) => doc.paths[path][method];
const jsonSchema = (response: any) => resolve(response)?.content?.["application/json"]?.schema;
const schemaOf = (name: string) => doc.components.schemas[name];

describe("named schemas", () => {
  test("resources, bodies and lists are components, referenced from the operations", () => {
    for (const name of ["Invoice", "InvoiceCreate", "InvoiceUpdate", "InvoiceList", "Customer", "CustomerCreate", "CustomerList", "Expense", "Token", "TokenCreate", "TokenCreated", "Webhook", "WebhookWithSecret", "WebhookDelivery", "NoFields"]) {
      expect(schemaOf(name), name).toBeObject();
    }
    expect(jsonSchema(op("get", "/api/v1/invoices").responses["200"])).toEqual({ $ref: "#/components/schemas/InvoiceList" });
    expect(op("post", "/api/v1/invoices").requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/InvoiceCreate" });
    expect(op("put", "/api/v1/invoices/{id}").requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/InvoiceUpdate" });
    expect(jsonSchema(op("get", "/api/v1/invoices/{id}").responses["200"]).properties.data).toEqual({ $ref: "#/components/schemas/Invoice" });
    expect(schemaOf("InvoiceList").properties.data.items).toEqual({ $ref: "#/components/schemas/Invoice" });
    expect(schemaOf("Invoice").properties.customer).toEqual({ $ref: "#/components/schemas/Customer" });
  });

  test("every $ref resolves, and no schema is left with a title (each titled schema became a component)", () => {
    const text = JSON.stringify(doc);
    for (const [, ref] of text.matchAll(/"\$ref":"([^"]+)"/g)) expect(target(ref!), ref).toBeDefined();
    const titled: string[] = [];
    const walk = (node: any, at: string) => {
      if (!node || typeof node !== "object") return;
      if (typeof node.title === "string" && (node.type || node.properties)) titled.push(at);
      for (const [k, v] of Object.entries(node)) if (k !== "example") walk(v, `${at}/${k}`);
    };
    walk(doc, "#");
    expect(titled).toEqual([]);
  });

  test("two different schemas under one name fail the build instead of one silently winning", () => {
    const route = (path: string, schema: unknown) => ({ method: "GET", path, hooks: { detail: { summary: "x", description: "x" }, response: { 200: schema } } });
    const one = t.Object({ a: t.String() }, { title: "Thing" });
    const other = t.Object({ b: t.String() }, { title: "Thing" });
    expect(() => buildDocument([route("/health", one), route("/api/v1", one)], "0")).not.toThrow();
    expect(() => buildDocument([route("/health", one), route("/api/v1", other)], "0")).toThrow("two different schemas are named Thing");
  });
});

describe("what generated clients read", () => {
  test("no default anywhere: responses, request bodies, parameters; an optional request field the server fills says its default in words", () => {
    const found: string[] = [];
    const walk = (node: any, at: string) => {
      if (!node || typeof node !== "object") return;
      if ("default" in node) found.push(at);
      for (const [k, v] of Object.entries(node)) if (k !== "example") walk(v, `${at}/${k}`);
    };
    walk(doc, "#");
    expect(found).toEqual([]);
    // the README records a payment without payment_method: a client typed from the document must let it
    expect(schemaOf("InvoicePaymentCreate").required).not.toContain("payment_method");
    expect(schemaOf("InvoicePaymentCreate").properties.payment_method.description).toMatch(/default bank_transfer/i);
    expect(schemaOf("Account").properties.system_account.nullable).toBe(true);
  });

  test("the build drops TypeBox's enumeration defaults, saying an optional request field's in its description", () => {
    const kind = t.UnionEnum(["a", "b"]);
    expect((kind as any).default).toBe("a"); // what TypeBox gives every enumeration
    const body = t.Object({ optional: t.Optional(kind), described: t.Optional(t.UnionEnum(["a", "b"], { description: "Which one" })), needed: kind }, { title: "ThingCreate" });
    const response = t.Object({ kind }, { title: "Thing" });
    const built = buildDocument(
      [{ method: "POST", path: "/api/v1/things", hooks: { detail: { summary: "x", description: "x" }, body, response: { 201: response } } }],
      "0",
    );
    expect(JSON.stringify(built)).not.toContain('"default"');
    const create = built.components.schemas.ThingCreate.properties;
    expect(create.optional.description).toBe("Default: `a`.");
    expect(create.described.description).toBe("Which one. Default: `a`.");
    expect(create.needed.description).toBeUndefined();
    expect(built.components.schemas.Thing.properties.kind.description).toBeUndefined();
  });

  test("batch results: one shape per status (oneOf), created with the resource, refused with the error body and holder_id", () => {
    for (const [path, resource] of [["/api/v1/customers/batch", "Customer"], ["/api/v1/invoices/batch", "Invoice"]] as const) {
      const items = jsonSchema(op("post", path).responses["200"]).properties.data.items;
      expect(items).toEqual({ $ref: `#/components/schemas/${resource}BatchResult` });
      const shapes = resolve(items).oneOf.map((member: any) => member.$ref.split("/").at(-1));
      expect(shapes, path).toEqual([`${resource}BatchCreated`, "BatchItemInvalid", "BatchItemRefused"]);
      expect(schemaOf(`${resource}BatchCreated`).properties.data).toEqual({ $ref: `#/components/schemas/${resource}` });
      // the statuses tell the shapes apart: each an integer enumeration, none shared
      const statuses = shapes.map((name: string) => schemaOf(name).properties.status);
      for (const status of statuses) expect(status.type).toBe("integer");
      expect(statuses.map((s: any) => s.enum)).toEqual([[201], [422], [403, 404, 409]]);
      for (const name of shapes) expect(schemaOf(name).required, name).toContain("status");
    }
    expect(schemaOf("BatchItemInvalid").required).toEqual(["status", "code", "message", "errors"]);
    expect(schemaOf("BatchItemRefused").required).toEqual(["status", "code", "message"]);
    expect(Object.keys(schemaOf("BatchItemRefused").properties)).toEqual(["status", "code", "message", "holder_id"]);
  });

  test("filter[metadata]: a deepObject parameter of string values on exactly the lists whose rows carry metadata", () => {
    const parameter = doc.components.parameters.FilterMetadata;
    expect(parameter).toMatchObject({ name: "filter[metadata]", in: "query", required: false, style: "deepObject", explode: true });
    expect(parameter.schema).toMatchObject({ type: "object", additionalProperties: { type: "string" } });
    const filtered: string[] = [];
    for (const { name, method, op } of operations) {
      if (method !== "get") continue;
      const items = resolve(resolve(jsonSchema(op.responses["200"]))?.properties?.data)?.items;
      const rowsHaveMetadata = resolve(items)?.properties?.metadata !== undefined;
      const declared = (op.parameters ?? []).some((p: any) => resolve(p).name === "filter[metadata]");
      expect(declared, name).toBe(rowsHaveMetadata);
      if (declared) filtered.push(name);
    }
    expect(filtered.sort()).toEqual(["GET /api/v1/customers", "GET /api/v1/expenses", "GET /api/v1/invoices", "GET /api/v1/suppliers"]);
  });

  test("the error schemas have names no language reserves", () => {
    const reserved = ["Error", "Object", "String", "Number", "Boolean", "Array", "Date", "Map", "Set", "Promise", "Record", "Function", "Symbol", "Response", "Request", "Headers", "URL", "File", "Blob", "Exception", "Type", "Any", "Optional", "List", "Dict"];
    for (const name of reserved) expect(schemaOf(name), name).toBeUndefined();
    expect(jsonSchema(op("get", "/api/v1/invoices/{id}").responses["404"])).toEqual({ $ref: "#/components/schemas/ApiError" });
    expect(jsonSchema(op("post", "/api/v1/invoices").responses["422"])).toEqual({ $ref: "#/components/schemas/ValidationError" });
  });

  test("every tag an operation names is declared, with a description, and every declared tag is used", () => {
    const declared = new Map<string, string>(doc.tags.map((tag: any) => [tag.name, tag.description]));
    const used = new Set(operations.flatMap(({ op }) => op.tags ?? []));
    for (const { name, op } of operations) expect(op.tags?.length, name).toBeGreaterThan(0);
    for (const tag of used) expect(declared.get(tag)?.trim(), tag).toBeTruthy();
    expect([...declared.keys()].filter((tag) => !used.has(tag))).toEqual([]);
  });
});

describe("operations", () => {
  test("human operationIds, unique, and a description on every operation", () => {
    const ids = operations.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { name, op } of operations) {
      expect(op.operationId, name).toMatch(/^[a-z]+[A-Z][A-Za-z]*$/);
      expect(op.operationId, name).not.toMatch(/ApiV1|By[A-Z]/);
      expect(op.description?.trim(), name).toBeTruthy();
      expect(op.summary?.trim(), name).toBeTruthy();
    }
    const expected: Record<string, string> = {
      "get /api/v1/invoices": "listInvoices",
      "post /api/v1/invoices": "createInvoice",
      "get /api/v1/invoices/{id}": "getInvoice",
      "put /api/v1/invoices/{id}": "updateInvoice",
      "delete /api/v1/invoices/{id}": "deleteInvoice",
      "post /api/v1/invoices/{id}/finalize": "finalizeInvoice",
      "post /api/v1/invoices/{id}/record-payment": "recordInvoicePayment",
      "delete /api/v1/invoices/{id}/payments/{pid}": "deleteInvoicePayment",
      "get /api/v1/customers/{id}/contact-persons": "listCustomerContactPersons",
      "post /api/v1/customers/{id}/contact-persons": "createCustomerContactPerson",
      "post /api/v1/webhooks/{id}/deliveries/{did}/redeliver": "redeliverWebhookDelivery",
      "get /health": "checkHealth",
    };
    for (const [key, id] of Object.entries(expected)) {
      const [method, path] = key.split(" ") as [string, string];
      expect(op(method, path).operationId, key).toBe(id);
    }
  });

  test("every operationId starts with a verb; a GET is list… exactly when it answers a list", () => {
    // what a generated SDK reads as `kontor.getReminderPolicy()`, `kontor.pauseRecurringInvoice()`
    const verbs = new Set(
      ("approve book cancel check close create delete export file finalize get ignore import list map match pause preview reclassify record " +
        "redeliver regenerate reject reopen resume reverse revoke send set unbook unmap unmatch update").split(" "),
    );
    for (const { name, method, op } of operations) {
      const verb = /^[a-z]+/.exec(op.operationId)![0];
      expect(verbs.has(verb), `${name}: ${op.operationId}`).toBe(true);
      if (method !== "get") continue;
      const data = resolve(jsonSchema(op.responses["200"]))?.properties?.data;
      expect(op.operationId.startsWith("list"), `${name}: ${op.operationId}`).toBe(resolve(data)?.type === "array" && verb === "list");
    }
  });

  test("docs/api.md's table of renamed operationIds: every new name is the document's, no old name is left", async () => {
    const guide = await Bun.file(new URL("../../docs/api.md", import.meta.url)).text();
    const section = guide.slice(guide.indexOf("### Operation names"));
    const rows = [...section.slice(0, section.indexOf("\n#", 4)).matchAll(/^\| `(\w+)` \| `(\w+)` \|/gm)].map(([, before, after]) => [before!, after!]);
    expect(rows.length).toBeGreaterThan(30);
    const ids = new Set(operations.map((o) => o.op.operationId));
    for (const [before, after] of rows) {
      expect(ids.has(after), after).toBe(true);
      expect(ids.has(before), before).toBe(false);
    }
    for (const [before, after] of [
      ["remindersInvoicePause", "setInvoiceRemindersPaused"],
      ["interestInvoiceNote", "createInvoiceInterestNote"],
      ["listReminderPolicy", "getReminderPolicy"],
      ["listReminderPreview", "previewReminders"],
      ["showInvoice", "getInvoice"],
    ]) {
      expect(rows).toContainEqual([before!, after!]);
    }
  });

  test("no text of the document cites a tracker: an issue, a section of the contract or of the specification", () => {
    // what a reader of the reference cannot open; say the rule, or link a guide (docs/api.md#…)
    const citation = /\bissue\s+#?\d+|\bcontract\s+(?:sections?\b|\d)|\bapi-spec\b|\bspec(?:ification)?\s+(?:sections?\s+)?\d/i;
    for (const cited of ["(issue 30)", "Issue #12", "contract section 7", "contract 5.2", "api-spec 6.2", "specification section 6"]) expect(citation.test(cited), cited).toBe(true);
    for (const plain of ["its issue date", "issued 2 days ago", "the contract's terms", "the specification's webhook body"]) expect(citation.test(plain), plain).toBe(false);
    const found: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (typeof node === "string") {
        if (citation.test(node)) found.push(`${at}: ${node}`);
      } else if (node && typeof node === "object") for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    walk(doc, "#");
    expect(found).toEqual([]);
  });

  test("every 201 declares Location; every response under /api/v1 declares X-RateLimit-*, errors included", () => {
    for (const { name, path, op } of operations) {
      for (const [code, response] of Object.entries<any>(op.responses)) {
        const headers = resolve(response).headers ?? {};
        const required = (h: string) => headers[h] && resolve(headers[h]).required === true;
        if (code === "201") expect(required("Location"), `${name} ${code} Location`).toBe(true);
        if (path.startsWith("/api/v1")) {
          expect(required("X-RateLimit-Limit"), `${name} ${code}`).toBe(true);
          expect(required("X-RateLimit-Remaining"), `${name} ${code}`).toBe(true);
        }
        if (code === "429") expect(required("Retry-After"), name).toBe(true);
      }
    }
  });

  test("the test suite's contract check holds responses to those headers", async () => {
    const check = await createContractChecker((r) => env.app.handle(r));
    const created = await env.request("POST", "/api/v1/customers", { body: { name: "Header Check" } });
    expect(created.status).toBe(201);
    const args = ["POST", "http://localhost/api/v1/customers", 201, created.body, "application/json"] as const;
    expect(() => check(...args, created.headers)).not.toThrow();
    const withoutLocation = new Headers(created.headers);
    withoutLocation.delete("location");
    expect(() => check(...args, withoutLocation)).toThrow("lacks its Location header");
    const withoutLimit = new Headers(created.headers);
    withoutLimit.delete("x-ratelimit-remaining");
    expect(() => check(...args, withoutLimit)).toThrow("lacks its X-RateLimit-Remaining header");
  });

  test("actions without fields take an optional body, an empty object when sent", () => {
    const actions = [
      "/api/v1/invoices/{id}/finalize",
      "/api/v1/invoices/{id}/send",
      "/api/v1/invoices/{id}/cancel",
      "/api/v1/invoices/{id}/credit-note",
      "/api/v1/expenses/{id}/approve",
      "/api/v1/expenses/{id}/reject",
      "/api/v1/webhooks/{id}/regenerate-secret",
      "/api/v1/webhooks/{id}/deliveries/{did}/redeliver",
    ];
    for (const path of actions) expect(op("post", path).requestBody.required, path).toBe(false);
    for (const path of actions.filter((p) => !p.endsWith("/reject") && !p.endsWith("/credit-note") && !p.endsWith("/send"))) {
      expect(op("post", path).requestBody.content["application/json"].schema, path).toEqual({ $ref: "#/components/schemas/NoFields" });
    }
    // a credit note's lines are optional (contract section 4): without them the invoice's are copied
    expect(op("post", "/api/v1/invoices/{id}/credit-note").requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/CreditNoteCreate" });
    expect(schemaOf("CreditNoteCreate")).toMatchObject({ type: "object", additionalProperties: false });
    expect(schemaOf("CreditNoteCreate").required ?? []).toEqual([]);
    expect(schemaOf("NoFields")).toMatchObject({ type: "object", additionalProperties: false, properties: {} });
    // a send's channel is optional: without it (or with {}) the invoice is only marked sent, as before issue 29
    expect(op("post", "/api/v1/invoices/{id}/send").requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/SendRequest" });
    expect(schemaOf("SendRequest").required ?? []).toEqual([]);
    for (const path of ["/api/v1/invoices", "/api/v1/invoices/{id}/record-payment"]) expect(op("post", path).requestBody.required, path).toBe(true);
  });
});

describe("what the server checks, said in the schemas", () => {
  test("currency and country: a pattern and a real example, besides the format the server checks", () => {
    for (const body of [schemaOf("CustomerCreate"), schemaOf("SupplierUpdate")]) {
      expect(body.properties.currency).toMatchObject({ pattern: "^[A-Z]{3}$", example: "EUR", format: "iso-4217" });
      expect(body.properties.country).toMatchObject({ pattern: "^[A-Z]{2}$", example: "BE", format: "iso-3166-alpha2" });
    }
    for (const name of ["InvoiceCreate", "ExpenseCreate"]) expect(schemaOf(name).properties.currency.pattern, name).toBe("^[A-Z]{3}$");
  });

  test("money inputs: the documented forms are ones the server takes (pattern, minimum)", () => {
    const line = schemaOf("InvoiceLineInput").properties;
    const fields = {
      quantity: [line.quantity, 1],
      unit_price: [line.unit_price, 0],
      amount: [schemaOf("InvoicePaymentCreate").properties.amount, 1],
      expense_amount: [schemaOf("ExpenseCreate").properties.amount, 1],
      vat_amount: [schemaOf("ExpenseCreate").properties.vat_amount, 0],
    } as const;
    for (const [field, [schema, minCents]] of Object.entries(fields)) {
      const number = schema.anyOf.find((s: any) => s.type === "number");
      const string = schema.anyOf.find((s: any) => s.type === "string");
      expect(number.minimum, field).toBe(minCents / 100);
      expect(number.multipleOf, field).toBeUndefined();
      expect(string.pattern, field).toBeString();
      expect(toCents(schema.example), field).toBeGreaterThanOrEqual(minCents);
      const pattern = new RegExp(string.pattern);
      // every string the pattern allows is a valid amount the server accepts
      fc.assert(
        fc.property(fc.stringMatching(pattern), (value) => {
          const cents = toCents(value);
          return cents !== null && cents >= minCents && cents <= 99_999_999_999_999;
        }),
        { numRuns: 300 },
      );
      for (const value of ["0.01", "1", "12.5", "999999999999.99"]) expect(pattern.test(value), `${field} ${value}`).toBe(true);
      for (const value of ["1.234", "1e3", "abc", "1000000000000"]) expect(pattern.test(value), `${field} ${value}`).toBe(false);
      expect(pattern.test("0"), field).toBe(minCents === 0);
    }
  });

  test("abilities: at least one, each an ability or *; webhook url: a URI with its scheme", () => {
    const abilities = schemaOf("TokenCreate").properties.abilities;
    expect(abilities.minItems).toBe(1);
    expect(abilities.items.enum).toEqual([...ABILITIES, "*"]);
    for (const name of ["WebhookCreate", "WebhookUpdate"]) expect(schemaOf(name).properties.url, name).toMatchObject({ format: "uri", pattern: "^https?://" });
  });
});

describe("one document", () => {
  test("/docs/openapi.raw.json is not served, the page points only at the one document", async () => {
    expect((await env.app.handle(new Request("http://localhost/docs/openapi.raw.json"))).status).toBe(404);
    const html = await (await env.app.handle(new Request("http://localhost/docs"))).text();
    expect(html).not.toContain("raw");
    expect(html).not.toContain("data-url");
    const viewer = await (await env.app.handle(new Request("http://localhost/docs/assets/viewer.js"))).text();
    expect(viewer).toContain('url: "/docs/openapi.json"');
  });

  test("the YAML is the JSON document to YAML 1.2 and 1.1 loaders alike: dates, yes/no, octal-looking strings stay strings", async () => {
    const yaml = await (await env.app.handle(new Request("http://localhost/docs/openapi.yaml"))).text();
    expect(Bun.YAML.parse(yaml)).toEqual(doc);
    expect(parseYaml(yaml, { version: "1.2" })).toEqual(doc);
    expect(parseYaml(yaml, { version: "1.1" })).toEqual(doc);
    // a date example is quoted: a 1.1 loader would read it plain as a timestamp
    expect(yaml).toContain('example: "2026-11-22"');
    const tricky = { date: "2026-11-22", yes: "yes", n: "n", on: "on", octal: "0777", underscored: "1_000", merge: "<<", value: "=", sexagesimal: "1:20", octal12: "0o17", plain: "EUR" };
    const text = toYaml({ ...tricky, [tricky.yes]: tricky.on, "2026-01-01": "key" });
    expect(parseYaml(text, { version: "1.1" })).toEqual({ ...tricky, yes: "on", "2026-01-01": "key" });
    expect(parseYaml(text, { version: "1.2" })).toEqual({ ...tricky, yes: "on", "2026-01-01": "key" });
    expect(text).toContain("plain: EUR");
  });
});
