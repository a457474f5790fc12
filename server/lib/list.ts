/**
 * The one list mechanism: each resource declares its sorts, filters and search as data
 * (a `ListSpec`), and gets a query schema (validation + OpenAPI) and a runner that returns
 * `{data, links, meta}` with a stable tiebreak on `id`, always scoped to the organisation.
 *
 * A list request is answered in three steps (`runList`):
 * 1. `parseListRequest`: the query string → a `ListRequest` (page, sort, filters, search words);
 * 2. `compileList`: the request → its statements as SQL, the values they take and the key of
 *    their shape. Pure: it reads nothing, so equal requests compile to equal SQL and values
 *    (tests/list-compile.test.ts);
 * 3. `readPage`: the statements run on the connection, which keeps each shape's compiled
 *    statements (`prepared`) and remembers counts and where pages start until anything commits
 *    (`tx.connection.memory`).
 */
import { t, type TSchema } from "elysia";
import { asc, desc, eq, getTableColumns, getTableName, gte, is, lte, Placeholder, sql, SQL } from "drizzle-orm";
import { QueryBuilder, SQLiteColumn, SQLiteSyncDialect, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { TObject } from "@sinclair/typebox";
import { plainRows, prepared, tableRows, type RenderableQuery, type Tx } from "../../db/client.ts";
import { normalizeTimestamp } from "./time.ts";
import { ValidationFailed, validValues } from "./errors.ts";
import { inOrg, snapshot, type Scope } from "./scope.ts";
import { ResponseSchema, Timestamp, withoutDefault } from "./schemas.ts";

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;
/** Deeper pages are pointless (and their OFFSET would overflow SQLite integers). */
export const MAX_PAGE = 1_000_000;

type OrgTable = SQLiteTable & { organizationId: SQLiteColumn; id: SQLiteColumn };

export type FilterSpec =
  /** column = value; `schema` validates the raw query string (enum, uuid, date…) */
  | { column: SQLiteColumn; op?: "eq" | "gte" | "lte"; schema?: TSchema; map?: (value: string) => unknown }
  /**
   * anything else, e.g. `overdue=true`: values go through `bind` (a placeholder), so that the
   * condition's SQL is one of a few shapes, each compiled once
   */
  | { schema: TSchema; where: (value: string, bind: Bind) => FilterCondition | undefined };

/**
 * A filter's condition; or the same rows spelled twice, when the page and the count are best
 * read through different indexes (the page in list order, the count by a range of another).
 */
export type FilterCondition = SQL | { rows: SQL; count: SQL };

/** Binds a value to the list query under a name of its own; returns its placeholder. */
export type Bind = (name: string, value: unknown) => Placeholder;

/**
 * What a search function returns for the words searched: its condition on the rows, whose
 * values are placeholders named by `searchParam`, and those values by name. The SQL must be
 * the same whatever the words (the connection keeps one statement for every search of a list).
 */
export type SearchCondition = { where: SQL; params: Record<string, unknown | LookUp> };

/** The placeholder of a search's value `name` (a key of `SearchCondition.params`). */
export const searchParam = (name: string) => sql.placeholder(`search_${name}`);

/**
 * A search value read from the database when the list runs, not when it is compiled (the ids
 * of the customers a name matched): `compileList` stays pure. `read` runs in the list's
 * snapshot after the list has refreshed the connection's memory, so it may remember what it
 * reads in `tx.connection.memory` until anything commits. What the list remembers (counts,
 * page cursors) is keyed by `key`, which determines the value within an organisation and a
 * committed state (the words), and not by the value, which can be large (an id for each
 * customer matched).
 */
export class LookUp {
  constructor(
    readonly key: string,
    readonly read: (tx: Tx, orgId: string) => unknown,
  ) {}
}

export type ListSpec<T extends OrgTable = OrgTable> = {
  table: T;
  /**
   * sort name → column or expression (e.g. `nocase(table.name)` from db/schema.ts, matching its
   * index); the default is written as it would be sent: "name" or "-issue_date"
   */
  sorts: Record<string, SQLiteColumn | SQL>;
  defaultSort: string;
  filters?: Record<string, FilterSpec>;
  /**
   * `search`: the name of an FTS5 table whose rowids are the base table's rowids, matched with
   * every word as a prefix; or a function of the words searched (see ftsPrefixes), which
   * returns SQL and values and reads nothing itself (a value to read is a `LookUp`)
   */
  search?: string | ((words: string[]) => SearchCondition);
  /** column for `filter[updated_since]` (every list has it) */
  updatedAt: SQLiteColumn;
};

export type ListQuery = Record<string, unknown>;

export type ListPage<Row> = {
  rows: Row[];
  links: { first: string; last: string; prev: string | null; next: string | null };
  meta: {
    current_page: number;
    from: number | null;
    last_page: number;
    per_page: number;
    to: number | null;
    total: number;
  };
};

/** What `sort=` takes: each sort, and each prefixed with - for descending. */
const sortNamesOf = (spec: ListSpec): string[] => Object.keys(spec.sorts).flatMap((name) => [name, `-${name}`]);

/** The query-string schema of a list: used by Elysia to validate and by the OpenAPI document. */
export function listQuerySchema(spec: ListSpec): TObject {
  const sortNames = sortNamesOf(spec);
  const properties: Record<string, TSchema> = {
    page: t.Optional(t.Integer({ minimum: 1, maximum: MAX_PAGE, "x-param": "page", description: "Page number (default 1)" })),
    per_page: t.Optional(
      t.Integer({ minimum: 1, maximum: MAX_PER_PAGE, "x-param": "per_page", description: `Page size, 1–${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE})` }),
    ),
    sort: t.Optional(
      withoutDefault(
        t.UnionEnum(sortNames as [string, ...string[]], {
          description: `Sort field; prefix with - for descending. Default: ${spec.defaultSort}`,
        }),
      ),
    ),
    "filter[updated_since]": t.Optional(
      t.String({ ...Timestamp, description: "Only rows changed at or after this timestamp" }),
    ),
  };
  if (spec.search) {
    properties.search = t.Optional(t.String({ maxLength: 200, description: "Full-text search" }));
  }
  for (const [name, filter] of Object.entries(spec.filters ?? {})) {
    properties[`filter[${name}]`] = t.Optional(withoutDefault(filter.schema ?? t.String({ maxLength: 255 })));
  }
  return t.Object(properties, { additionalProperties: false });
}

/** The words of a search text (letters and digits; at most 10), as FTS5 tokenizes them. */
export function searchWords(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 10);
}

/** FTS5 query: every word, each as a prefix, anywhere (`"acme"* "gmbh"*`). */
export const ftsPrefixes = (words: string[]) => words.map((w) => `"${w}"*`).join(" ");

/** FTS5 query: the words in this order, one after the other, the last as a prefix (`"inv 2026 42"*`). */
export const ftsPhrasePrefix = (words: string[]) => `"${words.join(" ")}"*`;

/**
 * A list endpoint's answer: a page of rows (runList) as the API shows them, all read in one
 * snapshot, so that `meta.total`, the rows and what `present` reads beside them agree.
 */
export function listPage<T extends OrgTable, Shown>(
  scope: Scope,
  spec: ListSpec<T>,
  query: ListQuery,
  url: string,
  present: (rows: T["$inferSelect"][], tx: Tx) => Shown[],
  extraConditions: (SQL | undefined)[] = [],
): { data: Shown[]; links: ListPage<unknown>["links"]; meta: ListPage<unknown>["meta"] } {
  return snapshot(scope.db, (tx) => {
    const page = runList(tx, spec, scope.org.id, query, url, extraConditions);
    return { data: present(page.rows, tx), links: page.links, meta: page.meta };
  });
}

/**
 * One list request: the query string read (`parseListRequest`), its statements compiled
 * (`compileList`) and run on the connection (`readPage`), and the page with its links.
 */
export function runList<T extends OrgTable>(
  tx: Tx,
  spec: ListSpec<T>,
  orgId: string,
  query: ListQuery,
  url: string,
  extraConditions: (SQL | undefined)[] = [],
): ListPage<T["$inferSelect"]> {
  const request = parseListRequest(spec, query);
  const list = compileList(spec, request, orgId, extraConditions);
  const { rows, total } = readPage(tx, spec.table, request, list);
  return { rows, ...linksAndMeta(request, rows.length, total, url) };
}

// ---------------------------------------------------------------------------------------------
// 1. The request

/** A list request as the client sent it, validated; nothing read yet. */
export type ListRequest = {
  page: number;
  perPage: number;
  /** as sent, or the spec's default: "name", "-issue_date" */
  sort: string;
  /** filter name → value, for the spec's filters that were sent (an empty value is no filter) */
  filters: Record<string, string>;
  /** `filter[updated_since]`, normalised; null when not sent */
  updatedSince: string | null;
  /** the words of `search` (searchWords); null when not searched, [] when it has no words */
  search: string[] | null;
};

/**
 * The query string of a list (already validated by `listQuerySchema`) as a `ListRequest`; a
 * sort or an `updated_since` the schema cannot judge is a 422 here.
 */
export function parseListRequest(spec: ListSpec, query: ListQuery): ListRequest {
  const sort = String(query.sort ?? spec.defaultSort);
  if (!spec.sorts[sort.startsWith("-") ? sort.slice(1) : sort]) {
    throw ValidationFailed.field("sort", `The selected sort is invalid. ${validValues(sortNamesOf(spec))}`);
  }
  const filters: Record<string, string> = {};
  for (const name in spec.filters ?? {}) {
    const value = query[`filter[${name}]`];
    if (value !== undefined && value !== "") filters[name] = String(value);
  }
  let updatedSince: string | null = null;
  const since = query["filter[updated_since]"];
  if (since !== undefined && since !== "") {
    updatedSince = normalizeTimestamp(String(since));
    if (!updatedSince) throw ValidationFailed.field("filter.updated_since", "The filter.updated_since field must be a valid ISO 8601 timestamp.");
  }
  const searched = spec.search !== undefined && query.search !== undefined && query.search !== "";
  return {
    page: Number(query.page ?? 1),
    perPage: Number(query.per_page ?? DEFAULT_PER_PAGE),
    sort,
    filters,
    updatedSince,
    search: searched ? searchWords(String(query.search)) : null,
  };
}

// ---------------------------------------------------------------------------------------------
// 2. Its statements

/** A list request compiled: what `readPage` runs. */
export type CompiledList = {
  orgId: string;
  /**
   * Equal keys, equal SQL: the table, the sort, which filters (a `where` filter with its SQL),
   * whether searched, and the SQL of the caller's conditions. Values are not part of it; they
   * are `params`, except those written into the caller's conditions (see `keepsStatements`).
   */
  shapeKey: string;
  /**
   * Whether the connection keeps this shape's statements: not when the caller's conditions
   * carry values in their SQL (one customer's contact persons), which would keep one per value.
   */
  keepsStatements: boolean;
  /** values by placeholder name: orgId, limit, offset, filter_…, updated_since, search_… */
  params: Record<string, unknown>;
  /** values read from the database when the list runs, by placeholder name */
  lookUps: Record<string, LookUp>;
  /**
   * What the count and the page cursors are remembered under: the shape and its values (the
   * caller's included), less limit and offset, a looked-up value by its key.
   */
  memoKey: string;
  /**
   * The sort column and its row property, when a page can be read by a seek from where the
   * page before it ended: the sort is a column that is never NULL (row values compare as ORDER
   * BY sorts only then), and the statements are kept. Otherwise pages are read by OFFSET.
   */
  seek: { column: SQLiteColumn; property: string; descending: boolean } | null;
  /** `select count(*) as "n"` of the rows listed (built when the connection has none yet) */
  count(): RenderableQuery;
  /** the page by LIMIT and OFFSET */
  rows(): RenderableQuery;
  /** the page from the row (`from_sort`, `from_id`), at it (`inclusive`) or just past it */
  rowsFrom(inclusive: boolean): RenderableQuery;
};

/** Builds queries without a database: compiling a list reads nothing. */
const queries = new QueryBuilder();
const dialect = new SQLiteSyncDialect();

/**
 * The statements of a list request, with its values kept apart as placeholders, so that each
 * shape (which filters, which sort) is built and compiled once per connection. Pure: the same
 * request gives the same shape key, SQL and values, whatever the database holds.
 */
export function compileList<T extends OrgTable>(
  spec: ListSpec<T>,
  request: ListRequest,
  orgId: string,
  extraConditions: (SQL | undefined)[] = [],
): CompiledList {
  const { table } = spec;
  const descending = request.sort.startsWith("-");
  const sortColumn = spec.sorts[descending ? request.sort.slice(1) : request.sort]!;
  const params: Record<string, unknown> = { orgId, limit: request.perPage, offset: (request.page - 1) * request.perPage };
  const lookUps: Record<string, LookUp> = {};
  const bind: Bind = (name, value) => ((params[name] = value), sql.placeholder(name));
  const shape: string[] = [request.sort];
  const conditions: (FilterCondition | undefined)[] = [];

  for (const [name, filter] of Object.entries(spec.filters ?? {})) {
    const value = request.filters[name];
    if (value === undefined) continue;
    if ("where" in filter) {
      const condition = filter.where(value, (key, v) => bind(`filter_${name}_${key}`, v));
      shape.push(`${name}:${condition === undefined ? "" : is(condition, SQL) ? shapeOf(condition) : `${shapeOf(condition.rows)}|${shapeOf(condition.count)}`}`);
      conditions.push(condition);
    } else {
      shape.push(name);
      const bound = bind(`filter_${name}`, filter.map ? filter.map(value) : value);
      const op = filter.op ?? "eq";
      conditions.push(op === "gte" ? gte(filter.column, bound) : op === "lte" ? lte(filter.column, bound) : eq(filter.column, bound));
    }
  }
  if (request.updatedSince !== null) {
    shape.push("updated_since");
    conditions.push(gte(spec.updatedAt, bind("updated_since", request.updatedSince)));
  }
  const searched = request.search !== null && spec.search !== undefined;
  if (searched) {
    const words = request.search!;
    shape.push(words.length === 0 ? "search:none" : "search");
    if (words.length === 0) conditions.push(sql`0`);
    else {
      const search = typeof spec.search === "string" ? ftsTableSearch(table, spec.search)(words) : spec.search!(words);
      for (const [name, value] of Object.entries(search.params)) {
        if (value instanceof LookUp) lookUps[`search_${name}`] = value;
        else params[`search_${name}`] = value;
      }
      conditions.push(search.where);
    }
  }
  // conditions of the caller (one customer's contact persons) are written per request, values
  // and all: their SQL and values key the shape, and the connection does not keep it
  const keepsStatements = extraConditions.length === 0;
  for (const condition of extraConditions) {
    shape.push(`where:${condition === undefined ? "" : shapeOf(condition)}`);
    conditions.push(condition);
  }
  const shapeKey = `list:${getTableName(table)}:${shape.join(",")}`;

  const { limit: _limit, offset: _offset, ...remembered } = params;
  for (const [name, lookUp] of Object.entries(lookUps)) remembered[name] = { lookedUp: lookUp.key };
  const memoKey = `${shapeKey}\u0000${JSON.stringify(remembered)}`;

  const seekable = keepsStatements && is(sortColumn, SQLiteColumn) && sortColumn.notNull;
  const seek = seekable ? { column: sortColumn, property: propertyOf(table, sortColumn), descending } : null;

  // the statements, built only when the connection has none of this shape yet
  const direction = descending ? desc : asc;
  const order = () => [direction(sortColumn), direction(table.id)];
  const where = (statement: "rows" | "count", ...more: SQL[]) =>
    inOrg(table, sql.placeholder("orgId"), ...conditions.map((c) => (c === undefined || is(c, SQL) ? c : c[statement])), ...more);
  // A search's hits come unordered, so they are sorted. Sorting the hits' keys (sort column, id,
  // rowid: what the filter's index holds) and then reading the page's rows from the table reads
  // only the page's rows; sorting whole rows would read the row of every hit, scattered over
  // the table.
  const page = (...more: SQL[]): RenderableQuery => {
    if (!searched) {
      return queries
        .select()
        .from(table as SQLiteTable)
        .where(where("rows", ...more))
        .orderBy(...order())
        .limit(sql.placeholder("limit"))
        .offset(sql.placeholder("offset"));
    }
    const keys = queries
      .select({ rowid: sql`${table}.rowid` })
      .from(table as SQLiteTable)
      .where(where("rows", ...more))
      .orderBy(...order())
      .limit(sql.placeholder("limit"))
      .offset(sql.placeholder("offset"));
    return queries
      .select()
      .from(table as SQLiteTable)
      .where(sql`${table}.rowid IN ${keys}`)
      .orderBy(...order());
  };
  return {
    orgId,
    shapeKey,
    keepsStatements,
    params,
    lookUps,
    memoKey,
    seek,
    count: () =>
      queries
        .select({ n: sql<number>`count(*)`.as("n") })
        .from(table as SQLiteTable)
        .where(where("count")),
    rows: () => page(),
    rowsFrom: (inclusive) => {
      const operator = `${descending ? "<" : ">"}${inclusive ? "=" : ""}`;
      return page(sql`(${sortColumn}, ${table.id}) ${sql.raw(operator)} (${sql.placeholder("from_sort")}, ${sql.placeholder("from_id")})`);
    },
  };
}

/** The search of a list whose `search` names an FTS5 table: every word as a prefix. */
function ftsTableSearch(table: SQLiteTable, ftsTable: string) {
  const fts = sql.raw(ftsTable);
  return (words: string[]): SearchCondition => ({
    where: sql`${table}.rowid IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ${searchParam("match")})`,
    params: { match: ftsPrefixes(words) },
  });
}

/**
 * A condition as a shape key: its SQL (`overdue=true` and `=false` differ) and any value it did
 * not bind. Bound values are placeholders, the same for every request; a value written into
 * the condition keys a shape of its own, so that it cannot be served another request's
 * compiled statement.
 */
function shapeOf(condition: SQL): string {
  const { sql: text, params } = dialect.sqlToQuery(condition);
  return `${text}${JSON.stringify(params.filter((p) => !is(p, Placeholder)))}`;
}

/** The row property under which drizzle returns `column` of `table`. */
function propertyOf(table: SQLiteTable, column: SQLiteColumn): string {
  const entry = Object.entries(getTableColumns(table)).find(([, c]) => c === column);
  if (!entry) throw new Error(`${column.name} is not a column of ${getTableName(table)}`);
  return entry[0];
}

// ---------------------------------------------------------------------------------------------
// 3. The page

/** A page's start: at this row (inclusive) or just past it. */
type Cursor = { sort: unknown; id: unknown; inclusive: boolean };

/**
 * Runs a compiled list on the connection, in the caller's snapshot. The connection keeps the
 * statements of each shape (`prepared`), and its memory (db/memory.ts) keeps until anything
 * commits: the exact count of each shape and values (`meta.total` of a million rows is costly),
 * what a search looked up (`LookUp`), and where each page read starts and ends, so that the
 * page, or the next one, is read by a seek: a connector walking every page reads a page's rows,
 * not the OFFSET of all those before them, and so does a dashboard asking for the same deep
 * page again.
 */
function readPage<T extends SQLiteTable>(tx: Tx, table: T, request: ListRequest, list: CompiledList): { rows: T["$inferSelect"][]; total: number } {
  const memory = tx.connection.memory.refresh();
  let params = list.params;
  for (const name in list.lookUps) {
    if (params === list.params) params = { ...list.params };
    params[name] = list.lookUps[name]!.read(tx, list.orgId);
  }
  const statement = <S>(name: string, compile: (tx: Tx) => S): S =>
    list.keepsStatements ? prepared(tx, `${list.shapeKey}:${name}`, compile) : compile(tx);

  const count = statement("count", (tx) => plainRows<{ n: number }>(tx, list.count()));
  const total = memory.remember(`count\u0000${list.memoKey}`, () => count.get(params)!.n);

  const { page, perPage } = request;
  const { seek } = list;
  const pageKey = (n: number) => `${list.memoKey}\u0000${perPage}\u0000${n}`;
  const cursor = seek && page > 1 ? (memory.place(pageKey(page)) as Cursor | undefined) : undefined;
  const rows = cursor
    ? statement(`rows from${cursor.inclusive ? "=" : ""}`, (tx) => tableRows(tx, table, list.rowsFrom(cursor.inclusive))).all({
        ...params,
        offset: 0,
        from_sort: cursor.sort,
        from_id: cursor.id,
      })
    : statement("rows", (tx) => tableRows(tx, table, list.rows())).all(params);

  if (seek && rows.length > 0) {
    const at = (row: unknown, inclusive: boolean): Cursor => {
      const r = row as Record<string, unknown>;
      return { sort: seek.column.mapToDriverValue(r[seek.property]), id: r.id, inclusive };
    };
    if (page > 1) memory.rememberPlace(pageKey(page), at(rows[0], true));
    if (rows.length === perPage) memory.rememberPlace(pageKey(page + 1), at(rows[perPage - 1], false));
  }
  return { rows, total };
}

export function linksAndMeta(request: ListRequest, shown: number, total: number, url: string): Omit<ListPage<unknown>, "rows"> {
  const { page, perPage } = request;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const from = shown ? (page - 1) * perPage + 1 : null;
  const pageUrl = (n: number) => {
    const u = new URL(url);
    u.searchParams.set("page", String(n));
    return u.toString();
  };
  return {
    links: {
      first: pageUrl(1),
      last: pageUrl(lastPage),
      prev: page > 1 ? pageUrl(Math.min(page - 1, lastPage)) : null,
      next: page < lastPage ? pageUrl(page + 1) : null,
    },
    meta: {
      current_page: page,
      from,
      last_page: lastPage,
      per_page: perPage,
      to: from === null ? null : from + shown - 1,
      total,
    },
  };
}

const NullableUrl = t.Union([t.String(), t.Null()]);
const NullableInt = t.Union([t.Integer(), t.Null()]);
const ListLinks = t.Object({ first: t.String(), last: t.String(), prev: NullableUrl, next: NullableUrl }, { title: "ListLinks" });
const ListMeta = t.Object(
  {
    current_page: t.Integer(),
    from: NullableInt,
    last_page: t.Integer(),
    per_page: t.Integer(),
    to: NullableInt,
    total: t.Integer(),
  },
  { title: "ListMeta" },
);

/**
 * Response schema of a list of `item`, named in the OpenAPI document after the item
 * (`Invoice` → `InvoiceList`) unless `name` says otherwise.
 */
export function listResponse(item: TSchema, name: string | undefined = item.title && `${item.title}List`) {
  return ResponseSchema(t.Object({ data: t.Array(item), links: ListLinks, meta: ListMeta }, name ? { title: name } : {}));
}

/** `filter[<name>]=true|false` on a boolean column. */
export function booleanFilter(column: SQLiteColumn): FilterSpec {
  return { column, schema: t.UnionEnum(["true", "false"]), map: (value) => value === "true" };
}
