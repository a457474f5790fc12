/**
 * A 422 names the range or the limit a value broke, not only its type: an integer out of its
 * bounds says the bounds (recurring `every` 1–120, `count` 1–1000, `day_of_period` 1–31, a
 * list's `per_page` 1–100), too many metadata keys name the 50 allowed, and a batch item that is
 * not an object is named as the batch item (the request body is an object).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestEnv, type TestEnv } from "../helpers.ts";

let env: TestEnv;
let customerId: string;
beforeAll(async () => {
  env = await createTestEnv();
  customerId = (await env.api("POST", "/api/v1/customers", { name: "Klant BV" })).body.data.id;
});
afterAll(() => env.close());

const template = (fields: Record<string, unknown>) =>
  env.api("POST", "/api/v1/recurring-invoices", {
    customer_id: customerId,
    lines: [{ description: "Hosting", quantity: "1", unit_price: "100.00" }],
    interval: "monthly",
    start_date: "2026-01-01",
    ...fields,
  });

describe("integers out of range name their range", () => {
  const cases: [Record<string, unknown>, string, string][] = [
    [{ every: 0 }, "every", "The every field must be between 1 and 120."],
    [{ every: 121 }, "every", "The every field must be between 1 and 120."],
    [{ every: 1.5 }, "every", "The every field must be an integer between 1 and 120."],
    [{ every: "two" }, "every", "The every field must be an integer between 1 and 120."],
    [{ count: -1 }, "count", "The count field must be between 1 and 1000."],
    [{ count: 1001 }, "count", "The count field must be between 1 and 1000."],
    [{ day_of_period: 32 }, "day_of_period", "The day_of_period field must be between 1 and 31."],
    [{ day_of_period: 0 }, "day_of_period", "The day_of_period field must be between 1 and 31."],
    [{ payment_days: 366 }, "payment_days", "The payment_days field must be between 0 and 365."],
  ];
  for (const [fields, key, message] of cases) {
    test(`${JSON.stringify(fields)} → ${message}`, async () => {
      const r = await template(fields);
      expect(r.status).toBe(422);
      expect(r.body.errors[key]).toEqual([message]);
    });
  }

  test("a list's per_page and page say their bounds", async () => {
    for (const [query, key, message] of [
      ["per_page=101", "per_page", "The per_page field must be between 1 and 100."],
      ["per_page=0", "per_page", "The per_page field must be between 1 and 100."],
      ["page=0", "page", "The page field must be between 1 and 1000000."],
    ]) {
      const r = await env.api("GET", `/api/v1/customers?${query}`);
      expect(r.status, query).toBe(422);
      expect(r.body.errors[key!]).toEqual([message]);
    }
  });
});

test("51 metadata keys name the limit of 50", async () => {
  const metadata = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`key${i}`, "v"]));
  const r = await env.api("POST", "/api/v1/customers", { name: "Meta", metadata });
  expect(r.status).toBe(422);
  expect(r.body.errors.metadata).toEqual(["The metadata field must not have more than 50 keys."]);
  // 50 are accepted
  delete metadata.key50;
  expect((await env.api("POST", "/api/v1/customers", { name: "Meta", metadata })).status).toBe(201);
});

test("a batch item that is not an object is named as the batch item", async () => {
  for (const path of ["/api/v1/customers/batch", "/api/v1/invoices/batch"]) {
    const r = await env.api("POST", path, { items: [1, "x", null, []] });
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(4);
    for (const result of r.body.data) {
      expect(result.status).toBe(422);
      expect(result.message).toBe("The batch item must be a JSON object.");
    }
  }
  // the request body itself keeps its own message
  const r = await env.request("POST", "/api/v1/customers", { rawBody: "[1]", headers: { "content-type": "application/json" } });
  expect(r.status).toBe(422);
  expect(r.body.message).toBe("The request body must be a JSON object.");
});
