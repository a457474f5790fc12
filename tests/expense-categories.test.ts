/** The category → expense account map: what an approved expense posts to, changeable over the API. */
import { afterAll, describe, expect, test } from "bun:test";
import { createTestEnv } from "./helpers.ts";

const env = createTestEnv();
afterAll(() => env.close());

const accounts = async (token = env.token) => (await env.api("GET", "/api/v1/accounts?per_page=100", undefined, token)).body.data as { id: string; code: string }[];
const codeOf = async (id: string, token = env.token) => (await accounts(token)).find((a) => a.id === id)!.code;

/** The expense account the approval of an expense of this category posted to. */
async function postedTo(category: string, token = env.token): Promise<string> {
  const e = await env.api("POST", "/api/v1/expenses", { category, amount: "10.00", date: "2026-02-01" }, token);
  expect((await env.api("POST", `/api/v1/expenses/${e.body.data.id}/approve`, undefined, token)).status).toBe(200);
  const entry = (await env.api("GET", `/api/v1/journal-entries?filter[source_id]=${e.body.data.id}`, undefined, token)).body.data[0];
  return codeOf(entry.lines[0].account_id, token);
}

describe("expense categories", () => {
  test("the seeded map: travel 6500, rent 6200, office 6400, …; a category not in it posts to 6800", async () => {
    const r = await env.api("GET", "/api/v1/expense-categories");
    expect(r.status).toBe(200);
    const map = Object.fromEntries(await Promise.all(r.body.data.map(async (m: any) => [m.category, await codeOf(m.account_id)])));
    expect(map).toMatchObject({ travel: "6500", rent: "6200", office: "6400", software: "6400", "bank charges": "6900", "cost of goods sold": "6100" });
    expect(await postedTo("  TRAVEL ")).toBe("6500");
    expect(await postedTo("Catering")).toBe("6800");
  });

  test("PUT maps a category (lower-cased, trimmed) to an expense account; later approvals post there", async () => {
    const salaries = (await accounts()).find((a) => a.code === "6300")!;
    const r = await env.api("PUT", `/api/v1/expense-categories/${encodeURIComponent(" Catering ")}`, { account_id: salaries.id });
    expect(r.status, r.text).toBe(200);
    expect(r.body.data).toEqual({ category: "catering", account_id: salaries.id });
    expect(await postedTo("catering")).toBe("6300");
  });

  test("a fixed-asset account (an asset without a system role) is accepted: investment goods post to it", async () => {
    const org = (await env.api("GET", "/api/v1/organization")).body.data;
    // the generic chart has no fixed-asset account: one as the accountant would add it
    const now = new Date().toISOString();
    env.db.$client.run(
      `INSERT INTO accounts (id, organization_id, code, name, type, parent_id, is_active, description, system_account, created_at, updated_at) VALUES (?, ?, '1500', 'Equipment', 'asset', NULL, 1, 'Fixed assets', NULL, ?, ?)`,
      [crypto.randomUUID(), org.id, now, now],
    );
    const equipment = (await accounts()).find((a) => a.code === "1500")!;
    expect((await env.api("PUT", "/api/v1/expense-categories/laptops", { account_id: equipment.id })).status).toBe(200);
    expect(await postedTo("laptops")).toBe("1500");
  });

  test("an account that is not an expense account of the organisation is a 422 on account_id", async () => {
    const sales = (await accounts()).find((a) => a.code === "4100")!;
    const wrongType = await env.api("PUT", "/api/v1/expense-categories/travel", { account_id: sales.id });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.errors.account_id[0]).toContain("4100 Sales is not an active expense or fixed-asset account");
    // an asset account with a system role (VAT receivable) is no fixed asset
    const vatReceivable = (await accounts()).find((a) => a.code === "1400")!;
    expect((await env.api("PUT", "/api/v1/expense-categories/travel", { account_id: vatReceivable.id })).status).toBe(422);
    const other = env.newOrg("Other categories");
    const theirs = (await accounts(other.token)).find((a) => a.code === "6300")!;
    const foreign = await env.api("PUT", "/api/v1/expense-categories/travel", { account_id: theirs.id });
    expect(foreign.status).toBe(422);
    expect(await postedTo("travel")).toBe("6500");
  });

  test("DELETE removes a mapping (204): the category posts to 6800; an unknown one is a 404", async () => {
    expect((await env.api("DELETE", "/api/v1/expense-categories/rent")).status).toBe(204);
    expect(await postedTo("Rent")).toBe("6800");
    expect((await env.api("DELETE", "/api/v1/expense-categories/rent")).status).toBe(404);
  });

  test("each organisation has its own map", async () => {
    const other = env.newOrg("Own map");
    const rent = (await accounts(other.token)).find((a) => a.code === "6200")!;
    expect(await postedTo("rent", other.token)).toBe("6200");
    expect(rent).toBeDefined();
  });

  test("reading needs accounting.view, changing accounting.edit (403 naming it)", async () => {
    const viewer = env.orgToken(["accounting.view"]);
    expect((await env.api("GET", "/api/v1/expense-categories", undefined, viewer)).status).toBe(200);
    const r = await env.api("DELETE", "/api/v1/expense-categories/travel", undefined, viewer);
    expect(r.status).toBe(403);
    expect(r.body.message).toContain("accounting.edit");
  });
});

test("a category holding % or an encoded sequence is taken as written (the path is decoded once)", async () => {
  const rent = (await accounts()).find((a) => a.code === "6200")!;
  const r = await env.api("PUT", `/api/v1/expense-categories/${encodeURIComponent("100% fees")}`, { account_id: rent.id });
  expect(r.status, r.text).toBe(200);
  expect(r.body.data.category).toBe("100% fees");
  const literal = await env.api("PUT", `/api/v1/expense-categories/${encodeURIComponent("%41")}`, { account_id: rent.id });
  expect(literal.body.data.category).toBe("%41");
  expect((await env.api("DELETE", `/api/v1/expense-categories/${encodeURIComponent("50%")}`)).status).toBe(404);
});
