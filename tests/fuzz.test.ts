/**
 * Bad-input fuzzing over every operation of the published OpenAPI document (fast-check,
 * seeded): wrong types, missing and extra fields, huge and unicode strings, nulls, deep
 * nesting, bad ids, bad query parameters and bad headers. For each request: never a 5xx, a
 * documented status with a body of the documented shape (the contract check in
 * tests/helpers.ts), and no change to the database when the answer is a 4xx.
 *
 * FUZZ_RUNS=5000 bun test tests/fuzz.test.ts   runs longer; FUZZ_SEED picks another seed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { createTestEnv } from "./helpers.ts";
import { databaseSnapshot, documentedOperations, fillPath, seedFixture, type DocumentedOperation, type Fixture } from "./fixtures.ts";

const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

const env = createTestEnv();
afterAll(() => env.close());

let operations: DocumentedOperation[] = [];
let fixture: Fixture;

beforeAll(async () => {
  operations = await documentedOperations(env);
  fixture = await seedFixture(env);
});

const printable = fc.string({ unit: fc.constantFrom(..."abcXYZ019 -_.:/|*%\"'{}[]<>;=&?#\\\t".split("")), maxLength: 80 });
const weirdString = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 50 }),
  fc.constant(""),
  fc.constant(" "),
  fc.constant("x".repeat(70_000)),
  fc.constant("💶".repeat(300)),
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
);

type Mutation = { kind: string; apply: (body: any) => unknown };
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

const rawBody = fc.oneof(
  fc.constant("{"),
  fc.constant('{"name": "x",}'),
  fc.constant("[" .repeat(100_000)),
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
  operation: fc.nat(),
  path: pathVariant,
  mutation: bodyMutation,
  raw: fc.option(rawBody, { freq: 6 }),
  contentType: fc.oneof({ weight: 8, arbitrary: fc.constant("application/json") }, { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/xml", "multipart/form-data", "application/json; charset=latin1", "") }),
  auth: authVariant,
  query: fc.array(fc.tuple(fc.oneof(fc.nat(), weirdString), weirdString), { maxLength: 4 }),
  idempotencyKey: fc.option(printable, { freq: 4 }),
});

test(`fuzz: ${RUNS} requests over every operation (seed ${SEED})`, async () => {
  expect(operations.length).toBeGreaterThan(30);
  const seen = new Set<string>();
  await fc.assert(
    fc.asyncProperty(request, async (r) => {
      const op = operations[r.operation % operations.length]!;
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
      const body = ["POST", "PUT", "PATCH"].includes(op.method)
        ? (r.raw ?? JSON.stringify(r.mutation.apply(structuredClone(op.body ?? {}))))
        : undefined;

      const before = databaseSnapshot(env);
      // env.request validates the answer against the document (status documented, body shape)
      const response = await env.request(op.method, `${path}${query}`, { rawBody: body, headers, token });
      const what = `${op.method} ${path}${query} [${r.mutation.kind}] → ${response.status} ${response.text.slice(0, 200)}`;
      expect(response.status, what).toBeLessThan(500);
      if (response.status >= 400) {
        expect(response.body?.message, what).toBeString();
        expect(databaseSnapshot(env), `database changed on a ${response.status}: ${what}`).toBe(before);
      }
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
  // the run reached most of the surface
  expect(seen.size).toBeGreaterThan(operations.length * 0.6);
}, 120_000);
