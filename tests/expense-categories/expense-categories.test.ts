/** The category → expense account map: what an approved expense posts to, changeable over the API. */
import { afterAll, describe, expect, test } from "bun:test";
import { createOrganization } from "../../server/orgs/service.ts";
import { createTestEnv, TEST_IBAN } from "../helpers.ts";

const env = await createTestEnv();
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

  test("a fixed-asset account (1600–1699 in the generic chart) is accepted: investment goods post to it", async () => {
    const fixedAssets = (await accounts()).find((a) => a.code === "1600")!;
    const created = await env.api("POST", "/api/v1/accounts", { code: "1610", name: "Equipment", type: "asset", parent_id: fixedAssets.id });
    expect(created.status, created.text).toBe(201);
    expect((await env.api("PUT", "/api/v1/expense-categories/laptops", { account_id: created.body.data.id })).status).toBe(200);
    expect(await postedTo("laptops")).toBe("1610");
  });

  test("an asset account outside the fixed-asset range (1300 Cash, an asset added at 1700) is no fixed asset: 422", async () => {
    const cash = (await accounts()).find((a) => a.code === "1300")!;
    const refused = await env.api("PUT", "/api/v1/expense-categories/petty", { account_id: cash.id });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.account_id[0]).toContain("1300 Cash is not an active expense or fixed-asset account");
    const assets = (await accounts()).find((a) => a.code === "1000")!;
    const deposit = await env.api("POST", "/api/v1/accounts", { code: "1700", name: "Deposits", type: "asset", parent_id: assets.id });
    expect(deposit.status, deposit.text).toBe(201);
    expect((await env.api("PUT", "/api/v1/expense-categories/petty", { account_id: deposit.body.data.id })).status).toBe(422);
  });

  test("in the Belgian chart a fixed asset is PCMN class 2, and 400 Trade debtors is not one", async () => {
    const org = await createOrganization(env.db, { name: "Belgian categories", country: "BE", currency: "EUR", iban: TEST_IBAN, chart: "be" });
    const token = await env.orgToken(["*"], org);
    const all: { id: string; code: string }[] = [];
    for (let page = 1; ; page++) {
      const data = (await env.api("GET", `/api/v1/accounts?per_page=100&page=${page}`, undefined, token)).body.data;
      all.push(...data);
      if (data.length < 100) break;
    }
    const software = all.find((a) => a.code === "215000")!;
    const receivables = all.find((a) => a.code === "400")!;
    expect((await env.api("PUT", "/api/v1/expense-categories/software", { account_id: software.id }, token)).status).toBe(200);
    expect((await env.api("PUT", "/api/v1/expense-categories/software", { account_id: receivables.id }, token)).status).toBe(422);
  });

  test("an account that is not an expense account of the organisation is a 422 on account_id", async () => {
    const sales = (await accounts()).find((a) => a.code === "4100")!;
    const wrongType = await env.api("PUT", "/api/v1/expense-categories/travel", { account_id: sales.id });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.errors.account_id[0]).toContain("4100 Sales is not an active expense or fixed-asset account");
    // an asset account with a system role (VAT receivable) is no fixed asset
    const vatReceivable = (await accounts()).find((a) => a.code === "1400")!;
    expect((await env.api("PUT", "/api/v1/expense-categories/travel", { account_id: vatReceivable.id })).status).toBe(422);
    const other = await env.newOrg("Other categories");
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
    const other = await env.newOrg("Own map");
    const rent = (await accounts(other.token)).find((a) => a.code === "6200")!;
    expect(await postedTo("rent", other.token)).toBe("6200");
    expect(rent).toBeDefined();
  });

  test("reading needs accounting.view, changing accounting.edit (403 naming it)", async () => {
    const viewer = await env.orgToken(["accounting.view"]);
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
