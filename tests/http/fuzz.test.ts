/**
 * Bad-input fuzzing over every operation of the published OpenAPI document (fast-check,
 * seeded): wrong types, missing and extra fields, huge and unicode strings, nulls, deep
 * nesting, the same inside nested objects and arrays (`lines[0]` of an invoice, `events[0]`),
 * bad ids, bad query parameters and bad headers. Operations take turns, so every one of them
 * is exercised (asserted); bodies start from the required fields or from every field, with the
 * fixture's ids. For each request: never a 5xx, a documented status with a body of the
 * documented shape (the contract check in tests/helpers.ts), and no change to the database
 * when the answer is a 4xx.
 *
 * FUZZ_RUNS=5000 bun test tests/http/fuzz.test.ts   runs longer (the timeout grows with it; at
 * least 1000 runs); FUZZ_SEED picks another seed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { openApiDocument } from "../contract.ts";
import { createTestEnv } from "../helpers.ts";
import { databaseSnapshot, documentedOperations, fillPath, sampleBody, seedFixture, type DocumentedOperation, type Fixture } from "../fixtures.ts";

/** At least 1000: enough turns for every operation and for nested mutations to reach invoice lines. */
const RUNS = Math.max(1000, Number(process.env.FUZZ_RUNS ?? 1500));
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
/** A request takes a few ms; 40 ms each is room for a slow, busy CI machine. */
const TIMEOUT_MS = 60_000 + RUNS * 40;

const env = await createTestEnv();
afterAll(() => env.close());

let operations: DocumentedOperation[] = [];
let fixture: Fixture;
/** Per operation, a body with every field of its schema (optional ones too), nested ones included. */
const fullBodies = new Map<DocumentedOperation, unknown>();
/** Operations whose body may be left out (actions without fields: finalize, approve, redeliver, …). */
const bodyOptional = new Set<DocumentedOperation>();

/** Every property, recursively; arrays get one item; leaves as sampleBody makes them. `$ref`s are followed. */
function fullBody(schema: any, components: Record<string, any>, name = ""): unknown {
  if (schema?.$ref) return fullBody(components[String(schema.$ref).split("/").pop()!], components, name);
  if (!schema) return undefined;
  if (schema.type === "object" && schema.properties) {
    return Object.fromEntries(Object.entries<any>(schema.properties).map(([key, sub]) => [key, fullBody(sub, components, key)]));
  }
  if (schema.type === "array") return [fullBody(schema.items, components, name)];
  return sampleBody(schema, name);
}

/** `customer_id`, `vat_rate_id`, … filled with ids of the fixture, so valid bodies get past the lookups. */
function withFixtureIds(body: unknown, ids: Fixture): unknown {
  if (Array.isArray(body)) return body.map((item) => withFixtureIds(item, ids));
  if (!body || typeof body !== "object") return body;
  return Object.fromEntries(
    Object.entries(body).map(([key, value]) => {
      const segment = key.endsWith("_id") ? `${key.slice(0, -3).replace(/_/g, "-")}s` : null;
      return [key, segment && ids[segment] ? ids[segment] : withFixtureIds(value, ids)];
    }),
  );
}

beforeAll(async () => {
  operations = await documentedOperations(env);
  fixture = await seedFixture(env);
  const ids = { ...fixture, "vat-rates": (await env.api("GET", "/api/v1/vat-rates")).body.data[0].id };
  const doc = await openApiDocument((r) => env.app.handle(r));
  for (const op of operations) {
    const schema = doc.paths[op.path][op.method.toLowerCase()].requestBody?.content?.["application/json"]?.schema;
    if (!schema) continue;
    op.body = withFixtureIds(op.body, ids);
    fullBodies.set(op, withFixtureIds(fullBody(schema, doc.components?.schemas ?? {}), ids));
    if (doc.paths[op.path][op.method.toLowerCase()].requestBody?.required === false) bodyOptional.add(op);
  }
});

const printable = fc.string({ unit: fc.constantFrom(..."abcXYZ019 -_.:/|*%\"'{}[]<>;=&?#\\\t".split("")), maxLength: 80 });
const weirdString = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 50 }),
  fc.constant(""),
  fc.constant(" "),
  fc.constant("x".repeat(70_000)),
  fc.constant("💶".repeat(300)),
  // outside the BMP: two UTF-16 units, one character; at and over the common bound of 255
  fc.constant("😀".repeat(255)),
  fc.constant("𝔘".repeat(256)),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constant("\u0000\u202e\ufeff"),
  fc.constant("'; DROP TABLE invoices; --"),
  fc.constant("1e400"),
  fc.constant("-0.001"),
  fc.constant("999999999999999999999.99"),
  printable,
);
const weirdValue: fc.Arbitrary<unknown> = fc.oneof(
  { depthSize: "small" },
  weirdString,
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, 0, 0.005, 1e21, 1.005),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constant(JSON.parse("[".repeat(200) + "]".repeat(200))),
  fc.constant(JSON.parse("[".repeat(31) + "]".repeat(31))),
  fc.constant(JSON.parse(`{"a":${"[".repeat(40)}1${"]".repeat(40)}}`)),
);

type Mutation = { kind: string; apply: (body: any) => unknown };
type Path = (string | number)[];

/** Where nested mutations aim: every array element and every object inside the body (`lines.0`, `events.0`). */
function nestedTargets(value: unknown, path: Path = []): Path[] {
  const children: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : value && typeof value === "object" ? Object.entries(value) : [];
  const out: Path[] = [];
  for (const [key, child] of children) {
    const at = [...path, key];
    if (Array.isArray(value) || (child !== null && typeof child === "object" && !Array.isArray(child))) out.push(at);
    out.push(...nestedTargets(child, at));
  }
  return out;
}
/** The nested paths mutated during the run, to assert that `lines.0` was reached. */
const nestedSeen = new Set<string>();

/** Changes what sits at `path` of a (cloned) body; the empty path is the body itself. */
function atPath(body: any, path: Path, change: (value: any) => unknown): unknown {
  if (path.length === 0) return change(body);
  const parent = path.slice(0, -1).reduce((node, key) => node[key], body);
  parent[path[path.length - 1]!] = change(parent[path[path.length - 1]!]);
  return body;
}

const NESTED = ["field replaced", "field dropped", "extra field", "field nulled", "huge string field", "element replaced"] as const;
const nestedMutation: fc.Arbitrary<Mutation> = fc
  .tuple(fc.nat(), fc.constantFrom(...NESTED), fc.nat(), weirdString, weirdValue)
  .map(([t, how, i, extraKey, v]) => {
    const mutation: Mutation = {
      kind: `nested ${how}`,
      apply: (b) => {
        // a flat body: the same changes at its top level
        const targets = nestedTargets(b);
        const path = targets.length ? targets[t % targets.length]! : [];
        if (path.length) nestedSeen.add(path.join("."));
        mutation.kind = `nested ${how} at ${path.length ? path.join(".") : "the top level"}`;
        return atPath(b, path, (target) => {
          const isObject = target !== null && typeof target === "object" && !Array.isArray(target);
          if (how === "element replaced" || !isObject) return v;
          const keys = Object.keys(target);
          const key = keys.length ? keys[i % keys.length]! : "x";
          if (how === "field replaced") return { ...target, [key]: v };
          if (how === "field nulled") return { ...target, [key]: null };
          if (how === "huge string field") return { ...target, [key]: "9".repeat(100_000) };
          if (how === "extra field") return { ...target, [extraKey || "extra"]: v };
          const { [key]: _dropped, ...rest } = target;
          return rest;
        });
      },
    };
    return mutation;
  });
const bodyMutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant<Mutation>({ kind: "valid", apply: (b) => b }),
  fc.constant<Mutation>({ kind: "empty object", apply: () => ({}) }),
  weirdValue.map<Mutation>((v) => ({ kind: "whole body replaced", apply: () => v })),
  fc.tuple(fc.nat(), weirdValue).map<Mutation>(([i, v]) => ({
    kind: "one field replaced",
    apply: (b) => {
      if (!b || typeof b !== "object" || Array.isArray(b)) return v;
      const keys = Object.keys(b);
      return keys.length ? { ...b, [keys[i % keys.length]!]: v } : { name: v };
    },
  })),
  fc.nat().map<Mutation>((i) => ({
    kind: "one field dropped",
    apply: (b) => {
      if (!b || typeof b !== "object" || Array.isArray(b)) return b;
      const keys = Object.keys(b);
      const copy = { ...b };
      if (keys.length) delete copy[keys[i % keys.length]!];
      return copy;
    },
  })),
  fc.tuple(weirdString, weirdValue).map<Mutation>(([k, v]) => ({ kind: "extra field", apply: (b) => (b && typeof b === "object" && !Array.isArray(b) ? { ...b, [k || "extra"]: v } : { [k]: v }) })),
  fc.tuple(fc.constantFrom("lines", "events", "abilities"), fc.array(weirdValue, { maxLength: 4 })).map<Mutation>(([k, v]) => ({ kind: "array field", apply: (b) => ({ ...(b ?? {}), [k]: v }) })),
);
const anyMutation = fc.oneof({ weight: 2, arbitrary: bodyMutation }, { weight: 1, arbitrary: nestedMutation });

const rawBody = fc.oneof(
  fc.constant("{"),
  fc.constant('{"name": "x",}'),
  fc.constant("[" .repeat(100_000)),
  // the 40 kB body that stalled a thread for seconds: 20,000 arrays deep, well formed
  fc.constant(`{"name":"x","notes":${"[".repeat(20_000)}${"]".repeat(20_000)}}`),
  fc.constant(`{"name":"x","lines":[${"{},".repeat(20_000)}{}]}`),
  fc.constant("\u0000"),
  fc.constant("null"),
  fc.constant('{"__proto__": {"admin": true}, "constructor": {"prototype": {"x": 1}}}'),
  printable,
);

const pathVariant = fc.oneof(
  { weight: 3, arbitrary: fc.constant<"fixture">("fixture") },
  { weight: 2, arbitrary: fc.oneof(fc.uuid(), weirdString, fc.constant("..%2f..%2fetc%2fpasswd"), fc.constant("%00")) },
);

const authVariant = fc.oneof(
  { weight: 6, arbitrary: fc.constant<"valid">("valid") },
  { weight: 1, arbitrary: fc.constant<null>(null) },
  { weight: 1, arbitrary: printable.map((s) => `Bearer ${s}`) },
  { weight: 1, arbitrary: fc.constantFrom("Bearer ", "Basic abc", "bearer x|y", `Bearer ${"a".repeat(5000)}|b`) },
);

const request = fc.record({
  path: pathVariant,
  /** mutate the body of required fields, or the one with every field */
  full: fc.boolean(),
  mutation: anyMutation,
  // a raw (unparsable, odd) body one time in six; a mutated JSON body otherwise
  raw: fc.oneof({ weight: 5, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: rawBody }),
  /** no body at all, as a client sends a body-less action */
  noBody: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))),
  contentType: fc.oneof({ weight: 8, arbitrary: fc.constant("application/json") }, { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/xml", "multipart/form-data", "application/json; charset=latin1", "") }),
  auth: authVariant,
  query: fc.array(fc.tuple(fc.oneof(fc.nat(), weirdString), weirdString), { maxLength: 4 }),
  idempotencyKey: fc.option(printable, { freq: 4 }),
});

test(`fuzz: ${RUNS} requests over every operation (seed ${SEED})`, async () => {
  expect(operations.length).toBeGreaterThan(30);
  const seen = new Set<string>();
  // the operations take turns (the inputs are random), so each is reached whatever the seed
  let turn = 0;
  await fc.assert(
    fc.asyncProperty(request, async (r) => {
      const op = operations[turn++ % operations.length]!;
      seen.add(`${op.method} ${op.path}`);
      let path: string;
      try {
        path = r.path === "fixture" ? fillPath(op.path, fixture) : op.path.replace(/\{[^}]+\}/g, () => encodeURIComponent(String(r.path)));
      } catch {
        path = op.path.replace(/\{[^}]+\}/g, "x");
      }
      const params = new URLSearchParams();
      for (const [key, value] of r.query) {
        const name = typeof key === "number" ? (op.query[key % Math.max(1, op.query.length)]?.name ?? "page") : key;
        params.append(name, value);
      }
      const query = params.size ? `?${params}` : "";
      const headers: Record<string, string> = {};
      if (r.contentType) headers["content-type"] = r.contentType;
      if (r.idempotencyKey !== null) headers["idempotency-key"] = r.idempotencyKey;
      const token = r.auth === "valid" ? env.token : null;
      if (r.auth && r.auth !== "valid") headers.authorization = r.auth;
      const body =
        ["POST", "PUT", "PATCH"].includes(op.method) && !r.noBody
          ? (r.raw ?? JSON.stringify(r.mutation.apply(structuredClone((r.full ? fullBodies.get(op) : op.body) ?? {}))))
          : undefined;

      const before = await databaseSnapshot(env);
      // env.request validates the answer against the document (status documented, body shape)
      const response = await env.request(op.method, `${path}${query}`, { rawBody: body, headers, token });
      const what = `${op.method} ${path}${query} [${r.mutation.kind}] → ${response.status} ${response.text.slice(0, 200)}`;
      expect(response.status, what).toBeLessThan(500);
      // an action without fields may be sent without a body
      if (body === undefined && bodyOptional.has(op)) expect(response.body?.errors?.body, what).toBeUndefined();
      if (response.status >= 400) {
        expect(response.body?.message, what).toBeString();
        expect(await databaseSnapshot(env), `database changed on a ${response.status}: ${what}`).toBe(before);
      }
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
  // the run reached the whole surface, and nested mutations reached inside invoice lines
  expect(operations.map((op) => `${op.method} ${op.path}`).filter((op) => !seen.has(op))).toEqual([]);
  expect([...nestedSeen]).toContain("lines.0");
  // finalize, send, cancel, credit-note, approve, reject, regenerate-secret, redeliver
  expect(bodyOptional.size).toBeGreaterThanOrEqual(8);
}, TIMEOUT_MS);
