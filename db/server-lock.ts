/**
 * One `kontor serve` per SQLite file. Two servers on one file would each run the webhook worker,
 * the schedules and the upgrade, and a client could not tell which one answered. `kontor worker`
 * and the CLI take no such lock: they work beside the server, as docs/operations.md says.
 *
 * The lock is SQLite's own: a small file beside the database (`<database>.serve-lock`) in which
 * the server holds an exclusive transaction open for as long as it runs. The operating system
 * releases that lock when the process ends, however it ends: a server killed with `kill -9`
 * leaves the file but no lock, and the next start succeeds.
 */
import { Database } from "bun:sqlite";
import { chmodSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { liveHolders } from "./holders.ts";

/** A second server on a database another server already serves. */
export class DatabaseAlreadyServed extends Error {}

export const serveLockPath = (dbPath: string) => `${dbPath}.serve-lock`;

/** The locks this process holds: kept reachable, since a collected connection would let its lock go. */
const held = new Map<string, Database>();

/**
 * Takes the database's server lock, or throws DatabaseAlreadyServed naming the database (and the
 * other server's pid, when its holder file says it). The function returned lets go.
 */
export function lockDatabaseForServer(dbPath: string): () => void {
  if (dbPath === ":memory:") return () => {};
  const path = serveLockPath(dbPath);
  // the database's folder, as opening the database makes it (db/connection.ts): the lock is taken first
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const lock = new Database(path, { create: true });
  try {
    chmodSync(path, 0o600);
    // never wait: a lock held is another server, not a moment's contention
    lock.exec("PRAGMA busy_timeout = 0");
    lock.exec("CREATE TABLE IF NOT EXISTS server (pid INTEGER NOT NULL, started_at TEXT NOT NULL)");
    lock.exec("BEGIN EXCLUSIVE");
    // a write keeps the exclusive lock until the transaction ends, which only this process's end or letting go does
    lock.exec("DELETE FROM server");
    lock.run("INSERT INTO server (pid, started_at) VALUES (?, ?)", [process.pid, new Date().toISOString()]);
  } catch (error) {
    lock.close();
    if (!/locked|busy/i.test((error as Error).message)) throw error;
    const other = liveHolders(dbPath).find((h) => h.role === "serve");
    throw new DatabaseAlreadyServed(
      `Another kontor serve${other ? ` (pid ${other.pid})` : ""} already serves the database ${dbPath}: one server per SQLite file. ` +
        "Stop it first, or give this one another database (--db, KONTOR_DB); kontor worker and the CLI may run beside it.",
    );
  }
  held.set(path, lock);
  return () => {
    if (held.get(path) !== lock) return;
    held.delete(path);
    try {
      lock.exec("ROLLBACK");
    } finally {
      lock.close();
    }
  };
}
