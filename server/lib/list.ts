/**
 * The one list mechanism: each resource declares its sorts, filters and search as data
 * (a `ListSpec`), and gets a query schema (validation + OpenAPI) and a runner that returns
 * `{data, links, meta}` with a stable tiebreak on `id`, always scoped to the organisation.
 *
 * A list request is answered in three steps (`runList`):
 * 1. `parseListRequest`: the query string → a `ListRequest` (page, sort, filters, search words);
 * 2. `compileList`: the request → its statements as SQL, the values they take and the key of
 *    their shape. Pure: it reads nothing, so equal requests compile to equal SQL and values
 *    (tests/lists/list-compile.test.ts);
 * 3. `readPage`: the statements run on the connection, which keeps each shape's compiled
 *    statements (`prepared`) and remembers counts and where pages start until anything commits
 *    (`tx.connection.memory`).
 */
import { t, type TSchema } from "elysia";
import { asc, desc, eq, getTableColumns, getTableName, gte, is, lte, Placeholder, sql, SQL } from "drizzle-orm";
import { QueryBuilder, SQLiteColumn, SQLiteSyncDialect, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { createHash } from "node:crypto";
import { openCursor, sealCursor } from "./cursor-seal.ts";
import { kept, plainRows, tableRows, type RenderableQuery, type Tx } from "../../db/client.ts";
import { normalizeTimestamp } from "./time.ts";
import { ValidationFailed, validValues } from "./errors.ts";
import { inOrg, snapshot, type Scope } from "./scope.ts";
import { METADATA_KEY_PATTERN, ResponseSchema, Timestamp, withoutDefault } from "./schemas.ts";
import { everyWordQuery, searchHits } from "../../db/search.ts";
import { jsonText, noRow, rowKey } from "../../db/dialect.ts";
import { nocaseValue } from "../../db/schema/columns.ts";

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;
/** Deeper pages are pointless (and their OFFSET would overflow SQLite integers). */
export const MAX_PAGE = 1_000_000;
/** A cursor holds a sort key, the filters and the search words; longer is not one of ours. */
const MAX_CURSOR_LENGTH = 4096;

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
   * sort name → column or expression (e.g. `nocase(table.name)` from db/schema/columns.ts, matching its
   * index); the default is written as it would be sent: "name" or "-issue_date"
   */
  sorts: Record<string, SQLiteColumn | SQL>;
  defaultSort: string;
  filters?: Record<string, FilterSpec>;
  /**
   * `search`: the name of an FTS5 table whose rowids are the base table's rowids, matched with
   * every word as a prefix; or a function of the words searched (see everyWordQuery in db/search.ts), which
   * returns SQL and values and reads nothing itself (a value to read is a `LookUp`)
   */
  search?: string | ((words: string[]) => SearchCondition);
  /** column for `filter[updated_since]` (every list has it) */
  updatedAt: SQLiteColumn;
  /** the JSON column of `metadata`, when the list filters by `filter[metadata][KEY]=value` */
  metadata?: SQLiteColumn;
};

/** `filter[metadata][KEY]` as the query string names it; KEY is a metadata key (METADATA_KEY_PATTERN). */
const METADATA_FILTER = /^filter\[metadata\]\[(.*)\]$/s;
const METADATA_KEY = new RegExp(METADATA_KEY_PATTERN);
const MAX_METADATA_VALUE = 500;

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
    /** where the next page starts (`cursor`); null on the last page */
    next_cursor: string | null;
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
    cursor: t.Optional(
      t.String({
        maxLength: MAX_CURSOR_LENGTH,
        description:
          "Where the page starts: a `meta.next_cursor` of this list (opaque). Pages by the sort's key and `id`, so no row is skipped while rows change; carries the sort and filters it was made with (send it alone, or with the same ones). Not with `page`.",
      }),
    ),
  };
  if (spec.search) {
    properties.search = t.Optional(t.String({ maxLength: 200, description: "Full-text search" }));
  }
  for (const [name, filter] of Object.entries(spec.filters ?? {})) {
    properties[`filter[${name}]`] = t.Optional(withoutDefault(filter.schema ?? t.String({ maxLength: 255 })));
  }
  // filter[metadata][KEY] has a name per key: any other name is refused by parseListRequest
  return t.Object(properties, {
    additionalProperties: spec.metadata ? t.String({ maxLength: MAX_METADATA_VALUE }) : false,
    ...(spec.metadata ? { "x-query-parameters": [METADATA_FILTER_PARAMETER] } : {}),
  });
}

/**
 * `filter[metadata][KEY]=value` as the OpenAPI document declares it: one object parameter in
 * deepObject style, which generated clients (openapi-fetch, hey-api) send as
 * `filter[metadata][KEY]=value`, one pair per key. The document only: the query schema above
 * takes the pairs by name, as every client sends them.
 */
const METADATA_FILTER_PARAMETER = {
  name: "filter[metadata]",
  in: "query",
  required: false,
  style: "deepObject",
  explode: true,
  description:
    "Only rows whose metadata holds every pair given: `filter[metadata][KEY]=value` (several keys: all of them). " +
    "A key is 1–40 characters without [ ] \\ \" or control characters, not starting with $; an empty value filters nothing.",
  schema: { type: "object", additionalProperties: { type: "string", maxLength: MAX_METADATA_VALUE } },
  example: { channel: "webshop" },
};

/** The query parameters a list knows by name (listQuerySchema's properties). */
function knownParameter(spec: ListSpec, name: string): boolean {
  if (["page", "per_page", "sort", "cursor", "filter[updated_since]"].includes(name)) return true;
  if (name === "search") return spec.search !== undefined;
  const filter = /^filter\[([^\]]*)\]$/.exec(name);
  // own keys only: "__proto__" or "constructor" would find Object.prototype's
  return filter !== null && spec.filters !== undefined && Object.hasOwn(spec.filters, filter[1]!);
}

/** The words of a search text (letters and digits; at most 10), as FTS5 tokenizes them. */
export function searchWords(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 10);
}


/**
 * A list endpoint's answer: a page of rows (runList) as the API shows them, all read in one
 * snapshot, so that `meta.total`, the rows and what `present` reads beside them agree.
 */
export async function listPage<T extends OrgTable, Shown>(
  scope: Scope,
  spec: ListSpec<T>,
  query: ListQuery,
  url: string,
  present: (rows: T["$inferSelect"][], tx: Tx) => Shown[] | Promise<Shown[]>,
  extraConditions: (SQL | undefined)[] = [],
): Promise<{ data: Shown[]; links: ListPage<unknown>["links"]; meta: ListPage<unknown>["meta"] }> {
  return await snapshot(scope.db, async (tx) => {
    const page = await runList(tx, spec, scope.org.id, query, url, extraConditions);
    return { data: await present(page.rows, tx), links: page.links, meta: page.meta };
  });
}

/**
 * One list request: the query string read (`parseListRequest`), its statements compiled
 * (`compileList`) and run on the connection (`readPage`), and the page with its links.
 */
export async function runList<T extends OrgTable>(
  tx: Tx,
  spec: ListSpec<T>,
  orgId: string,
  query: ListQuery,
  url: string,
  extraConditions: (SQL | undefined)[] = [],
): Promise<ListPage<T["$inferSelect"]>> {
  const context = sealContext(getTableName(spec.table), orgId);
  const request = parseListRequest(spec, await openedCursor(tx, query, context));
  const list = compileList(spec, request, orgId, extraConditions);
  checkCursor(request, list.cursorScope);
  const { rows, total, last } = await readPage(tx, spec.table, request, list);
  const next = last === null ? null : await sealCursor(tx, encodeCursor(request, list.cursorScope, list.keyOf(last), rowsBefore(request) + rows.length), context);
  return { rows, ...linksAndMeta(request, rows.length, total, url, next) };
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
  /** `filter[metadata][KEY]=value`: metadata key → value */
  metadata: Record<string, string>;
  /** `cursor`: the page after this key of the list; null on the first page, or when paging by number */
  after: ListCursor | null;
  /** whether `cursor` was sent (`cursor=` empty starts a walk): `links.next` carries cursors, not page numbers */
  byCursor: boolean;
};

/**
 * Where a cursor's page starts: just past the row whose sort value and id these are. `shown`
 * counts the rows the walk showed before it (meta.from); `check` ties it to the list it was
 * made for (cursorCheck).
 */
export type ListCursor = { sort: unknown; id: string; shown: number; check: string };

/** What a cursor carries, as JSON: the request it continues and the key of its last row. */
type CursorPayload = {
  s: string;
  f: Record<string, string>;
  u: string | null;
  q: string[] | null;
  m: Record<string, string>;
  k: [unknown, string];
  n: number;
  c: string;
};

const CURSOR_MISMATCH = "The cursor was made for another sort, other filters or another search: send it alone, or with the ones it was made with.";
const CURSOR_MALFORMED = "The cursor is not one this list gave out (meta.next_cursor).";

/**
 * The query string of a list (already validated by `listQuerySchema`) as a `ListRequest`; a
 * sort or an `updated_since` the schema cannot judge is a 422 here, and so is a cursor that
 * is malformed or was made with another sort, filters or search than the ones sent beside it.
 */
/** A filter's value: no stored text holds a NUL character (PostgreSQL's text cannot), so a filter with one is refused, not run. */
function withoutNul(field: string, value: string): string {
  if (value.includes("\u0000")) throw ValidationFailed.field(field, `The ${field} field contains a NUL character (%00), which no text of Kontor's holds.`);
  return value;
}

export function parseListRequest(spec: ListSpec, query: ListQuery): ListRequest {
  const sort = String(query.sort ?? spec.defaultSort);
  // own keys only: "constructor" or "toString" is no sort, though every object answers to them
  if (!Object.hasOwn(spec.sorts, sort.startsWith("-") ? sort.slice(1) : sort)) {
    throw ValidationFailed.field("sort", `The selected sort is invalid. ${validValues(sortNamesOf(spec))}`);
  }
  const filters: Record<string, string> = {};
  for (const name in spec.filters ?? {}) {
    const value = query[`filter[${name}]`];
    if (value !== undefined && value !== "") filters[name] = withoutNul(`filter.${name}`, String(value));
  }
  let updatedSince: string | null = null;
  const since = query["filter[updated_since]"];
  if (since !== undefined && since !== "") {
    updatedSince = normalizeTimestamp(String(since));
    if (!updatedSince) throw ValidationFailed.field("filter.updated_since", "The filter.updated_since field must be a valid ISO 8601 timestamp.");
  }
  const searched = spec.search !== undefined && query.search !== undefined && query.search !== "";
  const metadata: Record<string, string> = {};
  if (spec.metadata) {
    for (const name in query) {
      if (knownParameter(spec, name)) continue;
      const key = METADATA_FILTER.exec(name)?.[1];
      const field = name.replace(/\[([^\]]*)\]/g, ".$1");
      if (key === undefined) {
        const names = ["filter[updated_since]", ...Object.keys(spec.filters ?? {}).map((f) => `filter[${f}]`), "filter[metadata][KEY]"];
        throw ValidationFailed.field(field, `The ${field} field is not accepted.${field.startsWith("filter.") ? ` Valid filters: ${names.join(", ")}.` : ""}`);
      }
      if (!METADATA_KEY.test(key)) throw ValidationFailed.field(field, "A metadata key is 1 to 40 characters, without [ ] \\ \" or control characters, not starting with $.");
      // as in a body (server/http/kernel.ts): "__proto__" is no key metadata can hold, and as a filter it would be dropped silently
      if (key === "__proto__") throw ValidationFailed.field(field, `The ${field} field is not accepted.`);
      const value = query[name];
      if (value !== undefined && value !== "") metadata[key] = withoutNul(field, String(value));
    }
  }
  const request: ListRequest = {
    page: Number(query.page ?? 1),
    perPage: Number(query.per_page ?? DEFAULT_PER_PAGE),
    sort,
    filters,
    updatedSince,
    search: searched ? searchWords(String(query.search)) : null,
    metadata,
    after: null,
    byCursor: query.cursor !== undefined,
  };
  if (request.byCursor && query.page !== undefined) throw ValidationFailed.field("cursor", "A cursor pages on its own: send cursor or page, not both.");
  if (query.cursor === undefined || query.cursor === "") return request;

  const payload = decodeCursor(spec, String(query.cursor));
  const continued: ListRequest = {
    ...request,
    sort: payload.s,
    filters: payload.f,
    updatedSince: payload.u,
    search: payload.q,
    metadata: payload.m,
    after: { sort: payload.k[0], id: payload.k[1], shown: payload.n, check: payload.c },
  };
  // sent alone, a cursor continues its own list; sent with a sort, filters or a search, they must be its own
  const stated = Object.keys(query).some((key) => key === "sort" || key === "search" || key.startsWith("filter["));
  if (stated && listIdentity(request) !== listIdentity(continued)) throw ValidationFailed.field("cursor", CURSOR_MISMATCH);
  return continued;
}

/** How many rows the pages before this one showed: by number, or those of the cursor's walk. */
export const rowsBefore = (request: ListRequest) => (request.after ? request.after.shown : (request.page - 1) * request.perPage);

/** The parts of a request that make a list what it is (not its page): equal for a cursor and the request it continues. */
const listIdentity = (r: ListRequest) =>
  JSON.stringify([r.sort, sortedEntries(r.filters), r.updatedSince, r.search, sortedEntries(r.metadata)]);

const sortedEntries = (record: Record<string, string>) => Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** A cursor's JSON, checked as the query schema would check what it stands for. */
function decodeCursor(spec: ListSpec, text: string): CursorPayload {
  let payload: CursorPayload;
  try {
    payload = JSON.parse(text);
  } catch {
    throw ValidationFailed.field("cursor", CURSOR_MALFORMED);
  }
  const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  const valid =
    isRecord(payload) &&
    typeof payload.s === "string" &&
    Object.hasOwn(spec.sorts, payload.s.startsWith("-") ? payload.s.slice(1) : payload.s) &&
    isRecord(payload.f) &&
    Object.entries(payload.f).every(([name, value]) => {
      const filter = spec.filters && Object.hasOwn(spec.filters, name) ? spec.filters[name] : undefined;
      return filter !== undefined && typeof value === "string" && value !== "" && Value.Check(filter.schema ?? t.String({ maxLength: 255 }), value);
    }) &&
    (payload.u === null || (typeof payload.u === "string" && normalizeTimestamp(payload.u) === payload.u)) &&
    (payload.q === null || (Array.isArray(payload.q) && payload.q.length <= 10 && payload.q.every((w) => typeof w === "string" && searchWords(w).join() === w))) &&
    isRecord(payload.m) &&
    (spec.metadata !== undefined || Object.keys(payload.m).length === 0) &&
    Object.entries(payload.m).every(([key, value]) => METADATA_KEY.test(key) && typeof value === "string" && value !== "" && value.length <= MAX_METADATA_VALUE) &&
    Array.isArray(payload.k) &&
    payload.k.length === 2 &&
    ["string", "number"].includes(typeof payload.k[0]) &&
    typeof payload.k[1] === "string" &&
    Number.isSafeInteger(payload.n) &&
    payload.n >= 0 &&
    typeof payload.c === "string";
  if (!valid) throw ValidationFailed.field("cursor", CURSOR_MALFORMED);
  return payload;
}

/**
 * The cursor of the page after `key` (the sort value and id of the last row shown), `shown` rows
 * into the walk. Its check digests the request it continues, the key and `scope` (the
 * organisation and the conditions of the caller: one webhook's deliveries), so that a cursor
 * edited or carried to another list is refused, not read as something else.
 */
export function encodeCursor(request: ListRequest, scope: string, key: [unknown, string], shown: number): string {
  const payload: Omit<CursorPayload, "c"> = { s: request.sort, f: request.filters, u: request.updatedSince, q: request.search, m: request.metadata, k: key, n: shown };
  // as JSON: the caller seals it (sealCursor), which makes it opaque
  return JSON.stringify({ ...payload, c: cursorCheck(payload, scope) });
}

/** Refuses a request's cursor that was made for another list (`scope`) or edited. */
export function checkCursor(request: ListRequest, scope: string): void {
  const after = request.after;
  if (after === null) return;
  const payload: Omit<CursorPayload, "c"> = { s: request.sort, f: request.filters, u: request.updatedSince, q: request.search, m: request.metadata, k: [after.sort, after.id], n: after.shown };
  if (cursorCheck(payload, scope) !== after.check) throw ValidationFailed.field("cursor", CURSOR_MISMATCH);
}

/** What a list's cursors are sealed for: its table and the organisation. */
export const sealContext = (table: string, orgId: string) => `${table}\u0000${orgId}`;

/**
 * The query with its cursor opened (server/lib/cursor-seal.ts): what the cursor the client was
 * given holds, read by parseListRequest; a cursor made for another list or organisation, or
 * edited, is a 422 naming `cursor`.
 */
export async function openedCursor(tx: Tx, query: ListQuery, context: string): Promise<ListQuery> {
  if (typeof query.cursor !== "string" || query.cursor === "") return query;
  return { ...query, cursor: await openCursor(tx, query.cursor, context, CURSOR_MALFORMED) };
}

function cursorCheck(payload: Omit<CursorPayload, "c">, scope: string): string {
  return createHash("sha256").update(JSON.stringify(payload)).update("\u0000").update(scope).digest("base64url").slice(0, 16);
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
  /**
   * What a cursor of this list is tied to besides its request: the table, the organisation and
   * the caller's conditions (their SQL and values: one webhook's deliveries).
   */
  cursorScope: string;
  /** A row's key in the list's order, as a cursor holds it: its sort value (as stored) and id. */
  keyOf(row: unknown): [unknown, string];
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
  // metadata keys in one order, so that the same filters in another order are the same shape
  sortedEntries(request.metadata).forEach(([key, value], i) => {
    shape.push(`metadata:${i}`);
    conditions.push(sql`${jsonText(spec.metadata!, bind(`metadata_${i}_key`, key))} = ${bind(`metadata_${i}`, value)}`);
  });
  if (request.updatedSince !== null) {
    shape.push("updated_since");
    conditions.push(gte(spec.updatedAt, bind("updated_since", request.updatedSince)));
  }
  const searched = request.search !== null && spec.search !== undefined;
  if (searched) {
    const words = request.search!;
    shape.push(words.length === 0 ? "search:none" : "search");
    if (words.length === 0) conditions.push(noRow);
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
  const keyColumn = sortKeyColumn(table, sortColumn);
  const keyProperty = propertyOf(table, keyColumn);
  const cursorScope = [getTableName(table), orgId, ...shape.filter((part) => part.startsWith("where:"))].join("\u0000");

  // the statements, built only when the connection has none of this shape yet
  const direction = descending ? desc : asc;
  const order = () => [direction(sortColumn), direction(table.id)];
  // a seek (`more`) comes before the filters: of two lower bounds on the sort column (a seek on
  // updated_at and filter[updated_since]), SQLite's index search takes the first written, and
  // the filter's would walk every row from the filter's start to the page (6 ms against 30 µs
  // at page 2000 of 100,000 invoices)
  const where = (statement: "rows" | "count", ...more: SQL[]) =>
    inOrg(table, sql.placeholder("orgId"), ...more, ...conditions.map((c) => (c === undefined || is(c, SQL) ? c : c[statement])));
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
      .select({ rowid: sql`${rowKey(table)}` })
      .from(table as SQLiteTable)
      .where(where("rows", ...more))
      .orderBy(...order())
      .limit(sql.placeholder("limit"))
      .offset(sql.placeholder("offset"));
    return queries
      .select()
      .from(table as SQLiteTable)
      .where(sql`${rowKey(table)} IN ${keys}`)
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
    cursorScope,
    keyOf: (row) => {
      const r = row as Record<string, unknown>;
      return [keyColumn.mapToDriverValue(r[keyProperty]), r.id as string];
    },
    count: () =>
      queries
        .select({ n: sql<number>`count(*)`.as("n") })
        .from(table as SQLiteTable)
        .where(where("count")),
    rows: () => page(),
    rowsFrom: (inclusive) => {
      const operator = `${descending ? "<" : ">"}${inclusive ? "=" : ""}`;
      // the cursor holds the stored value; a collated sort compares it collated the same way
      const fromSort = keyColumn === sortColumn ? sql.placeholder("from_sort") : sql`${nocaseValue(sql.placeholder("from_sort"))}`;
      return page(sql`(${sortColumn}, ${table.id}) ${sql.raw(operator)} (${fromSort}, ${sql.placeholder("from_id")})`);
    },
  };
}

/** The search of a list whose `search` names an FTS5 table: every word as a prefix. */
function ftsTableSearch(table: SQLiteTable, ftsTable: string) {
  return (words: string[]): SearchCondition => ({
    where: sql`${searchHits(table, ftsTable, searchParam("match"))}`,
    params: { match: everyWordQuery(words) },
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

/**
 * The column whose stored value is a row's sort value in a cursor: the sort column, or the
 * column of a sort expression that only collates it (`nocase(name)`), whose comparison with the
 * stored value collates it the same way. A cursor's seek compares row values, which sort as
 * ORDER BY does only when never NULL.
 */
function sortKeyColumn(table: SQLiteTable, sort: SQLiteColumn | SQL): SQLiteColumn {
  // a column collated by `nocase` (db/schema/columns.ts) is its column
  const chunks: unknown[] = (is(sort, SQL) ? sort.queryChunks : [sort]).map((chunk) => (chunk as { collated?: SQLiteColumn }).collated ?? chunk);
  const columns = chunks.filter((chunk): chunk is SQLiteColumn => is(chunk, SQLiteColumn));
  const rest = chunks.filter((chunk) => !is(chunk, SQLiteColumn)).map((chunk) => (chunk as { value?: string[] }).value?.join("") ?? "?");
  const column = columns[0];
  if (columns.length !== 1 || !column!.notNull || !/^\s*(collate \w+)?\s*$/i.test(rest.join(""))) {
    throw new Error(`${getTableName(table)}: a list's sort must be a column that is never NULL, or one collated (nocase)`);
  }
  return column!;
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
async function readPage<T extends SQLiteTable>(
  tx: Tx,
  table: T,
  request: ListRequest,
  list: CompiledList,
): Promise<{ rows: T["$inferSelect"][]; total: number; last: T["$inferSelect"] | null }> {
  const memory = tx.connection.memory.refresh();
  let params = list.params;
  for (const name in list.lookUps) {
    if (params === list.params) params = { ...list.params };
    params[name] = await list.lookUps[name]!.read(tx, list.orgId);
  }
  const statement = <S>(name: string, compile: (tx: Tx) => S): S =>
    list.keepsStatements ? kept(tx, `${list.shapeKey}:${name}`, compile) : compile(tx);

  const count = statement("count", (tx) => plainRows<{ n: number }>(tx, list.count()));
  const total = await memory.rememberAsync(`count\u0000${list.memoKey}`, async () => (await count.get(params))!.n);

  const { page, perPage, after } = request;
  if (after) {
    // a cursor's page: the rows just past its key, one more to know whether a page follows
    const rows = await statement("rows from", (tx) => tableRows(tx, table, list.rowsFrom(false))).all({
      ...params,
      limit: perPage + 1,
      offset: 0,
      from_sort: after.sort,
      from_id: after.id,
    });
    const more = rows.length > perPage;
    if (more) rows.pop();
    return { rows, total, last: more ? rows[perPage - 1]! : null };
  }

  const { seek } = list;
  const pageKey = (n: number) => `${list.memoKey}\u0000${perPage}\u0000${n}`;
  const cursor = seek && page > 1 ? (memory.place(pageKey(page)) as Cursor | undefined) : undefined;
  const rows = cursor
    ? await statement(`rows from${cursor.inclusive ? "=" : ""}`, (tx) => tableRows(tx, table, list.rowsFrom(cursor.inclusive))).all({
        ...params,
        offset: 0,
        from_sort: cursor.sort,
        from_id: cursor.id,
      })
    : await statement("rows", (tx) => tableRows(tx, table, list.rows())).all(params);

  if (seek && rows.length > 0) {
    const at = (row: unknown, inclusive: boolean): Cursor => {
      const r = row as Record<string, unknown>;
      return { sort: seek.column.mapToDriverValue(r[seek.property]), id: r.id, inclusive };
    };
    if (page > 1) memory.rememberPlace(pageKey(page), at(rows[0], true));
    if (rows.length === perPage) memory.rememberPlace(pageKey(page + 1), at(rows[perPage - 1], false));
  }
  return { rows, total, last: rows.length === perPage && page * perPage < total ? rows[perPage - 1]! : null };
}

/**
 * A page's links and meta (docs/api.md#conventions). Paged by number, with `next_cursor`
 * besides (docs/api.md#cursors-and-incremental-sync). Under a cursor (`cursor` sent; `cursor=` for the first page), the
 * position is the walk's: `current_page` counts pages of `per_page` rows shown before this one,
 * `from` and `to` count rows shown by the walk, `last_page` is at least `current_page`, `prev`
 * is null and `next` carries the cursor.
 * Rows that change while a walk goes on move these numbers; `next_cursor` alone says whether
 * a page follows.
 */
export function linksAndMeta(
  request: ListRequest,
  shown: number,
  total: number,
  url: string,
  nextCursor: string | null,
): Omit<ListPage<unknown>, "rows"> {
  const { perPage, after, byCursor } = request;
  const before = rowsBefore(request);
  const page = after ? Math.floor(before / perPage) + 1 : request.page;
  const lastPage = Math.max(1, Math.ceil(total / perPage), after ? page : 1);
  const from = shown ? before + 1 : null;
  const pageUrl = (n: number) => {
    const u = new URL(url);
    u.searchParams.delete("cursor");
    u.searchParams.set("page", String(n));
    return u.toString();
  };
  const cursorUrl = (cursor: string) => {
    const u = new URL(url);
    u.searchParams.delete("page");
    u.searchParams.set("cursor", cursor);
    return u.toString();
  };
  return {
    links: {
      first: pageUrl(1),
      last: pageUrl(lastPage),
      prev: byCursor ? null : page > 1 ? pageUrl(Math.min(page - 1, lastPage)) : null,
      next: byCursor ? (nextCursor === null ? null : cursorUrl(nextCursor)) : page < lastPage ? pageUrl(page + 1) : null,
    },
    meta: {
      current_page: page,
      from,
      last_page: lastPage,
      per_page: perPage,
      to: from === null ? null : from + shown - 1,
      total,
      next_cursor: nextCursor,
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
    next_cursor: t.Union([t.String(), t.Null()], {
      description: "The `cursor` of the page after this one; null on the last page. Paging by cursor never skips a row while rows change.",
    }),
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
