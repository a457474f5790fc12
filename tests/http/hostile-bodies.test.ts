/**
 * Bodies an attacker sends to any POST with any valid token (issue 16, item 1): refused by
 * their shape before anything is built from them, and no error ever echoes a body back.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { t, ValidationError } from "elysia";
import { BODY_SHAPE_LIMITS } from "../../server/http/kernel.ts";
import { createTestEnv } from "../helpers.ts";

const env = await createTestEnv();
afterAll(() => env.close());
const json = { "content-type": "application/json" };
const viewer = await env.orgToken(["contacts.view"]);
const post = (path: string, rawBody: string, token: string = env.token) => env.request("POST", path, { rawBody, headers: json, token });
const nested = (depth: number, inner = "") => `${"[".repeat(depth)}${inner}${"]".repeat(depth)}`;

describe("nesting", () => {
  test("20,000 arrays deep is a 422 naming the depth, for a viewer's token too, on any POST", async () => {
    for (const [path, token] of [
      ["/api/v1/customers", env.token],
      ["/api/v1/invoices", viewer],
      ["/api/v1/webhooks", env.token],
    ] as const) {
      const r = await post(path, `{"name":"x","notes":${nested(20_000)}}`, token);
      expect(r.status).toBe(422);
      expect(r.body.errors.body[0]).toContain(`${BODY_SHAPE_LIMITS.maxDepth} levels`);
    }
    // 30,000 deep was a 500
    expect((await post("/api/v1/customers", nested(30_000))).status).toBe(422);
  });

  test("the bound is 32 levels: 33 is refused, 32 reaches the field's own check", async () => {
    const over = await post("/api/v1/customers", `{"name":"x","address":${nested(32)}}`);
    expect(over.status).toBe(422);
    expect(over.body.errors).toHaveProperty("body");
    const at = await post("/api/v1/customers", `{"name":"x","address":${nested(31)}}`);
    expect(at.status).toBe(422);
    expect(at.body.errors).toEqual({ address: ["The address field must be a string."] });
  });

  test("brackets inside strings do not count", async () => {
    const r = await post("/api/v1/customers", JSON.stringify({ name: "[[[{{{\\\"[", address: "[".repeat(500) }));
    expect(r.status).toBe(201);
    expect(r.body.data.address).toBe("[".repeat(500));
  });
});

describe("width", () => {
  test(`more than ${BODY_SHAPE_LIMITS.maxValues} values is a 422; an invoice of 500 lines is far below it`, async () => {
    const wide = await post("/api/v1/customers", `{"name":"x","notes":[${"1,".repeat(300_000)}1]}`);
    expect(wide.status).toBe(422);
    expect(wide.body.errors.body[0]).toContain(`${BODY_SHAPE_LIMITS.maxValues} values`);

    const customer = await env.api("POST", "/api/v1/customers", { name: "Wide" });
    const lines = Array.from({ length: 500 }, (_, i) => ({ description: `Line ${i}`, quantity: "1", unit_price: "1.00", vat_rate_id: null }));
    const invoice = await env.api("POST", "/api/v1/invoices", { customer_id: customer.body.data.id, issue_date: "2026-11-01", lines });
    expect(invoice.status).toBe(201);
    expect(invoice.body.data.lines).toHaveLength(500);
  });
});

describe("__proto__", () => {
  test("is an unknown field like any other, in every body and at any depth", async () => {
    for (const body of ['{"name":"x","__proto__":{"a":1}}', '{"name":"x","\\u005f_proto__":{}}']) {
      const r = await post("/api/v1/customers", body);
      expect(r.status).toBe(422);
      expect(r.body.errors).toEqual({ __proto__: ["The __proto__ field is not accepted."] });
    }
    const token = await post("/api/v1/org-tokens", '{"name":"t","abilities":["contacts.view"],"__proto__":{"abilities":["*"]}}');
    expect(token.status).toBe(422);
    expect(Object.keys(token.body.errors)).toEqual(["__proto__"]);
    const line = await post("/api/v1/invoices", '{"lines":[{"__proto__":{}}]}');
    expect(line.status).toBe(422);
    expect(Object.keys(line.body.errors)).toEqual(["lines.0.__proto__"]);
  });
});

describe("errors never echo the body", () => {
  test("a 422 names fields, never the values sent", async () => {
    const r = await post("/api/v1/customers", JSON.stringify({ name: { secret: "ECHO-ME-4711" }, notes: ["ECHO-ME-4712"], extra: "ECHO-ME-4713" }));
    expect(r.status).toBe(422);
    expect(r.text).not.toContain("ECHO-ME");
  });

  test("Elysia runs in production mode: its own validation error does not copy the body", () => {
    // server/http/elysia-production.ts must be loaded before Elysia; outside production mode
    // this message is a pretty-printed copy of the whole value (the 20,000-deep stall)
    const error = new ValidationError("body", t.Object({ a: t.String() }), { a: 1, b: nested(10) });
    expect(error.message).not.toContain("\n");
  });
});

describe("lengths count characters (code points), as JSON Schema does", () => {
  const emoji = "😀"; // one code point, two UTF-16 units
  test("200 emoji are a name of 200 characters; 256 are over 255", async () => {
    const ok = await env.api("POST", "/api/v1/customers", { name: emoji.repeat(200), phone: "☎".repeat(50) });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.data.name).toBe(emoji.repeat(200));
    const over = await env.api("POST", "/api/v1/customers", { name: emoji.repeat(256) });
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual({ name: ["The name field must not be greater than 255 characters."] });
    const empty = await env.api("POST", "/api/v1/customers", { name: "" });
    expect(empty.body.errors).toEqual({ name: ["The name field must not be empty."] });
    const typed = await env.api("POST", "/api/v1/customers", { name: 5, email: "nope" });
    expect(typed.body.errors).toEqual({ name: ["The name field must be a string."], email: ["The email field must be a valid email address."] });
  });

  test("in every body: invoice lines, expenses, tokens", async () => {
    const customer = (await env.api("POST", "/api/v1/customers", { name: "Emoji" })).body.data;
    const invoice = await env.api("POST", "/api/v1/invoices", {
      customer_id: customer.id,
      issue_date: "2026-11-01",
      lines: [{ description: emoji.repeat(2000), quantity: "1", unit_price: "1.00" }],
    });
    expect(invoice.status, invoice.text).toBe(201);
    const expense = await env.api("POST", "/api/v1/expenses", { amount: "1.00", date: "2026-11-01", category: emoji.repeat(100) });
    expect(expense.status, expense.text).toBe(201);
    const token = await env.api("POST", "/api/v1/org-tokens", { name: emoji.repeat(255), abilities: ["contacts.view"] });
    expect(token.status, token.text).toBe(201);
  });
});
