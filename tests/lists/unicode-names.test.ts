/**
 * Names in any script, on either engine: a search finds a name in Cyrillic or Greek, accents and
 * case aside, and a search of letters that fold into punctuation is answered, not a 500; a list
 * sorted by name pages by cursor through every name once, accented capitals included; an
 * expense's vendor written with an accented capital finds its supplier again. (On PostgreSQL the
 * text columns sort byte by byte, "C", and lower() there folds ASCII only, as SQLite's NOCASE:
 * a value compared with them must be folded the same way, and search must not be.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestEnv, type TestEnv } from "../helpers.ts";

let env: TestEnv;
const NAMES = ["ООО Ромашка", "Ωmega Ltd", "Émile Zola SA", "Öko GmbH", "émile bis", "apple BV", "Zeta NV", "Ärzte AG", "ÉCOLE", "bravo"];

beforeAll(async () => {
  env = await createTestEnv();
  for (const name of NAMES) expect((await env.api("POST", "/api/v1/customers", { name })).status).toBe(201);
});
afterAll(() => env.close());

const names = (r: { body: { data: { name: string }[] } }) => r.body.data.map((c) => c.name).sort();

describe("search", () => {
  test("a name in Cyrillic or Greek, its case and accents aside", async () => {
    expect(names(await env.api("GET", "/api/v1/customers?search=ромашка"))).toEqual(["ООО Ромашка"]);
    expect(names(await env.api("GET", "/api/v1/customers?search=ΩMEGA"))).toEqual(["Ωmega Ltd"]);
    expect(names(await env.api("GET", "/api/v1/customers?search=emile"))).toEqual(["Émile Zola SA", "émile bis"]);
    expect(names(await env.api("GET", "/api/v1/customers?search=OKO"))).toEqual(["Öko GmbH"]);
    // a word matches the words it begins, not the middle of one
    expect(names(await env.api("GET", "/api/v1/customers?search=mega"))).toEqual([]);
  });

  test("letters and numbers that unaccent into punctuation are searched, never a 500", async () => {
    for (const word of ["ʼa", "aː", "a⑴", "²", "ŉ"]) {
      const r = await env.api("GET", `/api/v1/customers?search=${encodeURIComponent(word)}`);
      expect(r.status, word).toBe(200);
    }
  });
});

describe("a list sorted by name, paged by cursor", () => {
  for (const sort of ["name", "-name"]) {
    test(`${sort}: every name once, in the order of the page walk`, async () => {
      const byPages: string[] = [];
      for (let page = 1; page <= 10; page++) {
        const r = await env.api("GET", `/api/v1/customers?sort=${sort}&per_page=3&page=${page}`);
        byPages.push(...r.body.data.map((c: { name: string }) => c.name));
        if (r.body.data.length < 3) break;
      }
      const byCursor: string[] = [];
      let cursor: string | null = null;
      for (let guard = 0; guard < 10; guard++) {
        const r: { body: { data: { name: string }[]; meta: { next_cursor: string | null } } } = await env.api("GET", `/api/v1/customers?sort=${sort}&per_page=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
        byCursor.push(...r.body.data.map((c) => c.name));
        cursor = r.body.meta.next_cursor;
        if (cursor === null) break;
      }
      expect(byPages.length).toBe(NAMES.length);
      expect(byCursor).toEqual(byPages);
    });
  }
});

test("an expense's vendor with an accented capital finds its supplier again", async () => {
  for (const amount of ["10.00", "20.00"]) {
    expect((await env.api("POST", "/api/v1/expenses", { category: "Office", amount, date: "2026-03-02", vendor: "École Dupont" })).status).toBe(201);
  }
  // "ÉCOLE DUPONT" too: the ASCII letters' case aside, as SQLite's lower() and NOCASE compare
  expect((await env.api("POST", "/api/v1/expenses", { category: "Office", amount: "5.00", date: "2026-03-02", vendor: "École DUPONT" })).status).toBe(201);
  const suppliers = (await env.api("GET", "/api/v1/suppliers?per_page=100")).body.data.map((s: { name: string }) => s.name);
  expect(suppliers.filter((name: string) => name.toLowerCase().includes("dupont"))).toHaveLength(1);
});
