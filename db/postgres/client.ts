/**
 * Bun's PostgreSQL client as drizzle and Kontor's raw statements use it, with PostgreSQL's values
 * read as SQLite gives them, so that the code above reads one kind of row on either engine:
 * a 64-bit integer (every id counter, amount in cents, epoch millisecond) and a `numeric` (a sum
 * of them) as a number — Bun gives both as strings, since they may exceed 2^53; Kontor's never
 * do — and a boolean result (`a > b`, `EXISTS …`) as 1 or 0. A boolean sent is 1 or 0 too, as
 * bun:sqlite binds it: Kontor's booleans are stored as 0 and 1 on both engines.
 */
import type { SQL } from "bun";

const INT8 = 20;
const NUMERIC = 1700;
const BOOL = 16;

type Column = { name: string; type: number };
type Result = unknown[] & { columns?: Column[] };

function decoderOf(type: number): ((value: unknown) => unknown) | null {
  if (type === INT8 || type === NUMERIC) return (value) => (value === null ? null : Number(value));
  if (type === BOOL) return (value) => (value === null ? null : value ? 1 : 0);
  return null;
}

/** Decodes rows of objects (`await client.unsafe(…)`) or of arrays (`.values()`), by the types of their columns. */
function decodeRows<R extends Result>(rows: R, asArrays: boolean): R {
  const columns = rows.columns;
  if (!columns || rows.length === 0) return rows;
  const decoded: [string | number, (value: unknown) => unknown][] = [];
  columns.forEach((column, index) => {
    const decode = decoderOf(column.type);
    if (decode) decoded.push([asArrays ? index : column.name, decode]);
  });
  if (decoded.length === 0) return rows;
  for (const row of rows as unknown as Record<string | number, unknown>[]) for (const [key, decode] of decoded) row[key] = decode(row[key]);
  return rows;
}

const asSqliteBinds = (value: unknown) => (typeof value === "boolean" ? (value ? 1 : 0) : value);

export type PostgresClient = Pick<SQL, "unsafe" | "begin" | "close" | "reserve"> & { readonly raw: SQL };

type Query = ReturnType<SQL["unsafe"]>;
const decodeObjects = (rows: unknown) => decodeRows(rows as Result, false);
const decodeArrays = (rows: unknown) => decodeRows(rows as Result, true);

/** A query whose rows, objects or arrays, are decoded when they arrive. */
function decodedQuery(query: Query): Query {
  return {
    then: (ok?: (rows: any) => unknown, fail?: (error: unknown) => unknown) => query.then(decodeObjects).then(ok, fail),
    catch: (fail: (error: unknown) => unknown) => query.then(decodeObjects).catch(fail),
    values: () => query.values().then(decodeArrays),
  } as unknown as Query;
}

/**
 * How the next transaction begins when its caller (drizzle) names nothing: read when `begin` is
 * called, so a unit sets it just before and clears it just after (db/postgres/connection.ts).
 */
export type BeginOptions = { next: string | undefined };

/** `client` (a pool, a transaction's connection or a savepoint's) reading values as SQLite would. */
export function decodingClient(client: SQL, beginOptions?: BeginOptions): PostgresClient {
  const wrapped = {
    raw: client,
    unsafe: (text: string, params?: unknown[]) => decodedQuery(client.unsafe(text, params?.map(asSqliteBinds) as any[])),
    begin: (...args: unknown[]) => {
      const work = args.at(-1) as (tx: PostgresClient) => unknown;
      const options = args.length > 1 ? args.slice(0, -1) : beginOptions?.next ? [beginOptions.next] : [];
      return (client.begin as any)(...options, (tx: SQL) => work(decodingClient(tx)));
    },
    savepoint: (...args: unknown[]) => {
      const work = args.at(-1) as (tx: PostgresClient) => unknown;
      return (client as any).savepoint(...args.slice(0, -1), (tx: SQL) => work(decodingClient(tx)));
    },
    close: (options?: { timeout?: number }) => client.close(options),
    reserve: () => client.reserve(),
  };
  return wrapped as unknown as PostgresClient;
}
