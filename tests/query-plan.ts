/**
 * Query plans of the SQL a request really runs: the statements drizzle prepares while the
 * request is handled are recorded, then explained on a second connection to the same file.
 * A list query must find its rows through an index and read them in index order: no full
 * scan of a table and no sort step ("TEMP B-TREE"), so it stays fast at a million rows.
 * These are SQLite's plans: on PostgreSQL `slowListSteps` checks only that the request answers,
 * and a test of `plansOf` is `sqliteOnly`.
 */
import { Database } from "bun:sqlite";
import type { TestEnv } from "./helpers.ts";
import { onPostgres } from "./raw-sql.ts";

/** The SELECT statements run by `work`, each with its query plan (one line per plan step). */
export async function plansOf(env: TestEnv, work: () => Promise<unknown>): Promise<{ sql: string; plan: string[] }[]> {
  if (onPostgres) throw new Error("plansOf explains SQLite's query plans: its test is sqliteOnly");
  const client = env.db.$client;
  const seen: string[] = [];
  // queries prepared before (db/statements.ts `prepared`) are prepared again, so they are seen
  env.db.connection.statements.clear();
  const prepare = client.prepare;
  client.prepare = function (this: Database, sql: string, ...rest: unknown[]) {
    seen.push(sql);
    return (prepare as (...args: unknown[]) => unknown).call(this, sql, ...rest);
  } as typeof client.prepare;
  try {
    await work();
  } finally {
    client.prepare = prepare;
  }
  // a connection without strict binding: unbound parameters are NULL, which planning ignores
  const reader = new Database(env.config.dbPath, { readonly: true });
  try {
    return seen
      .filter((sql) => /^\s*select/i.test(sql))
      .map((sql) => {
        const statement = reader.prepare(`EXPLAIN QUERY PLAN ${sql}`);
        const plan = (statement.all() as { detail: string }[]).map((row) => row.detail);
        statement.finalize();
        return { sql, plan };
      });
  } finally {
    reader.close();
  }
}

/** Plan steps that make a list slow on a big table: a full scan (FTS5 tables aside) or a sort. */
export function slowSteps(plan: string[]): string[] {
  return plan.filter((step) => (/^SCAN /.test(step) && !/VIRTUAL TABLE/.test(step)) || /TEMP B-TREE/.test(step));
}

/**
 * Requests `path` and returns the slow steps of every SELECT it ran against `table` (for a search:
 * its full scans). Columns in
 * `seekOn` must be constraints of the index search itself (a filter the index narrows to),
 * not conditions checked row by row while walking a wider range.
 */
export async function slowListSteps(env: TestEnv, table: string, path: string, token?: string, seekOn: string[] = []): Promise<string[]> {
  let status = 0;
  const request = async () => {
    status = (await env.api("GET", path, undefined, token)).status;
  };
  const plans = onPostgres ? (await request(), []) : await plansOf(env, request);
  if (status !== 200) return [`${path} answered ${status}`];
  if (onPostgres) return []; // SQLite's plans: PostgreSQL's planner is not held to them
  const onTable = plans.filter((p) => new RegExp(`from "${table}"`, "i").test(p.sql));
  if (onTable.length === 0) return [`${path} ran no SELECT on ${table}`];
  // a search's hits come from FTS5 unordered: sorting them (their keys, then the page's rows) is
  // the plan, so only a full scan is slow there
  const sorts = /[?&]search=/.test(path);
  return onTable.flatMap((p) => {
    const search = p.plan.find((step) => step.startsWith(`SEARCH ${table} `)) ?? "";
    const constraints = /\(([^)]*)\)\s*$/.exec(search)?.[1] ?? "";
    const unseeked = seekOn.filter((column) => !new RegExp(`\\b${column}[=<>]`).test(constraints));
    return [
      ...slowSteps(p.plan)
        .filter((step) => !(sorts && /TEMP B-TREE/.test(step)))
        .map((step) => `${path}: ${step}`),
      ...unseeked.map((column) => `${path}: ${column} is not an index constraint in "${search}"`),
    ];
  });
}
