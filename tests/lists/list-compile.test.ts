/**
 * `compileList` (server/lib/list.ts) is pure: a list request becomes its statements' SQL, the
 * values they take and the key of their shape, with no database at hand. The connection keeps
 * compiled statements by that key, so the key must never join two different SQL texts, and
 * the values must be all that differs between requests of one shape.
 */
import { describe, expect, test } from "bun:test";
import { eq, fillPlaceholders, sql } from "drizzle-orm";
import fc from "fast-check";
import { contactPersons, invoices } from "../../db/schema.ts";
import { ValidationFailed } from "../../server/lib/errors.ts";
import {
  compileList,
  LookUp,
  parseListRequest,
  searchParam,
  type CompiledList,
  type ListQuery,
  type ListSpec,
} from "../../server/lib/list.ts";
import { invoiceList } from "../../server/invoices/list.ts";
import { onPostgres } from "../raw-sql.ts";

const ORG = "0190a0a0-0000-7000-8000-000000000001";
const OTHER_ORG = "0190a0a0-0000-7000-8000-000000000002";

const compile = (query: ListQuery, orgId = ORG, spec: ListSpec<any> = invoiceList) => compileList(spec, parseListRequest(spec, query), orgId);

/** The SQL of each statement of a compiled list. */
const texts = (list: CompiledList) => ({
  count: list.count().toSQL().sql,
  rows: list.rows().toSQL().sql,
  at: list.rowsFrom(true).toSQL().sql,
  after: list.rowsFrom(false).toSQL().sql,
});

/** What a statement is run with: its values, the looked-up ones and a cursor given stand-ins. */
function bound(list: CompiledList, statement: "count" | "rows" | "at") {
  const { params } = statement === "count" ? list.count().toSQL() : statement === "rows" ? list.rows().toSQL() : list.rowsFrom(true).toSQL();
  const lookedUp = Object.fromEntries(Object.keys(list.lookUps).map((name) => [name, `<${name}>`]));
  return fillPlaceholders(params, { ...list.params, ...lookedUp, from_sort: "<from_sort>", from_id: "<from_id>" });
}

describe("compileList", () => {
  test("the same request compiles to the same shape key, SQL, values and memo key", () => {
    const query = { page: 3, per_page: 7, sort: "-total", "filter[status]": "paid", "filter[currency]": "EUR", "filter[updated_since]": "2026-01-01" };
    const [a, b] = [compile(query), compile({ ...query })];
    expect(b.shapeKey).toBe(a.shapeKey);
    expect(b.params).toEqual(a.params);
    expect(b.memoKey).toBe(a.memoKey);
    expect(texts(b)).toEqual(texts(a));
    expect(a.params).toEqual({
      orgId: ORG,
      limit: 7,
      offset: 14,
      filter_status: "paid",
      filter_currency: "EUR",
      updated_since: "2026-01-01T00:00:00.000000Z",
    });
  });

  test("other values of the same filters: the same shape and SQL, other values", () => {
    const a = compile({ "filter[status]": "paid", "filter[issue_date_from]": "2026-01-01", page: 2 });
    const b = compile({ "filter[status]": "draft", "filter[issue_date_from]": "2025-06-30", page: 9 });
    expect(b.shapeKey).toBe(a.shapeKey);
    expect(texts(b)).toEqual(texts(a));
    expect(b.params).not.toEqual(a.params);
    expect(b.memoKey).not.toBe(a.memoKey);
    // the values are bound, never written into the SQL
    for (const value of ["'paid'", "2026-01-01"]) expect(Object.values(texts(a)).join(" ")).not.toContain(value);
    expect(bound(a, "rows")).toContain("paid");
    expect(bound(b, "rows")).toContain("draft");
  });

  test("another organisation: the same shape, its own values and memo key", () => {
    const [a, b] = [compile({}), compile({}, OTHER_ORG)];
    expect(b.shapeKey).toBe(a.shapeKey);
    expect(b.params.orgId).toBe(OTHER_ORG);
    expect(b.memoKey).not.toBe(a.memoKey);
    expect(bound(b, "count")).toContain(OTHER_ORG);
  });

  test("other filters, another sort or direction: another shape", () => {
    const keys = [
      {},
      { sort: "issue_date" },
      { sort: "total" },
      { "filter[status]": "paid" },
      { "filter[type]": "invoice" },
      { "filter[status]": "paid", "filter[type]": "invoice" },
      { "filter[updated_since]": "2026-01-01" },
      { "filter[overdue]": "true" },
      { "filter[overdue]": "false" },
      { search: "acme" },
      { search: "!!!" },
    ].map((query) => compile(query).shapeKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test("page and per_page are values, not shape; they are not part of the memo key", () => {
    const [a, b] = [compile({ page: 1, per_page: 20 }), compile({ page: 4, per_page: 50 })];
    expect(b.shapeKey).toBe(a.shapeKey);
    expect([b.params.limit, b.params.offset]).toEqual([50, 150]);
    expect(b.memoKey).toBe(a.memoKey);
  });

  test("metadata filters: keys and values are bound, one shape whatever order the keys come in", () => {
    const a = compile({ "filter[metadata][shop]": "web", "filter[metadata][region]": "north" });
    const b = compile({ "filter[metadata][region]": "south", "filter[metadata][shop]": "pos" });
    expect(b.shapeKey).toBe(a.shapeKey);
    expect(texts(b)).toEqual(texts(a));
    expect(a.params).toMatchObject({ metadata_0_key: "region", metadata_0: "north", metadata_1_key: "shop", metadata_1: "web" });
    for (const value of ["north", "shop"]) expect(Object.values(texts(a)).join(" ")).not.toContain(value);
    expect(compile({ "filter[metadata][shop]": "web" }).shapeKey).not.toBe(a.shapeKey);
  });

  test("an empty filter value is no filter", () => {
    expect(compile({ "filter[status]": "" }).shapeKey).toBe(compile({}).shapeKey);
  });

  test("a search: the same shape and SQL whatever the words; what is looked up is read when the list runs, keyed by the words", () => {
    const [a, b] = [compile({ search: "acme gmbh" }), compile({ search: "INV-2026-00042" })];
    expect(b.shapeKey).toBe(a.shapeKey);
    expect(texts(b)).toEqual(texts(a));
    // the phrase as each engine's search takes it (db/search.ts): an FTS5 phrase, or the words
    expect(a.params.search_number).toBe(onPostgres ? "acme gmbh" : '"acme gmbh"*');
    // the customers a name matched are not read by compileList: they are a LookUp
    expect(a.lookUps.search_customers).toBeInstanceOf(LookUp);
    expect(a.params).not.toHaveProperty("search_customers");
    expect(a.memoKey).toContain(JSON.stringify({ lookedUp: a.lookUps.search_customers!.key }));
    expect(b.memoKey).not.toBe(a.memoKey);
    expect(bound(a, "rows")).toContain("<search_customers>");
  });

  test("a search without words matches nothing, with a shape of its own", () => {
    const list = compile({ search: "  ,;  " });
    expect(list.shapeKey).toEndWith("search:none");
    expect(list.lookUps).toEqual({});
    expect(list.count().toSQL().sql).toContain(" and 1 = 0");
  });

  test("compiling reads nothing: a LookUp is only described", () => {
    let reads = 0;
    const spec: ListSpec<typeof invoices> = {
      ...invoiceList,
      search: (words) => ({
        where: sql`${invoices.customerId} IN (SELECT value FROM json_each(${searchParam("ids")}))`,
        params: { ids: new LookUp(words.join(" "), () => ++reads) },
      }),
    };
    const list = compile({ search: "acme", "filter[overdue]": "true" }, ORG, spec);
    expect(reads).toBe(0);
    expect(Object.keys(list.lookUps)).toEqual(["search_ids"]);
  });

  test("a caller's condition written with its value: a shape per value, and the connection does not keep its statements", () => {
    const spec: ListSpec<typeof contactPersons> = { table: contactPersons, sorts: { created_at: contactPersons.createdAt }, defaultSort: "created_at", updatedAt: contactPersons.updatedAt };
    const of = (customerId: string) => compileList(spec, parseListRequest(spec, {}), ORG, [eq(contactPersons.customerId, customerId)]);
    const [a, b] = [of("c1"), of("c2")];
    expect(a.keepsStatements).toBe(false);
    expect(a.shapeKey).not.toBe(b.shapeKey);
    expect(a.memoKey).not.toBe(b.memoKey);
    expect(a.seek).toBeNull();
    expect(compileList(spec, parseListRequest(spec, {}), ORG).keepsStatements).toBe(true);
  });

  test("pages are sought by a sort column that is never NULL, and read by OFFSET otherwise", () => {
    expect(compile({ sort: "-issue_date" }).seek).toMatchObject({ property: "issueDate", descending: true });
    expect(compile({ sort: "total" }).seek).toMatchObject({ property: "totalCents", descending: false });
    expect(texts(compile({ sort: "-issue_date" })).after).toContain(`("invoices"."issue_date", "invoices"."id") < (?, ?)`);
    expect(texts(compile({ sort: "-issue_date" })).at).toContain(`("invoices"."issue_date", "invoices"."id") <= (?, ?)`);
  });

  test("every request: equal shape keys mean equal SQL, and every placeholder has its value", () => {
    const statuses = ["draft", "finalized", "sent", "paid"];
    const sorts = Object.keys(invoiceList.sorts).flatMap((s) => [s, `-${s}`]);
    const date = fc.integer({ min: 0, max: 2000 }).map((d) => new Date(Date.UTC(2024, 0, 1) + d * 86_400_000).toISOString().slice(0, 10));
    const query = fc.record(
      {
        page: fc.integer({ min: 1, max: 50 }),
        per_page: fc.integer({ min: 1, max: 100 }),
        sort: fc.constantFrom(...sorts),
        "filter[status]": fc.constantFrom(...statuses, ""),
        "filter[type]": fc.constantFrom("invoice", "credit_note"),
        "filter[currency]": fc.constantFrom("EUR", "USD"),
        "filter[issue_date_from]": date,
        "filter[issue_date_to]": date,
        "filter[overdue]": fc.constantFrom("true", "false"),
        "filter[updated_since]": date,
        search: fc.oneof(fc.stringMatching(/^[a-z0-9 -]{0,12}$/), fc.constantFrom("acme gm", "INV-2026", "")),
      },
      { requiredKeys: [] },
    );
    const seen = new Map<string, ReturnType<typeof texts>>();
    fc.assert(
      fc.property(query, fc.constantFrom(ORG, OTHER_ORG), (q, orgId) => {
        const list = compile(q, orgId);
        const sqlTexts = texts(list);
        const before = seen.get(list.shapeKey);
        if (before) expect(sqlTexts).toEqual(before);
        else seen.set(list.shapeKey, sqlTexts);
        for (const statement of ["count", "rows", "at"] as const) expect(() => bound(list, statement)).not.toThrow();
      }),
      { numRuns: 400 },
    );
    // the run met shapes more than once (the property compared something)
    expect(seen.size).toBeLessThan(400);
  });
});

describe("parseListRequest", () => {
  test("defaults, the sort as sent, filters of the spec only, search words", () => {
    expect(parseListRequest(invoiceList, {})).toEqual({ page: 1, perPage: 20, sort: "-issue_date", filters: {}, updatedSince: null, search: null, metadata: {}, after: null, byCursor: false });
    expect(
      parseListRequest(invoiceList, { page: 2, per_page: 5, sort: "total", "filter[status]": "paid", "filter[metadata][shop]": "web", search: "Acme, GmbH!" }),
    ).toEqual({ page: 2, perPage: 5, sort: "total", filters: { status: "paid" }, updatedSince: null, search: ["Acme", "GmbH"], metadata: { shop: "web" }, after: null, byCursor: false });
    // a list with metadata takes names per key, so it refuses other names itself (else its query schema does)
    expect(() => parseListRequest(invoiceList, { "filter[nope]": "x" })).toThrow("The filter.nope field is not accepted.");
  });

  test("an unknown sort and an unreadable updated_since are 422s keyed by the parameter", () => {
    expect(() => parseListRequest(invoiceList, { sort: "-email" })).toThrow(ValidationFailed);
    try {
      parseListRequest(invoiceList, { "filter[updated_since]": "yesterday" });
      throw new Error("accepted");
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationFailed);
      expect(Object.keys((error as ValidationFailed).errors ?? {})).toEqual(["filter.updated_since"]);
    }
  });
});
