/**
 * The one list mechanism: each resource declares its sorts, filters and search as data
 * (a `ListSpec`), and gets a query schema (validation + OpenAPI) and a runner that returns
 * `{data, links, meta}` with a stable tiebreak on `id`, always scoped to the organisation.
 */
import { t, type TSchema } from "elysia";
import { asc, count, desc, eq, getTableColumns, getTableName, gte, is, lte, Placeholder, sql, SQL } from "drizzle-orm";
import { SQLiteColumn, SQLiteSyncDialect, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { TObject } from "@sinclair/typebox";
import { prepared, preparedRows, type Tx } from "../../db/client.ts";
import { normalizeTimestamp } from "./time.ts";
import { ValidationFailed } from "./errors.ts";
import { inOrg, snapshot, type Scope } from "./scope.ts";
import { ResponseSchema, Timestamp } from "./schemas.ts";

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
 * What a search condition may read before the list query runs: the snapshot the list reads,
 * the organisation, a memory of values kept until anything commits (what lists remember), and
 * `bindLookedUp`, which binds a value looked up from the words (the ids a name matched): the
 * words key what the list remembers of the search, not that value, which can run to half a
 * megabyte.
 */
export type SearchContext = {
  tx: Tx;
  orgId: string;
  remember: <T>(key: string, compute: () => T) => T;
  bindLookedUp: Bind;
};

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
   * every word as a prefix; or the condition for the words searched (see ftsPrefixes)
   */
  search?: string | ((words: string[], bind: Bind, context: SearchContext) => SQL);
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

/** The query-string schema of a list: used by Elysia to validate and by the OpenAPI document. */
export function listQuerySchema(spec: ListSpec): TObject {
  const sortNames = Object.keys(spec.sorts).flatMap((name) => [name, `-${name}`]);
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

/**
 * Elysia's `t.UnionEnum` carries `default: <first value>` and Elysia fills defaults into absent
 * query parameters: an absent sort would become the first sort name, an absent filter a filter.
 */
function withoutDefault<T extends TSchema>(schema: T): T {
  const { default: _ignored, ...rest } = schema;
  return rest as T;
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

export function runList<T extends OrgTable>(
  tx: Tx,
  spec: ListSpec<T>,
  orgId: string,
  query: ListQuery,
  url: string,
  extraConditions: (SQL | undefined)[] = [],
): ListPage<T["$inferSelect"]> {
  const page = Number(query.page ?? 1);
  const perPage = Number(query.per_page ?? DEFAULT_PER_PAGE);
  const sortParam = String(query.sort ?? spec.defaultSort);
  const descending = sortParam.startsWith("-");
  const sortColumn = spec.sorts[descending ? sortParam.slice(1) : sortParam];
  if (!sortColumn) throw ValidationFailed.field("sort", "The selected sort is invalid.");

  // The query's shape (which filters, which sort) and its values are kept apart: values are
  // placeholders, so each shape is built and compiled once per connection (`prepared`). Shapes
  // with conditions written per request (extraConditions) are built each time.
  const params: Record<string, unknown> = { orgId, limit: perPage, offset: (page - 1) * perPage };
  const bind = (name: string, v: unknown) => ((params[name] = v), sql.placeholder(name));
  const conditions: (FilterCondition | undefined)[] = [...extraConditions];
  const shape: string[] = [sortParam];
  const reusable = extraConditions.length === 0;
  for (const [name, filter] of Object.entries(spec.filters ?? {})) {
    const raw = query[`filter[${name}]`];
    if (raw === undefined || raw === "") continue;
    const text = String(raw);
    if ("where" in filter) {
      const condition = filter.where(text, (key, v) => bind(`filter_${name}_${key}`, v));
      shape.push(`${name}:${condition === undefined ? "" : is(condition, SQL) ? shapeOf(condition) : `${shapeOf(condition.rows)}|${shapeOf(condition.count)}`}`);
      conditions.push(condition);
    } else {
      shape.push(name);
      const bound = bind(`filter_${name}`, filter.map ? filter.map(text) : text);
      const op = filter.op ?? "eq";
      conditions.push(op === "gte" ? gte(filter.column, bound) : op === "lte" ? lte(filter.column, bound) : eq(filter.column, bound));
    }
  }
  const since = query["filter[updated_since]"];
  if (since !== undefined && since !== "") {
    const normalized = normalizeTimestamp(String(since));
    if (!normalized) throw ValidationFailed.field("filter.updated_since", "The filter.updated since field must be a valid ISO 8601 timestamp.");
    shape.push("updated_since");
    conditions.push(gte(spec.updatedAt, bind("updated_since", normalized)));
  }
  const memory = tx.connection.memory.refresh();
  const lookedUp = new Set<string>();
  const search = spec.search && query.search !== undefined && query.search !== "" ? spec.search : undefined;
  const words = search ? searchWords(String(query.search)) : [];
  if (search) {
    shape.push(words.length === 0 ? "search:none" : "search");
    if (words.length === 0) conditions.push(sql`0`);
    else if (typeof search === "string") {
      const fts = sql.raw(search);
      conditions.push(sql`${spec.table}.rowid IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ${bind("search", ftsPrefixes(words))})`);
    } else {
      const bindLookedUp: Bind = (key, v) => (lookedUp.add(`search_${key}`), bind(`search_${key}`, v));
      conditions.push(search(words, (key, v) => bind(`search_${key}`, v), { tx, orgId, remember: (key, compute) => memory.remember(key, compute), bindLookedUp }));
    }
  }

  const direction = descending ? desc : asc;
  const spelledFor = (statement: "rows" | "count") => conditions.map((c) => (c === undefined || is(c, SQL) ? c : c[statement]));
  const countQuery = (tx: Tx) =>
    tx
      .select({ n: count() })
      .from(spec.table as SQLiteTable)
      .where(inOrg(spec.table, sql.placeholder("orgId"), ...spelledFor("count")))
      .prepare();
  const order = [direction(sortColumn), direction(spec.table.id)];
  // A search's hits come unordered, so they are sorted. Sorting the hits' keys (sort column, id,
  // rowid: what the filter's index holds) and then reading the page's rows from the table reads
  // 20 rows; sorting whole rows read every hit's row (at a million invoices, some 300 scattered
  // pages for one page of 20).
  const rowsQuery = (start: SQL | undefined) => (tx: Tx) => {
    const where = inOrg(spec.table, sql.placeholder("orgId"), ...spelledFor("rows"), start);
    if (!search) {
      return tx
        .select()
        .from(spec.table as SQLiteTable)
        .where(where)
        .orderBy(...order)
        .limit(sql.placeholder("limit"))
        .offset(sql.placeholder("offset"));
    }
    const page = tx
      .select({ rowid: sql`${spec.table}.rowid` })
      .from(spec.table as SQLiteTable)
      .where(where)
      .orderBy(...order)
      .limit(sql.placeholder("limit"))
      .offset(sql.placeholder("offset"));
    return tx
      .select()
      .from(spec.table as SQLiteTable)
      .where(sql`${spec.table}.rowid IN ${page}`)
      .orderBy(...order);
  };
  // what keys the count and the page cursors: the values bound, less those looked up from the
  // search's words, which stand in their place
  const { limit: _limit, offset: _offset, ...bound } = params;
  const filterParams: Record<string, unknown> = Object.fromEntries(Object.entries(bound).filter(([name]) => !lookedUp.has(name)));
  if (lookedUp.size > 0) filterParams["search words"] = words;
  const shapeKey = `list:${getTableName(spec.table)}:${shape.join(",")}`;

  // a count built per request carries values of its own (extraConditions)
  const countStatement = reusable ? prepared(tx, shapeKey, countQuery) : countQuery(tx);
  const countKey = `${reusable ? shapeKey : JSON.stringify(countStatement.getQuery())}\u0000${JSON.stringify(filterParams)}`;
  const total = memory.remember(`count\u0000${countKey}`, () => countStatement.get(params)!.n);

  // Where this page starts, if it or the page before it was read since the last commit: it is
  // then read by a seek to that row instead of skipping OFFSET rows (row values compare as the
  // ORDER BY sorts; a sort column that may be NULL would not, and is read by OFFSET).
  const seekColumn = reusable && is(sortColumn, SQLiteColumn) && sortColumn.notNull ? sortColumn : null;
  const pageKey = (n: number) => `${shapeKey}\u0000${JSON.stringify(filterParams)}\u0000${perPage}\u0000${n}`;
  const cursor = seekColumn && page > 1 ? (memory.place(pageKey(page)) as Cursor | undefined) : undefined;
  let rows: T["$inferSelect"][];
  if (cursor) {
    const operator = `${descending ? "<" : ">"}${cursor.inclusive ? "=" : ""}`;
    const from = sql`(${sortColumn}, ${spec.table.id}) ${sql.raw(operator)} (${sql.placeholder("from_sort")}, ${sql.placeholder("from_id")})`;
    rows = preparedRows(tx, `${shapeKey}:${operator}`, spec.table, rowsQuery(from)).all({ ...params, offset: 0, from_sort: cursor.sort, from_id: cursor.id });
  } else if (reusable) {
    rows = preparedRows(tx, shapeKey, spec.table, rowsQuery(undefined)).all(params);
  } else {
    rows = rowsQuery(undefined)(tx).all(params) as T["$inferSelect"][];
  }
  if (seekColumn && rows.length > 0) {
    const property = propertyOf(spec.table, seekColumn);
    const at = (row: unknown, inclusive: boolean): Cursor => {
      const r = row as Record<string, unknown>;
      return { sort: seekColumn.mapToDriverValue(r[property]), id: r.id, inclusive };
    };
    if (page > 1) memory.rememberPlace(pageKey(page), at(rows[0], true));
    if (rows.length === perPage) memory.rememberPlace(pageKey(page + 1), at(rows[perPage - 1], false));
  }

  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const from = rows.length ? (page - 1) * perPage + 1 : null;
  const pageUrl = (n: number) => {
    const u = new URL(url);
    u.searchParams.set("page", String(n));
    return u.toString();
  };
  return {
    rows,
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
      to: from === null ? null : from + rows.length - 1,
      total,
    },
  };
}

/**
 * What lists remember in the connection's memory until anything commits (db/memory.ts): exact
 * counts (`meta.total` of a million rows is costly), what a search condition looked up before
 * its query (SearchContext), and where each page read starts and ends, so that the page, or the
 * next one, is read by a seek: a connector walking every page pays for 20 rows a page, not for
 * the OFFSET of all before them, and so does a dashboard asking for the same deep page again.
 */
/** A page's start: at this row (inclusive) or just past it. */
type Cursor = { sort: unknown; id: unknown; inclusive: boolean };

const dialect = new SQLiteSyncDialect();

/**
 * A `where` filter's condition as a shape key: its SQL (`overdue=true` and `=false` differ)
 * and any value it did not bind. Bound values are placeholders, the same for every request;
 * a value written into the condition keys a shape of its own, so that it cannot be served
 * another request's compiled statement.
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
