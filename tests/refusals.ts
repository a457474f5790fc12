/**
 * A feature's refusals, checked against what its OpenAPI document lists: each test file names the
 * feature's operations, provokes every 4xx each one documents (`refused(...)` records it), and
 * `expectEveryRefusalProvoked` fails when a documented 4xx of the feature was never provoked, so
 * a refusal added to a route without a test of it is seen.
 *
 * The refusals every operation shares (401, 403, 429, and 400/413/415 for a JSON body) are
 * provoked here, the same way for every route; the route's own (404, 409, 422) by the feature's
 * tests, with the state that causes them.
 */
import { expect } from "bun:test";
import { ABILITIES } from "../server/auth/abilities.ts";
import { openApiDocument } from "./contract.ts";
import { createTestEnv, type ApiResponse, type TestEnv } from "./helpers.ts";

export type Operation = { method: string; path: string };
export const label = (op: Operation) => `${op.method} ${op.path}`;

/** An id no row has. */
export const UNKNOWN_ID = "01900000-0000-7000-8000-00000000dead";

/**
 * The 409 the document lists on every POST for "an Idempotency-Key still in use": the server
 * never answers it, a retry while the first request runs waits for it and replays its answer
 * (docs/api.md#retries-idempotency-key). On a POST that has no conflict of its own it cannot be
 * provoked; each file that says so shows the wait and replay instead.
 */
export const IDEMPOTENCY_409 = "documented for an Idempotency-Key in use, but a second request with the key waits and replays (tested above)";

export type Refusals = {
  /** The 4xx the served document lists for each operation, "METHOD /path STATUS". */
  documented: () => Promise<Set<string>>;
  /**
   * Checks one refusal: its status, the error code that status has, and (422) that `errors`
   * names `field`, (403) that the message names the ability; records it as provoked.
   */
  refused: (op: Operation, response: ApiResponse, status: number, field?: string) => void;
  /** 401, 403, 429 and, for an operation with a JSON body, 400, 413 and 415. */
  shared: (op: Operation, url: string, body?: unknown) => Promise<void>;
  /**
   * Fails naming each documented 4xx no test provoked. `unreachable` lists the ones the document
   * lists that the server cannot answer, each with why (and a test showing what it does instead).
   */
  expectEveryRefusalProvoked: (unreachable?: Record<string, string>) => Promise<void>;
  close: () => void;
};

const CODES: Record<number, string> = {
  400: "bad_request",
  401: "unauthenticated",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "validation_failed",
  429: "rate_limited",
};

export function refusalsOf(env: TestEnv, operations: Operation[]): Refusals {
  const provoked = new Set<string>();
  // a server of its own with a rate limit of one request a minute per token (its own database)
  let limited: TestEnv | null = null;
  let doc: any = null;
  const read = async () => (doc ??= await openApiDocument((r) => env.app.handle(r)));

  const refused: Refusals["refused"] = (op, response, status, field) => {
    const where = `${label(op)} → ${response.status} ${response.text.slice(0, 300)}`;
    expect(response.status, where).toBe(status);
    expect(response.body?.code, where).toBe(CODES[status]!);
    if (status === 422) {
      expect(field, `${label(op)}: a 422 names its field`).toBeString();
      expect(Object.keys(response.body.errors ?? {}), where).toContain(field!);
    }
    if (field && status !== 422) expect(String(response.body.message), where).toContain(field);
    provoked.add(`${label(op)} ${status}`);
  };

  return {
    refused,
    async documented() {
      const d = await read();
      const out = new Set<string>();
      for (const op of operations) {
        const item = d.paths[op.path]?.[op.method.toLowerCase()];
        expect(item, `${label(op)} is in the served document`).toBeDefined();
        for (const code of Object.keys(item.responses)) if (/^4\d\d$/.test(code)) out.add(`${label(op)} ${code}`);
      }
      return out;
    },
    async shared(op, url, body) {
      const item = (await read()).paths[op.path][op.method.toLowerCase()];
      const ability: string = item["x-ability"];
      refused(op, await env.request(op.method, url, { body, token: null }), 401);
      refused(op, await env.request(op.method, url, { body, token: await env.orgToken(ABILITIES.filter((a) => a !== ability)) }), 403, ability);
      limited ??= await createTestEnv({ KONTOR_RATE_LIMIT: "1" });
      const token = await limited.orgToken(["*"]);
      await limited.request(op.method, url, { body, token });
      const second = await limited.request(op.method, url, { body, token });
      refused(op, second, 429);
      expect(Number(second.headers.get("retry-after")), "429 says when to retry").toBeGreaterThan(0);
      if (!item.requestBody) return;
      const json = { "content-type": "application/json" };
      refused(op, await env.request(op.method, url, { rawBody: '{"due_by": ', headers: json }), 400);
      refused(op, await env.request(op.method, url, { rawBody: `{"x": "${"a".repeat(1024 * 1024)}"}`, headers: json }), 413);
      refused(op, await env.request(op.method, url, { rawBody: "{}", headers: { "content-type": "text/plain" } }), 415);
    },
    async expectEveryRefusalProvoked(unreachable = {}) {
      const documented = await this.documented();
      for (const key of Object.keys(unreachable)) expect(documented.has(key), `${key} is documented`).toBe(true);
      const missing = [...documented].filter((r) => !provoked.has(r) && !(r in unreachable)).sort();
      expect(missing, "documented refusals no test provoked").toEqual([]);
    },
    close: () => limited?.close(),
  };
}
