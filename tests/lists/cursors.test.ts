/**
 * Cursors on every list (issue 28 item 2): `meta.next_cursor` and `links.next` page by the
 * sort's key and `id`, so a client paging while another one changes rows never skips one. The
 * issue's proof: an incremental sync (`sort=updated_at&filter[updated_since]=T`) of customers
 * and invoices, with another client updating, creating and deleting rows of the pages being
 * read, sees every row in its final state by cursor, and misses rows by page number.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestEnv, type ApiResponse } from "../helpers.ts";
import { plansOf, slowListSteps } from "../query-plan.ts";
import { sqliteOnly } from "../raw-sql.ts";

const env = await createTestEnv();
afterAll(() => env.close());

/** The other client: a token of its own in the same organisation. */
let other: string;
let rate21: string;
let customerId: string;
const T0 = "2000-01-01T00:00:00Z";

beforeAll(async () => {
  other = await env.orgToken(["*"]);
  rate21 = (await env.api("GET", "/api/v1/vat-rates")).body.data.find((r: any) => r.rate === "21.00").id;
  customerId = (await created("/api/v1/customers", { name: "Invoiced NV" })).id;
});

async function created(path: string, body: unknown, token?: string) {
  const r = await env.api("POST", path, body, token);
  expect(r.status, r.text).toBe(201);
  return r.body.data;
}

const invoiceBody = (n: number) => ({
  customer_id: customerId,
  issue_date: "2026-03-01",
  notes: `note ${n}`,
  lines: [{ description: `Line ${n}`, quantity: "1", unit_price: "10.00", vat_rate_id: rate21 }],
});

/** What a resource of the walk needs: how to make one, change one and list them. */
type Kind = {
  path: string;
  make: (n: number, token?: string) => Promise<{ id: string }>;
  change: (id: string, n: number) => Promise<ApiResponse>;
};

const KINDS: Record<"customers" | "invoices", Kind> = {
  customers: {
    path: "/api/v1/customers",
    make: (n, token) => created("/api/v1/customers", { name: `Customer ${String(n).padStart(4, "0")}` }, token),
    change: (id, n) => env.api("PUT", `/api/v1/customers/${id}`, { city: `City ${n}` }, other),
  },
  invoices: {
    path: "/api/v1/invoices",
    make: (n, token) => created("/api/v1/invoices", invoiceBody(n), token),
    change: (id, n) => env.api("PUT", `/api/v1/invoices/${id}`, { notes: `changed ${n}` }, other),
  },
};

const relative = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/**
 * Reads every page of `kind`'s incremental sync, by cursor (following `links.next`) or by page
 * number (page=1..last_page), while `meddle` changes rows between pages. Returns what was seen:
 * id → the last `updated_at` seen of it.
 */
async function sync(kind: Kind, mode: "cursor" | "page", meddle: (pageRead: string[], allSeen: Map<string, string>) => Promise<void>) {
  const seen = new Map<string, string>();
  // `cursor=` starts a walk whose links.next carry cursors
  let path: string | null = `${kind.path}?sort=updated_at&per_page=10&filter[updated_since]=${encodeURIComponent(T0)}${mode === "cursor" ? "&cursor=" : ""}`;
  for (let page = 1; path !== null; page++) {
    const r = await env.api("GET", mode === "page" ? `${path}&page=${page}` : path);
    expect(r.status, r.text).toBe(200);
    const ids: string[] = r.body.data.map((row: any) => row.id);
    for (const row of r.body.data) seen.set(row.id, row.updated_at);
    if (mode === "cursor") {
      path = r.body.links.next === null ? null : relative(r.body.links.next);
      expect(r.body.meta.next_cursor === null).toBe(path === null);
    } else if (page >= r.body.meta.last_page) path = null;
    if (path !== null) await meddle(ids, seen);
  }
  return seen;
}

/** Every row there is now, id → its `updated_at` (read after the walk, nothing changing). */
async function finalState(kind: Kind): Promise<Map<string, string>> {
  const rows = new Map<string, string>();
  for (let page = 1; ; page++) {
    const r = await env.api("GET", `${kind.path}?per_page=100&page=${page}&sort=created_at`);
    for (const row of r.body.data) rows.set(row.id, row.updated_at);
    if (page >= r.body.meta.last_page) return rows;
  }
}

/**
 * The other client's work between two pages: updates rows of the page just read (which the
 * issue saw skipped), updates one not read yet, creates one and deletes one read and one not.
 */
function meddler(kind: Kind, all: string[]) {
  let n = 0;
  const deleted = new Set<string>();
  const meddle = async (pageRead: string[], seen: Map<string, string>) => {
    meddle.times++;
    const alive = (id: string) => !deleted.has(id);
    const read = pageRead.filter(alive);
    for (const id of read.slice(0, 3)) expect((await kind.change(id, ++n)).status).toBe(200);
    const unread = all.filter((id) => alive(id) && !seen.has(id));
    if (unread[0]) expect((await kind.change(unread[0], ++n)).status).toBe(200);
    all.push((await kind.make(1000 + ++n, other)).id);
    for (const id of [read[read.length - 1], unread[unread.length - 1]]) {
      if (id === undefined || deleted.has(id)) continue;
      expect((await env.api("DELETE", `${kind.path}/${id}`, undefined, other)).status).toBe(204);
      deleted.add(id);
    }
  };
  meddle.times = 0;
  return meddle;
}

/** Rows that exist at the end and were not seen in their final state. */
function missed(final: Map<string, string>, seen: Map<string, string>): string[] {
  return [...final].filter(([id, updatedAt]) => seen.get(id) !== updatedAt).map(([id]) => id);
}

describe("an incremental sync while another client changes the rows", () => {
  for (const name of ["customers", "invoices"] as const) {
    test(`${name}: by cursor, every row that exists at the end is seen in its final state; by page number, rows are missed`, async () => {
      const kind = KINDS[name];
      const ids: string[] = [];
      for (let i = 0; i < 45; i++) ids.push((await kind.make(i)).id);

      const cursorMeddler = meddler(kind, ids);
      const byCursor = await sync(kind, "cursor", cursorMeddler);
      expect(cursorMeddler.times).toBeGreaterThanOrEqual(4);
      const afterCursorWalk = await finalState(kind);
      expect(afterCursorWalk.size).toBeGreaterThan(30);
      expect(missed(afterCursorWalk, byCursor)).toEqual([]);

      const byPage = await sync(kind, "page", meddler(kind, ids));
      const afterPageWalk = await finalState(kind);
      // the same meddling defeats page numbers: rows updated on a page already read move behind
      // the ones not read yet, which shift back by as many places onto pages already read
      expect(missed(afterPageWalk, byPage).length).toBeGreaterThan(0);
    });
  }
});

describe("cursor mechanics", () => {
  const names: string[] = [];
  beforeAll(async () => {
    for (const name of ["Mike", "alpha", "Zulu", "bravo", "Echo", "echo", "Oscar"]) {
      names.push(name);
      await created("/api/v1/customers", { name, country: "NL", email: `${name.toLowerCase()}@cursor.example` });
    }
  });
  const list = (query: string) => env.api("GET", `/api/v1/customers${query}`);

  test("a cursor walk equals the page walk when nothing changes, in every sort and direction; next_cursor null on the last page", async () => {
    for (const sort of ["name", "-name", "created_at", "-updated_at"]) {
      const pages: string[] = [];
      for (let page = 1; ; page++) {
        const r = await list(`?filter[country]=NL&per_page=2&sort=${sort}&page=${page}`);
        pages.push(...r.body.data.map((c: any) => c.name));
        if (page >= r.body.meta.last_page) {
          expect(r.body.meta.next_cursor).toBeNull();
          break;
        }
        expect(r.body.meta.next_cursor).toEqual(expect.any(String));
      }
      const walked: string[] = [];
      const metas: any[] = [];
      let r = await list(`?filter[country]=NL&per_page=2&sort=${sort}`);
      for (;;) {
        walked.push(...r.body.data.map((c: any) => c.name));
        metas.push(r.body.meta);
        if (r.body.meta.next_cursor === null) break;
        // the cursor alone carries the sort and the filters
        r = await list(`?per_page=2&cursor=${r.body.meta.next_cursor}`);
        expect(r.status, r.text).toBe(200);
      }
      expect(walked).toEqual(pages);
      expect(walked).toHaveLength(7);
      const last = metas[metas.length - 1];
      expect(last).toMatchObject({ current_page: 4, from: 7, to: 7, last_page: 4, per_page: 2, total: 7, next_cursor: null });
      expect(metas[1]).toMatchObject({ current_page: 2, from: 3, to: 4, total: 7 });
    }
  });

  test("under a cursor, links.next carries the next cursor and prev is null; first and last are page links", async () => {
    const first = await list("?filter[country]=NL&per_page=3&sort=name");
    const second = await list(`?filter[country]=NL&per_page=3&sort=name&cursor=${first.body.meta.next_cursor}`);
    const next = new URL(second.body.links.next);
    expect(next.searchParams.get("cursor")).toBe(second.body.meta.next_cursor);
    expect(next.searchParams.get("page")).toBeNull();
    expect(next.searchParams.get("sort")).toBe("name");
    expect(second.body.links.prev).toBeNull();
    expect(new URL(second.body.links.first).searchParams.get("page")).toBe("1");
    expect(new URL(second.body.links.first).searchParams.get("cursor")).toBeNull();
    // name sorts case-insensitively, ties by id: the cursor pages by the same key
    expect([...first.body.data, ...second.body.data].map((c: any) => c.name.toLowerCase())).toEqual(["alpha", "bravo", "echo", "echo", "mike", "oscar"]);
  });

  const errorKeys = (r: ApiResponse) => [r.status, Object.keys(r.body.errors ?? {})];

  test("a filter's value with a NUL character is a 422 naming the filter, on either engine (no stored text holds one)", async () => {
    expect(errorKeys(await list("?filter[country]=%00"))).toEqual([422, ["filter.country"]]);
    expect(errorKeys(await list("?filter[country]=N%00L"))).toEqual([422, ["filter.country"]]);
    expect(errorKeys(await list("?filter[metadata][erp]=a%00"))).toEqual([422, ["filter.metadata.erp"]]);
    expect(errorKeys(await list("?filter[country]=NL"))).toEqual([200, []]);
  });

  test("a cursor sent with another sort, filter or search, with page, or malformed is a 422 naming cursor", async () => {
    const cursor = (await list("?filter[country]=NL&per_page=2&sort=name")).body.meta.next_cursor;
    expect(errorKeys(await list(`?filter[country]=NL&sort=name&cursor=${cursor}`))).toEqual([200, []]);
    expect(errorKeys(await list(`?filter[country]=NL&sort=-name&cursor=${cursor}`))).toEqual([422, ["cursor"]]);
    expect(errorKeys(await list(`?filter[country]=BE&sort=name&cursor=${cursor}`))).toEqual([422, ["cursor"]]);
    expect(errorKeys(await list(`?sort=name&cursor=${cursor}`))).toEqual([422, ["cursor"]]);
    expect(errorKeys(await list(`?filter[country]=NL&sort=name&search=echo&cursor=${cursor}`))).toEqual([422, ["cursor"]]);
    expect(errorKeys(await list(`?cursor=${cursor}&page=2`))).toEqual([422, ["cursor"]]);
    for (const bad of ["x", "eyJ9", Buffer.from('{"s":"name","f":{},"u":null,"q":null,"k":["a","b"],"n":0,"c":"x"}').toString("base64url"), "%00"]) {
      expect(errorKeys(await list(`?cursor=${bad}`))).toEqual([422, ["cursor"]]);
    }
    // sealed: what it carries cannot be read (the sort key here is a customer's name) …
    const opened = await list(`?filter[country]=NL&sort=name&cursor=${cursor}`);
    expect(opened.body.data.length).toBeGreaterThan(0);
    expect(Buffer.from(cursor, "base64url").toString("latin1").toLowerCase()).not.toContain("bravo");
    expect(Buffer.from(cursor, "base64url").toString("latin1")).not.toContain('"k":');
    // … nor edited: any byte flipped, or the cursor cut short or lengthened, is not one of ours
    const bytes = Buffer.from(cursor, "base64url");
    for (const at of [0, 11, 12, 27, 28, bytes.length - 1]) {
      const edited = Buffer.from(bytes);
      edited[at]! ^= 0x01;
      expect(errorKeys(await list(`?filter[country]=NL&sort=name&cursor=${edited.toString("base64url")}`)), `byte ${at}`).toEqual([422, ["cursor"]]);
    }
    expect(errorKeys(await list(`?filter[country]=NL&sort=name&cursor=${bytes.subarray(0, -1).toString("base64url")}`))).toEqual([422, ["cursor"]]);
    expect(errorKeys(await list(`?filter[country]=NL&sort=name&cursor=${Buffer.concat([bytes, Buffer.from([0])]).toString("base64url")}`))).toEqual([422, ["cursor"]]);
    // a cursor made up the way the unsealed ones were, with its check recomputed, is refused too
    const forged = Buffer.from(JSON.stringify({ s: "name", f: { country: "NL" }, u: null, q: null, m: {}, k: ["echo", "00000000-0000-7000-8000-000000000000"], n: 6173, c: "x" })).toString("base64url");
    expect(errorKeys(await list(`?filter[country]=NL&sort=name&cursor=${forged}`))).toEqual([422, ["cursor"]]);
    // another list's cursor: invoices, another organisation, another customer's contact persons
    expect(errorKeys(await env.api("GET", `/api/v1/invoices?cursor=${cursor}`))).toEqual([422, ["cursor"]]);
    const stranger = await env.newOrg();
    expect(errorKeys(await env.api("GET", `/api/v1/customers?cursor=${cursor}`, undefined, stranger.token))).toEqual([422, ["cursor"]]);
  });

  test("a list narrowed by its path (one customer's contact persons) refuses another one's cursor", async () => {
    const [a, b] = [await created("/api/v1/customers", { name: "Persons A" }), await created("/api/v1/customers", { name: "Persons B" })];
    for (const customer of [a, b]) {
      for (const first_name of ["Ann", "Bob", "Cy"]) await created(`/api/v1/customers/${customer.id}/contact-persons`, { first_name, last_name: "X" });
    }
    const page = await env.api("GET", `/api/v1/customers/${a.id}/contact-persons?per_page=2`);
    const cursor = page.body.meta.next_cursor;
    const rest = await env.api("GET", `/api/v1/customers/${a.id}/contact-persons?per_page=2&cursor=${cursor}`);
    expect(rest.body.data.map((p: any) => p.first_name)).toEqual(["Cy"]);
    expect(errorKeys(await env.api("GET", `/api/v1/customers/${b.id}/contact-persons?per_page=2&cursor=${cursor}`))).toEqual([422, ["cursor"]]);
  });

  test("every list of the API takes a cursor: walking accounts, bank accounts, the audit log, tokens and an account's journal by cursor sees each row once", async () => {
    for (let i = 0; i < 4; i++) {
      const invoice = await created("/api/v1/invoices", invoiceBody(i));
      expect((await env.api("POST", `/api/v1/invoices/${invoice.id}/finalize`)).status).toBe(200);
    }
    const receivables = (await env.api("GET", "/api/v1/accounts?search=receivable")).body.data[0].id;
    for (const path of ["/api/v1/accounts?sort=name", "/api/v1/accounts?sort=-code", "/api/v1/bank-accounts", "/api/v1/audit-log", "/api/v1/org-tokens", `/api/v1/journal-entries?filter[account_id]=${receivables}`]) {
      const seen: string[] = [];
      let r = await env.api("GET", `${path}${path.includes("?") ? "&" : "?"}per_page=3`);
      expect(r.status, `${path}: ${r.text}`).toBe(200);
      const total = r.body.meta.total;
      for (;;) {
        seen.push(...r.body.data.map((row: any) => row.id));
        if (r.body.meta.next_cursor === null) break;
        r = await env.api("GET", relative(r.body.links.next));
        expect(r.status, `${path}: ${r.text}`).toBe(200);
      }
      expect(seen.length, path).toBe(total);
      expect(new Set(seen).size, path).toBe(total);
    }
  });

  test("a cursor's page is an index search with no sort step", async () => {
    for (const query of ["sort=name", "sort=-name", "sort=updated_at&filter[updated_since]=2000-01-01", "sort=created_at&filter[country]=NL", "sort=-name&filter[email]=echo@cursor.example"]) {
      const cursor = (await list(`?${query}&per_page=1`)).body.meta.next_cursor;
      expect(cursor, query).toEqual(expect.any(String));
      expect(await slowListSteps(env, "customers", `/api/v1/customers?${query}&per_page=1&cursor=${cursor}`)).toEqual([]);
    }
    const invoice = (await env.api("GET", "/api/v1/invoices?per_page=1&sort=-issue_date")).body.meta.next_cursor;
    expect(await slowListSteps(env, "invoices", `/api/v1/invoices?per_page=1&sort=-issue_date&cursor=${invoice}`)).toEqual([]);
  });

  sqliteOnly.test("the incremental sync's cursor page starts its index search at the cursor's row value", async () => {
    // the cursor's row value, not filter[updated_since], is where the index search starts
    const sync = "sort=updated_at&filter[updated_since]=2000-01-01&per_page=1";
    const syncCursor = (await list(`?${sync}`)).body.meta.next_cursor;
    const plans = await plansOf(env, () => list(`?${sync}&cursor=${syncCursor}`));
    const page = plans.find((p) => /from "customers"/i.test(p.sql) && /order by/i.test(p.sql))!;
    expect(page.plan.join(" | ")).toMatch(/SEARCH customers USING (COVERING )?INDEX customers_org_updated \(organization_id=\? AND \(updated_at,id\)>\(\?,\?\)\)/);
  });
});
