/** Reading rows the same way on any engine. */

/**
 * The first row a query answers, or undefined: how a command reads one row, on any engine
 * (`await firstRow(tx.select().from(t).where(…))`). A query that may match many rows says which
 * one it wants with its order and `limit(1)`.
 */
export async function firstRow<Row>(query: PromiseLike<Row[]>): Promise<Row | undefined> {
  // SQLite's builders step the statement once instead of reading every row
  const single = (query as { get?: () => Row | undefined }).get;
  if (typeof single === "function") return single.call(query);
  return (await query)[0];
}

