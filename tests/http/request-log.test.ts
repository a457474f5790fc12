/**
 * One log line per answered request, whatever answers it: a handler's JSON, a document it returns
 * as a Response (CSV), an idempotent replay, and every refusal the kernel's error handler makes.
 */
import { afterAll, expect, test } from "bun:test";
import { createApp } from "../../server/app.ts";
import { createLogger } from "../../server/log.ts";
import { createRuntime } from "../../server/runtime.ts";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());
const lines: Record<string, unknown>[] = [];
const app = createApp(createRuntime(env.config, { db: env.db, log: createLogger({ format: "json", level: "info" }, (line) => lines.push(JSON.parse(line))) }));

async function logged(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) {
  lines.length = 0;
  const response = await app.handle(
    new Request(`http://localhost${path}`, { method, headers: { authorization: `Bearer ${env.token}`, ...init.headers }, body: init.body }),
  );
  await response.text();
  const requests = lines.filter((l) => l.msg === "request");
  expect(requests, `${method} ${path}`).toHaveLength(1);
  return { status: response.status, line: requests[0]! };
}

test("every kind of answer leaves one line with its status and route", async () => {
  const cases: [string, string, { headers?: Record<string, string>; body?: string }, number, string][] = [
    ["GET", "/api/v1/customers", {}, 200, "/api/v1/customers"],
    ["GET", "/api/v1/reports/trial-balance", { headers: { accept: "text/csv" } }, 200, "/api/v1/reports/trial-balance"],
    ["POST", "/api/v1/customers", { headers: { "content-type": "application/json", "idempotency-key": "k1" }, body: '{"name":"Logged"}' }, 201, "/api/v1/customers"],
    ["POST", "/api/v1/customers", { headers: { "content-type": "application/json", "idempotency-key": "k1" }, body: '{"name":"Logged"}' }, 201, "/api/v1/customers"],
    ["POST", "/api/v1/customers", { headers: { "content-type": "application/json" }, body: "{}" }, 422, "/api/v1/customers"],
    ["GET", "/api/v1/customers/00000000-0000-7000-8000-000000000000", {}, 404, "/api/v1/customers/:id"],
    ["DELETE", "/api/v1/accounts", {}, 405, "(unmatched)"],
    ["GET", "/api/v1/nothing-here", {}, 404, "(unmatched)"],
    ["GET", "/api/v1/invoices", { headers: { authorization: "Bearer nope" } }, 401, "/api/v1/invoices"],
  ];
  for (const [method, path, init, status, route] of cases) {
    const { status: answered, line } = await logged(method, path, init);
    expect(answered, `${method} ${path}`).toBe(status);
    expect(line, `${method} ${path}`).toMatchObject({ method, status, route });
    expect(typeof line.request_id).toBe("string");
  }
});
