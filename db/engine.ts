/**
 * Which database engine this process runs on: SQLite (a file, the default) or PostgreSQL
 * (`KONTOR_DATABASE_URL`). One engine per process: PostgreSQL's from the moment a PostgreSQL
 * database is opened (a SQLite file opened beside it, the source of `kontor db copy`, is read with
 * plain queries only), and SQL that must be written per engine asks for it when rendered
 * (docs/architecture.md#two-engines).
 */
import { type SQL, type SQLWrapper } from "drizzle-orm";

export type Engine = "sqlite" | "postgres";

let current: Engine = "sqlite";

/** The engine of this process's database. */
export function engine(): Engine {
  return current;
}

/** Set when a PostgreSQL database is opened (db/postgres/connection.ts). */
export function useEngine(value: Engine): void {
  current = value;
}

/**
 * SQL written once per engine: a fragment that renders as `sqlite()` or `postgres()` gives,
 * chosen when the query is rendered (so a query declared at import time is right on either).
 */
export function perEngine(spelled: { sqlite: () => SQL; postgres: () => SQL }): SQLWrapper {
  // rendered as written, not in parentheses of its own (an index expression keeps its spelling)
  return { getSQL: () => (current === "postgres" ? spelled.postgres() : spelled.sqlite()), shouldOmitSQLParens: () => true } as SQLWrapper;
}
